"""The dream's report: the JSON contract and the seed's Markdown tables (seed 000 STEP 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dreamd.dream.model import Decision

__all__ = ["FolderReport", "IndexSummary", "RunReport", "markdown", "to_json"]


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


@dataclass(frozen=True, slots=True)
class FolderReport:
    """What one memory folder's dream found and did."""

    path: str
    repo: str | None
    files: tuple[Decision, ...]
    index: IndexSummary
    findings: tuple[str, ...] = ()
    refused: str | None = None
    commits: tuple[str, ...] = ()


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


def to_json(report: RunReport) -> dict[str, Any]:
    """The ``dream --json`` document."""
    return {
        "run_id": report.run_id,
        "mode": report.mode,
        "directories": [
            {
                "path": folder.path,
                "repo": folder.repo,
                "refused": folder.refused,
                "files": [
                    {
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
                    for d in folder.files
                ],
                "index": {
                    "bytes": folder.index.bytes,
                    "budget": folder.index.budget,
                    "entries": folder.index.entries,
                    "archived": folder.index.archived,
                    "invariant_ok": folder.index.invariant_ok,
                    "warnings": list(folder.index.warnings),
                },
                "findings": list(folder.findings),
                "commits": list(folder.commits),
            }
            for folder in report.directories
        ],
        "totals": report.totals(),
        "promotion_candidates": list(report.promotion_candidates),
        "messages": list(report.messages),
    }


_TOTAL_LABELS = (
    ("memory_directories_scanned", "Memory directories scanned"),
    ("total_memory_files_scanned", "Total memory files scanned"),
    ("stale_entries_pruned", "Stale entries pruned"),
    ("duplicates_merged", "Duplicates merged"),
    ("contradictions_resolved", "Contradictions resolved"),
    ("partially_stale_kept_flagged", "Partially stale (kept, flagged)"),
    ("evergreen", "Evergreen (no external refs)"),
    ("surviving_memories", "Surviving memories"),
    ("indexes_rebuilt", "MEMORY.md indexes rebuilt"),
    ("promotion_candidates", "Promotion candidates (2+ repos)"),
)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def markdown(report: RunReport) -> str:
    """The report as the seed's Markdown tables."""
    lines: list[str] = []
    if report.mode == "dry-run":
        lines += ["[DRY RUN] No files were modified. Run without --dry-run to apply changes.", ""]
    lines += [f"## Dream Consolidation Report ({report.run_id})", ""]
    totals = report.totals()
    lines += _table(
        ["Metric", "Count"], [(label, str(totals[key])) for key, label in _TOTAL_LABELS]
    )
    changes = [
        (f"`{folder.path}/{d.file}`", _verb(report.mode, d), d.reason)
        for folder in report.directories
        for d in folder.files
        if d.action == "trash"
    ]
    lines += ["", "### Changes Made", ""]
    lines += _table(["File", "Action", "Reason"], changes) if changes else ["No memory moved."]
    flagged = [
        (f"`{folder.path}/{d.file}`", ", ".join(d.missing_refs) or "-", d.kept_reason or "-")
        for folder in report.directories
        for d in folder.files
        if d.classification == "PARTIALLY_STALE"
    ]
    if flagged:
        lines += ["", "### Flagged for Review (PARTIALLY_STALE)", ""]
        lines += _table(["File", "Missing References", "Kept because"], flagged)
    for folder in report.directories:
        notes = [*(f"refused: {folder.refused}",) * bool(folder.refused), *folder.index.warnings]
        notes += list(folder.findings)
        if notes:
            lines += ["", f"### {folder.path}", ""] + [f"- {note}" for note in notes]
    if report.promotion_candidates:
        lines += ["", "### Promotion candidates", ""]
        lines += [
            f"- `{c['file']}` (topic `{c['topic']}`) also in: {', '.join(c['projects'])}"
            for c in report.promotion_candidates
        ]
    lines += ["", *report.messages] if report.messages else []
    return "\n".join(lines) + "\n"


def _verb(mode: str, decision: Decision) -> str:
    return "WOULD TRASH" if mode == "dry-run" else "TRASHED"
