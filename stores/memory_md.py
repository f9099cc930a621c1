"""The sectioned ``MEMORY.md`` store (seed 003): new entries wait in ``MEMORY.inbox.md``.

Rules (seed 003 phase 4, SPEC "Stores", issue 6 item 3):

- The store is one sectioned ``MEMORY.md`` (``[stores.memory-md] path``). The
  collector never writes it. A new item is *held* in the holding file beside
  it (``<stem>.inbox<suffix>``: ``MEMORY.inbox.md``), under the section its
  category names (``section_for``), until the dream's validate gate
  (``dreamd.dream.mdgate``) accepts, merges or rejects it.
- A held record is two lines: the entry exactly as it will enter
  ``MEMORY.md`` — ``- <body on one line> <!-- dreamd:op ["<key>"] --> [<session>]``
  — then ``<!-- dreamd:item {…} -->``, the operation key, the keys of later
  updates and every item field as ASCII JSON (``stores._codec``). Every field
  round-trips exactly; ``write`` checks that before it writes.
- The gate moves an accepted or merged record's entry into ``MEMORY.md`` (its
  ``dreamd:op`` comment kept) and the record itself into the ledger
  ``<stem>.sources<suffix>`` (``MEMORY.sources.md``), the provenance of every
  entry dreamd added; rejected records go to ``.trash/<date>/``.
- The files are the index: ``find`` looks for the key in the holding file,
  then in the ``dreamd:op`` comments of ``MEMORY.md``. A receipt names the
  file and the record's (or entry's) first key by hash, and its digest is the
  SHA-256 of the record's (or entry's) bytes, so any edit fails ``verify``.
- One writer at a time: every read-modify-write of the holding file runs
  under ``flock`` on ``.<holding>.lock`` (the gate takes it too, ``locked``);
  the file is replaced atomically (temp file, fsync, rename, folder fsync),
  so a crash leaves the old holding file or the new one. A key written twice
  keeps one record. ``update`` rewrites a held record only, in place.
- Nothing but the holding file, its lock and its temp files is ever created
  by the store, all in ``MEMORY.md``'s folder; item text never names a file.
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
from ._sectioned import (
    Entry,
    entries,
    insert_block,
    is_session_tag,
    render_tail,
    replace_lines,
    split_lines,
)
from .memory import ITEM_FIELDS

__all__ = [
    "DEFAULT_SECTION",
    "HOLDING_HEADER",
    "LEDGER_HEADER",
    "MemoryMdStore",
    "Record",
    "decode",
    "encode",
    "entry_text",
    "holding_name",
    "ledger_name",
    "parse_records",
    "render_record",
    "section_for",
    "session_tag",
    "sidecar_name",
]

#: A holding file, ledger or ``MEMORY.md`` larger than this is not read (nor replaced).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Temp files older than this belong to a writer that died; younger ones may be in progress.
STALE_TEMP_SECONDS = 3600.0
#: The longest entry text (the index-budget report counts entries over 400 characters);
#: a longer body is cut at a word boundary in ``MEMORY.md`` and kept whole in the ledger.
MAX_ENTRY_CHARS = 400
#: Section of an item whose category names none of the others.
DEFAULT_SECTION = "Discovered durable knowledge"
_CATEGORY_SECTIONS = {
    "rule": "Rules",
    "preference": "Rules",
    "decision": "Architecture decisions",
    "pattern": "Patterns",
    "gotcha": "Gotchas",
}
HOLDING_HEADER = (
    "# MEMORY.md entries waiting for the validate gate\n\n"
    "<!-- dreamd: the collector holds new entries here; the next dream accepts, merges "
    "or rejects each one. -->\n"
)
LEDGER_HEADER = (
    "# Where dreamd's MEMORY.md entries came from\n\n"
    "<!-- dreamd: every entry the validate gate accepted or merged, with its source "
    "and quotes. -->\n"
)
_ITEM_LINE = re.compile(r"^<!-- dreamd:item (.*) -->\r?\n?\Z")


def sidecar_name(name: str, infix: str) -> str:
    """A file named after ``name``: ``MEMORY.md`` and ``inbox`` → ``MEMORY.inbox.md``."""
    stem, dot, suffix = name.rpartition(".")
    return check_name(f"{stem}.{infix}.{suffix}" if dot and stem else f"{name}.{infix}")


def holding_name(index_name: str) -> str:
    """The holding file beside ``index_name``: ``MEMORY.md`` → ``MEMORY.inbox.md``."""
    return sidecar_name(index_name, "inbox")


def ledger_name(index_name: str) -> str:
    """The ledger beside ``index_name``: ``MEMORY.md`` → ``MEMORY.sources.md``."""
    return sidecar_name(index_name, "sources")


def section_for(item: MemoryItem) -> str:
    """Seed 003's section for an item: rules and preferences, decisions, patterns, gotchas,
    else durable knowledge."""
    return _CATEGORY_SECTIONS.get(item.category.casefold(), DEFAULT_SECTION)


def session_tag(source: str) -> str:
    """The ``[session]`` tag of ``source:<tool>:<machine>:<session>``.

    The session id with characters outside ``[\\w.:-]`` made ``_``; an id with
    no digit, ``_``, ``-`` or ``:`` (which would read as a word, not a source)
    is prefixed with its tool: ``[pi:abcdef]``.
    """
    _, tool, _, session = source.split(":", 3)
    tag = re.sub(r"[^\w.:\-]", "_", session)
    return tag if is_session_tag(tag) else f"{tool}:{tag}"


def entry_text(body: str) -> str:
    """``body`` on one line: whitespace runs collapsed, cut at a word boundary to at most
    ``MAX_ENTRY_CHARS`` (``…`` marks the cut), HTML comment marks and control characters
    defused. The record (and the ledger) keep the body exactly."""
    text = " ".join(body.split())
    if len(text) > MAX_ENTRY_CHARS:
        cut = text[: MAX_ENTRY_CHARS - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"
    text = text.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    return "".join("\ufffd" if unicodedata.category(c) == "Cc" else c for c in text)


def decode(data: bytes) -> str:
    """File bytes as text that encodes back to the same bytes (``surrogateescape``)."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """The inverse of ``decode``."""
    return text.encode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class Record:
    """One held (or ledger) record: its entry, its item and where it lies (0-based lines).

    ``item`` is None when the item line does not hold a valid item; ``op_key``
    is then ``""``.
    """

    op_key: str
    updates: tuple[str, ...]
    item: MemoryItem | None
    entry: Entry | None
    first: int
    last: int
    text: str

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key the record answers to: the planting key, then the updates'."""
        return (self.op_key, *self.updates) if self.op_key else ()


def parse_records(text: str) -> list[Record]:
    """Every ``dreamd:item`` line of ``text`` with the entry written just above it."""
    lines = split_lines(text)
    above = {entry.last: entry for entry in entries(text)}
    records: list[Record] = []
    for index, line in enumerate(lines):
        match = _ITEM_LINE.match(line)
        if match is None:
            continue
        entry = above.get(index - 1)
        first = entry.first if entry is not None else index
        op_key, updates, item = _payload(match.group(1))
        record_text = "".join(lines[first : index + 1])
        records.append(Record(op_key, updates, item, entry, first, index, record_text))
    return records


def _payload(text: str) -> tuple[str, tuple[str, ...], MemoryItem | None]:
    raw = loads(text)
    if not isinstance(raw, dict) or set(raw) != {"op", "updates", "item"}:
        return "", (), None
    op_key, updates = raw["op"], raw["updates"]
    item = item_from_json(raw["item"])
    if not isinstance(op_key, str) or not op_key or item is None:
        return "", (), None
    keys = op_keys_from_json(updates) if updates else ()
    return (op_key, keys, item) if keys is not None else ("", (), None)


def render_record(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> str:
    """The held record for ``item``; ``StoreError`` when it cannot be written faithfully."""
    if not op_key or not all(updates):
        raise StoreError("an operation key cannot be empty")
    check_unicode(item)
    keys = (op_key, *updates)
    entry = f"- {entry_text(item.body)}{render_tail(keys, [session_tag(item.source)])}\n"
    payload = {"op": op_key, "updates": list(updates), "item": item_to_json(item)}
    record = f"{entry}<!-- dreamd:item {dumps_ascii(payload)} -->\n"
    parsed = parse_records(record)
    faithful = (
        len(parsed) == 1
        and (parsed[0].op_key, parsed[0].updates, parsed[0].item) == (op_key, tuple(updates), item)
        and parsed[0].entry is not None
        and parsed[0].entry.tail.op_keys == keys
    )
    if not faithful:
        raise StoreError(f"item {item.name!r} cannot be written as a MEMORY.md entry faithfully")
    return record


class MemoryMdStore:
    """Adapter for one sectioned ``MEMORY.md`` file."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path.absolute()
        self.folder = self.path.parent
        self.index_name = check_name(self.path.name)
        self.holding_name = holding_name(self.index_name)
        self.ledger_name = ledger_name(self.index_name)
        self.lock_name = check_name(f".{self.holding_name}.lock")
        self._clock = clock

    @property
    def name(self) -> str:
        """``memory-md:<absolute path of MEMORY.md>``."""
        return f"memory-md:{self.path}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field (held records keep them all); rejected entries go to a trash."""
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=False, shared=False)

    @property
    def holding_path(self) -> Path:
        return self.folder / self.holding_name

    @property
    def ledger_path(self) -> Path:
        return self.folder / self.ledger_name

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock (the gate edits the holding file under it)."""
        with open_folder(self.folder, create=False) as root, exclusive_lock(root, self.lock_name):
            yield

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the record or ``MEMORY.md`` entry holding ``op_key``."""
        if not self.folder.is_dir():
            return None
        with open_folder(self.folder, create=False) as root:
            return self._find(root, op_key)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Hold ``item`` as a new record under its section, unless ``op_key`` is already held."""
        record = render_record(op_key, item)
        with (
            open_folder(self.folder, create=True) as root,
            exclusive_lock(root, self.lock_name),
        ):
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            self._sweep(root)
            current = self._read(root, self.holding_name)
            new = insert_block(current or HOLDING_HEADER, section_for(item), record)
            if current is None:
                if not write_new(root, self.holding_name, encode(new)):
                    raise StoreError(
                        f"{self.holding_path} exists but cannot be read "
                        f"(larger than {MAX_FILE_BYTES} bytes, a link, or not a file)"
                    )
            else:
                replace_file(root, self.holding_name, encode(new))
            return self._receipt(self.holding_name, op_key, op_key, record)

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the store still holds, byte for byte, what ``receipt`` was issued for."""
        if receipt.store != self.name or receipt.op_key != op_key:
            return False
        return self.find(op_key) == receipt

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item behind ``receipt`` as held now (accepted entries: from the ledger)."""
        if not self.folder.is_dir() or self.find(receipt.op_key) != receipt:
            return None
        with open_folder(self.folder, create=False) as root:
            if receipt.location.startswith(f"{self.holding_name}#"):
                places = [self.holding_name]
            else:
                places = [self.ledger_name]
            for name in places:
                for record in parse_records(self._read(root, name) or ""):
                    if receipt.op_key in record.keys:
                        return record.item
        return None

    def items_from(self, source: str) -> list[HeldItem]:
        """Items tagged ``source``: held records (pending), then accepted ones still in
        ``MEMORY.md`` (their items from the ledger)."""
        if not self.folder.is_dir():
            return []
        held: list[HeldItem] = []
        with open_folder(self.folder, create=False) as root:
            for record in parse_records(self._read(root, self.holding_name) or ""):
                if record.item is not None and record.item.source == source:
                    receipt = self._receipt(
                        self.holding_name, record.op_key, record.op_key, record.text
                    )
                    held.append(HeldItem(receipt, record.item, pending=True))
            index = entries(self._read(root, self.index_name) or "")
            for record in parse_records(self._read(root, self.ledger_name) or ""):
                if record.item is None or record.item.source != source:
                    continue
                entry = _entry_with(index, record.op_key)
                if entry is not None:
                    receipt = self._entry_receipt(record.op_key, entry)
                    held.append(HeldItem(receipt, record.item, pending=False))
        return held

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the held record ``target`` names as ``item``, recording ``op_key`` on it.

        None, writing nothing, when the record was accepted, is gone or changed
        since ``target`` was read.
        """
        if target.store != self.name or not target.location.startswith(f"{self.holding_name}#"):
            return self.find(op_key)
        with (
            open_folder(self.folder, create=False) as root,
            exclusive_lock(root, self.lock_name),
        ):
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            text = self._read(root, self.holding_name) or ""
            record = next(
                (r for r in parse_records(text) if target.op_key in r.keys and r.item is not None),
                None,
            )
            if (
                record is None
                or record.item is None
                or digest(encode(record.text)) != target.digest
            ):
                return None
            if target.location != f"{self.holding_name}#{key_hash(record.op_key)}":
                return None
            current = record.item
            if (item.source, item.type, item.name) != (current.source, current.type, current.name):
                raise StoreError(f"an update cannot change what item {current.name!r} is")
            new = render_record(record.op_key, item, updates=(*record.updates, op_key))
            self._sweep(root)
            replace_file(
                root, self.holding_name, encode(replace_lines(text, record.first, record.last, new))
            )
            return self._receipt(self.holding_name, op_key, record.op_key, new)

    def _find(self, root: int, op_key: str) -> Receipt | None:
        for record in parse_records(self._read(root, self.holding_name) or ""):
            if op_key in record.keys:
                return self._receipt(self.holding_name, op_key, record.op_key, record.text)
        text = self._read(root, self.index_name) or ""
        if "dreamd:op" not in text:
            return None
        entry = _entry_with(entries(text), op_key)
        return None if entry is None else self._entry_receipt(op_key, entry)

    def _receipt(self, file: str, op_key: str, first_key: str, text: str) -> Receipt:
        return Receipt(self.name, op_key, f"{file}#{key_hash(first_key)}", digest(encode(text)))

    def _entry_receipt(self, op_key: str, entry: Entry) -> Receipt:
        return self._receipt(self.index_name, op_key, entry.tail.op_keys[0], entry.text)

    def _read(self, root: int, name: str) -> str | None:
        data = read_file(root, name, max_bytes=MAX_FILE_BYTES)
        return None if data is None else decode(data)

    def _sweep(self, root: int) -> None:
        """Remove temp files of the holding file that a killed writer left (never others')."""
        prefix = f".{self.holding_name}."
        now = self._clock()
        for name in list_names(root):
            if not (name.startswith(prefix) and is_temp_name(name)):
                continue
            try:
                if (
                    now - os.stat(name, dir_fd=root, follow_symlinks=False).st_mtime
                    > STALE_TEMP_SECONDS
                ):
                    os.unlink(name, dir_fd=root)
            except OSError:
                continue


def _entry_with(index: Sequence[Entry], op_key: str) -> Entry | None:
    """The first entry whose ``dreamd:op`` comment lists ``op_key``."""
    return next((entry for entry in index if op_key in entry.tail.op_keys), None)
