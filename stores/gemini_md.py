"""The Gemini CLI memory store: facts under ``## Gemini Added Memories`` in ``~/.gemini/GEMINI.md``.

Gemini CLI's own ``save_memory`` tool (``packages/core/src/tools/memoryTool.ts``)
appends each fact as one ``- <fact>`` line under the ``## Gemini Added
Memories`` heading of the global context file, creating the heading at the
end of the file when it is missing; Gemini loads that file into every later
session. Rules (SPEC "Stores", issue 11 item 3):

- The file Gemini reads holds clean facts only: one ``- <fact>`` line per
  item, exactly as ``save_memory`` would write it (``gemini_fact``: the body
  on one line, emphasis marks dropped, leading dashes stripped, ``<`` and
  ``>`` made spaces as Gemini's own ``sanitizeFact`` does; ``append_fact``:
  Gemini's own insertion). No comment or tag is added to it, because Gemini
  hands the file to the model verbatim.
- Provenance lives beside it: a new item is *held* in ``GEMINI.inbox.md``
  (the line it will add, then ``<!-- dreamd:item {…} -->`` with the
  operation keys and every item field), until the dream's validate gate
  (``dreamd.dream.gates.gemini``) accepts, merges or rejects it. An accepted
  or merged record moves to the ledger ``GEMINI.sources.md``, its line above
  it being the line of ``GEMINI.md`` that shows it (for a merge, the line it
  was merged into). Gemini reads neither file.
- The files are the index: ``find`` looks in the holding file, then for a
  ledger record whose line ``GEMINI.md``'s section still shows. An edited
  or removed line no longer shows its item.
- The lock, receipts, find/write/update and the sweep are
  ``stores._heldfile.HeldFileStore``'s, shared with the other text stores;
  this module is the format.

The file is ``[stores.gemini] path`` when set, else ``GEMINI.md`` in
``$GEMINI_CLI_HOME/.gemini`` (``~/.gemini`` when the variable is unset), the
folder Gemini CLI's ``Storage.getGlobalGeminiDir`` names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from dreamd.errors import StoreError

from ._codec import dumps_ascii, record_to_json
from ._heldfile import HeldFileStore, Shown, holding_name, ledger_name
from ._item import MemoryItem
from .geminispec import CONTEXT_FILE, SPEC, GeminiTable, default_path
from .memory_md import Record, decode, encode, parse_records
from .sectioned import replace_lines, split_lines

__all__ = [
    "CONTEXT_FILE",
    "HOLDING_HEADER",
    "JS_WHITESPACE",
    "LEDGER_HEADER",
    "MAX_FACT_CHARS",
    "SECTION_HEADER",
    "SPEC",
    "GeminiStore",
    "GeminiTable",
    "append_fact",
    "default_path",
    "fact_line",
    "gemini_fact",
    "holding_name",
    "ledger_name",
    "ledger_record",
    "render_record",
    "section_facts",
    "shown_line",
]

#: Gemini CLI's ``MEMORY_SECTION_HEADER``.
SECTION_HEADER = "## Gemini Added Memories"
#: A fact longer than this is cut at a word boundary (``…``); the ledger keeps the whole body.
MAX_FACT_CHARS = 400
#: A holding file, ledger or ``GEMINI.md`` larger than this is not read (nor replaced).
MAX_FILE_BYTES = 64 * 1024 * 1024
HOLDING_HEADER = (
    "# Gemini memories waiting for the next dream's check\n\n"
    "<!-- dreamd: the collector holds new facts here; the next dream adds each one to "
    "GEMINI.md, merges it or rejects it. Gemini does not read this file. -->\n"
)
LEDGER_HEADER = (
    "# Where dreamd's Gemini memories came from\n\n"
    "<!-- dreamd: each line of GEMINI.md that dreamd added or merged into, with its "
    "sources and quotes. -->\n"
)
#: What JavaScript's ``trim`` removes (WhiteSpace and LineTerminator of ECMA-262).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_EMPHASIS = re.compile(r"\*\*|__")
_LEADING_DASHES = re.compile(r"^(?:-+\s*)+")


def gemini_fact(item: MemoryItem) -> str:
    """The item as one fact line's text, sanitised the way ``save_memory`` sanitises a fact.

    The body's lines joined (``**Why:**`` reads ``Why:``), whitespace
    collapsed, leading dashes stripped, ``<`` and ``>`` spaces, control
    characters U+FFFD, cut at a word boundary to ``MAX_FACT_CHARS``.
    """
    text = " ".join(_EMPHASIS.sub("", item.body).split())
    text = _LEADING_DASHES.sub("", text).replace("<", " ").replace(">", " ")
    text = " ".join(text.split())
    text = "".join("\ufffd" if unicodedata.category(c) == "Cc" else c for c in text)
    if len(text) > MAX_FACT_CHARS:
        cut = text[: MAX_FACT_CHARS - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"
    return text or item.name


def fact_line(fact: str) -> str:
    """The line ``save_memory`` writes for ``fact`` (without its line break)."""
    return f"- {fact}"


def _section_span(text: str) -> tuple[int, int] | None:
    """(start, end) of the section's content as Gemini finds it: after the first occurrence of
    the heading, up to the next ``\\n## `` (or the end)."""
    at = text.find(SECTION_HEADER)
    if at < 0:
        return None
    start = at + len(SECTION_HEADER)
    end = text.find("\n## ", start)
    return start, len(text) if end < 0 else end


def section_facts(text: str) -> list[str]:
    """The ``- <fact>`` lines of the section, as written (no line breaks), in order."""
    span = _section_span(text)
    if span is None:
        return []
    lines = (line.rstrip("\r") for line in text[span[0] : span[1]].split("\n"))
    return [line for line in lines if line.startswith("- ")]


def _separation(text: str) -> str:
    """Gemini's ``ensureNewlineSeparation``: what goes before a heading appended to ``text``."""
    if not text or text.endswith(("\n\n", "\r\n\r\n")):
        return ""
    return "\n" if text.endswith("\n") else "\n\n"


def append_fact(text: str, fact: str) -> str:
    """``text`` with ``fact`` added the way Gemini CLI's ``computeGlobalMemoryContent`` adds it.

    No section: it is appended (a blank line before it) with the heading.
    Otherwise the fact becomes the section's last line; the section's blank
    edges are trimmed and the file ends in one line break, as Gemini leaves it.
    Whitespace is trimmed as JavaScript trims it (``JS_WHITESPACE``).
    """
    line = fact_line(fact)
    span = _section_span(text)
    if span is None:
        return f"{text}{_separation(text)}{SECTION_HEADER}\n{line}\n"
    start, end = span
    section = text[start:end].rstrip(JS_WHITESPACE) + f"\n{line}"
    before, after = text[:start].rstrip(JS_WHITESPACE), text[end:]
    return f"{before}\n{section.lstrip(JS_WHITESPACE)}\n{after}".rstrip(JS_WHITESPACE) + "\n"


def render_record(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> str:
    """The held record: the fact's line, then the item; ``StoreError`` if it cannot round-trip."""
    line = fact_line(gemini_fact(item))
    record = f"{line}\n<!-- dreamd:item {dumps_ascii(record_to_json(op_key, item, updates))} -->\n"
    parsed = parse_records(record)
    faithful = (
        len(parsed) == 1
        and (parsed[0].op_key, parsed[0].updates, parsed[0].item) == (op_key, tuple(updates), item)
        and parsed[0].entry is not None
        and parsed[0].entry.text == f"{line}\n"
    )
    if not faithful:
        raise StoreError(f"item {item.name!r} cannot be held as a Gemini fact faithfully")
    return record


def shown_line(record: Record) -> str | None:
    """The ``GEMINI.md`` line a held or ledger record stands for (its entry line)."""
    if record.entry is None or record.entry.first != record.entry.last:
        return None
    return record.entry.text.rstrip("\r\n")


class GeminiStore(HeldFileStore[Record]):
    """Adapter for Gemini CLI's global memory file."""

    KIND = "gemini"
    MAX_FILE_BYTES = MAX_FILE_BYTES
    SHOWN_MARK = SECTION_HEADER.encode()

    def _render(self, op_key: str, item: MemoryItem, updates: Sequence[str]) -> bytes:
        return encode(render_record(op_key, item, updates=updates))

    def _parse(self, data: bytes) -> list[Record]:
        return parse_records(decode(data))

    def _insert(self, current: bytes | None, item: MemoryItem, record: bytes) -> bytes:
        """The record at the end; a new holding file starts with ``HOLDING_HEADER``."""
        text = decode(current or b"") or HOLDING_HEADER
        return encode(text + ("" if text.endswith("\n") else "\n") + decode(record))

    def _replace(self, data: bytes, records: Sequence[Record], index: int, new: bytes) -> bytes:
        record = records[index]
        return encode(replace_lines(decode(data), record.first, record.last, decode(new)))

    def _shown(self, data: bytes, ledger: Callable[[], Sequence[Record]]) -> list[Shown]:
        """The ledger's records whose line the section still shows, with their keys."""
        lines = set(section_facts(decode(data)))
        shown: list[Shown] = []
        for record in ledger():
            line = shown_line(record)
            if record.keys and line is not None and line in lines:
                shown.append(Shown(record.keys, encode(line)))
        return shown


def ledger_record(record: Record, line: str) -> str:
    """A held record as the ledger keeps it: ``line`` (what shows it), then its item line."""
    item_line = split_lines(record.text)[-1]
    return f"{line}\n{item_line if item_line.endswith(chr(10)) else item_line + chr(10)}"
