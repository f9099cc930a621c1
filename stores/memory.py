"""An in-memory store for unit tests, meeting the store contract honestly.

It keeps every ``MemoryItem`` field, is idempotent per operation key, and
``verify`` compares the item it holds now with the digest taken at write
time (or at the store's own last update), so a test that edits ``items`` sees
tampering detected exactly as on a real store. Nothing survives the process:
it has no crash behaviour to test.

``items`` is keyed by the key an item was planted under; an ``update`` key is
an alias of that key (``aliases``). Every item is pending until a test marks
it accepted (``accept``, standing in for the validate gate).

``item_digest`` is the canonical digest of an item under its operation key,
shared by stores that keep fields rather than bytes (the SQL store).
"""

from __future__ import annotations

import dataclasses
import json

from dreamd.errors import StoreError
from dreamd.fs import digest

from ._codec import item_to_json
from ._item import MemoryItem, Receipt
from ._protocol import Capabilities, HeldItem, KnownMemory

__all__ = ["ITEM_FIELDS", "MemoryStore", "item_digest", "known_memory"]

#: Every field of ``MemoryItem``: what a store that keeps everything declares.
ITEM_FIELDS: frozenset[str] = frozenset(field.name for field in dataclasses.fields(MemoryItem))


def item_digest(op_key: str, item: MemoryItem) -> str:
    """Hex SHA-256 of a canonical JSON form of ``item`` and ``op_key``.

    Canonical: sorted keys, dates in ISO form, quotes as ``[message_id, text]``
    pairs in order, so equal items under one key always give one digest.
    """
    fields = {"op_key": op_key, **item_to_json(item)}
    encoded = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return digest(encoded.encode("utf-8"))


def known_memory(item: MemoryItem, *, pending: bool) -> KnownMemory:
    """An item as the match step reads it."""
    return KnownMemory(
        item.name, item.type, item.category, item.description, item.body, item.source, pending
    )


class MemoryStore:
    """A store held in a dict: ``items`` maps operation keys to the items written under them."""

    def __init__(self, label: str = "test") -> None:
        self._name = f"memory:{label}"
        self.items: dict[str, MemoryItem] = {}
        self.aliases: dict[str, str] = {}  # update key -> the key the item was planted under
        self.accepted: set[str] = set()  # planting keys the "gate" accepted
        self._receipts: dict[str, Receipt] = {}

    @property
    def name(self) -> str:
        """``memory:<label>``."""
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        """Every item field; no trash, index or sharing."""
        return Capabilities(fields=ITEM_FIELDS)

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the item written or updated under ``op_key``, or None."""
        if self.aliases.get(op_key, op_key) not in self.items:
            return None
        return self._receipts[op_key]

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Keep ``item`` under ``op_key``; a second write of the key returns the first receipt."""
        existing = self.find(op_key)
        if existing is not None:
            return existing
        location = f"item/{len(self.items) + 1}"
        receipt = Receipt(self.name, op_key, location, item_digest(op_key, item))
        self.items[op_key] = item
        self._receipts[op_key] = receipt
        return receipt

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the item under ``op_key`` is still the one ``receipt`` was issued for."""
        planted = self.aliases.get(op_key, op_key)
        item = self.items.get(planted)
        known = self._receipts.get(op_key)
        if item is None or known is None or receipt.op_key != op_key:
            return False
        if (receipt.store, receipt.location) != (self.name, known.location):
            return False
        return item_digest(planted, item) == receipt.digest

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item ``receipt`` points at, as held now (None when it is gone)."""
        known = self._receipts.get(receipt.op_key)
        if known is None or known.location != receipt.location:
            return None
        return self.items.get(self.aliases.get(receipt.op_key, receipt.op_key))

    def items_from(self, source: str) -> list[HeldItem]:
        """Items tagged ``source``, in planting order; pending unless ``accept``ed."""
        return [
            HeldItem(self._receipt_now(key), item, key not in self.accepted)
            for key, item in self.items.items()
            if item.source == source
        ]

    def memories_of(self, project: str, *, limit: int) -> list[KnownMemory]:
        """Items of ``project``, newest planted first (``ProjectMemories``)."""
        found = [
            known_memory(item, pending=key not in self.accepted)
            for key, item in reversed(self.items.items())
            if item.project == project
        ]
        return found[:limit]

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the pending item ``target`` names; None when accepted, gone or changed."""
        existing = self.find(op_key)
        if existing is not None:
            return existing
        current = self.items.get(target.op_key)
        known = self._receipts.get(target.op_key)
        if current is None or known is None or target.op_key in self.accepted:
            return None
        if known.location != target.location or self._receipt_now(target.op_key) != target:
            return None
        if (item.source, item.type, item.name) != (current.source, current.type, current.name):
            raise StoreError(f"an update cannot change what item {current.name!r} is")
        self.items[target.op_key] = item
        self._receipts[target.op_key] = self._receipt_now(target.op_key)
        self.aliases[op_key] = target.op_key
        receipt = Receipt(self.name, op_key, target.location, item_digest(target.op_key, item))
        self._receipts[op_key] = receipt
        return receipt

    def accept(self, op_key: str) -> None:
        """Mark the item planted under ``op_key`` accepted (what the validate gate would do)."""
        self.accepted.add(self.aliases.get(op_key, op_key))

    def _receipt_now(self, key: str) -> Receipt:
        """The receipt of planting key ``key`` for the item as it is held now."""
        return Receipt(
            self.name, key, self._receipts[key].location, item_digest(key, self.items[key])
        )
