"""The two one-file stores on the read path: a sectioned ``MEMORY.md`` and a knowledge graph.

Each shows its memories in one file and holds new ones beside it
(``stores._heldfile``); both are read, read-only, links refused:

- ``MEMORY.md`` (seed 003): every bullet entry is a memory (status
  ``accepted``), its section the category, its ``[session]`` tag the session;
  an entry dreamd planted finds its item, quotes and provenance in the ledger
  ``MEMORY.sources.md`` through the keys its ``dreamd:op`` comment lists. The
  records of ``MEMORY.inbox.md`` are ``pending`` memories.
- The graph JSONL (the MCP memory server's file): every entity is a memory
  (title its name, category its entity type, body its observations); an
  entity dreamd wrote carries a provenance observation and finds its quotes
  in the ledger ``memory.sources.jsonl``. Pending lines of
  ``memory.inbox.jsonl`` are ``pending`` memories. Relations are not memories.

Ids: ``memory-md:<absolute file>#<first 16 hex of the entry's SHA-256>`` and
``graph:<absolute file>#<… of the line's>``; ``get`` reads the file again and
answers for the entry or line with that digest (a changed entry is a new id).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

from dreamd.errors import StoreError
from dreamd.fs import read_if_present
from dreamd.search.model import Filter, Memory, from_item, matches
from dreamd.search.query import Query
from dreamd.stores import MemoryItem
from dreamd.stores.graph_jsonl import (
    PROVENANCE_PREFIX,
    GraphStore,
    parse_graph,
    parse_pending,
    split_lines,
)
from dreamd.stores.memory_md import MemoryMdStore, decode, parse_records
from dreamd.stores.sectioned import entries, entry_words_text

__all__ = ["GraphSearch", "MemoryMdSearch"]

#: Files larger than this are not read (the stores' own caps are larger; a search stays light).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Words of an entry that make its title when the ledger names none.
TITLE_WORDS = 8


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _read(path: Path) -> bytes:
    try:
        return read_if_present(path, max_bytes=MAX_FILE_BYTES) or b""
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror or error}") from error


def _changed(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None


class _FileSearch:
    """What both adapters share: filter, look-up by id, newest first (by file, then order)."""

    KIND = ""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def name(self) -> str:
        return f"{self.KIND}:{self.path}"

    def memories(self) -> Iterator[Memory]:
        raise NotImplementedError

    def candidates(self, query: Query, where: Filter, limit: int) -> list[Memory]:
        if query.empty:
            return []
        return [m for m in self.memories() if where.admits(m) and matches(query, m)]

    def get(self, id: str) -> Memory | None:
        if not id.startswith(f"{self.KIND}:"):
            return None
        return next((m for m in self.memories() if m.id == id), None)

    def recent(self, where: Filter, limit: int) -> list[Memory]:
        found = [m for m in self.memories() if where.admits(m)]
        # Later entries and lines are the newer ones; pending ones are the newest.
        found.reverse()
        found.sort(key=lambda m: m.status != "pending")
        return found[:limit]

    def _id(self, file: Path, raw: bytes) -> str:
        return f"{self.KIND}:{file}#{_digest(raw)}"


class MemoryMdSearch(_FileSearch):
    """A sectioned ``MEMORY.md`` as the read path sees it (``Searchable``)."""

    KIND = "memory-md"

    def __init__(self, store: MemoryMdStore) -> None:
        super().__init__(store.path)
        self.store = store

    def memories(self) -> Iterator[Memory]:
        store = self.store
        ledger = {
            key: record.item
            for record in parse_records(decode(_read(store.ledger_path)))
            if record.item is not None
            for key in record.keys
        }
        shown = decode(_read(store.path))
        changed = _changed(store.path)
        for entry in entries(shown):
            raw = entry.text.encode("utf-8", "surrogateescape")
            item = next((ledger[k] for k in entry.tail.op_keys if k in ledger), None)
            yield self._entry(entry.section, entry_words_text(entry), entry.tail.tags, raw, item,
                              changed)  # fmt: skip
        held = store.holding_path
        for record in parse_records(decode(_read(held))):
            if record.item is not None:
                yield from_item(
                    record.item,
                    id=self._id(held, record.raw),
                    store=self.name,
                    location=f"{held.name}#{_digest(record.raw)}",
                    status="pending",
                    changed=_changed(held),
                )

    def _entry(
        self,
        section: str | None,
        words_text: str,
        tags: tuple[str, ...],
        raw: bytes,
        item: MemoryItem | None,
        changed: datetime | None,
    ) -> Memory:
        text = " ".join(words_text.split())
        location = f"{self.path.name}#{_digest(raw)}"
        if item is not None:
            # The ledger keeps the item whole (an entry is cut at 400 characters).
            return from_item(
                item, id=self._id(self.path, raw), store=self.name, location=location,
                status="accepted", changed=changed,
            )  # fmt: skip
        title = " ".join(text.split()[:TITLE_WORDS])
        return Memory(
            id=self._id(self.path, raw),
            store=self.name,
            location=location,
            title=title,
            description="",
            body=text,
            category=section,
            session=tags[0] if tags else None,
            changed=changed,
        )


class GraphSearch(_FileSearch):
    """A knowledge-graph JSONL file as the read path sees it (``Searchable``)."""

    KIND = "graph"

    def __init__(self, store: GraphStore) -> None:
        super().__init__(store.path)
        self.store = store

    def memories(self) -> Iterator[Memory]:
        store = self.store
        ledger = {}
        for raw in split_lines(_read(store.ledger_path)):
            pending = parse_pending(raw)
            for key in pending.keys:
                if pending.item is not None:
                    ledger[key] = pending.item
        changed = _changed(store.path)
        for line in parse_graph(_read(store.path)):
            if line.kind != "entity":
                continue
            observations = [o for o in line.observations if not o.startswith(PROVENANCE_PREFIX)]
            provenance = line.provenance[0] if line.provenance else None
            item = next((ledger[k] for k in line.op_keys if k in ledger), None)
            yield Memory(
                id=self._id(self.path, line.raw),
                store=self.name,
                location=f"{self.path.name}#{_digest(line.raw)}",
                title=line.name,
                description="",
                body="\n".join(observations),
                type=provenance.type if provenance else None,
                category=line.entity_type,
                project=provenance.project if provenance else None,
                source=provenance.source if provenance else None,
                collected=_day(provenance.collected) if provenance else None,
                quotes=tuple((q.message_id, q.text) for q in item.quotes) if item else (),
                changed=changed,
            )
        held = store.pending_path
        for raw in split_lines(_read(held)):
            pending = parse_pending(raw)
            if pending.item is not None:
                yield from_item(
                    pending.item,
                    id=self._id(held, raw),
                    store=self.name,
                    location=f"{held.name}#{_digest(raw)}",
                    status="pending",
                    changed=_changed(held),
                )


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None
