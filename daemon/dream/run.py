"""The dream as a job: run id, completion record, logs, pending proposals and undo.

Every run — dry-run, apply, apply-pending, no-op — records its start and its
completion in the state database and logs ``dream.completed`` (seed 004: a
run that is not recorded did not happen).

The stores that are not memory folders are gated after the folders
(``dream.stores``); a shared SQL store is gated by one host at a time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dreamd.dream import gitmode
from dreamd.dream.execute import journal_folder, touched_paths, undo_conflicts, undo_run
from dreamd.dream.gardener import run_dream
from dreamd.dream.gates.registry import GateRun
from dreamd.dream.model import DreamRequest
from dreamd.dream.report import RunReport, to_json
from dreamd.dream.stores import GatedStore, gate_stores, undo_stores
from dreamd.dream.stores import undo_conflicts as store_undo_conflicts
from dreamd.errors import NotFound, Refused
from dreamd.gcpause import collector_paused
from dreamd.logs import get_logger
from dreamd.runrecord import recorded_run
from dreamd.statedb import StateDB

__all__ = ["DreamOutcome", "dream_job", "undo_job"]

log = get_logger("dreamd.dream")


@dataclass(frozen=True, slots=True)
class DreamOutcome:
    """A finished run and the exit code it deserves (1 when any folder was refused)."""

    report: RunReport
    exit_code: int


def dream_job(
    request: DreamRequest,
    *,
    state: StateDB,
    state_dir: Path,
    env: Mapping[str, str],
    home: Path,
    stores: Sequence[GatedStore] = (),
) -> DreamOutcome:
    """One recorded dream run: the memory folders, then the configured ``stores``.

    The cycle collector is paused over the run: the session cache, a folder's
    inventory, checks and index, and the report of ten thousand memory files
    are some hundred thousand acyclic objects, and the full collections their
    allocations trigger cost a sixth of the dream.
    """
    with (
        collector_paused(),
        recorded_run(
            state, request.run_id, "dream", request.mode, request.now, data_dir=state_dir
        ) as record,
    ):
        sessions = [
            (info.path, info.project, info.activity_at.timestamp() if info.activity_at else None)
            for info in state.load_session_cache().values()
        ]
        report = run_dream(
            request, env=env, home=home, state_dir=state_dir, sessions=sessions, state=state
        )
        if stores and request.mode != "apply-pending":
            run = GateRun(
                state_dir / "runs" / request.run_id, request.now, request.mode == "dry-run", home
            )
            report = gate_stores(report, stores, run, mode=request.mode, progress=request.progress)
        refused = [folder for folder in report.directories if folder.refused]
        record.mode, record.summary = report.mode, report.totals()
        record.report = to_json(report)  # kept on disk for ``dreamd log`` and ``dreamd show``
        record.outcome = "refused" if refused else "ok"
        return DreamOutcome(report, 1 if refused else 0)


def undo_job(
    run_id: str, *, state: StateDB, state_dir: Path, stores: Sequence[GatedStore] = ()
) -> list[str]:
    """Undo every change of one dream run; raises ``Refused``/``NotFound``."""
    run_dir = state_dir / "runs" / run_id
    if run_id and os.sep not in run_id and not run_dir.is_dir() and state.run(run_id):
        return []  # a recorded run that changed nothing: there is nothing to put back
    if not run_id or os.sep in run_id or not run_dir.is_dir():
        known = ", ".join(run.run_id for run in state.runs("dream", limit=5)) or "none yet"
        raise NotFound(f"no dream run {run_id!r} with changes to undo (recent runs: {known})")
    folders = sorted(path for path in run_dir.iterdir() if path.is_dir())
    conflicts = [conflict for folder in folders for conflict in undo_conflicts(folder)]
    conflicts += store_undo_conflicts(stores, run_dir)
    if conflicts:
        raise Refused("cannot undo: " + "; ".join(conflicts))
    restored = []
    for folder in folders:
        restored += undo_run(folder)
        commit_undo(folder, run_id)
    restored += undo_stores(stores, run_dir)
    log.info("dream.undone", run_id=run_id, restored=len(restored))
    return restored


def commit_undo(journal_dir: Path, run_id: str) -> str | None:
    """Issue 12 item 16: in a git-managed folder the restoration is one commit, so the tree is
    clean again and the next dream is not refused (only the paths the run touched)."""
    folder = journal_folder(journal_dir)
    root = gitmode.is_work_tree(folder) if folder is not None else None
    if root is None:
        return None
    paths = [p for p in touched_paths(journal_dir) if gitmode.is_inside(root, p)]
    return gitmode.commit(root, paths, f"dream: undo run {run_id}") if paths else None
