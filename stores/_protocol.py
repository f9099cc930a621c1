"""The contract every memory store meets (the collector only adds; it never deletes).

Five operations, all keyed by *operation keys* (one per planned store write):

- ``find(op_key)`` / ``verify(receipt, op_key)``: is what the key planted held, unchanged?
- ``write(op_key, item)``: plant a new item (idempotent per key);
- ``items_from(source)``: every item the store holds that is tagged with one
  session's ``source:<tool>:<machine>:<session>``, and whether each one still
  awaits the gardener's validate gate (``HeldItem.pending``);
- ``update(op_key, target, item)``: rewrite one *pending* item the collector
  planted (a later window restated it), recording ``op_key`` on it.

Rules of ``update`` every adapter keeps (tests/stores/test_contract.py checks them):

- only an item the gate has not accepted yet is ever rewritten (an ``.inbox/``
  file, a SQL row with status ``new``, an in-memory item not marked accepted);
  an accepted, changed or vanished target is left alone and ``update`` returns
  None, having written nothing;
- the rewrite is atomic (temp file and rename, one transaction): a crash
  leaves the old item or the new one, never a mix;
- the target is compared with the digest the caller read (``target.digest``)
  inside the same lock or transaction as the write, so a concurrent change is
  never overwritten;
- afterwards ``find(op_key)`` returns a receipt for the target's location that
  verifies, and ``find(target.op_key)`` still finds the item: both keys name
  it. A second ``update`` (or a ``write``) under an applied key changes nothing
  and returns that receipt, so replaying a plan is a no-op.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ._item import MemoryItem, Receipt

__all__ = [
    "Capabilities",
    "HeldItem",
    "KnownMemory",
    "Planning",
    "ProjectMemories",
    "Store",
    "project_memories",
]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a store can hold. The collector drops fields a store cannot hold; it never
    invents a place for them."""

    fields: frozenset[str]  # MemoryItem field names the store keeps
    trash: bool = False  # rejected items can be moved aside instead of deleted
    index: bool = False  # the store maintains an index the dream rebuilds
    shared: bool = False  # several hosts may write to it at once


@dataclass(frozen=True, slots=True)
class HeldItem:
    """One item a store holds for a session, as ``Store.items_from`` lists it.

    ``receipt`` is issued for the key the item was first planted under (its
    digest is the item as it is now: pass it to ``update`` as the target);
    ``pending`` is True while the validate gate has not accepted it, i.e. while
    the collector may still ``update`` it.
    """

    receipt: Receipt
    item: MemoryItem
    pending: bool


class Store(Protocol):
    """A memory store adapter. Driver errors surface as ``StoreError`` subclasses."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the item written (or updated) under ``op_key``, or None if none."""
        ...

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Store ``item`` under ``op_key`` (atomically); writing the same key twice keeps one."""
        ...

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the store still holds, unchanged, what ``receipt`` says was written."""
        ...

    def items_from(self, source: str) -> list[HeldItem]:
        """Every readable item tagged ``source`` (one session), in a stable order.

        Writes no item (an adapter may create its empty table, as ``find`` may).
        """
        ...

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the pending item ``target`` names as ``item``, recording ``op_key`` on it.

        ``item`` keeps the target's source, type and name (else ``StoreError``).
        Returns the receipt for ``op_key``; None, writing nothing, when the target
        is accepted, gone, or no longer matches ``target.digest``. Raises
        ``WriteUncertain`` when the rewrite may or may not have happened.
        """
        ...


@dataclass(frozen=True, slots=True)
class KnownMemory:
    """A memory a store holds for a project, as the collector's match step compares with it.

    ``category`` is the pipeline's category when the store knows it, else
    empty; ``source`` is the session tag it came from, when it has one (a
    memory the agent wrote itself has none); ``pending``: the validate gate
    has not taken it yet.
    """

    name: str
    type: str
    category: str
    description: str
    body: str
    source: str | None
    pending: bool


@runtime_checkable
class ProjectMemories(Protocol):
    """An optional read a store may offer beside ``Store``: what it holds for one project.

    The contract (``tests/stores/test_project_memories.py`` checks it on
    every adapter that offers it):

    - reads only: nothing is written, created or locked;
    - every memory the store holds for ``project`` (accepted and pending,
      whichever session or tool wrote it), never one of another project, nor
      one the validate gate rejected or merged away;
    - newest first, at most ``limit``; unreadable entries are skipped.
    """

    def memories_of(self, project: str, *, limit: int) -> list[KnownMemory]:
        """Up to ``limit`` memories held for ``project``, newest first."""
        ...


@runtime_checkable
class Planning(Protocol):
    """An optional block a store may offer beside ``Store``: the look-ups of one plan share
    one look at the store (a memory folder is listed once, not at every ``find``).

    Inside it, answers are those of the store as it was at the block's first
    look-up plus the block's own writes; ``write`` and ``update`` still see
    every other writer's item under their lock. Outside it, nothing changes.
    """

    def planning(self) -> AbstractContextManager[None]:
        """The block (blocks may nest; the outermost one ends the shared look)."""
        ...


def project_memories(store: object, project: str | None, limit: int) -> list[KnownMemory]:
    """What ``store`` holds for ``project`` if it offers ``ProjectMemories``, else nothing."""
    if project is None or limit <= 0 or not isinstance(store, ProjectMemories):
        return []
    return store.memories_of(project, limit=limit)
