"""Idempotent write plans (seed 002 phase 4): plan, save, read back, plant once, reconcile.

A plan fixes, before any store is touched, exactly which item goes to which
store under which operation key. Keys are derived from the window key, the
store and the item's content, so replaying a plan after a crash asks each
store "do you already hold key K?" instead of writing again. A write that
timed out is not proof that nothing was written: ``reconcile`` looks before
anything is retried.

Updating the matched item (seed 002 phase 4: new or restored messages update
the item they match; a new operation key is no reason for a new entity):

- before a window is planned, each store lists what it holds for the session
  (``held_items``); an item with the same ``item_identity`` as a new find is
  its match (one the validate gate has not taken yet is preferred);
- a find that adds nothing to its match (no new quote, no higher confidence)
  plans nothing, so nothing already planted is planted again;
- a pending match gets an *update* operation: the merged item (``merge_items``:
  quotes unioned, the earlier wording standing), under a key of its own, with
  the match's receipt as target. The target's digest is the one read now, so
  a replay tells done (the key is found), not done (the target still has that
  digest) and overtaken (neither) apart;
- an accepted match gets a *create* operation for the new find: a new inbox
  item, which the gate merges;
- an update that finds its target accepted or changed when it runs plants
  the merged item as a new item under the same key instead (``plant``): the
  gate merges it, and the key still finds exactly one thing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec

from dreamd.collect.pipeline import item_identity, merge_items
from dreamd.errors import StoreError, WriteUncertain
from dreamd.fswrite import atomic_write, private_folder
from dreamd.stores import HeldItem, MemoryItem, Receipt, Store, item_from_json, item_to_json

#: How long a plan no open window names is kept (what a crash right after a checkpoint,
#: or ``dreamd mcp``'s remember, leaves): a week, in seconds.
PLAN_RETENTION = 7 * 86400

__all__ = [
    "OpState",
    "Operation",
    "WritePlan",
    "held_items",
    "load_plan",
    "make_plan",
    "matched_item",
    "merge_finds",
    "operation_key",
    "operation_state",
    "plan_operation",
    "plant",
    "plant_once",
    "reconcile",
    "remove_plan",
    "save_plan",
    "sweep_plans",
    "update_key",
]

#: What a replay finds for one operation: written, still to do, or overtaken (the target of
#: an update changed or was accepted meanwhile: the replay plants the item as a new one).
OpState = Literal["done", "not-done", "overtaken"]


def operation_key(window_key: str, store: str, item: MemoryItem) -> str:
    """One store write's key: window, store and the item's identity (type, name, body)."""
    digest = hashlib.sha256(
        f"{window_key}\n{store}\n{item.type}\n{item.name}\n{item.body}".encode()
    )
    return digest.hexdigest()[:32]


def update_key(window_key: str, store: str, target: str, item: MemoryItem) -> str:
    """An update's key: window, store, the key of the item updated and what it will hold."""
    quotes = "".join(f"{q.message_id}\t{q.text}\n" for q in item.quotes)
    digest = hashlib.sha256(
        f"update\n{window_key}\n{store}\n{target}\n{item.body}\n{quotes}".encode()
    )
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Operation:
    """Write ``item`` to ``store`` under ``op_key``; with a ``target``, update that item."""

    store: str
    op_key: str
    item: MemoryItem
    target: Receipt | None = None  # the pending item to update, as read when planning


@dataclass(frozen=True, slots=True)
class WritePlan:
    """Every write of one window, fixed before the first one happens."""

    plan_id: str
    window_key: str
    session: str  # tool:id
    operations: tuple[Operation, ...]


def merge_finds(items: Iterable[MemoryItem]) -> list[MemoryItem]:
    """One item per identity, in first-seen order: repeated finds merged (``merge_items``)."""
    merged: dict[tuple[str, str, str, str], MemoryItem] = {}
    for item in items:
        key = item_identity(item)
        merged[key] = merge_items(merged[key], item) if key in merged else item
    return list(merged.values())


def matched_item(held: Sequence[HeldItem], item: MemoryItem) -> HeldItem | None:
    """The held item ``item`` restates: same identity, a pending one first, else the first."""
    same = [h for h in held if item_identity(h.item) == item_identity(item)]
    return next((h for h in same if h.pending), same[0] if same else None)


def plan_operation(
    window_key: str, store: str, item: MemoryItem, held: Sequence[HeldItem]
) -> Operation | None:
    """The one operation ``item`` needs in ``store``, given what the store holds for its session.

    None when the match already holds everything the find adds; an update of
    a pending match; a new item otherwise (no match, or the gate took it).
    """
    match = matched_item(held, item)
    if match is None:
        return Operation(store, operation_key(window_key, store, item), item)
    merged = merge_items(match.item, item)
    if merged == match.item:
        return None
    if not match.pending:
        return Operation(store, operation_key(window_key, store, item), item)
    key = update_key(window_key, store, match.receipt.op_key, merged)
    return Operation(store, key, merged, target=match.receipt)


def make_plan(
    window_key: str,
    session: str,
    items: Sequence[MemoryItem],
    stores: Sequence[str],
    held: Mapping[str, Sequence[HeldItem]] | None = None,
) -> WritePlan:
    """The plan for a window's (already secret-filtered) items, at most one operation per store.

    ``held`` is what each store holds for the session (``held_items``); without
    it every item is new.
    """
    held = held or {}
    planned = (
        plan_operation(window_key, store, item, held.get(store, ()))
        for item in merge_finds(items)
        for store in stores
    )
    operations = tuple(op for op in planned if op is not None)
    plan_id = hashlib.sha256(
        (window_key + "".join(op.op_key for op in operations)).encode()
    ).hexdigest()[:24]
    return WritePlan(plan_id, window_key, session, operations)


# --------------------------------------------------------------- persistence


def _item_from(raw: object) -> MemoryItem:
    item = item_from_json(raw)
    if item is None:
        raise ValueError("a write plan holds an operation whose item is not a valid item")
    return item


def plan_bytes(plan: WritePlan) -> bytes:
    """The plan as canonical JSON."""
    document = {
        "plan_id": plan.plan_id,
        "window_key": plan.window_key,
        "session": plan.session,
        "operations": [_operation_json(op) for op in plan.operations],
    }
    return msgspec.json.encode(document)


def _operation_json(op: Operation) -> dict[str, Any]:
    item = item_to_json(op.item)
    document: dict[str, Any] = {"store": op.store, "op_key": op.op_key, "item": item}
    if op.target is not None:
        target = op.target
        document["target"] = [target.store, target.op_key, target.location, target.digest]
    return document


def _operation_from(raw: Mapping[str, Any]) -> Operation:
    target = raw.get("target")
    return Operation(
        raw["store"],
        raw["op_key"],
        _item_from(raw["item"]),
        Receipt(*(str(part) for part in target)) if target else None,
    )


def save_plan(directory: Path, plan: WritePlan) -> Path:
    """Write the plan atomically and read it back; raises ``StoreError`` if it differs."""
    private_folder(directory)
    path = directory / f"{plan.plan_id}.json"
    data = plan_bytes(plan)
    atomic_write(path, data)
    if path.read_bytes() != data or load_plan(path) != plan:
        raise StoreError(f"write plan {path} did not read back as written")
    return path


def remove_plan(directory: Path, plan_id: str) -> None:
    """Delete the plan of a checkpointed window: it is never replayed again (seed 002)."""
    (directory / f"{plan_id}.json").unlink(missing_ok=True)


def sweep_plans(directory: Path, keep: Iterable[str], *, now: float) -> int:
    """Remove plans older than ``PLAN_RETENTION`` that no open window (``keep``) names."""
    kept = {f"{plan_id}.json" for plan_id in keep}
    removed = 0
    for path in directory.glob("*.json") if directory.is_dir() else ():
        with suppress(FileNotFoundError):
            if path.name not in kept and path.lstat().st_mtime < now - PLAN_RETENTION:
                path.unlink()
                removed += 1
    return removed


def load_plan(path: Path) -> WritePlan:
    """A saved plan."""
    raw = msgspec.json.decode(path.read_bytes())
    operations = tuple(_operation_from(op) for op in raw["operations"])
    return WritePlan(raw["plan_id"], raw["window_key"], raw["session"], operations)


# --------------------------------------------------------------- planting


def plant_once(store: Store, op_key: str, item: MemoryItem) -> Receipt:
    """Seed 002 ``plantOnce``: find by key, else write, then read back.

    Raises ``WriteUncertain`` when the store cannot confirm the write: the
    caller must reconcile before it tries again, never write blindly.
    """
    existing = store.find(op_key)
    if existing is not None and store.verify(existing, op_key):
        return existing
    try:
        receipt = store.write(op_key, item)
    except WriteUncertain:
        raise
    except StoreError as error:
        raise WriteUncertain(f"{store.name}: write of {op_key} failed: {error}") from error
    confirmed = store.find(op_key)
    if confirmed is None or not store.verify(confirmed, op_key):
        raise WriteUncertain(f"{store.name}: write of {op_key} could not be read back")
    return receipt


def held_items(stores: Mapping[str, Store], source: str) -> dict[str, list[HeldItem]]:
    """What each store holds for one session (``source:<tool>:<machine>:<session>``)."""
    return {name: store.items_from(source) for name, store in stores.items()}


def plant(store: Store, op: Operation) -> Receipt:
    """Carry out one planned operation exactly once: ``plant_once``, or the update it names.

    An update found under its key is done. Otherwise the store rewrites the
    target if it is still pending and unchanged; if not (the gate took it, or
    it changed), the merged item is planted as a new item under the same key.
    Raises ``WriteUncertain`` when the result cannot be confirmed.
    """
    if op.target is None:
        return plant_once(store, op.op_key, op.item)
    existing = store.find(op.op_key)
    if existing is not None and store.verify(existing, op.op_key):
        return existing
    try:
        receipt = store.update(op.op_key, op.target, op.item)
    except WriteUncertain:
        raise
    except StoreError as error:
        raise WriteUncertain(f"{store.name}: update {op.op_key} failed: {error}") from error
    if receipt is None:
        return plant_once(store, op.op_key, op.item)
    confirmed = store.find(op.op_key)
    if confirmed is None or not store.verify(confirmed, op.op_key):
        raise WriteUncertain(f"{store.name}: update {op.op_key} could not be read back")
    return confirmed


def operation_state(store: Store, op: Operation) -> OpState:
    """Whether ``op`` is done, still to do, or overtaken (an update whose target moved on).

    Done: the store holds something under the key. Not done: nothing under
    the key and, for an update, the target still at the digest the plan
    recorded (``plant`` will rewrite it). Overtaken: nothing under the key and
    the target changed, was accepted or is gone (``plant`` will plant anew).
    """
    found = store.find(op.op_key)
    if found is not None and store.verify(found, op.op_key):
        return "done"
    if op.target is None:
        return "not-done"
    pending = {h.receipt for h in store.items_from(op.item.source) if h.pending}
    return "not-done" if op.target in pending else "overtaken"


def reconcile(plan: WritePlan, stores: Mapping[str, Store]) -> dict[str, Receipt | None]:
    """Seed 002 ``reconcileWindow``: for each operation, the receipt found or None (absent)."""
    found: dict[str, Receipt | None] = {}
    for op in plan.operations:
        store = stores.get(op.store)
        receipt = store.find(op.op_key) if store is not None else None
        found[op.op_key] = (
            receipt if receipt and store and store.verify(receipt, op.op_key) else None
        )
    return found
