"""What the collector plants: one memory item with its provenance, and a store's receipt.

Invariants (checked on construction):

- every item names its source as ``source:<tool>:<machine>:<session>`` and
  its collection day; quotes cite fully qualified message ids
  ``<tool>:<machine>:<session>:<message>``;
- ``type`` is one of the four memory types; ``confidence`` is in [0, 1].
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

__all__ = ["ITEM_TYPES", "ItemType", "MemoryItem", "Quote", "Receipt"]

ItemType = Literal["user", "feedback", "project", "reference"]
ITEM_TYPES: frozenset[str] = frozenset({"user", "feedback", "project", "reference"})

_SOURCE = re.compile(r"^source:[a-z0-9-]+:[^:\s]+:[^:\s]+$")
_MESSAGE_ID = re.compile(r"^[a-z0-9-]+:[^:\s]+:[^:\s]+:[^\s]+$")


@dataclass(frozen=True, slots=True)
class Quote:
    """A verbatim excerpt and the fully qualified id of the message it comes from."""

    message_id: str
    text: str

    def __post_init__(self) -> None:
        if not _MESSAGE_ID.match(self.message_id):
            raise ValueError(f"quote cites {self.message_id!r}, not tool:machine:session:message")


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """One durable thing worth remembering, ready for any store.

    ``category`` is the extraction pipeline's topic category (``Preference``,
    ``Decision``, ``Gotcha``, ``Reference``, ``Technical``, ``Person``,
    ``Event``, ``Fact``); ``name`` is a short slug-like title; ``description``
    one line; ``body`` the memory itself.
    """

    type: ItemType
    category: str
    name: str
    description: str
    body: str
    confidence: float
    source: str
    collected: date
    quotes: tuple[Quote, ...] = field(default=())
    project: str | None = None

    def __post_init__(self) -> None:
        if self.type not in ITEM_TYPES:
            raise ValueError(f"type must be one of {sorted(ITEM_TYPES)}, got {self.type!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be within [0, 1], got {self.confidence}")
        if not _SOURCE.match(self.source):
            raise ValueError(f"source {self.source!r} is not source:<tool>:<machine>:<session>")
        if not self.name.strip() or not self.body.strip():
            raise ValueError("an item needs a name and a body")

    @property
    def tags(self) -> tuple[str, str]:
        """The two provenance tags every stored item carries."""
        return self.source, f"collected:{self.collected.isoformat()}"


@dataclass(frozen=True, slots=True)
class Receipt:
    """Proof that a store holds the item written under ``op_key``, and where."""

    store: str
    op_key: str
    location: str
    digest: str
