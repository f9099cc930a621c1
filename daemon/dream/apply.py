"""The only step of the dream that changes a folder: apply a plan or a stored proposal.

Every change goes through the journaling ``Executor`` (so ``dreamd undo``
puts every byte back); in a git-managed memory root each logical unit is one
commit (seed 001). Nothing is deleted: memories move to ``.trash/<date>/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamd.dream import gitmode, proposal
from dreamd.dream.execute import CrashPoint, Executor, sha256_of
from dreamd.dream.folder import checks, index
from dreamd.dream.model import MemoryFile
from dreamd.dream.pending import PendingFile, pending_files
from dreamd.dream.pending import index_mtime as pending_index_mtime
from dreamd.dream.plan import FolderPlan, folder_title
from dreamd.dream.report import FolderReport, IndexSummary, RunReport
from dreamd.fs import read_if_present

__all__ = ["apply_pending", "apply_plan", "executor_for", "with_changes"]


def executor_for(folder: Path, state_dir: Path, run_id: str, now: datetime) -> Executor:
    """The journaling executor of one run in one folder (its journal under the run's dir)."""
    return Executor(folder, state_dir / "runs" / run_id / _slug(folder), now.date(), CrashPoint())


def with_changes(report: FolderReport, **changes: Any) -> FolderReport:
    """``report`` with some fields replaced."""
    return dataclasses.replace(report, **changes)


def apply_plan(
    plan: FolderPlan, executor: Executor, git_root: Path | None
) -> tuple[list[str], list[str]]:
    """Make the plan true on disk, one logical unit at a time (seed 001).

    Trash moves, then (in a git-managed root) relative dates made absolute,
    then ``.MEMORY.md.prev``, the archive and the new index; in a git root
    each unit is its own commit. Returns the commits and notes for the report.
    """
    folder = plan.folder.path
    commits: list[str] = []
    notes: list[str] = []

    def commit(message: str) -> None:
        if git_root is not None:
            sha = gitmode.commit(git_root, [folder], message)
            if sha:
                commits.append(sha)

    failed: list[MemoryFile] = []
    for memory in plan.trash:
        try:
            executor.trash(memory.path)
        except OSError as error:  # seed 000: report the failure, carry on with the rest
            failed.append(memory)
            notes.append(f"{memory.name}: could not move to the trash ({error.strerror}); kept")
    if len(failed) < len(plan.trash):
        moved = len(plan.trash) - len(failed)
        commit(f"dream: move {moved} stale, duplicate or contradicted memories to trash")
    if failed:
        plan = _replanned_index(plan, failed)
    if git_root is not None:
        notes += _absolute_dates(plan, executor, git_root)
        commit("dream: turn relative dates into absolute dates")
    if plan.new_index is not None and plan.new_index != plan.folder.index_text:
        if plan.folder.index_text is not None:
            executor.write(folder / ".MEMORY.md.prev", plan.folder.index_text.encode())
        if plan.new_archive is not None:
            executor.write(folder / "MEMORY-ARCHIVE.md", plan.new_archive.encode())
        executor.write(folder / "MEMORY.md", plan.new_index.encode())
        commit("dream: rebuild MEMORY.md")
    return commits, notes


def _replanned_index(plan: FolderPlan, kept: Sequence[MemoryFile]) -> FolderPlan:
    """The plan's index rebuilt with memories that could not be moved still linked."""
    failed = {m.name for m in kept}
    trashed = [m.name for m in plan.trash if m.name not in failed]
    survivors = [m for m in plan.folder.files if m.name not in trashed]
    rebuilt = index.rebuild(
        plan.folder.index_text,
        plan.folder.archive_text,
        survivors,
        folder_title=folder_title(plan.folder.path),
        trashed=trashed,
        budget=plan.budget,
        now=plan.now or datetime.now().astimezone(),
    )
    return dataclasses.replace(plan, new_index=rebuilt.new_index, new_archive=rebuilt.new_archive)


def _absolute_dates(plan: FolderPlan, executor: Executor, git_root: Path) -> list[str]:
    """Relative dates in surviving memories become the date of the line's commit (git blame)."""
    notes: list[str] = []
    trashed = {m.name for m in plan.trash}
    for memory in plan.folder.files:
        if memory.name in trashed or gitmode.is_read_only(memory.name):
            continue
        text = memory.path.read_text(encoding="utf-8", errors="replace")
        if not checks.relative_dates(text):
            continue
        dates = gitmode.line_dates(git_root, memory.path)
        new_text, converted, undatable = gitmode.absolutize_relative_dates(text, dates)
        if converted:
            executor.write(memory.path, new_text.encode())
        notes += [f"{memory.name}:{f.line}: left as written: {f.message}" for f in undatable]
    return notes


def apply_pending(request: Any, state_dir: Path) -> RunReport:
    """Seed 004 ``--apply-pending``: apply each stored proposal, or refuse with its reason.

    A refused proposal is kept; an applied one is deleted. Topic files listed
    for the trash are moved only if they still hold the bytes the dry run saw.
    """
    stored = [p for p in pending_files(state_dir) if not request.only or p.folder in request.only]
    if not stored:
        missing = proposal.apply_decision(None, index_mtime=None, now=request.now)
        message = missing.message if isinstance(missing, proposal.Refusal) else ""
        folder = FolderReport(path="-", repo=None, files=(), index=IndexSummary(), refused=message)
        return RunReport(request.run_id, "apply-pending", (folder,))
    reports = [_apply_stored(item, request, state_dir) for item in stored]
    return RunReport(request.run_id, "apply-pending", tuple(reports))


def _apply_stored(item: PendingFile, request: Any, state_dir: Path) -> FolderReport:
    base = FolderReport(path=str(item.folder), repo=None, files=(), index=IndexSummary())
    decision = proposal.apply_decision(
        item.text, index_mtime=pending_index_mtime(item.folder), now=request.now
    )
    if isinstance(decision, proposal.Refusal):
        return with_changes(base, refused=decision.message)
    executor = executor_for(item.folder, state_dir, request.run_id, request.now)
    skipped: list[str] = []
    for name, digest in item.trash:
        path = item.folder / name
        if sha256_of(path) == digest:
            executor.trash(path)
        else:
            skipped.append(f"{name} changed since the dry run: not moved")
    old = read_if_present(item.folder / "MEMORY.md")
    if old is not None:
        executor.write(item.folder / ".MEMORY.md.prev", old)
    executor.write(item.folder / "MEMORY.md", decision.new_index.encode())
    item.remove()
    entries = sum(1 for line in decision.new_index.splitlines() if line.startswith("- ["))
    message = proposal.applied_line(decision.proposal, entries)
    return with_changes(base, findings=(message, *skipped))


def _slug(path: Path) -> str:
    return "".join(c if c.isalnum() else "-" for c in str(path)).strip("-")[-120:] or "root"
