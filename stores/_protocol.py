"""The contract every memory store meets (the collector only adds; it never deletes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ._item import MemoryItem, Receipt

__all__ = ["Capabilities", "Store"]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a store can hold. The collector drops fields a store cannot hold; it never
    invents a place for them."""

    fields: frozenset[str]  # MemoryItem field names the store keeps
    trash: bool = False  # rejected items can be moved aside instead of deleted
    index: bool = False  # the store maintains an index the dream rebuilds
    shared: bool = False  # several hosts may write to it at once


class Store(Protocol):
    """A memory store adapter. Driver errors surface as ``StoreError`` subclasses."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the item written under ``op_key``, or None if there is none."""
        ...

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Store ``item`` under ``op_key`` (atomically); writing the same key twice keeps one."""
        ...

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the store still holds, unchanged, what ``receipt`` says was written."""
        ...
