"""Idempotent write plans (seed 002 phase 4): plan, save, read back, plant once, reconcile.

A plan fixes, before any store is touched, exactly which item goes to which
store under which operation key. Keys are derived from the window key, the
store and the item's content, so replaying a plan after a crash asks each
store "do you already hold key K?" instead of writing again. A write that
timed out is not proof that nothing was written: ``reconcile`` looks before
anything is retried.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from dreamd.errors import StoreError, WriteUncertain
from dreamd.stores import MemoryItem, Quote, Receipt, Store

__all__ = [
    "Operation",
    "WritePlan",
    "load_plan",
    "make_plan",
    "operation_key",
    "plant_once",
    "reconcile",
    "save_plan",
]


def operation_key(window_key: str, store: str, item: MemoryItem) -> str:
    """One store write's key: window, store and the item's identity (type, name, body)."""
    digest = hashlib.sha256(
        f"{window_key}\n{store}\n{item.type}\n{item.name}\n{item.body}".encode()
    )
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Operation:
    """Write ``item`` to ``store`` under ``op_key``."""

    store: str
    op_key: str
    item: MemoryItem


@dataclass(frozen=True, slots=True)
class WritePlan:
    """Every write of one window, fixed before the first one happens."""

    plan_id: str
    window_key: str
    session: str  # tool:id
    operations: tuple[Operation, ...]


def make_plan(
    window_key: str, session: str, items: Sequence[MemoryItem], stores: Sequence[str]
) -> WritePlan:
    """The plan for a window's (already secret-filtered) items, one operation per store."""
    operations = tuple(
        Operation(store, operation_key(window_key, store, item), item)
        for item in items
        for store in stores
    )
    plan_id = hashlib.sha256(
        (window_key + "".join(op.op_key for op in operations)).encode()
    ).hexdigest()[:24]
    return WritePlan(plan_id, window_key, session, operations)


# --------------------------------------------------------------- persistence


def _item_json(item: MemoryItem) -> dict[str, Any]:
    return {
        "type": item.type,
        "category": item.category,
        "name": item.name,
        "description": item.description,
        "body": item.body,
        "confidence": item.confidence,
        "source": item.source,
        "collected": item.collected.isoformat(),
        "project": item.project,
        "quotes": [[q.message_id, q.text] for q in item.quotes],
    }


def _item_from(raw: Mapping[str, Any]) -> MemoryItem:
    return MemoryItem(
        type=raw["type"],
        category=raw["category"],
        name=raw["name"],
        description=raw["description"],
        body=raw["body"],
        confidence=float(raw["confidence"]),
        source=raw["source"],
        collected=date.fromisoformat(raw["collected"]),
        project=raw.get("project"),
        quotes=tuple(Quote(mid, text) for mid, text in raw.get("quotes", [])),
    )


def plan_bytes(plan: WritePlan) -> bytes:
    """The plan as canonical JSON."""
    document = {
        "plan_id": plan.plan_id,
        "window_key": plan.window_key,
        "session": plan.session,
        "operations": [
            {"store": op.store, "op_key": op.op_key, "item": _item_json(op.item)}
            for op in plan.operations
        ],
    }
    return msgspec.json.encode(document)


def save_plan(directory: Path, plan: WritePlan) -> Path:
    """Write the plan atomically and read it back; raises ``StoreError`` if it differs."""
    from dreamd.dream.execute import atomic_write

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{plan.plan_id}.json"
    data = plan_bytes(plan)
    atomic_write(path, data)
    if path.read_bytes() != data or load_plan(path) != plan:
        raise StoreError(f"write plan {path} did not read back as written")
    return path


def load_plan(path: Path) -> WritePlan:
    """A saved plan."""
    raw = msgspec.json.decode(path.read_bytes())
    operations = tuple(
        Operation(op["store"], op["op_key"], _item_from(op["item"])) for op in raw["operations"]
    )
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
