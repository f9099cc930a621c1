"""The only step of the dream that changes a folder: apply a plan's changes, unit by unit.

A live run and ``--apply-pending`` go through the same ``apply_changes``:
every change through the journaling ``Executor`` (so ``dreamd undo`` puts
every byte back), in a git-managed memory root each logical unit its own
commit (seed 001). Nothing is deleted: memories move to ``.trash/<date>/``.

Order: trash moves, then relative dates made absolute in topic files, then
``.MEMORY.md.prev`` (the old index, byte for byte), ``MEMORY-ARCHIVE.md`` and
the new ``MEMORY.md``. A file that is no longer what the plan was made from
is left alone and reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamd.dream import gitmode
from dreamd.dream.execute import CrashPoint, Executor, sha256_of
from dreamd.dream.folder import index
from dreamd.dream.folder.inventory import ARCHIVE_NAME, INDEX_NAME
from dreamd.dream.plan import FolderPlan, folder_title
from dreamd.dream.report import FolderReport
from dreamd.fs import read_if_present

__all__ = [
    "Changes",
    "apply_changes",
    "apply_plan",
    "changes_of",
    "executor_for",
    "run_slug",
    "with_changes",
]

#: ``(trashed names that failed) -> (new index, new archive)``: the index made again
#: with the memories that could not move still linked (None: do not write the index).
Replan = Callable[[Sequence[str]], tuple[str, str | None] | None]


@dataclass(frozen=True, slots=True)
class Changes:
    """Everything one folder's dream writes, with what each file held when it was decided.

    ``trash``: (name, sha256); ``rewrites``: (name, old sha256, new bytes);
    ``new_index`` / ``new_archive`` None: that file is not written.
    """

    folder: Path
    trash: tuple[tuple[str, str], ...] = ()
    rewrites: tuple[tuple[str, str, bytes], ...] = ()
    new_index: str | None = None
    new_archive: str | None = None


def run_slug(path: Path) -> str:
    """A folder's name inside a run's directory of the state dir."""
    return "".join(c if c.isalnum() else "-" for c in str(path)).strip("-")[-120:] or "root"


def executor_for(folder: Path, state_dir: Path, run_id: str, now: datetime) -> Executor:
    """The journaling executor of one run in one folder (its journal under the run's dir)."""
    run_dir = state_dir / "runs" / run_id / run_slug(folder)
    return Executor(folder, run_dir, now.date(), CrashPoint())


def with_changes(report: FolderReport, **changes: Any) -> FolderReport:
    """``report`` with some fields replaced."""
    return dataclasses.replace(report, **changes)


def changes_of(plan: FolderPlan) -> Changes:
    """What applying ``plan`` writes."""
    index_changes = plan.new_index is not None and plan.new_index != plan.folder.index_text
    archive_changes = plan.new_archive is not None and plan.new_archive != plan.folder.archive_text
    return Changes(
        folder=plan.folder.path,
        trash=tuple((m.name, m.sha256) for m in plan.trash),
        rewrites=tuple((r.name, r.old_sha256, r.content) for r in plan.rewrites),
        new_index=plan.new_index if index_changes or archive_changes else None,
        new_archive=plan.new_archive if archive_changes else None,
    )


def apply_plan(
    plan: FolderPlan, executor: Executor, git_root: Path | None
) -> tuple[list[str], list[str]]:
    """Make the plan true on disk (``apply_changes``); a memory that cannot move stays linked."""
    return apply_changes(changes_of(plan), executor, git_root, _replanner(plan))


@dataclass
class _Units:
    """Commits one logical unit at a time in a git root (seed 001), and collects notes."""

    folder: Path
    git_root: Path | None
    commits: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    def commit(self, message: str) -> None:
        if self.git_root is not None:
            sha = gitmode.commit(self.git_root, [self.folder], message)
            if sha:
                self.commits.append(sha)


def apply_changes(
    changes: Changes, executor: Executor, git_root: Path | None, replan: Replan | None = None
) -> tuple[list[str], list[str]]:
    """Write ``changes`` through ``executor``, one logical unit at a time (seeds 000, 001).

    Returns the commits and the notes for the report. A memory that cannot be
    moved (seed 000: report the failure, carry on) stays; the index is then
    made again by ``replan``, or left unwritten without one, so no entry of a
    file still there is dropped.
    """
    units = _Units(changes.folder, git_root)
    failed = _trash(changes, executor, units)
    new_index, new_archive = changes.new_index, changes.new_archive
    if failed:
        again = replan(failed) if replan is not None else None
        if again is None:
            units.notes.append("MEMORY.md left as it was: a memory it links could not move")
            new_index = new_archive = None
        else:
            new_index, new_archive = again
    _rewrite(changes, executor, units)
    if new_index is not None:
        _write_index(changes.folder, new_index, new_archive, executor)
        units.commit("dream: rebuild MEMORY.md")
    return units.commits, units.notes


def _write_index(folder: Path, new_index: str, new_archive: str | None, executor: Executor) -> None:
    """``.MEMORY.md.prev`` (the old index, byte for byte), the archive, the new index; nothing
    when neither file changes (seed 000 STEP 5: copy to ``.MEMORY.md.prev`` first)."""
    old = read_if_present(folder / INDEX_NAME)
    index_bytes = new_index.encode("utf-8", "surrogateescape")
    archive_bytes = new_archive.encode("utf-8", "surrogateescape") if new_archive else None
    if old == index_bytes and archive_bytes in (None, read_if_present(folder / ARCHIVE_NAME)):
        return
    if old is not None:
        executor.write(folder / ".MEMORY.md.prev", old)
    if archive_bytes is not None:
        executor.write(folder / ARCHIVE_NAME, archive_bytes)
    executor.write(folder / INDEX_NAME, index_bytes)


def _trash(changes: Changes, executor: Executor, units: _Units) -> list[str]:
    """The trash moves, one commit; returns the names that could not move."""
    failed: list[str] = []
    for name, digest in changes.trash:
        path = changes.folder / name
        if sha256_of(path) != digest:
            failed.append(name)
            units.notes.append(f"{name}: changed since it was judged; not moved")
            continue
        try:
            executor.trash(path)
        except OSError as error:  # seed 000: report the failure, carry on with the rest
            failed.append(name)
            units.notes.append(f"{name}: could not move to the trash ({error.strerror}); kept")
    moved = len(changes.trash) - len(failed)
    if moved:
        units.commit(f"dream: move {moved} stale, duplicate or contradicted memories to trash")
    return failed


def _rewrite(changes: Changes, executor: Executor, units: _Units) -> None:
    """Topic files with relative dates made absolute (seed 001 Phase 2), one commit."""
    for name, digest, content in changes.rewrites:
        path = changes.folder / name
        if sha256_of(path) != digest:
            units.notes.append(f"{name}: changed since its dates were read; not rewritten")
            continue
        executor.write(path, content)
    if changes.rewrites:
        units.commit("dream: turn relative dates into absolute dates")


def _replanner(plan: FolderPlan) -> Replan:
    def replan(failed: Sequence[str]) -> tuple[str, str | None]:
        """The plan's index rebuilt with memories that could not be moved still linked."""
        kept = set(failed)
        trashed = [m.name for m in plan.trash if m.name not in kept]
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
        return rebuilt.new_index, rebuilt.new_archive

    return replan
