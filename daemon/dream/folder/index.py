"""What the dream does to ``MEMORY.md``: rebuild it from the surviving files (seed 000 STEP 5).

The index is read through the line model of ``dreamd.dream.folder.indexfile``
(entries, mentions, headings, code, the trailer; every line kept as
written); the rules below change only the lines a rule names.

Rebuild rules (``restructure``), one function each:

1. ``match_link_case`` — an entry whose target differs from a file only by
   case is pointed at the file's exact name (the invariant wants exact case).
2. ``drop_dead_entries`` — entries whose file is gone (trashed or missing)
   are dropped, in the index and in the archive; a prose line that mentions a
   gone file is kept as written and reported (``dead_mentions``).
3. ``collapse_duplicates`` — a file with several entries keeps the first
   (``MEMORY.md`` before the archive); the others are dropped and reported
   with their text.
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
separator; new entries use the separator most entries already use (Claude
Code's ``—`` in a new index, ``NEW_INDEX_SEPARATOR``). Lines appended after a code block the user
left open get a closing fence first, or they would be code. The single
trailer line and the byte budget belong to ``dreamd.dream.folder.budget``, which
``rebuild`` runs after these rules.

Invariants: every line no rule names is rendered byte for byte; rebuilding
the output again returns the same bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from dreamd.dream.folder.budget import BudgetReport, InvariantReport, check_invariant, fit_budget
from dreamd.dream.folder.indexfile import (
    ARCHIVE_NAME,
    INDEX_NAME,
    Entry,
    Index,
    IndexLine,
    LineKind,
    Link,
    close_open_fence,
    find_links,
    is_plain_list,
    is_topic_file_name,
    parse_index,
    parse_line,
    topic_target,
    wikilink_stems,
    with_hook,
)
from dreamd.dream.model import MemoryFile

# The line model and the parser are re-exported: ``dreamd.dream.folder.index`` stays the one import
# for callers that rebuild an index and inspect the result.
__all__ = [
    "ARCHIVE_NAME",
    "INDEX_NAME",
    "UNSORTED_HEADING",
    "DroppedLine",
    "Entry",
    "Index",
    "IndexLine",
    "IndexReport",
    "LineKind",
    "Link",
    "Rebuilt",
    "Restructured",
    "WikiRef",
    "close_open_fence",
    "collapse_duplicates",
    "dead_mentions",
    "drop_dead_entries",
    "entry_line",
    "find_links",
    "is_plain_list",
    "is_topic_file_name",
    "link_orphans",
    "match_link_case",
    "orphan_hook",
    "parse_index",
    "parse_line",
    "rebuild",
    "restructure",
    "sort_plain_list",
    "topic_target",
    "type_heading",
    "wikilinks_to_trashed",
    "with_hook",
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

Where = Literal["MEMORY.md", "MEMORY-ARCHIVE.md"]

_WORD = re.compile(r"[a-z]+")
#: Words a type heading may carry besides the type (``## User Preferences``).
HEADING_FILLER_WORDS = frozenset(
    {"memory", "memories", "notes", "preferences", "profile", "files", "entries", "index", "and"}
)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class DroppedLine:
    """An index line a rule removed, with the file it pointed to and why."""

    file: str
    where: Where
    line: str
    reason: str


@dataclass(frozen=True, slots=True)
class WikiRef:
    """A ``[[stem]]`` wikilink to a trashed memory, and where it was found."""

    source: str
    stem: str


@dataclass(frozen=True, slots=True)
class Restructured:
    """Outcome of the structural rules, before the byte budget."""

    index: Index
    archive: Index | None
    plain_list: bool
    dead_links_dropped: tuple[DroppedLine, ...]
    dead_mentions: tuple[DroppedLine, ...]
    duplicates_collapsed: tuple[DroppedLine, ...]
    orphans_linked: tuple[str, ...]
    case_fixed: tuple[str, ...]
    source_index: Index | None = None  # the index as read, parsed once for later checks
    source_archive: Index | None = None


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What the rebuild of one index found and did (seed 000 STEPs 5 and 5.5).

    ``archived`` counts the entries indexed in ``MEMORY-ARCHIVE.md`` after the
    run; ``budget_report.moved`` names those this run moved there.
    """

    bytes: int
    budget: int
    entries: int
    archived: int
    invariant_ok: bool
    warnings: tuple[str, ...]
    plain_list: bool
    dead_links_dropped: tuple[DroppedLine, ...]
    dead_mentions: tuple[DroppedLine, ...]
    duplicates_collapsed: tuple[DroppedLine, ...]
    orphans_linked: tuple[str, ...]
    case_fixed: tuple[str, ...]
    wikilinks_to_trashed: tuple[WikiRef, ...]
    budget_report: BudgetReport
    invariant: InvariantReport

    def as_json(self) -> dict[str, object]:
        """The JSON contract's ``index`` object."""
        return {
            "bytes": self.bytes,
            "budget": self.budget,
            "entries": self.entries,
            "archived": self.archived,
            "invariant_ok": self.invariant_ok,
        }


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The new ``MEMORY.md``, the new archive (None: there is none) and the report."""

    new_index: str
    new_archive: str | None
    report: IndexReport


# --------------------------------------------------------------------------- entry lines


def entry_line(memory: MemoryFile, separator: str = NEW_INDEX_SEPARATOR) -> IndexLine:
    """The index line for a file: ``- [Name](file.md) — one-line description``."""
    name = (memory.title or "").strip() or memory.stem
    label = re.sub(r"([\[\]\\])", r"\\\1", " ".join(name.split()))
    hook = orphan_hook(memory)
    text = f"- [{label}]({_link_target(memory.name)})" + (f"{separator}{hook}" if hook else "")
    return parse_line(text)


def _link_target(name: str) -> str:
    """A file name as a link target: wrapped in ``<>`` when it holds spaces or parentheses."""
    return f"<{name}>" if re.search(r"[\s()<>]", name) else name


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


# --------------------------------------------------------------------------- rules


def _resolver(names: Collection[str]) -> dict[str, str]:
    """Written target → exact file name: exact names, then case-insensitive when unique."""
    folded = Counter(name.casefold() for name in names)
    table = {name.casefold(): name for name in names if folded[name.casefold()] == 1}
    table.update({name: name for name in names})
    return table


def _resolve(file: str, table: dict[str, str]) -> str | None:
    return table.get(file) or table.get(file.casefold())


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
            written.replace(entry.file, exact, 1) if entry.file in written else _link_target(exact)
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
    ordered = sorted(orphans, key=lambda m: _name_key(m.name))
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
        key=lambda line: _name_key(line.entry.file if line.entry else ""),
    )
    body = [IndexLine("", "blank"), *entries] if entries else []
    return replace(index.with_lines([title, *body]), final_newline=True)


def _seed_title(folder_title: str) -> str:
    name = " ".join(folder_title.split())
    return f"{name} Memory" if name else "Memory"


def _name_key(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def wikilinks_to_trashed(
    index: Index | None,
    archive: Index | None,
    survivors: Sequence[MemoryFile],
    trashed: Collection[str],
) -> tuple[WikiRef, ...]:
    """``[[stem]]`` links to a trashed memory, in the index, the archive or a survivor.

    Issue 3, item 7: reported, never rewritten (they are the user's words).
    """
    gone = {name.removesuffix(".md").casefold(): name.removesuffix(".md") for name in trashed}
    if not gone:
        return ()
    found: list[WikiRef] = []
    for source, parsed in ((INDEX_NAME, index), (ARCHIVE_NAME, archive)):
        for line in parsed.lines if parsed else ():
            found.extend(
                WikiRef(source, gone[s.casefold()]) for s in line.wikilinks if s.casefold() in gone
            )
    for memory in survivors:
        stems = wikilink_stems(memory.body)
        found.extend(
            WikiRef(memory.name, gone[s.casefold()]) for s in stems if s.casefold() in gone
        )
    return tuple(dict.fromkeys(found))


def restructure(
    index_text: str | None,
    archive_text: str | None,
    survivors: Sequence[MemoryFile],
    *,
    folder_title: str,
    trashed: Collection[str] = (),
) -> Restructured:
    """Apply the structural rules (seed 000 STEP 5) in order; no byte budget yet."""
    names = [m.name for m in survivors if is_topic_file_name(m.name)]
    topic_names = set(names)
    source_index = index = parse_index(index_text or "")
    source_archive = archive = parse_index(archive_text) if archive_text is not None else None
    index, fixed = match_link_case(index, names)
    if archive is not None:
        archive, fixed_archive = match_link_case(archive, names)
        fixed += fixed_archive
    index, dead = drop_dead_entries(index, names, trashed, INDEX_NAME)
    mentions = dead_mentions(index, names, INDEX_NAME)
    if archive is not None:
        archive, dead_archive = drop_dead_entries(archive, names, trashed, ARCHIVE_NAME)
        dead += dead_archive
    index, archive, duplicates = collapse_duplicates(index, archive)
    # Dropped lines can make a later heading the title: classify the rest afresh.
    index = parse_index(index.render())
    indexed = {e.file for e in index.entries} | {
        e.file for e in (archive.entries if archive else ())
    }
    orphans = [m for m in survivors if m.name in topic_names and m.name not in indexed]
    plain = is_plain_list(index)
    index = link_orphans(index, orphans)
    if plain:
        index = sort_plain_list(index, folder_title)
    return Restructured(
        index=index,
        archive=archive,
        plain_list=plain,
        dead_links_dropped=dead,
        dead_mentions=mentions,
        duplicates_collapsed=duplicates,
        orphans_linked=tuple(sorted((m.name for m in orphans), key=_name_key)),
        case_fixed=fixed,
        source_index=source_index,
        source_archive=source_archive,
    )


def rebuild(
    index_text: str | None,
    archive_text: str | None,
    survivors: Sequence[MemoryFile],
    *,
    folder_title: str,
    trashed: Collection[str] = (),
    budget: int,
    now: datetime,
    archive_moves: bool = True,
) -> Rebuilt:
    """Rebuild ``MEMORY.md`` (and ``MEMORY-ARCHIVE.md``) from the surviving files.

    Seed 000 STEP 5 (the structural rules above) then STEP 5.5 (byte budget:
    hooks shortened, then archive moves by rule, exactly one trailer line,
    a warning when it still does not fit). ``survivors`` are every topic file
    left in the folder; ``trashed`` the names this run moved to the trash.
    ``archive_moves=False`` reports the moves instead of making them.
    """
    shaped = restructure(
        index_text, archive_text, survivors, folder_title=folder_title, trashed=trashed
    )
    fitted = fit_budget(
        shaped.index,
        shaped.archive,
        {m.name: m for m in survivors},
        budget=budget,
        now=now,
        archive_moves=archive_moves,
    )
    new_index = fitted.index.render()
    new_archive = fitted.archive.render() if fitted.archive is not None else None
    invariant = check_invariant(new_index, new_archive, [m.name for m in survivors])
    warnings = fitted.report.warnings + tuple(invariant.problems)
    report = IndexReport(
        bytes=len(new_index.encode("utf-8", "surrogateescape")),
        budget=budget,
        entries=len(fitted.index.entries),
        archived=len(fitted.archive.entries) if fitted.archive is not None else 0,
        invariant_ok=invariant.ok,
        warnings=warnings,
        plain_list=shaped.plain_list,
        dead_links_dropped=shaped.dead_links_dropped,
        dead_mentions=shaped.dead_mentions,
        duplicates_collapsed=shaped.duplicates_collapsed,
        orphans_linked=shaped.orphans_linked,
        case_fixed=shaped.case_fixed,
        wikilinks_to_trashed=wikilinks_to_trashed(
            shaped.source_index if trashed else None,
            shaped.source_archive if trashed else None,
            survivors,
            trashed,
        ),
        budget_report=fitted.report,
        invariant=invariant,
    )
    return Rebuilt(new_index, new_archive, report)
