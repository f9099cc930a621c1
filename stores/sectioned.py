"""Sectioned Markdown (seed 003's ``MEMORY.md`` layout), read and edited line by line. Pure.

Seed 003 phase 4: a project ``MEMORY.md`` has the sections ``## Rules``,
``## Architecture decisions``, ``## Discovered durable knowledge``,
``## Patterns`` and ``## Gotchas``; each entry is 1 to 3 lines and ends in its
source session, ``[ses_xxx]``. dreamd adds one thing an entry may carry just
before that tail: ``<!-- dreamd:op ["<op key>", …] -->``, the operation keys
that planted it, so the collector finds what it planted after the dream moved
it (an HTML comment: invisible when rendered).

Rules of this module:

- Lines keep their endings and only ``\\n`` ends a line (``\\r\\n`` keeps its
  ``\\r``; U+2028, U+0085 and form feeds are text, as in Markdown). Text
  decoded with ``surrogateescape`` passes through every edit unchanged.
- Headings and bullets inside code fences are text. ``## Title`` opens the
  section ``Title``; ``#`` closes it; ``###`` and deeper are part of it.
- An entry is a bullet line and the non-blank lines after it; a blank line,
  a heading, a fence, an HTML comment line or the next bullet ends it.
- Every edit (``insert_block``, ``replace_lines``) changes the lines it names
  and no other byte, except that a final line without a line ending gains one
  before a line is added after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from dreamd.markdown import fenced_flags

from ._codec import dumps_ascii, loads, op_keys_from_json

__all__ = [
    "DEFAULT_TITLE",
    "SEED_SECTIONS",
    "Entry",
    "Tail",
    "entries",
    "entry_words_text",
    "heading",
    "insert_block",
    "is_session_tag",
    "parse_tail",
    "render_tail",
    "replace_lines",
    "split_lines",
    "with_sources",
]

#: Seed 003 phase 4: the five sections of a project ``MEMORY.md``, in the seed's order.
SEED_SECTIONS = (
    "Rules",
    "Architecture decisions",
    "Discovered durable knowledge",
    "Patterns",
    "Gotchas",
)
#: The title a ``MEMORY.md`` created by dreamd starts with.
DEFAULT_TITLE = "# Project memory"

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])[ \t]+\S")
_BULLET_MARK = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])[ \t]+")
_MARK_AT_END = re.compile(r"[ \t]*\[unverified\]$", re.IGNORECASE)
_TAGS_AT_END = re.compile(r"[ \t]*\[([^\[\]\n]*)\]$")
_OPS_AT_END = re.compile(r"[ \t]*<!-- dreamd:op (\[[^\n]*?\]) -->$")
#: A session id holds a digit, ``_``, ``-`` or ``:`` (so ``[TODO]`` is not a source).
_SESSION = re.compile(r"^[\w.:\-]*[\d_:\-][\w.:\-]*$")


@dataclass(frozen=True, slots=True)
class Tail:
    """An entry split at its tail: text, dreamd's op keys, source tags, ``[unverified]`` marks."""

    body: str
    op_keys: tuple[str, ...]
    tags: tuple[str, ...]
    marks: str


@dataclass(frozen=True, slots=True)
class Entry:
    """One bullet entry: 0-based inclusive line range, its section and its text as written."""

    first: int
    last: int
    section: str | None
    text: str

    @property
    def tail(self) -> Tail:
        return parse_tail(self.text)


def split_lines(text: str) -> list[str]:
    """``text`` as lines, each with its ``\\n`` (the last may have none)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, else None."""
    match = _HEADING.match(line.rstrip("\r\n"))
    if match is None:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def _scan(lines: Sequence[str]) -> list[tuple[str, str | None]]:
    """Per line: its role (``fence``, ``heading``, ``blank``, ``comment``, ``bullet``, ``text``)
    and the section it lies in."""
    roles: list[tuple[str, str | None]] = []
    section: str | None = None
    for line, fenced in fenced_flags(lines):
        found = heading(line) if not fenced else None
        if fenced:
            role = "fence"
        elif found is not None:
            role = "heading"
            level, title = found
            section = title if level == 2 else (None if level == 1 else section)
        elif not line.strip():
            role = "blank"
        elif line.lstrip().startswith("<!--"):
            role = "comment"
        elif _BULLET.match(line):
            role = "bullet"
        else:
            role = "text"
        roles.append((role, section))
    return roles


def entries(text: str) -> list[Entry]:
    """Every bullet entry of ``text``, in order."""
    lines = split_lines(text)
    found: list[Entry] = []
    start: int | None = None
    section: str | None = None

    def close(end: int) -> None:
        if start is not None:
            found.append(Entry(start, end, section, "".join(lines[start : end + 1])))

    for index, (role, in_section) in enumerate(_scan(lines)):
        if role == "bullet":
            close(index - 1)
            start, section = index, in_section
        elif role != "text":
            close(index - 1)
            start = None
    close(len(lines) - 1)
    return found


def is_session_tag(tag: str) -> bool:
    """Whether ``tag`` reads as a session id (``ses_1``, ``0a1f-session``), not ``TODO``."""
    return bool(_SESSION.match(tag))


@lru_cache(maxsize=1 << 16)  # the gate asks for the tails of every entry, for every record
def parse_tail(text: str) -> Tail:
    """Split an entry into its text and its tail (op keys, ``[session, …]`` tags, marks)."""
    rest = text.rstrip()
    marks = ""
    while (mark := _MARK_AT_END.search(rest)) is not None:
        marks, rest = rest[mark.start() :] + marks, rest[: mark.start()]
    tags: tuple[str, ...] = ()
    found = _TAGS_AT_END.search(rest)
    if found is not None:
        parts = tuple(part.strip() for part in re.split(r"[,;]", found.group(1)))
        if parts and all(is_session_tag(part) for part in parts):
            tags, rest = parts, rest[: found.start()]
    keys: tuple[str, ...] = ()
    ops = _OPS_AT_END.search(rest)
    if ops is not None:
        parsed = op_keys_from_json(loads(ops.group(1)))
        if parsed is not None:
            keys, rest = parsed, rest[: ops.start()]
    return Tail(rest.rstrip(), keys, tags, marks)


def render_tail(op_keys: Sequence[str], tags: Sequence[str]) -> str:
    """`` <!-- dreamd:op [...] --> [tag, …]`` (each part only when there is something in it)."""
    ops = f" <!-- dreamd:op {dumps_ascii(list(op_keys))} -->" if op_keys else ""
    return ops + (f" [{', '.join(tags)}]" if tags else "")


def _union(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))


def with_sources(text: str, op_keys: Sequence[str], tags: Sequence[str]) -> str:
    """Entry ``text`` with ``op_keys`` and session ``tags`` added to its tail (each once).

    The entry's words stay as written; the tail is rebuilt as
    ``<text> <!-- dreamd:op [...] --> [tags]`` followed by any ``[unverified]``
    marks it had, and the entry's final line ending.
    """
    tail = parse_tail(text)
    ending = text[len(text.rstrip("\r\n")) :]
    rebuilt = render_tail(_union(tail.op_keys, op_keys), _union(tail.tags, tags))
    return tail.body + rebuilt + tail.marks + ending


def entry_words_text(entry: Entry) -> str:
    """The words an entry states: its text without bullet marker, op keys, tags and marks."""
    return _BULLET_MARK.sub("", entry.tail.body, count=1)


def _newline(lines: Sequence[str]) -> str:
    return "\r\n" if lines and lines[0].endswith("\r\n") else "\n"


def _section_range(lines: Sequence[str], section: str) -> tuple[int, int] | None:
    """(heading index, end index) of the first ``## section``; end is the next ``#``/``##``."""
    roles = _scan(lines)
    wanted = section.casefold()
    for index, (role, _) in enumerate(roles):
        found = heading(lines[index]) if role == "heading" else None
        if found is None or found[0] != 2 or found[1].casefold() != wanted:
            continue
        for end in range(index + 1, len(lines)):
            later = heading(lines[end]) if roles[end][0] == "heading" else None
            if later is not None and later[0] <= 2:
                return index, end
        return index, len(lines)
    return None


def _terminated(lines: list[str], index: int, newline: str) -> None:
    """Give ``lines[index]`` a line ending if it has none (a line follows it now)."""
    if 0 <= index < len(lines) and not lines[index].endswith("\n"):
        lines[index] += newline


def insert_block(text: str, section: str, block: str, *, title: str = DEFAULT_TITLE) -> str:
    """``text`` with ``block`` added as the last entry of ``## section``.

    A missing section is created before the first seed section that follows it
    in the seed's order, else at the end; an empty text becomes ``title``, the
    section and the block. ``block``'s lines take the text's line ending.
    """
    lines = split_lines(text)
    newline = _newline(lines)
    new = [line.rstrip("\r\n") + newline for line in split_lines(block)]
    found = _section_range(lines, section)
    if found is not None:
        start, end = found
        at = next((i + 1 for i in range(end - 1, start, -1) if lines[i].strip()), start + 1)
        _terminated(lines, at - 1, newline)
        return "".join([*lines[:at], *new, *lines[at:]])
    opening = [f"## {section}{newline}", *new]
    if not lines:
        return "".join([title + newline, newline, *opening])
    order = SEED_SECTIONS.index(section) if section in SEED_SECTIONS else len(SEED_SECTIONS)
    later = [_section_range(lines, name) for name in SEED_SECTIONS[order + 1 :]]
    before = min((found[0] for found in later if found is not None), default=None)
    if before is not None:
        gap = [newline] if before > 0 and lines[before - 1].strip() else []
        return "".join([*lines[:before], *gap, *opening, newline, *lines[before:]])
    _terminated(lines, len(lines) - 1, newline)
    gap = [newline] if lines[-1].strip() else []
    return "".join([*lines, *gap, *opening])


def replace_lines(text: str, first: int, last: int, new: str) -> str:
    """``text`` with lines ``first..last`` (inclusive) replaced by ``new`` (may be empty)."""
    lines = split_lines(text)
    return "".join([*lines[:first], new, *lines[last + 1 :]])
