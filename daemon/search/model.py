"""What a search finds: memories as every store hands them back, hits, and what failed. Pure.

A ``Memory`` is one item as read from one store, whatever its format: the
fields a store does not hold are None or empty (a memory Claude Code wrote
itself has no quotes; a graph entity no collection day). Its ``id`` is
``<store kind>:<locator>`` and is what ``get`` takes back (see each adapter
for its locator); ``status`` is ``accepted`` (the validate gate took it, or
the store has no gate), ``pending`` (waiting for the gate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from dreamd.search.query import Query, positions, words
from dreamd.stores import MemoryItem

__all__ = [
    "Filter",
    "Hit",
    "Memory",
    "Outcome",
    "Searchable",
    "StoreFailure",
    "from_item",
    "matches",
    "under",
]


def under(project: str | None, wanted: str) -> bool:
    """Whether ``project`` is the directory ``wanted`` or lies inside it."""
    if project is None:
        return False
    base = wanted.rstrip("/") or "/"
    return project == base or project.startswith(base.rstrip("/") + "/")


@dataclass(frozen=True, slots=True)
class Filter:
    """Which memories a search or listing returns: a project (and below), a type or category."""

    project: str | None = None
    kind: str | None = None

    def admits(self, memory: Memory) -> bool:
        """Whether ``memory`` passes the filter."""
        if self.project is not None and not under(memory.project, self.project):
            return False
        if self.kind is not None:
            kind = self.kind.casefold()
            category = (memory.category or "").casefold()
            return memory.type == kind or category == kind
        return True


@dataclass(frozen=True, slots=True)
class Memory:
    """One memory as a store holds it, with its provenance (see the module docstring)."""

    id: str
    store: str
    location: str
    title: str
    description: str
    body: str
    type: str | None = None
    category: str | None = None
    project: str | None = None
    source: str | None = None  # source:<tool>:<machine>:<session>
    session: str | None = None  # <tool>:<machine>:<session>, or the bare id a store records
    collected: date | None = None
    quotes: tuple[tuple[str, str], ...] = ()  # (fully qualified message id, text)
    status: str = "accepted"
    changed: datetime | None = None  # when the store last wrote it, where it knows

    def __post_init__(self) -> None:
        if self.session is None and self.source and self.source.startswith("source:"):
            object.__setattr__(self, "session", self.source.removeprefix("source:"))

    def to_json(self, *, full: bool = False) -> dict[str, Any]:
        """The memory as JSON; ``full`` adds the body and the quotes."""
        document: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "kind": self.type,
            "category": self.category,
            "project": self.project,
            "source": self.source,
            "session": self.session,
            "collected": self.collected.isoformat() if self.collected else None,
            "status": self.status,
            "store": self.store,
            "location": self.location,
        }
        if full:
            document["body"] = self.body
            document["quotes"] = [{"message": m, "text": t} for m, t in self.quotes]
            document["changed"] = self.changed.isoformat() if self.changed else None
        return document


@dataclass(frozen=True, slots=True)
class Hit:
    """A memory a search found and its score (higher is better; comparable across stores).

    ``also``: the ids of the same item (same source, title and body) in other stores.
    """

    memory: Memory
    score: float
    also: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**self.memory.to_json(), "score": round(self.score, 4), "also": list(self.also)}


@dataclass(frozen=True, slots=True)
class StoreFailure:
    """A store that could not answer, and why (the others still did)."""

    store: str
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a search, listing or look-up returns: memories (or hits) and the stores that failed."""

    hits: tuple[Hit, ...] = ()
    failures: tuple[StoreFailure, ...] = ()
    stores: tuple[str, ...] = field(default=())  # every store asked


class Searchable(Protocol):
    """One store as the read path sees it (``dreamd.search.adapters``)."""

    @property
    def name(self) -> str: ...

    def candidates(self, query: Query, where: Filter, limit: int) -> Sequence[Memory]:
        """Memories matching ``query`` and ``where``: at least the store's best ``limit``."""
        ...

    def get(self, locator: str) -> Memory | None:
        """The memory whose id is ``<kind>:<locator>`` in this store, if it holds one."""
        ...

    def recent(self, where: Filter, limit: int) -> Sequence[Memory]:
        """The ``limit`` memories changed last (newest first)."""
        ...


def from_item(
    item: MemoryItem,
    *,
    id: str,
    store: str,
    location: str,
    status: str,
    changed: datetime | None = None,
) -> Memory:
    """A ``Memory`` for an item a store holds whole (every collected field)."""
    return Memory(
        id=id,
        store=store,
        location=location,
        title=item.name,
        description=item.description,
        body=item.body,
        type=item.type,
        category=item.category,
        project=item.project,
        source=item.source,
        collected=item.collected,
        quotes=tuple((q.message_id, q.text) for q in item.quotes),
        status=status,
        changed=changed,
    )


def matches(query: Query, memory: Memory) -> bool:
    """Whether the words of the memory's title, description and body match ``query``."""
    text = f"{memory.title}\n{memory.description}\n{memory.body}"
    return query.matches(positions(words(text)))
