"""The dream's report as text: the seed's Markdown tables (seed 000 STEP 6). Pure.

Tables in the seed's order — the metrics, the changes made, then every change
to each ``MEMORY.md`` with the seed's rebuild line and the budget report of
STEP 5.5, flagged files, notes per folder, folders waiting for review and
promotion candidates (issue 12, item 8). Nothing a run changed is left out:
a run that drops 26 dangling entries says so even when no memory moved.
"""

from __future__ import annotations

from collections.abc import Sequence

from dreamd.dream.pending import apply_command
from dreamd.dream.report import BudgetSummary, FolderReport, RunReport, rebuild_line

__all__ = ["apply_command", "markdown"]

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


def _not_applied(report: RunReport, folder: FolderReport) -> bool:
    return report.mode == "dry-run" or folder.pending is not None or folder.refused is not None


def _changes_made(report: RunReport) -> list[str]:
    rows = [
        (
            f"`{folder.path}/{d.file}`",
            "WOULD TRASH" if _not_applied(report, folder) else "TRASHED",
            d.reason,
        )
        for folder in report.directories
        for d in folder.files
        if d.action == "trash"
    ]
    lines = ["", "### Changes Made", ""]
    if rows:
        return lines + _table(["File", "Action", "Reason"], rows)
    if any(folder.index.changes.any for folder in report.directories):
        return [*lines, "No memory moved; the index changes are listed below."]
    return [*lines, "No memory moved."]


def _budget_lines(budget: BudgetSummary) -> list[str]:
    """Seed 000 STEP 5.5: bytes against the ceiling, sections, long entries, overhead, moves."""
    state = "fits" if budget.fits else "does NOT fit"
    lines = [
        "",
        f"Budget: {budget.bytes:,} of {budget.budget:,} bytes (was {budget.bytes_before:,}), "
        f"{budget.lines} of {budget.line_limit} lines: {state}; "
        f"overhead (lines that are not entries) {budget.overhead_bytes:,} bytes"
        + (f"; per-line budget {budget.line_budget} bytes" if budget.line_budget else ""),
    ]
    if budget.sections:
        lines += ["", *_table(
            ["Section", "Entries", "Bytes"],
            [(s.heading or "(before any section)", str(s.entries), f"{s.bytes:,}")
             for s in budget.sections],
        )]  # fmt: skip
    if budget.long_entries:
        lines += ["", "Entries over 400 characters: " + ", ".join(budget.long_entries)]
    if budget.moved:
        lines += ["", "Moved to MEMORY-ARCHIVE.md by rule: " + ", ".join(budget.moved)]
    return lines


def _index_section(report: RunReport, folder: FolderReport) -> list[str]:
    index = folder.index
    changes = index.changes
    if not (index.rebuilt or changes.any):
        return []
    lines = ["", f"#### {folder.path}", ""]
    lines.append(rebuild_line(folder.path, changes, dry_run=_not_applied(report, folder)))
    rows = [(f"`{file}`", change, reason) for file, change, reason in changes.rows()]
    if rows:
        lines += ["", *_table(["Entry", "Change", "Reason"], rows)]
    if changes.dates:
        lines += ["", *(f"- {line}" for line in changes.dates)]
    if index.budget_report is not None:
        lines += _budget_lines(index.budget_report)
    return lines


def _flagged(report: RunReport) -> list[str]:
    """Seed 000 STEP 6's flagged table (PARTIALLY_STALE), then pairs kept for review."""
    stale = [
        (f"`{folder.path}/{d.file}`", ", ".join(d.missing_refs) or "-", d.kept_reason or "-")
        for folder in report.directories
        for d in folder.files
        if d.classification == "PARTIALLY_STALE"
    ]
    pairs = [
        (f"`{folder.path}/{d.file}`", f"`{d.of}`" if d.of else "-", d.kept_reason or "-")
        for folder in report.directories
        for d in folder.files
        if d.action == "flag" and d.classification != "PARTIALLY_STALE"
    ]
    lines: list[str] = []
    if stale:
        lines += ["", "### Flagged for Review (PARTIALLY_STALE)", ""]
        lines += _table(["File", "Missing References", "Kept because"], stale)
    if pairs:
        lines += ["", "### Flagged for Review (kept, no decision)", ""]
        lines += _table(["File", "Other file", "Why"], pairs)
    return lines


def _notes(folder: FolderReport) -> list[str]:
    notes = [*(f"refused: {folder.refused}",) * bool(folder.refused), *folder.index.warnings]
    notes += list(folder.findings)
    return ["", f"### {folder.path}", "", *(f"- {note}" for note in notes)] if notes else []


def _waiting(report: RunReport) -> list[str]:
    waiting = [folder for folder in report.directories if folder.pending]
    if not waiting:
        return []
    lines = ["", "### Waiting for review", ""]
    for folder in waiting:
        lines.append(
            f"- `{folder.path}`: {folder.pending}; review the proposal, then run "
            f"`{apply_command(folder.path)}`"
        )
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
    lines += _changes_made(report)
    index_lines = [line for folder in report.directories for line in _index_section(report, folder)]
    if index_lines:
        lines += ["", "### Index changes", *index_lines]
    lines += _flagged(report)
    for folder in report.directories:
        lines += _notes(folder)
    lines += _waiting(report)
    if report.promotion_candidates:
        lines += ["", "### Promotion candidates", ""]
        lines += [
            f"- `{c['file']}` (topic `{c['topic']}`) also in: {', '.join(c['projects'])}"
            for c in report.promotion_candidates
        ]
    lines += ["", *report.messages] if report.messages else []
    return "\n".join(lines) + "\n"
