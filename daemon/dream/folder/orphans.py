"""Rules that add and order entries: orphans linked, plain link lists sorted. Pure.

Rules 4 and 5 of the rebuild of ``MEMORY.md`` (seed 000 STEP 5, issue 3
item 7; ``dreamd.dream.folder.index`` runs them after the repairs):

4. ``link_orphans`` — a topic file without an entry gets one line,
   ``- [Name](file.md) -- description``: in a plain link list, in file-name
   order; in a sectioned index, at the end of the section whose heading names
   its type (``## Feedback``, ``## Projects``, ``## User Preferences``), else
   under ``## Unsorted`` at the end.
5. ``sort_plain_list`` — a plain link list (a title and entries only) is
   rebuilt in the seed's form: title, blank line, one entry per file in
   file-name order. "One line per file" in a sectioned index means one entry
   per file; entries stay where the user put them, orphans are appended.

The user's title is kept; ``# <folder> Memory`` (the seed's title) is written
only when the index has none. Existing entries keep their own words and
separator; new entries use the separator most entries already use (the
seed's ``--`` in a new index). Lines appended after a code block the user
left open get a closing fence first, or they would be code.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from dreamd.dream.folder.indexfile import (
    Index,
    IndexLine,
    close_open_fence,
    is_plain_list,
    parse_line,
)
from dreamd.dream.folder.repair import link_target
from dreamd.dream.model import MemoryFile

__all__ = [
    "HEADING_FILLER_WORDS",
    "NEW_INDEX_SEPARATOR",
    "SEED_SEPARATOR",
    "TYPE_HEADING_WORDS",
    "UNSORTED_HEADING",
    "entry_line",
    "link_orphans",
    "name_key",
    "orphan_hook",
    "sort_plain_list",
    "type_heading",
]

#: Where orphans go when no heading names their type (issue 3, item 7).
UNSORTED_HEADING = "Unsorted"
#: The seed's separator between an entry's link and its one-line description.
SEED_SEPARATOR = " -- "
#: The separator of a new index: Claude Code's own (``- [Title](file.md) — hook``), which the
#: seed's ``--`` stands for in plain text (issue 11 item 3).
NEW_INDEX_SEPARATOR = " — "
#: Words a heading must contain to receive orphans of each type.
TYPE_HEADING_WORDS: dict[str, frozenset[str]] = {
    "user": frozenset({"user", "users"}),
    "feedback": frozenset({"feedback", "feedbacks"}),
    "project": frozenset({"project", "projects"}),
    "reference": frozenset({"reference", "references"}),
}

_WORD = re.compile(r"[a-z]+")
#: Words a type heading may carry besides the type (``## User Preferences``).
HEADING_FILLER_WORDS = frozenset(
    {"memory", "memories", "notes", "preferences", "profile", "files", "entries", "index", "and"}
)


# --------------------------------------------------------------------------- entry lines


def entry_line(memory: MemoryFile, separator: str = NEW_INDEX_SEPARATOR) -> IndexLine:
    """The index line for a file: ``- [Name](file.md) — one-line description``."""
    name = (memory.title or "").strip() or memory.stem
    label = re.sub(r"([\[\]\\])", r"\\\1", " ".join(name.split()))
    hook = orphan_hook(memory)
    text = f"- [{label}]({link_target(memory.name)})" + (f"{separator}{hook}" if hook else "")
    return parse_line(text)


def orphan_hook(memory: MemoryFile) -> str:
    """One line describing a file: its front matter description, else its first body line."""
    description = " ".join((memory.description or "").split())
    if description:
        return description
    for raw in memory.body.splitlines():
        words = " ".join(raw.strip().lstrip("#>*-+ \t").split())
        if words and not words.startswith(("---", "```")):
            return words
    return ""


def _dominant_separator(index: Index) -> str:
    """The separator most entries use, so a new line matches its neighbours."""
    counts = Counter(_canonical_separator(entry.separator) for entry in index.entries if entry.hook)
    if not counts:
        return NEW_INDEX_SEPARATOR
    best = max(counts.values())
    return next(sep for sep, n in counts.items() if n == best)


def _canonical_separator(separator: str) -> str:
    mark = separator.strip()
    return ": " if mark == ":" else f" {mark} " if mark else SEED_SEPARATOR


# --------------------------------------------------------------------------- placing orphans


def type_heading(index: Index, memory_type: str | None) -> int | None:
    """Position of the heading that receives orphans of a type, if any.

    A heading of level 2 or deeper whose only word is the type (``## Feedback``,
    ``## Projects``) wins; else the first one made of the type and filler
    words (``## User Preferences``, ``## Project Memories``). ``## Project
    Purpose`` is about something else and does not count.
    """
    words = TYPE_HEADING_WORDS.get(memory_type or "")
    if not words:
        return None
    containing: list[int] = []
    for position, line in enumerate(index.lines):
        if line.kind != "heading" or line.level < 2:
            continue
        tokens = set(_WORD.findall(line.heading.casefold()))
        if tokens and tokens <= words:
            return position
        if words & tokens and tokens <= words | HEADING_FILLER_WORDS:
            containing.append(position)
    return containing[0] if containing else None


def _unsorted_heading(index: Index) -> int | None:
    return next(
        (
            i
            for i, line in enumerate(index.lines)
            if line.kind == "heading" and line.heading.strip().casefold() == "unsorted"
        ),
        None,
    )


def _section_end(index: Index, heading: int) -> int:
    """Where new lines go in a section: after its last non-blank line before any heading."""
    end = heading + 1
    for position in range(heading + 1, len(index.lines)):
        line = index.lines[position]
        if line.kind in ("heading", "title", "trailer"):
            break
        if line.kind != "blank":
            end = position + 1
    return end


def link_orphans(index: Index, orphans: Sequence[MemoryFile]) -> Index:
    """Give every orphan topic file exactly one entry (seed 000 STEP 5, issue 3 item 7).

    Plain link lists get the lines appended (``sort_plain_list`` orders
    them); sectioned indexes get them at the end of the section whose heading
    names the type, else under ``## Unsorted`` (reused if present, else
    created at the end). Orphans sharing a place go in file-name order.
    """
    if not orphans:
        return index
    index = close_open_fence(index)  # else the new lines would be code
    separator = _dominant_separator(index)
    ordered = sorted(orphans, key=lambda m: name_key(m.name))
    if is_plain_list(index):
        return index.with_lines([*index.lines, *(entry_line(m, separator) for m in ordered)])
    fallback = _unsorted_heading(index)
    headings = {kind: type_heading(index, kind) for kind in {m.type for m in ordered}}
    placed: dict[int, list[IndexLine]] = {}
    unsorted: list[IndexLine] = []
    for memory in ordered:
        heading = headings[memory.type]
        if heading is None:
            heading = fallback
        target = unsorted if heading is None else placed.setdefault(heading, [])
        target.append(entry_line(memory, separator))
    return _with_unsorted(_insert_in_sections(index, placed), unsorted)


def _insert_in_sections(index: Index, placed: dict[int, list[IndexLine]]) -> Index:
    inserts = {_section_end(index, heading): lines for heading, lines in placed.items()}
    lines: list[IndexLine] = []
    for position, line in enumerate(index.lines):
        lines.extend(inserts.pop(position, []))
        lines.append(line)
    for position in sorted(inserts):
        lines.extend(inserts[position])
    return index.with_lines(lines)


def _with_unsorted(index: Index, entries: Sequence[IndexLine]) -> Index:
    if not entries:
        return index
    lines = list(index.lines)
    while lines and lines[-1].kind == "blank":
        lines.pop()
    if lines:
        lines.append(IndexLine("", "blank"))
    heading = parse_line(f"## {UNSORTED_HEADING}")
    return index.with_lines([*lines, heading, *entries])


def sort_plain_list(index: Index, folder_title: str) -> Index:
    """Rebuild a plain link list in the seed's form (seed 000 STEP 5).

    The title (the user's, else ``# <folder> Memory``), a blank line, then
    one entry per file in file-name order. Trailer lines are dropped: the
    budget step writes the single one.
    """
    title = index.title or parse_line(f"# {_seed_title(folder_title)}", first=True)
    entries = sorted(
        (line for line in index.lines if line.kind == "entry"),
        key=lambda line: name_key(line.entry.file if line.entry else ""),
    )
    body = [IndexLine("", "blank"), *entries] if entries else []
    return replace(index.with_lines([title, *body]), final_newline=True)


def _seed_title(folder_title: str) -> str:
    name = " ".join(folder_title.split())
    return f"{name} Memory" if name else "Memory"


def name_key(name: str) -> tuple[str, str]:
    """File names in order: case-insensitively, then exactly (so the order is total)."""
    return (name.casefold(), name)
