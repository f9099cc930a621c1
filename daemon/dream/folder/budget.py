"""The index byte budget: ``MEMORY.md`` made to fit it, and the report (seed 000 STEP 5.5).

``MEMORY.md`` is read at every session start and silently stops working past
its load limit, so the limit is bytes, not lines: 17,408 bytes unless the
caller passes another (``DREAMD_INDEX_BUDGET_BYTES`` or the config).

``fit_budget`` applies the rules in order:

1. only when the index is over budget, hooks longer than the per-line budget
   are shortened (``dreamd.dream.folder.hooks``). This comes before anything
   moves;
2. then it moves the fewest archive candidates, in demotion order
   (``dreamd.dream.folder.archive``), that make the projected index (trailer
   included) fit; moved lines go unshortened to ``MEMORY-ARCHIVE.md``, and the
   index ends with exactly one trailer line when an archive exists;
3. if it still does not fit, a warning lists what is left.

Never truncation, never deletion: every file keeps exactly one entry (the
invariant ``dreamd.dream.folder.invariant`` checks). ``BudgetReport`` says what
was measured and done, section by section.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from dreamd.dream.folder.archive import (
    Candidate,
    archive_section,
    move_candidates,
    strip_trailers,
    with_trailer,
)
from dreamd.dream.folder.hooks import entry_bytes, nbytes, per_line_budget, shorten_entries
from dreamd.dream.folder.indexfile import ARCHIVE_NAME, INDEX_NAME, Index
from dreamd.dream.model import MemoryFile

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "BudgetReport",
    "Fitted",
    "Kept",
    "SectionSize",
    "fit_budget",
    "section_sizes",
]

#: Seed 000 STEP 5: about 17 KB, under the ~24 KB load limit of a session.
DEFAULT_BUDGET_BYTES = 17 * 1024
#: SPEC "Index budget": entries longer than this are reported.
LONG_ENTRY_CHARS = 400
#: Claude Code loads the first 200 lines of ``MEMORY.md`` (seed 004; issue 12, item 7):
#: the index must fit them, trailer included, as it must fit the byte budget.
LINE_LIMIT = 200


# --------------------------------------------------------------------------- reports


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
    lines: int = 0
    line_limit: int = LINE_LIMIT
    moved: tuple[str, ...] = ()
    shortened: tuple[str, ...] = ()
    long_entries: tuple[str, ...] = ()
    sections: tuple[SectionSize, ...] = ()
    remaining: tuple[Kept, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        """Whether the index is within its byte budget and its line limit."""
        return self.bytes <= self.budget and self.lines <= self.line_limit


@dataclass(frozen=True, slots=True)
class Fitted:
    """The index and archive after the budget step, and its report."""

    index: Index
    archive: Index | None
    report: BudgetReport


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


# --------------------------------------------------------------------------- fitting


@dataclass(frozen=True, slots=True)
class _State:
    index: Index
    size: int
    line_budget: int | None
    shortened: tuple[str, ...]
    lines: int = 0

    def fits(self, budget: int, line_limit: int) -> bool:
        return self.size <= budget and self.lines <= line_limit


def line_count(text: str) -> int:
    """Lines of a text as a loader counts them (a last line without newline counts)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _without_moved(base: Index, moved: Collection[str], archived: int, has_archive: bool) -> Index:
    """The index with ``moved`` entries gone and its trailer."""
    remaining = base.with_lines(
        line for line in base.lines if line.entry is None or line.entry.file not in moved
    )
    if has_archive or moved:
        remaining = with_trailer(remaining, archived + len(moved))
    return remaining


def _lines_after(base: Index, moved: Collection[str], archived: int, has_archive: bool) -> int:
    """Lines of the index once ``moved`` entries are gone (what the line limit counts)."""
    return line_count(_without_moved(base, moved, archived, has_archive).render())


def _state(
    base: Index, moved: Collection[str], archived: int, has_archive: bool, budget: int
) -> _State:
    """The index with ``moved`` entries gone, its trailer, and hooks cut if still over."""
    remaining = _without_moved(base, moved, archived, has_archive)
    text = remaining.render()
    size, lines = nbytes(text), line_count(text)
    if size <= budget:
        return _State(remaining, size, None, (), lines)
    shortened, line_budget, names = shorten_entries(remaining, budget)
    return _State(shortened, nbytes(shortened.render()), line_budget, names, lines)


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
    line_limit: int = LINE_LIMIT,
) -> Fitted:
    """Make the index fit its byte budget and its line limit by rule (seed 000 STEP 5.5).

    Hooks are shortened first; then candidates move to the archive in order,
    as few as make the projected index (trailer included) fit both its bytes
    and the 200 lines Claude Code loads. With ``archive_moves=False`` nothing
    moves and the candidates are reported.
    """
    base = strip_trailers(index)
    archived = len(archive.entries) if archive is not None else 0
    candidates, kept = move_candidates(base, files, now)
    movable = candidates if archive_moves else ()

    @cache  # the search and the report ask for the same counts again
    def state(count: int) -> _State:
        names = {c.file for c in movable[:count]}
        return _state(base, names, archived, archive is not None, budget)

    def fits(count: int) -> bool:
        names = {c.file for c in movable[:count]}
        if _lines_after(base, names, archived, archive is not None) > line_limit:
            return False  # shortening hooks never removes a line: no need to cut them
        return state(count).fits(budget, line_limit)

    moves = _fewest_moves(fits, len(movable))
    final = state(moves)
    moved = movable[:moves]
    new_archive = archive_section(archive, [c.line for c in moved], now) if moved else archive
    start = with_trailer(base, archived) if archive is not None else base
    report = _report(
        final, nbytes(start.render()), new_archive, moved, kept, candidates, (budget, line_limit)
    )
    return Fitted(final.index, new_archive, report)


def _report(
    final: _State,
    bytes_before: int,
    archive: Index | None,
    moved: Sequence[Candidate],
    kept: Mapping[str, str],
    candidates: Sequence[Candidate],
    limits: tuple[int, int],
) -> BudgetReport:
    budget, line_limit = limits
    index = final.index
    entries = [line.entry for line in index.lines if line.entry is not None]
    overhead = final.size - entry_bytes(index)
    fits = final.fits(budget, line_limit)
    remaining = () if fits else _remaining(index, kept, candidates, moved)
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
        warnings=_warnings(final, moved, remaining, limits),
        lines=final.lines,
        line_limit=line_limit,
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
    final: _State, moved: Sequence[Candidate], remaining: Sequence[Kept], limits: tuple[int, int]
) -> tuple[str, ...]:
    """Seed 000 error table: still over budget → warn and list the remaining candidates."""
    budget, line_limit = limits
    if final.fits(budget, line_limit):
        return ()
    done = "shortening hooks"
    if moved:
        done += f" and moving {len(moved)} entries to {ARCHIVE_NAME}"
    listed = ", ".join(f"{row.file} ({row.bytes} B: {row.reason})" for row in remaining[:10])
    more = f" and {len(remaining) - 10} more" if len(remaining) > 10 else ""
    overhead = final.size - entry_bytes(final.index)
    over = []
    if final.size > budget:
        over.append(f"{final.size:,} bytes, over its {budget:,}-byte budget")
    if final.lines > line_limit:
        prose = sum(1 for line in final.index.lines if line.entry is None)
        over.append(
            f"{final.lines} lines, over the {line_limit} Claude Code loads "
            f"({prose} of them are not entries and cannot move)"
        )
    return (
        f"{INDEX_NAME} is {' and '.join(over)} after {done}; lines that are not entries take "
        f"{overhead:,} bytes; nothing was truncated or deleted. Remaining entries: "
        f"{listed or 'none'}{more}.",
    )
