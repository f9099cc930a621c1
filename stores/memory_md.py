"""The sectioned ``MEMORY.md`` store (seed 003): new entries wait in ``MEMORY.inbox.md``.

Rules (seed 003 phase 4, SPEC "Stores", issue 6 item 3):

- The store is one sectioned ``MEMORY.md`` (``[stores.memory-md] path``). The
  collector never writes it. A new item is *held* in the holding file beside
  it (``<stem>.inbox<suffix>``: ``MEMORY.inbox.md``), under the section its
  category names (``section_for``), until the dream's validate gate
  (``dreamd.dream.gates.sectioned``) accepts, merges or rejects it.
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

The lock, the receipts, find/write/update and the sweep are
``stores._heldfile.HeldFileStore``'s, shared with the knowledge-graph store;
this module is the format: records, entries and where a new record goes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dreamd.errors import StoreError

from ._codec import dumps_ascii, loads, record_from_json, record_to_json
from ._heldfile import (
    HeldFileStore,
    Shown,
    holding_name,
    ledger_name,
    sidecar_name,
)
from ._item import MemoryItem
from .filespec import MEMORY_MD_SPEC as SPEC
from .sectioned import (
    Entry,
    entries,
    insert_block,
    is_session_tag,
    render_tail,
    replace_lines,
    split_lines,
)

__all__ = [
    "DEFAULT_SECTION",
    "HOLDING_HEADER",
    "LEDGER_HEADER",
    "SPEC",
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
    "# MEMORY.md entries waiting for the next dream's check\n\n"
    "<!-- dreamd: the collector holds new entries here; the next dream accepts, merges "
    "or rejects each one. -->\n"
)
LEDGER_HEADER = (
    "# Where dreamd's MEMORY.md entries came from\n\n"
    "<!-- dreamd: every entry the dream accepted or merged, with its source "
    "and quotes. -->\n"
)
_ITEM_LINE = re.compile(r"^<!-- dreamd:item (.*) -->\r?\n?\Z")


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

    @property
    def raw(self) -> bytes:
        """The record's bytes in its file (what a receipt's digest covers)."""
        return encode(self.text)


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
    return record_from_json(raw) or ("", (), None)


def render_record(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> str:
    """The held record for ``item``; ``StoreError`` when it cannot be written faithfully."""
    payload = record_to_json(op_key, item, updates)
    keys = (op_key, *updates)
    entry = f"- {entry_text(item.body)}{render_tail(keys, [session_tag(item.source)])}\n"
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


class MemoryMdStore(HeldFileStore[Record]):
    """Adapter for one sectioned ``MEMORY.md`` file."""

    KIND = "memory-md"
    MAX_FILE_BYTES = MAX_FILE_BYTES
    SHOWN_MARK = b"dreamd:op"

    def _render(self, op_key: str, item: MemoryItem, updates: Sequence[str]) -> bytes:
        return encode(render_record(op_key, item, updates=updates))

    def _parse(self, data: bytes) -> list[Record]:
        return parse_records(decode(data))

    def _insert(self, current: bytes | None, item: MemoryItem, record: bytes) -> bytes:
        """The record under its section; a new holding file starts with ``HOLDING_HEADER``."""
        text = decode(current or b"") or HOLDING_HEADER
        return encode(insert_block(text, section_for(item), decode(record)))

    def _replace(self, data: bytes, records: Sequence[Record], index: int, new: bytes) -> bytes:
        record = records[index]
        return encode(replace_lines(decode(data), record.first, record.last, decode(new)))

    def _shown(self, data: bytes, ledger: Callable[[], Sequence[Record]]) -> list[Shown]:
        """The entries of ``MEMORY.md`` whose ``dreamd:op`` comment lists keys."""
        return [
            Shown(tail.op_keys, encode(entry.text))
            for entry in entries(decode(data))
            if (tail := entry.tail).op_keys
        ]
