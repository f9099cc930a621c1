"""The index byte budget, the archive and the two-file invariant (seed 000 STEPs 5 and 5.5).

``MEMORY.md`` is read at every session start and silently stops working past
its load limit, so the limit is bytes, not lines. Rules, one function each:

1. ``per_line_budget`` — ``(budget - non-entry overhead) / entries``; the
   budget is 17,408 bytes unless the caller passes another
   (``DREAMD_INDEX_BUDGET_BYTES`` or the config).
2. ``shorten_hook`` — only when the index is over budget, each entry longer
   than the per-line budget has its hook cut at a word boundary, keeping the
   leading clause, never below about 90 characters of line. This comes
   before anything moves.
3. ``demotion_rank`` / ``never_move_reason`` — archive moves by file-name
   prefix: ``project_handoff_*`` older than 7 days first (date from a
   ``_YYYY_MM_DD`` suffix, else mtime), then ``feedback_*``, then
   ``project_*`` / ``reference_*`` unmodified for 30 days; never ``hub_*``,
   ``user_*``, entries under a Policy heading, or files modified in the last
   7 days. Oldest first within a class.
4. ``fit_budget`` — moves the fewest candidates, in that order, that make
   the projected index (trailer included) fit; moved lines go unshortened to
   ``MEMORY-ARCHIVE.md`` under ``## Moved from MEMORY.md <date> (N)``; the
   index ends with exactly one trailer line when an archive exists; if it
   still does not fit, a warning lists what is left. Never truncation, never
   deletion: every file keeps exactly one entry.
5. ``check_invariant`` — the two-file one-to-one invariant (#3741).

The archive itself is not budgeted: it is read on demand.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from dreamd.dream.folder.indexfile import (
    ARCHIVE_NAME,
    INDEX_NAME,
    Entry,
    Index,
    IndexLine,
    close_open_fence,
    find_links,
    is_topic_file_name,
    parse_index,
    parse_line,
    with_hook,
)
from dreamd.dream.model import MemoryFile
from dreamd.fs import read_if_present

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "BudgetReport",
    "Candidate",
    "Fitted",
    "InvariantReport",
    "Kept",
    "SectionSize",
    "archive_section",
    "check_invariant",
    "demotion_rank",
    "fit_budget",
    "handoff_date",
    "invariant_from_disk",
    "leading_clause",
    "move_candidates",
    "nbytes",
    "never_move_reason",
    "per_line_budget",
    "shorten_entries",
    "shorten_hook",
    "strip_trailers",
    "trailer_text",
    "with_trailer",
]

#: Seed 000 STEP 5: about 17 KB, under the ~24 KB load limit of a session.
DEFAULT_BUDGET_BYTES = 17 * 1024
#: Seed 000 STEP 5: hooks are shortened to about 90 characters of line, no further.
LINE_FLOOR_CHARS = 90
#: SPEC "Index budget": entries longer than this are reported.
LONG_ENTRY_CHARS = 400
#: A handoff note older than this is the first thing to leave the index.
HANDOFF_AGE = timedelta(days=7)
#: ``project_*`` / ``reference_*`` files unmodified this long may leave the index.
STALE_AGE = timedelta(days=30)
#: A file modified more recently than this never leaves the index.
RECENT_GUARD = timedelta(days=7)
#: Marks a shortened hook, so a reader knows the file says more.
ELLIPSIS = "…"

HANDOFF_PREFIX = "project_handoff_"
FEEDBACK_PREFIX = "feedback_"
STALE_PREFIXES = ("project_", "reference_")
NEVER_PREFIXES = ("hub_", "user_")
POLICY_WORDS = frozenset({"policy", "policies"})

ARCHIVE_HEADER = (
    "# Memory archive",
    "",
    "Index lines moved out of MEMORY.md to keep it within its byte budget. Every",
    "file listed here is still in this folder; open it when a task needs it.",
)

_DATE_SUFFIX = re.compile(r"_(\d{4})[_-](\d{2})[_-](\d{2})\.md$", re.IGNORECASE)
# Spans a cut must not split (links are found by the index parser).
_PROTECTED = re.compile(r"`[^`]*`|\*\*[^*]+\*\*|\([^()]*\)")
# Where a hook's leading clause ends: a spaced dash or hyphen, ``;``, ``,``/``.`` before a space.
_CLAUSE_END = re.compile(
    r"[ \t]+(?:\u2014|\u2013|--|-)[ \t]+|;|,(?=\s)|\.(?=\s)|[\u3002\uff1b\uff0c]"
)
# Ideographic comma and full stop, fullwidth comma and semicolon: breaks in unspaced text.
_CJK_BREAKS = frozenset("\u3001\u3002\uff0c\uff1b")
_TRIM = " \t,;:.\u2014\u2013-("
_WORD = re.compile(r"[a-z]+")


# --------------------------------------------------------------------------- reports


@dataclass(frozen=True, slots=True)
class Candidate:
    """An entry that may move to the archive: its class rank and the age it sorts by."""

    file: str
    rank: int  # 0 old handoff, 1 feedback, 2 stale project/reference
    since: datetime
    line: str


@dataclass(frozen=True, slots=True)
class Kept:
    """An entry left in an over-budget index, its size and why it could not move."""

    file: str
    bytes: int
    reason: str


@dataclass(frozen=True, slots=True)
class SectionSize:
    """Entries and bytes under one ``##`` section ("" for the lines before any)."""

    heading: str
    entries: int
    bytes: int


@dataclass(frozen=True, slots=True)
class BudgetReport:
    """What STEP 5.5 measured and did for one index."""

    budget: int
    bytes_before: int
    bytes: int
    overhead_bytes: int
    line_budget: int | None
    entries: int
    archived: int
    moved: tuple[str, ...] = ()
    shortened: tuple[str, ...] = ()
    long_entries: tuple[str, ...] = ()
    sections: tuple[SectionSize, ...] = ()
    remaining: tuple[Kept, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        """Whether the index is within its budget."""
        return self.bytes <= self.budget


@dataclass(frozen=True, slots=True)
class Fitted:
    """The index and archive after the budget step, and its report."""

    index: Index
    archive: Index | None
    report: BudgetReport


@dataclass(frozen=True, slots=True)
class InvariantReport:
    """The two-file one-to-one invariant (seed 000 STEP 5, #3741), and what breaks it."""

    not_indexed: tuple[str, ...] = ()
    dangling: tuple[str, ...] = ()
    in_both: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()
    trailer_lines: int = 0
    archive_exists: bool = False

    @property
    def ok(self) -> bool:
        """Whether the invariant holds."""
        return not self.problems

    @property
    def problems(self) -> tuple[str, ...]:
        """One sentence per broken part of the invariant."""
        found = []
        if self.not_indexed:
            found.append(f"not indexed in either file: {', '.join(self.not_indexed)}")
        if self.dangling:
            found.append(f"links to no file of that exact name: {', '.join(self.dangling)}")
        if self.in_both:
            found.append(f"indexed in both MEMORY.md and the archive: {', '.join(self.in_both)}")
        if self.repeated:
            found.append(f"indexed more than once: {', '.join(self.repeated)}")
        expected = 1 if self.archive_exists else 0
        if self.trailer_lines != expected:
            found.append(
                f"MEMORY.md has {self.trailer_lines} trailer lines linking {ARCHIVE_NAME}, "
                f"expected {expected}"
            )
        return tuple(found)


# --------------------------------------------------------------------------- sizes


def nbytes(text: str) -> int:
    """Size of a text once written (UTF-8; undecodable bytes count as themselves)."""
    return len(text.encode("utf-8", "surrogateescape"))


def per_line_budget(budget: int, overhead: int, entries: int) -> int | None:
    """Bytes one entry line may take (seed 000 STEP 5); None without entries.

    ``(budget - non_entry_overhead) / entry_count``, rounded down; it may be
    zero or negative when the prose alone fills the budget.
    """
    return (budget - overhead) // entries if entries > 0 else None


def _entry_bytes(index: Index) -> int:
    newline = nbytes(index.newline)
    return sum(nbytes(line.text) + newline for line in index.lines if line.entry)


def section_sizes(index: Index) -> tuple[SectionSize, ...]:
    """Entries and bytes per ``##`` section, in order (SPEC "Index budget" report)."""
    newline = nbytes(index.newline)
    sizes: dict[str, list[int]] = {}
    heading = ""
    for line in index.lines:
        if line.kind == "heading" and line.level == 2:
            heading = line.heading
        counts = sizes.setdefault(heading, [0, 0])
        counts[0] += line.entry is not None
        counts[1] += nbytes(line.text) + newline
    return tuple(SectionSize(name, n, size) for name, (n, size) in sizes.items())


# --------------------------------------------------------------------------- shortening


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans a cut must not split: code, bold, parentheses and links."""
    spans = [match.span() for match in _PROTECTED.finditer(text)]
    return spans + [(link.start, link.end) for link in find_links(text)]


def _inside(position: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < position < end for start, end in spans)


def leading_clause(hook: str) -> str | None:
    """The part of a hook before its first clause break, or None when it has none.

    Breaks are a spaced dash or hyphen, ``;``, and ``,`` or ``.`` followed by a space
    (so ``23,470`` and ``v2.3`` do not break), outside code and links. A
    hook already shortened (ending in ``…``) without a break is all leading
    clause: it is not cut again.
    """
    text = hook.rstrip()
    spans = _protected_spans(text)
    for match in _CLAUSE_END.finditer(text):
        if not _inside(match.start(), spans) and text[: match.start()].strip():
            return text[: match.start()].rstrip()
    if text.endswith(ELLIPSIS):
        return text[: -len(ELLIPSIS)].rstrip()
    return None


def _cut_points(hook: str) -> list[int]:
    """Word ends inside a hook (positions before a space or after CJK punctuation)."""
    spans = _protected_spans(hook)
    points = []
    for position in range(1, len(hook)):
        before, after = hook[position - 1], hook[position]
        word_end = after.isspace() and not before.isspace()
        if (word_end or before in _CJK_BREAKS) and not _inside(position, spans):
            points.append(position)
    return points


def _cut(hook: str, position: int) -> str:
    return hook[:position].rstrip().rstrip(_TRIM).rstrip() + ELLIPSIS


def shorten_hook(hook: str, max_bytes: int) -> str:
    """Shorten a hook to ``max_bytes`` at a word boundary, keeping its leading clause.

    Seed 000 STEP 5: never mid-word; the leading clause (the detail that tells
    the subject apart) stays even when it alone is over ``max_bytes``. A
    hook without a clause break is cut after its last whole word that fits,
    its first word at least. A cut hook ends in ``…``. Never longer than the
    input.
    """
    if nbytes(hook) <= max_bytes:
        return hook
    lead = leading_clause(hook)
    points = _cut_points(hook)
    if lead is not None:
        points = sorted({len(lead), *(p for p in points if p > len(lead))})
    if not points:
        return hook
    # Sizes grow with the cut position, so the last fitting cut is found by bisection.
    fitting = bisect_right(points, max_bytes, key=lambda p: nbytes(_cut(hook, p)))
    choice = points[max(fitting - 1, 0)]
    shortened = _cut(hook, choice)
    return shortened if nbytes(shortened) < nbytes(hook) else hook


def _shorten_line(line: IndexLine, line_budget: int, newline: int) -> IndexLine:
    """One entry line cut to the per-line budget, or to ~90 characters, whichever is longer."""
    entry = line.entry
    if entry is None or not entry.hook.strip():
        return line
    if nbytes(line.text) + newline <= line_budget:
        return line
    floor_chars = max(0, LINE_FLOOR_CHARS - len(entry.head))
    room = max(line_budget - newline - nbytes(entry.head), nbytes(entry.hook[:floor_chars]))
    hook = shorten_hook(entry.hook, room)
    return line if hook == entry.hook else with_hook(line, hook)


def shorten_entries(index: Index, budget: int) -> tuple[Index, int | None, tuple[str, ...]]:
    """Cut the hooks of entries over the per-line budget (seed 000 STEP 5).

    Returns the new index, the per-line budget used and the files shortened.
    Only call it for an index over budget: one that fits is left alone.
    """
    entries = sum(1 for line in index.lines if line.entry)
    overhead = nbytes(index.render()) - _entry_bytes(index)
    line_budget = per_line_budget(budget, overhead, entries)
    if line_budget is None:
        return index, None, ()
    newline = nbytes(index.newline)
    lines = [_shorten_line(line, line_budget, newline) for line in index.lines]
    shortened = tuple(
        new.entry.file
        for old, new in zip(index.lines, lines, strict=True)
        if new.entry is not None and new is not old
    )
    return index.with_lines(lines), line_budget, shortened


# --------------------------------------------------------------------------- demotion


def handoff_date(name: str, mtime: datetime) -> datetime:
    """A handoff's date: its ``_YYYY_MM_DD`` suffix (midnight, mtime's zone), else its mtime.

    ``_YYYY-MM-DD`` is read the same way.
    """
    match = _DATE_SUFFIX.search(name)
    if match is None:
        return mtime
    try:
        return datetime(int(match[1]), int(match[2]), int(match[3]), tzinfo=mtime.tzinfo)
    except ValueError:
        return mtime


def never_move_reason(
    name: str, mtime: datetime, *, under_policy: bool, now: datetime
) -> str | None:
    """Why an entry must stay in ``MEMORY.md`` whatever the budget, or None.

    SPEC "Index budget": ``hub_*``, ``user_*``, anything under a Policy
    heading, anything modified in the last 7 days.
    """
    lower = name.casefold()
    for prefix in NEVER_PREFIXES:
        if lower.startswith(prefix):
            return f"{prefix}* files never move"
    if under_policy:
        return "under a Policy heading"
    if now - mtime < RECENT_GUARD:
        return f"modified within {RECENT_GUARD.days} days"
    return None


def demotion_rank(name: str, mtime: datetime, now: datetime) -> tuple[int, datetime] | None:
    """The demotion class of a file (0 first) and the date it sorts by, or None.

    SPEC "Index budget": 0 ``project_handoff_*`` older than 7 days; 1
    ``feedback_*``; 2 ``project_*`` / ``reference_*`` unmodified for 30 days.
    """
    lower = name.casefold()
    if lower.startswith(HANDOFF_PREFIX):
        since = handoff_date(name, mtime)
        return (0, since) if now - since > HANDOFF_AGE else None
    if lower.startswith(FEEDBACK_PREFIX):
        return (1, mtime)
    if lower.startswith(STALE_PREFIXES) and now - mtime > STALE_AGE:
        return (2, mtime)
    return None


def _entries_with_policy(index: Index) -> Iterator[tuple[Entry, str, bool]]:
    """Each entry, its line, and whether a heading above it names a policy."""
    stack: list[tuple[int, bool]] = []
    for line in index.lines:
        if line.kind == "heading":
            while stack and stack[-1][0] >= line.level:
                stack.pop()
            words = set(_WORD.findall(line.heading.casefold()))
            stack.append((line.level, bool(words & POLICY_WORDS)))
        elif line.entry is not None:
            yield line.entry, line.text, any(policy for _, policy in stack)


def move_candidates(
    index: Index, files: Mapping[str, MemoryFile], now: datetime
) -> tuple[tuple[Candidate, ...], dict[str, str]]:
    """Entries that may move, in move order, and why each other entry may not.

    Order: class, then oldest first, then file name (seed 000 STEP 5.5).
    """
    candidates: list[Candidate] = []
    kept: dict[str, str] = {}
    for entry, text, under_policy in _entries_with_policy(index):
        file = entry.file
        memory = files.get(file)
        if memory is None:
            kept[file] = "not a surviving file"
            continue
        reason = never_move_reason(file, memory.mtime, under_policy=under_policy, now=now)
        ranked = None if reason else demotion_rank(file, memory.mtime, now)
        if ranked is None:
            kept[file] = reason or "no demotion class for its name"
            continue
        candidates.append(Candidate(file, ranked[0], ranked[1], text))
    candidates.sort(key=lambda c: (c.rank, c.since, c.file.casefold(), c.file))
    return tuple(candidates), kept


# --------------------------------------------------------------------------- trailer, archive


def trailer_text(archived: int) -> str:
    """The single trailer line of ``MEMORY.md`` (seed 000 STEP 5: ``> N memory files ...``)."""
    noun = "memory file is" if archived == 1 else "memory files are"
    return (
        f"> {archived} {noun} archived in [{ARCHIVE_NAME}]({ARCHIVE_NAME}); open it to find them."
    )


def strip_trailers(index: Index) -> Index:
    """The index without its trailer lines."""
    return index.with_lines(line for line in index.lines if line.kind != "trailer")


def with_trailer(index: Index, archived: int) -> Index:
    """The index ending with exactly one trailer line, after one blank line."""
    lines = list(close_open_fence(strip_trailers(index)).lines)
    while lines and lines[-1].kind == "blank":
        lines.pop()
    if lines:
        lines.append(IndexLine("", "blank"))
    lines.append(parse_line(trailer_text(archived)))
    return replace(index.with_lines(lines), final_newline=True)


def archive_section(archive: Index | None, moved: Sequence[str], now: datetime) -> Index:
    """The archive with moved lines appended under ``## Moved from MEMORY.md <date> (N)``.

    A new archive starts with a short header saying what it is.
    """
    if archive is None or not archive.lines:
        archive = parse_index("\n".join(ARCHIVE_HEADER) + "\n")
    lines = list(close_open_fence(archive).lines)
    while lines and lines[-1].kind == "blank":
        lines.pop()
    heading = f"## Moved from {INDEX_NAME} {now.date().isoformat()} ({len(moved)})"
    added = ["", heading, "", *moved]
    lines.extend(parse_line(text) for text in added)
    return replace(archive.with_lines(lines), final_newline=True)


# --------------------------------------------------------------------------- fitting


@dataclass(frozen=True, slots=True)
class _State:
    index: Index
    size: int
    line_budget: int | None
    shortened: tuple[str, ...]


def _state(
    base: Index, moved: Collection[str], archived: int, has_archive: bool, budget: int
) -> _State:
    """The index with ``moved`` entries gone, its trailer, and hooks cut if still over."""
    remaining = base.with_lines(
        line for line in base.lines if line.entry is None or line.entry.file not in moved
    )
    if has_archive or moved:
        remaining = with_trailer(remaining, archived + len(moved))
    size = nbytes(remaining.render())
    if size <= budget:
        return _State(remaining, size, None, ())
    shortened, line_budget, names = shorten_entries(remaining, budget)
    return _State(shortened, nbytes(shortened.render()), line_budget, names)


def _fewest_moves(fits: Callable[[int], bool], most: int) -> int:
    """The smallest number of moves that fits, ``most`` when none does."""
    if fits(0):
        return 0
    if most == 0 or not fits(most):
        return most
    low, high = 1, most  # fits(high) holds; fits(low - 1) does not
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


def fit_budget(
    index: Index,
    archive: Index | None,
    files: Mapping[str, MemoryFile],
    *,
    budget: int = DEFAULT_BUDGET_BYTES,
    now: datetime,
    archive_moves: bool = True,
) -> Fitted:
    """Make the index fit its byte budget by rule (seed 000 STEP 5.5).

    Hooks are shortened first; then candidates move to the archive in order,
    as few as make the projected size (trailer included) fit. With
    ``archive_moves=False`` nothing moves and the candidates are reported.
    """
    base = strip_trailers(index)
    archived = len(archive.entries) if archive is not None else 0
    candidates, kept = move_candidates(base, files, now)
    movable = candidates if archive_moves else ()

    @cache  # the search and the report ask for the same counts again
    def state(count: int) -> _State:
        names = {c.file for c in movable[:count]}
        return _state(base, names, archived, archive is not None, budget)

    moves = _fewest_moves(lambda count: state(count).size <= budget, len(movable))
    final = state(moves)
    moved = movable[:moves]
    new_archive = archive_section(archive, [c.line for c in moved], now) if moved else archive
    start = with_trailer(base, archived) if archive is not None else base
    report = _report(final, nbytes(start.render()), new_archive, moved, kept, candidates, budget)
    return Fitted(final.index, new_archive, report)


def _report(
    final: _State,
    bytes_before: int,
    archive: Index | None,
    moved: Sequence[Candidate],
    kept: Mapping[str, str],
    candidates: Sequence[Candidate],
    budget: int,
) -> BudgetReport:
    index = final.index
    entries = [line.entry for line in index.lines if line.entry is not None]
    overhead = final.size - _entry_bytes(index)
    remaining = () if final.size <= budget else _remaining(index, kept, candidates, moved)
    return BudgetReport(
        budget=budget,
        bytes_before=bytes_before,
        bytes=final.size,
        overhead_bytes=overhead,
        line_budget=per_line_budget(budget, overhead, len(entries)),
        entries=len(entries),
        archived=len(archive.entries) if archive is not None else 0,
        moved=tuple(c.file for c in moved),
        shortened=final.shortened,
        long_entries=tuple(e.file for e in entries if len(e.head) + len(e.hook) > LONG_ENTRY_CHARS),
        sections=section_sizes(index),
        remaining=remaining,
        warnings=_warnings(final, moved, remaining, budget),
    )


def _remaining(
    index: Index,
    kept: Mapping[str, str],
    candidates: Sequence[Candidate],
    moved: Sequence[Candidate],
) -> tuple[Kept, ...]:
    """Entries left in an over-budget index, largest first, with why each stayed."""
    moved_names = {c.file for c in moved}
    unmoved = {c.file for c in candidates} - moved_names
    rows = []
    for line in index.lines:
        if line.entry is None:
            continue
        file = line.entry.file
        reason = (
            "candidate: archive moves were not allowed"
            if file in unmoved
            else kept.get(file, "kept")
        )
        rows.append(Kept(file, nbytes(line.text), reason))
    rows.sort(key=lambda row: (-row.bytes, row.file))
    return tuple(rows)


def _warnings(
    final: _State, moved: Sequence[Candidate], remaining: Sequence[Kept], budget: int
) -> tuple[str, ...]:
    """Seed 000 error table: still over budget → warn and list the remaining candidates."""
    if final.size <= budget:
        return ()
    done = "shortening hooks"
    if moved:
        done += f" and moving {len(moved)} entries to {ARCHIVE_NAME}"
    listed = ", ".join(f"{row.file} ({row.bytes} B: {row.reason})" for row in remaining[:10])
    more = f" and {len(remaining) - 10} more" if len(remaining) > 10 else ""
    overhead = final.size - _entry_bytes(final.index)
    return (
        f"{INDEX_NAME} is {final.size:,} bytes, over its {budget:,}-byte budget after {done}; "
        f"lines that are not entries take {overhead:,} bytes; nothing was truncated or "
        f"deleted. Remaining entries: {listed or 'none'}{more}.",
    )


# --------------------------------------------------------------------------- invariant


def check_invariant(
    index_text: str | None, archive_text: str | None, file_names: Iterable[str]
) -> InvariantReport:
    """The two-file one-to-one invariant (seed 000 STEP 5, #3741). Pure.

    indexed(MEMORY.md) + indexed(MEMORY-ARCHIVE.md) == topic files on disk,
    the two sets disjoint, no file indexed twice, every entry's target an
    exact-case file name, and exactly one trailer line when an archive exists
    (none when it does not). Topic files exclude ``MEMORY*.md`` and hidden
    files; the caller lists only the folder's own files (not ``.trash/`` or
    ``_backup/``). Prose mentions are not entries and are not counted.
    """
    files = {name for name in file_names if is_topic_file_name(name)}
    index = parse_index(index_text or "")
    main = [entry.file for entry in index.entries]
    archived = [entry.file for entry in parse_index(archive_text).entries] if archive_text else []
    linked = set(main) | set(archived)
    repeated = {
        n for counts in (Counter(main), Counter(archived)) for n, c in counts.items() if c > 1
    }
    return InvariantReport(
        not_indexed=tuple(sorted(files - linked)),
        dangling=tuple(sorted(linked - files)),
        in_both=tuple(sorted(set(main) & set(archived))),
        repeated=tuple(sorted(repeated)),
        trailer_lines=sum(1 for line in index.lines if line.kind == "trailer"),
        archive_exists=archive_text is not None,
    )


def _read_text(path: Path) -> str | None:
    """A file's text, or None when there is no such file (never read through a link)."""
    data = read_if_present(path)
    return None if data is None else data.decode("utf-8", "surrogateescape")


def invariant_from_disk(folder: Path) -> InvariantReport:
    """Check the invariant against what is on disk now (the re-check after writing).

    Reads ``MEMORY.md`` and ``MEMORY-ARCHIVE.md`` and lists the folder's own
    files (subfolders such as ``.trash/`` and ``_backup/`` are not listed).
    """
    names = [path.name for path in folder.iterdir() if path.is_file()]
    return check_invariant(
        _read_text(folder / INDEX_NAME), _read_text(folder / ARCHIVE_NAME), names
    )
