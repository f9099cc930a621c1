"""Seed 003's sectioned ``MEMORY.md``: its five sections and the bullet entries under them. Pure.

Seed 003 Phase 4 writes ``MEMORY.md`` in five ``##`` sections
(``dreamd.stores.sectioned.SEED_SECTIONS``), one bullet entry per fact,
each ending in its ``[session-id]`` source. ``seed_section`` says which
section a heading opens; ``sectioned_entries`` reads the entries, with the
lines they span. What the checks make of them (sources, ``[unverified]``
marks, the health line) is in ``dreamd.dream.folder.checks``.

Invariant: an entry's text is its lines as written, so a rewrite that changes
one entry's last line leaves every other byte alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamd.dream.folder.textlines import split_lines
from dreamd.markdown import fenced_flags
from dreamd.stores.sectioned import SEED_SECTIONS  # seed 003 phase 4: the five sections

__all__ = ["Entry", "sectioned_entries", "seed_section"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SECTION_KEYS = {s.casefold(): s for s in SEED_SECTIONS}


def seed_section(line: str) -> tuple[bool, str | None]:
    """(is a heading, the seed section it opens or None) for one line."""
    heading = _HEADING.match(line.rstrip("\r\n"))
    if heading is None:
        return False, None
    if heading.group(1) != "##":
        return True, None
    return True, _SECTION_KEYS.get(heading.group(2).casefold())


@dataclass(frozen=True, slots=True)
class Entry:
    """One bullet entry under a seed section; lines are 1-based and inclusive."""

    section: str
    first_line: int
    last_line: int
    text: str


_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])\s+\S")


def sectioned_entries(text: str) -> list[Entry]:
    """Seed 003 Phase 4: the bullet entries under the five seed headings.

    An entry is a bullet plus the non-blank lines that follow it (indented or
    lazy continuations, nested bullets included); a blank line, a heading or
    the next top-level bullet ends it. Text outside bullets and inside code
    fences is not an entry.
    """
    entries: list[Entry] = []
    section: str | None = None
    current: list[tuple[int, str]] = []

    def close() -> None:
        if current and section is not None:
            body = "".join(line for _, line in current)
            entries.append(Entry(section, current[0][0], current[-1][0], body))
        current.clear()

    for number, (line, fenced) in enumerate(fenced_flags(split_lines(text)), start=1):
        if fenced:
            close()
            continue
        is_heading, opens = seed_section(line)
        if is_heading or not line.strip():
            close()
            section = opens if is_heading else section
        elif _BULLET.match(line):
            close()
            current.append((number, line))
        elif current:
            current.append((number, line))
    close()
    return entries
