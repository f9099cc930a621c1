"""Rules that repair the entries an index already has (seed 000 STEP 5, #3741). Pure.

``dreamd.dream.folder.index`` applies them in this order, to ``MEMORY.md`` and
to its archive:

1. ``match_link_case`` — an entry whose target differs from a file only by
   case is pointed at the file's exact name (the invariant wants exact case).
2. ``drop_dead_entries`` — entries whose file is gone (trashed or missing)
   are dropped, in the index and in the archive; a prose line that mentions a
   gone file is kept as written and reported (``dead_mentions``).
3. ``collapse_duplicates`` — a file with several entries keeps the first
   (``MEMORY.md`` before the archive); the others are dropped and reported
   with their text.

Invariants: a rule changes only the lines it names (a case fix only the link
target); every dropped line is reported with its full text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Literal

from dreamd.dream.folder.indexfile import ARCHIVE_NAME, INDEX_NAME, Index, IndexLine, parse_line

__all__ = [
    "DroppedLine",
    "Where",
    "collapse_duplicates",
    "dead_mentions",
    "drop_dead_entries",
    "link_target",
    "match_link_case",
]

Where = Literal["MEMORY.md", "MEMORY-ARCHIVE.md"]


@dataclass(frozen=True, slots=True)
class DroppedLine:
    """An index line a rule removed, with the file it pointed to and why."""

    file: str
    where: Where
    line: str
    reason: str


def _resolver(names: Collection[str]) -> dict[str, str]:
    """Written target → exact file name: exact names, then case-insensitive when unique."""
    folded = Counter(name.casefold() for name in names)
    table = {name.casefold(): name for name in names if folded[name.casefold()] == 1}
    table.update({name: name for name in names})
    return table


def _resolve(file: str, table: dict[str, str]) -> str | None:
    return table.get(file) or table.get(file.casefold())


def link_target(name: str) -> str:
    """A file name as a link target: wrapped in ``<>`` when it holds spaces or parentheses."""
    return f"<{name}>" if re.search(r"[\s()<>]", name) else name


def match_link_case(index: Index, names: Collection[str]) -> tuple[Index, tuple[str, ...]]:
    """Point entries written in another case at the file's exact name (seed 000 STEP 5, #3741).

    Only an entry whose target matches exactly one file case-insensitively is
    changed, and only inside its link target.
    """
    table = _resolver(names)
    fixed: list[str] = []
    lines = []
    for line in index.lines:
        entry = line.entry
        exact = _resolve(entry.file, table) if entry else None
        if entry is None or exact is None or exact == entry.file:
            lines.append(line)
            continue
        start, end = entry.target_span
        written = line.text[start:end]
        # Keep ``./`` and an anchor; a %-escaped target is written anew.
        target = (
            written.replace(entry.file, exact, 1) if entry.file in written else link_target(exact)
        )
        lines.append(parse_line(line.text[:start] + target + line.text[end:]))
        fixed.append(exact)
    return index.with_lines(lines), tuple(fixed)


def drop_dead_entries(
    index: Index, names: Collection[str], trashed: Collection[str], where: Where
) -> tuple[Index, tuple[DroppedLine, ...]]:
    """Drop entries whose topic file is gone (seed 000 STEP 5: rebuild from survivors).

    A gone file is one not among ``names``: trashed by this run (reason
    ``trashed``) or missing before it (``missing``). Only entry lines go; a
    prose line mentioning a gone file stays (see ``dead_mentions``).
    """
    present = set(names)
    gone = {name.casefold() for name in trashed}
    kept: list[IndexLine] = []
    dropped: list[DroppedLine] = []
    for line in index.lines:
        if line.entry is None or line.entry.file in present:
            kept.append(line)
            continue
        reason = "trashed" if line.entry.file.casefold() in gone else "missing"
        dropped.append(DroppedLine(line.entry.file, where, line.text, reason))
    return index.with_lines(kept), tuple(dropped)


def dead_mentions(index: Index, names: Collection[str], where: Where) -> tuple[DroppedLine, ...]:
    """Prose lines that link a gone file: kept as written, reported (issue 3, item 7)."""
    present = set(names)
    return tuple(
        DroppedLine(file, where, line.text, "kept: prose mentions a gone file")
        for line in index.lines
        for file in line.mentions
        if file not in present
    )


def collapse_duplicates(
    index: Index, archive: Index | None
) -> tuple[Index, Index | None, tuple[DroppedLine, ...]]:
    """Keep one entry per file: the first in ``MEMORY.md``, else the first in the archive.

    Seed 000 STEP 5 ("one line per file") and #3741 (the two sets are
    disjoint). Dropped lines are reported with their full text.
    """
    first: dict[str, Where] = {}
    dropped: list[DroppedLine] = []
    new_index = index.with_lines(_first_entries(index, first, dropped, INDEX_NAME))
    new_archive = (
        archive.with_lines(_first_entries(archive, first, dropped, ARCHIVE_NAME))
        if archive is not None
        else None
    )
    return new_index, new_archive, tuple(dropped)


def _first_entries(
    index: Index, first: dict[str, Where], dropped: list[DroppedLine], where: Where
) -> Iterator[IndexLine]:
    for line in index.lines:
        entry = line.entry
        if entry is not None and entry.file in first:
            reason = f"duplicate: the first entry, in {first[entry.file]}, is kept"
            dropped.append(DroppedLine(entry.file, where, line.text, reason))
            continue
        if entry is not None:
            first[entry.file] = where
        yield line
