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
- The validate gate (``dreamd.dream.graph``) makes an accepted item an entity
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
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from dreamd.errors import StoreError

from ._atomic import (
    check_name,
    digest,
    exclusive_lock,
    is_temp_name,
    list_names,
    open_folder,
    read_file,
    replace_file,
    write_new,
)
from ._codec import (
    check_unicode,
    dumps_ascii,
    item_from_json,
    item_to_json,
    key_hash,
    loads,
    op_keys_from_json,
)
from ._item import MemoryItem, Receipt
from ._protocol import Capabilities, HeldItem
from .memory import ITEM_FIELDS

__all__ = [
    "PROVENANCE_PREFIX",
    "GraphLine",
    "GraphStore",
    "Pending",
    "Provenance",
    "join_lines",
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
#: Temp files older than this belong to a writer that died.
STALE_TEMP_SECONDS = 3600.0
#: How a provenance observation starts; JSON follows.
PROVENANCE_PREFIX = "[dreamd] "

LineKind = Literal["entity", "relation", "other"]


def sidecar_name(name: str, infix: str) -> str:
    """A file named after ``name``: ``memory.jsonl`` and ``inbox`` → ``memory.inbox.jsonl``."""
    stem, dot, suffix = name.rpartition(".")
    return check_name(f"{stem}.{infix}.{suffix}" if dot and stem else f"{name}.{infix}")


def pending_name(graph_name: str) -> str:
    """The pending file beside ``graph_name``: ``memory.jsonl`` → ``memory.inbox.jsonl``."""
    return sidecar_name(graph_name, "inbox")


def ledger_name(graph_name: str) -> str:
    """The ledger beside ``graph_name``: ``memory.jsonl`` → ``memory.sources.jsonl``."""
    return sidecar_name(graph_name, "sources")


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
    op_key, updates, item = value["op"], value["updates"], item_from_json(value["item"])
    keys = op_keys_from_json(updates) if updates else ()
    if value["dreamd"] != "pending" or not isinstance(op_key, str) or not op_key:
        return Pending("", (), None, raw)
    if item is None or keys is None:
        return Pending("", (), None, raw)
    return Pending(op_key, keys, item, raw)


def render_pending(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> bytes:
    """The pending line for ``item``; ``StoreError`` when it cannot be written faithfully."""
    if not op_key or not all(updates):
        raise StoreError("an operation key cannot be empty")
    check_unicode(item)
    value = {"dreamd": "pending", "op": op_key, "updates": list(updates)}
    raw = dumps_ascii({**value, "item": item_to_json(item)}).encode("ascii")
    parsed = parse_pending(raw)
    if (parsed.op_key, parsed.updates, parsed.item) != (op_key, tuple(updates), item):
        raise StoreError(f"item {item.name!r} cannot be held faithfully")
    return raw


# --- the store --------------------------------------------------------------------------------


class GraphStore:
    """Adapter for one knowledge-graph JSONL file."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path.absolute()
        self.folder = self.path.parent
        self.graph_name = check_name(self.path.name)
        self.pending_name = pending_name(self.graph_name)
        self.ledger_name = ledger_name(self.graph_name)
        self.lock_name = check_name(f".{self.pending_name}.lock")
        self._clock = clock

    @property
    def name(self) -> str:
        """``graph:<absolute path of the graph file>``."""
        return f"graph:{self.path}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field (pending lines keep them all); rejected lines go to a trash."""
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=False, shared=False)

    @property
    def pending_path(self) -> Path:
        return self.folder / self.pending_name

    @property
    def ledger_path(self) -> Path:
        return self.folder / self.ledger_name

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock (the gate edits the pending file under it)."""
        with open_folder(self.folder, create=False) as root, exclusive_lock(root, self.lock_name):
            yield

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the pending line or owned entity holding ``op_key``."""
        if not self.folder.is_dir():
            return None
        with open_folder(self.folder, create=False) as root:
            return self._find(root, op_key)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Hold ``item`` as a new pending line, unless ``op_key`` is already held."""
        line = render_pending(op_key, item)
        with (
            open_folder(self.folder, create=True) as root,
            exclusive_lock(root, self.lock_name),
        ):
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            self._sweep(root)
            current = read_file(root, self.pending_name, max_bytes=MAX_FILE_BYTES)
            if current is None:
                if not write_new(root, self.pending_name, line + b"\n"):
                    raise StoreError(
                        f"{self.pending_path} exists but cannot be read "
                        f"(larger than {MAX_FILE_BYTES} bytes, a link, or not a file)"
                    )
            else:
                replace_file(root, self.pending_name, join_lines([*split_lines(current), line]))
            return self._receipt(self.pending_name, op_key, op_key, line)

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the store still holds, byte for byte, what ``receipt`` was issued for."""
        if receipt.store != self.name or receipt.op_key != op_key:
            return False
        return self.find(op_key) == receipt

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item behind ``receipt`` as held now (accepted ones: from the ledger)."""
        if not self.folder.is_dir() or self.find(receipt.op_key) != receipt:
            return None
        pending = receipt.location.startswith(f"{self.pending_name}#")
        with open_folder(self.folder, create=False) as root:
            for line in self._pending(root, self.pending_name if pending else self.ledger_name):
                if receipt.op_key in line.keys:
                    return line.item
        return None

    def items_from(self, source: str) -> list[HeldItem]:
        """Items tagged ``source``: pending lines, then accepted ones still in the graph."""
        if not self.folder.is_dir():
            return []
        held: list[HeldItem] = []
        with open_folder(self.folder, create=False) as root:
            for line in self._pending(root, self.pending_name):
                if line.item is not None and line.item.source == source:
                    receipt = self._receipt(self.pending_name, line.op_key, line.op_key, line.raw)
                    held.append(HeldItem(receipt, line.item, pending=True))
            graph = self._graph(root)
            for line in self._pending(root, self.ledger_name):
                if line.item is None or line.item.source != source:
                    continue
                entity = _entity_with(graph, line.op_key)
                if entity is not None:
                    receipt = self._entity_receipt(line.op_key, entity)
                    held.append(HeldItem(receipt, line.item, pending=False))
        return held

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the pending line ``target`` names as ``item``, recording ``op_key`` on it.

        None, writing nothing, when the item was accepted, is gone or changed.
        """
        if target.store != self.name or not target.location.startswith(f"{self.pending_name}#"):
            return self.find(op_key)
        with (
            open_folder(self.folder, create=False) as root,
            exclusive_lock(root, self.lock_name),
        ):
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            data = read_file(root, self.pending_name, max_bytes=MAX_FILE_BYTES) or b""
            lines = split_lines(data)
            index = next(
                (i for i, raw in enumerate(lines) if target.op_key in parse_pending(raw).keys),
                None,
            )
            if index is None or digest(lines[index]) != target.digest:
                return None
            held = parse_pending(lines[index])
            if held.item is None or target.location != self._location(self.pending_name, held):
                return None
            current = held.item
            if (item.source, item.type, item.name) != (current.source, current.type, current.name):
                raise StoreError(f"an update cannot change what item {current.name!r} is")
            lines[index] = render_pending(held.op_key, item, updates=(*held.updates, op_key))
            self._sweep(root)
            replace_file(root, self.pending_name, join_lines(lines))
            return self._receipt(self.pending_name, op_key, held.op_key, lines[index])

    def _location(self, file: str, held: Pending) -> str:
        return f"{file}#{key_hash(held.op_key)}"

    def _find(self, root: int, op_key: str) -> Receipt | None:
        for line in self._pending(root, self.pending_name):
            if op_key in line.keys:
                return self._receipt(self.pending_name, op_key, line.op_key, line.raw)
        data = read_file(root, self.graph_name, max_bytes=MAX_FILE_BYTES) or b""
        if PROVENANCE_PREFIX.encode() not in data:
            return None
        entity = _entity_with(parse_graph(data), op_key)
        return None if entity is None else self._entity_receipt(op_key, entity)

    def _pending(self, root: int, name: str) -> list[Pending]:
        data = read_file(root, name, max_bytes=MAX_FILE_BYTES) or b""
        return [parse_pending(raw) for raw in split_lines(data)]

    def _graph(self, root: int) -> list[GraphLine]:
        return parse_graph(read_file(root, self.graph_name, max_bytes=MAX_FILE_BYTES) or b"")

    def _receipt(self, file: str, op_key: str, first_key: str, raw: bytes) -> Receipt:
        return Receipt(self.name, op_key, f"{file}#{key_hash(first_key)}", digest(raw))

    def _entity_receipt(self, op_key: str, entity: GraphLine) -> Receipt:
        return self._receipt(self.graph_name, op_key, entity.op_keys[0], entity.raw)

    def _sweep(self, root: int) -> None:
        """Remove temp files of the pending file that a killed writer left (never others')."""
        prefix = f".{self.pending_name}."
        now = self._clock()
        for name in list_names(root):
            if not (name.startswith(prefix) and is_temp_name(name)):
                continue
            try:
                status = os.stat(name, dir_fd=root, follow_symlinks=False)
                if now - status.st_mtime > STALE_TEMP_SECONDS:
                    os.unlink(name, dir_fd=root)
            except OSError:
                continue


def _entity_with(graph: Sequence[GraphLine], op_key: str) -> GraphLine | None:
    """The first owned entity whose provenance lists ``op_key``."""
    return next((line for line in graph if line.owned and op_key in line.op_keys), None)
