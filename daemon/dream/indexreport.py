"""What a rebuild did to ``MEMORY.md``, for the report (seed 000 STEPs 5, 5.5, 6). Pure.

Turns the rebuild's own account (``dreamd.dream.folder.index.IndexReport``:
dropped lines, orphans linked, case fixes, the budget step's moves and
shortenings, section sizes) into the report's ``IndexSummary``: every entry
removed with why, added, archived, shortened (issue 12, item 8).
"""

from __future__ import annotations

from collections.abc import Sequence

from dreamd.dream.folder.index import Rebuilt
from dreamd.dream.folder.indexfile import parse_index
from dreamd.dream.folder.repair import DroppedLine
from dreamd.dream.report import (
    BudgetSummary,
    IndexChange,
    IndexChanges,
    IndexSummary,
    SectionBytes,
)

__all__ = ["index_summary", "line_count"]

_WHY = {
    "trashed": "its memory was moved to the trash",
    "missing": "no such file in the folder (dangling link)",
}


def line_count(text: str) -> int:
    """Lines as Claude Code counts them when it loads the first 200."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _removed(dropped: Sequence[DroppedLine]) -> tuple[IndexChange, ...]:
    changes = []
    for line in dropped:
        reason = _WHY.get(line.reason, line.reason)
        if line.where != "MEMORY.md":
            reason = f"from {line.where}: {reason}"
        changes.append(IndexChange(line.file, reason, line.line))
    return tuple(changes)


def _changes(
    index_text: str | None, rebuilt: Rebuilt, new_index: str, dates: Sequence[str]
) -> IndexChanges:
    """Every entry the rebuild removed, added, archived, shortened or re-cased, with why."""
    report = rebuilt.report
    fitted = report.budget_report
    lines = parse_index(new_index).lines
    lines_by_file = {e.file: line.text for line in lines if (e := line.entry) is not None}
    return IndexChanges(
        removed=_removed((*report.dead_links_dropped, *report.duplicates_collapsed)),
        added=tuple(
            IndexChange(name, "its file had no entry", lines_by_file.get(name, ""))
            for name in report.orphans_linked
        ),
        archived=tuple(
            IndexChange(name, "moved to MEMORY-ARCHIVE.md by the budget rule, oldest first")
            for name in fitted.moved
        ),
        shortened=tuple(
            IndexChange(name, "hook shortened at a word boundary to the per-line budget")
            for name in fitted.shortened
        ),
        case_fixed=tuple(
            IndexChange(name, "link target written in the file's exact case")
            for name in report.case_fixed
        ),
        dates=tuple(dates),
        entries_before=len(parse_index(index_text or "").entries),
        entries_after=report.entries,
    )


def _budget(index_text: str | None, rebuilt: Rebuilt, new_index: str, budget: int) -> BudgetSummary:
    """Seed 000 STEP 5.5's report of the rebuilt index (``bytes_before``: as it was read)."""
    fitted = rebuilt.report.budget_report
    return BudgetSummary(
        budget=budget,
        bytes_before=len((index_text or "").encode("utf-8", "surrogateescape")),
        bytes=len(new_index.encode("utf-8", "surrogateescape")),
        lines=line_count(new_index),
        line_limit=fitted.line_limit,
        overhead_bytes=fitted.overhead_bytes,
        line_budget=fitted.line_budget,
        sections=tuple(SectionBytes(s.heading, s.entries, s.bytes) for s in fitted.sections),
        long_entries=fitted.long_entries,
        moved=fitted.moved,
        shortened=fitted.shortened,
    )


def index_summary(
    index_text: str | None,
    rebuilt: Rebuilt,
    new_index: str,
    budget: int,
    dates: Sequence[str] = (),
) -> IndexSummary:
    """The report's view of a rebuilt index: what changed, the budget report."""
    report = rebuilt.report
    summary = _budget(index_text, rebuilt, new_index, budget)
    return IndexSummary(
        bytes=summary.bytes,
        budget=budget,
        entries=report.entries,
        archived=report.archived,
        invariant_ok=report.invariant_ok,
        rebuilt=new_index != index_text,
        warnings=tuple(report.warnings),
        lines=summary.lines,
        changes=_changes(index_text, rebuilt, new_index, dates),
        budget_report=summary,
    )
