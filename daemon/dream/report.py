"""The dream's report: the JSON contract and the seed's Markdown tables (seed 000 STEP 6).

Every run lists every change it made or would make (issue 12, item 8): the
files it trashes, and every change to ``MEMORY.md`` — entries removed (with
why), added, moved to the archive, shortened — with the seed's
``Would rebuild: MEMORY.md (N entries removed, M remaining)`` line and the
budget report of seed 000 STEP 5.5 (bytes against the ceiling, bytes per
``##`` section, entries over 400 characters, overhead, what moved). The
Markdown rendering is ``dreamd.dream.reporttext``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dreamd.dream.model import Decision
from dreamd.runlog import SCHEMA

__all__ = [
    "BudgetSummary",
    "FolderReport",
    "IndexChange",
    "IndexChanges",
    "IndexSummary",
    "RunReport",
    "SectionBytes",
    "rebuild_line",
    "to_json",
]


@dataclass(frozen=True, slots=True)
class IndexChange:
    """One change to an index entry: which file, what happened, why, and the line."""

    file: str
    reason: str
    line: str = ""


@dataclass(frozen=True, slots=True)
class IndexChanges:
    """Every change a rebuild makes to ``MEMORY.md`` (issue 12, item 8)."""

    removed: tuple[IndexChange, ...] = ()
    added: tuple[IndexChange, ...] = ()
    archived: tuple[IndexChange, ...] = ()
    shortened: tuple[IndexChange, ...] = ()
    case_fixed: tuple[IndexChange, ...] = ()
    dates: tuple[str, ...] = ()  # relative dates of MEMORY.md made absolute
    entries_before: int = 0
    entries_after: int = 0

    @property
    def any(self) -> bool:
        """Whether the rebuild changes any entry."""
        return bool(
            self.removed or self.added or self.archived or self.shortened or self.case_fixed
        )

    def rows(self) -> list[tuple[str, str, str]]:
        """(file, change, reason) for each change, in the report's order."""
        kinds = (
            ("removed", self.removed),
            ("added", self.added),
            ("archived", self.archived),
            ("shortened", self.shortened),
            ("case fixed", self.case_fixed),
        )
        return [(c.file, kind, c.reason) for kind, changes in kinds for c in changes]


@dataclass(frozen=True, slots=True)
class SectionBytes:
    """Entries and bytes under one ``##`` section (seed 000 STEP 5.5)."""

    heading: str
    entries: int
    bytes: int


@dataclass(frozen=True, slots=True)
class BudgetSummary:
    """Seed 000 STEP 5.5's budget report of one index, after the rebuild."""

    budget: int
    bytes_before: int
    bytes: int
    lines: int
    line_limit: int
    overhead_bytes: int
    line_budget: int | None
    sections: tuple[SectionBytes, ...] = ()
    long_entries: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    shortened: tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        """Within both the byte budget and the line limit."""
        return self.bytes <= self.budget and self.lines <= self.line_limit


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """The ``index`` object of one directory in the JSON report."""

    bytes: int = 0
    budget: int = 0
    entries: int = 0
    archived: int = 0
    invariant_ok: bool = True
    rebuilt: bool = False
    warnings: tuple[str, ...] = ()
    lines: int = 0
    changes: IndexChanges = field(default_factory=IndexChanges)
    budget_report: BudgetSummary | None = None


@dataclass(frozen=True, slots=True)
class FolderReport:
    """What one memory folder's dream found and did.

    ``pending``: why this folder's changes wait for review in a pending
    proposal instead of being applied (a scheduled run's first dream of the
    folder, or more moves than it may make unattended).
    """

    path: str
    repo: str | None
    files: tuple[Decision, ...]
    index: IndexSummary
    findings: tuple[str, ...] = ()
    refused: str | None = None
    commits: tuple[str, ...] = ()
    pending: str | None = None
    changed: bool = False


@dataclass(frozen=True, slots=True)
class RunReport:
    """One dream run across folders."""

    run_id: str
    mode: str  # dry-run, apply, apply-pending, no-op
    directories: tuple[FolderReport, ...]
    promotion_candidates: tuple[dict[str, Any], ...] = ()
    messages: tuple[str, ...] = field(default=())

    def totals(self) -> dict[str, int]:
        """The seed's report-table metrics."""
        files = [d for folder in self.directories for d in folder.files]
        trashed = [d for d in files if d.action == "trash"]
        return {
            "memory_directories_scanned": len(self.directories),
            "total_memory_files_scanned": len(files),
            "stale_entries_pruned": sum(1 for d in trashed if d.of is None),
            "duplicates_merged": sum(1 for d in trashed if d.reason.startswith("duplicate")),
            "contradictions_resolved": sum(
                1 for d in trashed if d.reason.startswith("contradicted")
            ),
            "partially_stale_kept_flagged": sum(
                1 for d in files if d.classification == "PARTIALLY_STALE"
            ),
            "evergreen": sum(1 for d in files if d.classification == "EVERGREEN"),
            "surviving_memories": len(files) - len(trashed),
            "indexes_rebuilt": sum(1 for folder in self.directories if folder.index.rebuilt),
            "promotion_candidates": len(self.promotion_candidates),
        }


def rebuild_line(path: str, changes: IndexChanges, *, dry_run: bool) -> str:
    """Seed 000 STEP 5: ``Would rebuild: <dir>/MEMORY.md (N entries removed, M remaining)``.

    ``Rebuilt:`` once applied. Entries moved to the archive left ``MEMORY.md`` too.
    """
    verb = "Would rebuild" if dry_run else "Rebuilt"
    removed = len(changes.removed) + len(changes.archived)
    remaining = changes.entries_after
    return f"{verb}: {path}/MEMORY.md ({removed} entries removed, {remaining} remaining)"


def _change_json(changes: Sequence[IndexChange]) -> list[dict[str, str]]:
    return [{"file": c.file, "reason": c.reason, "line": c.line} for c in changes]


def _budget_json(budget: BudgetSummary | None) -> dict[str, Any] | None:
    if budget is None:
        return None
    return {
        "budget": budget.budget,
        "bytes_before": budget.bytes_before,
        "bytes": budget.bytes,
        "lines": budget.lines,
        "line_limit": budget.line_limit,
        "fits": budget.fits,
        "overhead_bytes": budget.overhead_bytes,
        "line_budget": budget.line_budget,
        "sections": [
            {"heading": s.heading, "entries": s.entries, "bytes": s.bytes} for s in budget.sections
        ],
        "long_entries": list(budget.long_entries),
        "moved": list(budget.moved),
        "shortened": list(budget.shortened),
    }


def _index_json(folder: FolderReport, dry_run: bool) -> dict[str, Any]:
    index = folder.index
    changes = index.changes
    return {
        "bytes": index.bytes,
        "budget": index.budget,
        "lines": index.lines,
        "entries": index.entries,
        "archived": index.archived,
        "invariant_ok": index.invariant_ok,
        "warnings": list(index.warnings),
        "rebuilt": index.rebuilt,
        "rebuild_line": rebuild_line(folder.path, changes, dry_run=dry_run)
        if index.rebuilt
        else None,
        "changes": {
            "removed": _change_json(changes.removed),
            "added": _change_json(changes.added),
            "archived": _change_json(changes.archived),
            "shortened": _change_json(changes.shortened),
            "case_fixed": _change_json(changes.case_fixed),
            "dates": list(changes.dates),
            "entries_before": changes.entries_before,
            "entries_after": changes.entries_after,
        },
        "budget_report": _budget_json(index.budget_report),
    }


def _decision_json(d: Decision) -> dict[str, Any]:
    return {
        "file": d.file,
        "type": d.type,
        "classification": d.classification,
        "action": d.action,
        "reason": d.reason,
        "of": d.of,
        "kept_reason": d.kept_reason,
        "missing_refs": list(d.missing_refs),
        "unverifiable_refs": list(d.unverifiable_refs),
    }


def to_json(report: RunReport) -> dict[str, Any]:
    """The ``dream --json`` document."""
    dry_run = report.mode == "dry-run"
    return {
        "schema": SCHEMA,
        "run_id": report.run_id,
        "mode": report.mode,
        "directories": [
            {
                "path": folder.path,
                "repo": folder.repo,
                "refused": folder.refused,
                "pending": folder.pending,
                "files": [_decision_json(d) for d in folder.files],
                "index": _index_json(folder, dry_run or folder.pending is not None),
                "findings": list(folder.findings),
                "commits": list(folder.commits),
            }
            for folder in report.directories
        ],
        "totals": report.totals(),
        "promotion_candidates": list(report.promotion_candidates),
        "messages": list(report.messages),
    }
