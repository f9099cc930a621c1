"""The dream as a job: run id, completion record, logs, pending proposals and undo.

Every run — dry-run, apply, apply-pending, no-op — records its start and its
completion in the state database and logs ``dream.completed`` (seed 004: a
run that is not recorded did not happen).

A shared SQL store (PostgreSQL) is dreamed over by one host at a time: the run
holds the store's dream lease throughout; a host refused it still dreams its own
folders, skips the store's rows, logs ``dream.shared_store.skipped`` and says
so in the report.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import msgspec
import structlog

from dreamd.dream.execute import undo_conflicts, undo_run
from dreamd.dream.gardener import DreamRequest, run_dream
from dreamd.dream.gates.flow import scan_views
from dreamd.dream.gates.sql import sql_gate
from dreamd.dream.report import RunReport
from dreamd.dream.textstores import TextStore, with_text_stores
from dreamd.errors import NotFound, Refused, StoreError
from dreamd.fs import atomic_write
from dreamd.logs import get_logger
from dreamd.statedb import StateDB
from dreamd.stores.sql import STATUS_NEW, DreamLease, SqlStore

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
    sql: SqlStore | None = None,
    texts: Sequence[TextStore] = (),
) -> DreamOutcome:
    """One recorded dream run (``texts``: the sectioned MEMORY.md and graph stores)."""
    bound = structlog.contextvars.bind_contextvars(run_id=request.run_id)
    state.start_run(request.run_id, "dream", request.mode, request.now)
    outcome, report = "failed", None
    try:
        sessions = [
            (info.path, info.project, info.activity_at.timestamp() if info.activity_at else None)
            for info in state.load_session_cache().values()
        ]
        with ExitStack() as held:
            lease, unreachable = _sql_lease(held, sql, request.mode)
            report = run_dream(request, env=env, home=home, state_dir=state_dir, sessions=sessions)
            if unreachable is not None:
                report = dataclasses.replace(report, messages=(*report.messages, unreachable))
            elif sql is not None and lease is not None and not lease.held:
                skipped = _skipped(sql, lease)
                report = dataclasses.replace(report, messages=(*report.messages, skipped))
            elif sql is not None and lease is not None:
                run_dir = state_dir / "runs" / request.run_id
                lines = gate_sql(sql, run_dir, now=request.now, dry_run=request.mode == "dry-run")
                if lines:
                    mode = "apply" if request.mode == "apply" else report.mode
                    messages = (*report.messages, *lines)
                    report = dataclasses.replace(report, mode=mode, messages=messages)
        if texts and request.mode != "apply-pending":
            run_dir = state_dir / "runs" / request.run_id
            report = with_text_stores(report, texts, run_dir, now=request.now, mode=request.mode)
        refused = [folder for folder in report.directories if folder.refused]
        outcome = "refused" if refused else "ok"
        return DreamOutcome(report, 1 if refused else 0)
    finally:
        mode = report.mode if report is not None else request.mode
        summary = report.totals() if report is not None else {}
        state.finish_run(
            request.run_id,
            outcome=outcome,
            mode=mode,
            summary=summary,
            now=datetime.now(request.now.tzinfo),
        )
        log.info("dream.completed", mode=mode, outcome=outcome, **summary)
        structlog.contextvars.reset_contextvars(**bound)  # the caller's run id, if any


def _sql_lease(
    held: ExitStack, sql: SqlStore | None, mode: str
) -> tuple[DreamLease | None, str | None]:
    """The SQL store's dream lease when this run gates its rows (held until ``held`` closes).

    A store that cannot be reached does not stop the dream of this host's own
    folders: the run goes on without the store and says why.
    """
    if sql is None or mode == "apply-pending":
        return None, None
    try:
        return held.enter_context(sql.dream_lease()), None
    except StoreError as error:
        log.warning("dream.shared_store.unreachable", store=sql.name, error=str(error))
        return None, f"SQL store skipped: {error}"


def _skipped(sql: SqlStore, lease: DreamLease) -> str:
    """Log and describe a run that leaves the shared store to the host dreaming over it."""
    log.info("dream.shared_store.skipped", store=sql.name, holder=lease.holder)
    holder = lease.holder or "another host"
    return f"SQL store skipped: {holder} is dreaming over {sql.name}; its new rows wait"


SQL_MOVES = "sql-status.json"


def gate_sql(sql: SqlStore, run_dir: Path, *, now: datetime, dry_run: bool) -> list[str]:
    """Run the validate gate over the SQL store's ``new`` rows; record each move for undo."""
    new = sql.items_with_status(STATUS_NEW)
    views = scan_views(item.project for _, item in new if item is not None)
    verdicts = sql_gate(new, sql.items_with_status("accepted"), now=now, views=views)
    if dry_run:
        return [f"would mark SQL item {v.op_key} {v.status}: {v.reason}" for v in verdicts]
    moves: list[list[str]] = []
    lines: list[str] = []
    for verdict in verdicts:
        if not moves:
            run_dir.mkdir(parents=True, exist_ok=True)
        if sql.set_status(verdict.op_key, verdict.status, expected=STATUS_NEW):
            moves.append([verdict.op_key, STATUS_NEW, verdict.status])
            atomic_write(run_dir / SQL_MOVES, msgspec.json.encode(moves))
            lines.append(f"SQL item {verdict.op_key} {verdict.status}: {verdict.reason}")
    return lines


def _sql_conflicts(sql: SqlStore | None, run_dir: Path) -> list[str]:
    path = run_dir / SQL_MOVES
    if not path.exists():
        return []
    if sql is None:
        return ["the run changed SQL store items, but no SQL store is configured"]
    moves = msgspec.json.decode(path.read_bytes())
    return [
        f"SQL item {key} is no longer {new}"
        for key, _old, new in moves
        if sql.status_of(key) != new
    ]


def undo_job(
    run_id: str, *, state: StateDB, state_dir: Path, sql: SqlStore | None = None
) -> list[str]:
    """Undo every folder change of one dream run; raises ``Refused``/``NotFound``."""
    run_dir = state_dir / "runs" / run_id
    if run_id and os.sep not in run_id and not run_dir.is_dir() and state.run(run_id):
        return []  # a recorded run that changed nothing: there is nothing to put back
    if not run_id or os.sep in run_id or not run_dir.is_dir():
        known = ", ".join(run.run_id for run in state.runs("dream", limit=5)) or "none yet"
        raise NotFound(f"no dream run {run_id!r} with changes to undo (recent runs: {known})")
    folders = sorted(path for path in run_dir.iterdir() if path.is_dir())
    conflicts = [conflict for folder in folders for conflict in undo_conflicts(folder)]
    conflicts += _sql_conflicts(sql, run_dir)
    if conflicts:
        raise Refused("cannot undo: " + "; ".join(conflicts))
    restored = [path for folder in folders for path in undo_run(folder)]
    if sql is not None and (run_dir / SQL_MOVES).exists():
        for key, old, new in reversed(msgspec.json.decode((run_dir / SQL_MOVES).read_bytes())):
            sql.set_status(key, old, expected=new)
            restored.append(f"SQL item {key}")
        (run_dir / SQL_MOVES).rename(run_dir / (SQL_MOVES + ".undone"))
    log.info("dream.undone", run_id=run_id, restored=len(restored))
    return restored
