"""The knowledge-graph JSONL store (the MCP memory server's file): new items wait beside it.

Rules (SPEC "Stores", issue 6 item 3):

- The graph file (``[stores.graph] path``, e.g. ``memory.jsonl``) holds one
  JSON object per line, as the MCP memory server writes it:
  ``{"type":"entity","name":…,"entityType":…,"observations":[…]}`` and
  ``{"type":"relation","from":…,"to":…,"relationType":…}``. The collector
  never writes it. A new item is *held* as one line of the pending file
  ``<stem>.inbox<suffix>`` (``memory.inbox.jsonl``):
  ``{"dreamd":"pending","op":…,"updates":[…],"item":{…}}`` (ASCII JSON, every
  item field, round-tripping exactly).
- The validate gate (``dreamd.dream.gates.graph``) makes an accepted item an entity
  — ``name`` the item's name, ``entityType`` its category, observations its
  body and one *provenance observation* ``[dreamd] {"op":[…],"source":…,…}``
  — or merges it into an entity dreamd wrote, and moves the pending line into
  the ledger ``<stem>.sources<suffix>``; rejected lines go to the trash.
- dreamd *owns* an entity line when one of its observations is a provenance
  observation. It rewrites no other line, and a line it cannot read (not
  JSON, another shape, another type) is kept byte for byte. Owned lines are
  written the way the server writes (compact JSON, non-ASCII as is), so the
  server's own rewrites keep them.
- The files are the index: ``find`` looks in the pending file, then in the
  provenance observations of the graph. A receipt's digest is the SHA-256 of
  the line (without its line break).
- One writer at a time: read-modify-write of the pending file runs under
  ``flock`` on ``.<pending>.lock`` (the gate takes it too, ``locked``); the
  file is replaced atomically. The MCP server takes no lock: the gate checks
  the graph file did not change between its read and its write.

The lock, the receipts, find/write/update and the sweep are
``stores._heldfile.HeldFileStore``'s, shared with the ``MEMORY.md`` store;
this module is the format: graph lines, provenance and pending lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from dreamd.errors import StoreError

from ._codec import dumps_ascii, loads, op_keys_from_json, record_from_json, record_to_json
from ._heldfile import (
    HeldFileStore,
    Shown,
    holding_name,
    ledger_name,
    sidecar_name,
)
from ._item import MemoryItem
from .filespec import GRAPH_SPEC as SPEC

__all__ = [
    "PROVENANCE_PREFIX",
    "SPEC",
    "GraphLine",
    "GraphStore",
    "Pending",
    "Provenance",
    "join_lines",
    "ledger_name",
    "parse_graph",
    "parse_pending",
    "pending_name",
    "render_entity",
    "render_pending",
    "render_provenance",
    "sidecar_name",
    "split_lines",
    "with_observations",
]

#: A graph, pending or ledger file larger than this is not read (nor replaced).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: How a provenance observation starts; JSON follows.
PROVENANCE_PREFIX = "[dreamd] "

LineKind = Literal["entity", "relation", "other"]


def pending_name(graph_name: str) -> str:
    """The pending file beside ``graph_name``: ``memory.jsonl`` → ``memory.inbox.jsonl``."""
    return holding_name(graph_name)


# --- the graph file ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a provenance observation records: the keys that planted it and the item's origin."""

    keys: tuple[str, ...]
    source: str
    collected: str
    type: str
    project: str | None


@dataclass(frozen=True, slots=True)
class GraphLine:
    """One line of the graph file as read; ``raw`` without its line break."""

    raw: bytes
    kind: LineKind
    name: str = ""
    entity_type: str = ""
    observations: tuple[str, ...] = ()
    relation: tuple[str, str, str] | None = None

    @property
    def provenance(self) -> tuple[Provenance, ...]:
        found = (parse_provenance(text) for text in self.observations)
        return tuple(p for p in found if p is not None)

    @property
    def owned(self) -> bool:
        """Whether dreamd wrote this entity (it carries a provenance observation)."""
        return self.kind == "entity" and bool(self.provenance)

    @property
    def op_keys(self) -> tuple[str, ...]:
        return tuple(key for p in self.provenance for key in p.keys)


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a JSONL file without their ``\\n`` (no empty last line)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def join_lines(lines: Sequence[bytes]) -> bytes:
    """Lines joined, each ended by ``\\n`` (the server's own layout)."""
    return b"".join(line + b"\n" for line in lines)


def parse_line(raw: bytes) -> GraphLine:
    """A graph line: an entity or relation of the server's shape, else ``other``."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return GraphLine(raw, "other")
    if not isinstance(value, dict):
        return GraphLine(raw, "other")
    if value.get("type") == "entity":
        name, kind, texts = value.get("name"), value.get("entityType"), value.get("observations")
        listed = isinstance(texts, list) and all(isinstance(text, str) for text in texts)
        if isinstance(name, str) and isinstance(kind, str) and listed:
            return GraphLine(raw, "entity", name, kind, tuple(texts))  # type: ignore[arg-type]
    if value.get("type") == "relation":
        ends = (value.get("from"), value.get("to"), value.get("relationType"))
        if all(isinstance(part, str) for part in ends):
            return GraphLine(raw, "relation", relation=(str(ends[0]), str(ends[1]), str(ends[2])))
    return GraphLine(raw, "other")


def parse_graph(data: bytes) -> list[GraphLine]:
    """Every line of the graph file, in order (unreadable lines as ``other``)."""
    return [parse_line(raw) for raw in split_lines(data)]


def _server_json(value: object) -> bytes:
    """JSON as the server's ``JSON.stringify`` writes it: compact, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def render_entity(name: str, entity_type: str, observations: Sequence[str]) -> bytes:
    """A new entity line."""
    value = {"type": "entity", "name": name, "entityType": entity_type}
    return _server_json({**value, "observations": list(observations)})


def with_observations(line: GraphLine, observations: Sequence[str]) -> bytes:
    """``line`` (an entity) with its observations replaced; every other key kept in order."""
    value: dict[str, Any] = json.loads(line.raw)
    value["observations"] = list(observations)
    return _server_json(value)


@lru_cache(maxsize=1 << 16)  # asked for every observation of every entity, per pending line
def parse_provenance(observation: str) -> Provenance | None:
    """The provenance an observation records, or None when it is not one of dreamd's."""
    if not observation.startswith(PROVENANCE_PREFIX):
        return None
    value = loads(observation[len(PROVENANCE_PREFIX) :])
    if not isinstance(value, dict):
        return None
    keys = op_keys_from_json(value.get("op"))
    texts = [value.get(name) for name in ("source", "collected", "type")]
    project = value.get("project")
    if keys is None or not all(isinstance(text, str) for text in texts):
        return None
    if project is not None and not isinstance(project, str):
        return None
    return Provenance(keys, str(texts[0]), str(texts[1]), str(texts[2]), project)


def render_provenance(keys: Sequence[str], item: MemoryItem) -> str:
    """The provenance observation of ``item`` planted under ``keys``."""
    value = {
        "op": list(keys),
        "source": item.source,
        "collected": item.collected.isoformat(),
        "type": item.type,
        "project": item.project,
    }
    return PROVENANCE_PREFIX + json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- pending and ledger lines -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pending:
    """One pending (or ledger) line; ``item`` None (and ``op_key`` ``""``) when unreadable."""

    op_key: str
    updates: tuple[str, ...]
    item: MemoryItem | None
    raw: bytes

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.op_key, *self.updates) if self.op_key else ()


def parse_pending(raw: bytes) -> Pending:
    """A pending line ``render_pending`` wrote, else one with no item."""
    value = loads(raw.decode("utf-8", "replace"))
    if not isinstance(value, dict) or set(value) != {"dreamd", "op", "updates", "item"}:
        return Pending("", (), None, raw)
    held = record_from_json(value) if value["dreamd"] == "pending" else None
    return Pending("", (), None, raw) if held is None else Pending(*held, raw)


def render_pending(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> bytes:
    """The pending line for ``item``; ``StoreError`` when it cannot be written faithfully."""
    value = {"dreamd": "pending", **record_to_json(op_key, item, updates)}
    raw = dumps_ascii(value).encode("ascii")
    parsed = parse_pending(raw)
    if (parsed.op_key, parsed.updates, parsed.item) != (op_key, tuple(updates), item):
        raise StoreError(f"item {item.name!r} cannot be held faithfully")
    return raw


# --- the store --------------------------------------------------------------------------------


class GraphStore(HeldFileStore[Pending]):
    """Adapter for one knowledge-graph JSONL file (its pending file: the holding file)."""

    KIND = "graph"
    MAX_FILE_BYTES = MAX_FILE_BYTES
    SHOWN_MARK = PROVENANCE_PREFIX.encode()

    @property
    def graph_name(self) -> str:
        """The graph file's name (the shown file)."""
        return self.index_name

    @property
    def pending_name(self) -> str:
        """The pending file's name (the holding file)."""
        return self.holding_name

    @property
    def pending_path(self) -> Path:
        return self.holding_path

    def _render(self, op_key: str, item: MemoryItem, updates: Sequence[str]) -> bytes:
        return render_pending(op_key, item, updates=updates)

    def _parse(self, data: bytes) -> list[Pending]:
        """One ``Pending`` per line, in order (``_replace`` counts on it)."""
        return [parse_pending(raw) for raw in split_lines(data)]

    def _insert(self, current: bytes | None, item: MemoryItem, record: bytes) -> bytes:
        return join_lines([*split_lines(current or b""), record])

    def _replace(self, data: bytes, records: Sequence[Pending], index: int, new: bytes) -> bytes:
        lines = split_lines(data)
        lines[index] = new
        return join_lines(lines)

    def _shown(self, data: bytes, ledger: Callable[[], Sequence[Pending]]) -> list[Shown]:
        """The owned entities of the graph, with the keys their provenance lists."""
        return [Shown(line.op_keys, line.raw) for line in parse_graph(data) if line.owned]
