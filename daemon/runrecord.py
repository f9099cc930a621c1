"""Every job run recorded the same way: its run id on every log line, a start and a finish row.

Seed 004: a run that is not recorded did not happen. ``recorded_run`` wraps
one run of any job (collect, dream): it binds ``run_id`` to every log line
of the run, writes the start row, and — whatever happens inside, an
exception included — the finish row with the outcome, mode and summary the
run set on its ``RunRecord``, then logs ``<job>.completed``.

A run killed by SIGKILL (or a power cut) never writes its finish row. Each
row records the run's pid; before a run starts, ``close_interrupted`` closes
every unfinished run whose process is gone as ``interrupted`` (rows recorded
before pids were kept count as gone). Should such a process still finish, its
own finish row replaces the mark.

A run that sets ``report`` (its JSON report) has it kept on disk for
``dreamd log`` and ``dreamd show`` (``dreamd.runlog``), and its counts in
words' terms (``dreamd.runstory.run_counts``) kept in the summary as ``counts``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from dreamd.errors import StateError
from dreamd.logs import bind_context, get_logger, reset_context
from dreamd.runlog import prune_reports, save_report
from dreamd.runstory import run_counts
from dreamd.statedb import JobRun, StateDB

__all__ = [
    "INTERRUPTED",
    "RunRecord",
    "close_interrupted",
    "process_gone",
    "recorded_run",
    "shown_outcome",
]

#: The outcome of a run whose process died before it recorded its finish.
INTERRUPTED = "interrupted"

log = get_logger("dreamd.jobs")


class RunRecord(msgspec.Struct):
    """What the run reports about itself; ``outcome`` stays ``failed`` unless it says more."""

    mode: str
    outcome: str = "failed"
    summary: dict[str, Any] = msgspec.field(default_factory=dict)
    report: dict[str, Any] | None = None


@contextmanager
def recorded_run(
    state: StateDB,
    run_id: str,
    job: str,
    mode: str,
    now: datetime,
    *,
    data_dir: Path | None = None,
) -> Iterator[RunRecord]:
    """Record one run of ``job`` started at ``now`` (see the module docstring); its report
    is kept under ``data_dir`` (none is kept without one)."""
    record = RunRecord(mode)
    bound = bind_context(run_id=run_id)
    close_interrupted(state, now)
    state.start_run(run_id, job, mode, now)
    try:
        yield record
    finally:
        if record.report is not None and data_dir is not None:
            _keep_report(data_dir, job, run_id, record, now)
        state.finish_run(
            run_id,
            outcome=record.outcome,
            mode=record.mode,
            summary=record.summary,
            now=datetime.now(now.tzinfo),
        )
        log.info(f"{job}.completed", mode=record.mode, outcome=record.outcome, **record.summary)
        reset_context(bound)  # the caller's run id, if any


def process_gone(pid: int | None) -> bool:
    """Whether no process ``pid`` exists on this machine (None: unknown, counted as gone)."""
    if pid is None or pid <= 0:
        return True
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, under another user
        return False
    return False


def shown_outcome(run: JobRun) -> str:
    """A run's outcome as ``status`` shows it: ``running`` only while its process lives."""
    if run.outcome is not None:
        return run.outcome
    return INTERRUPTED if process_gone(run.pid) else "running"


def close_interrupted(state: StateDB, now: datetime) -> list[str]:
    """Close every unfinished run whose process is gone as ``interrupted``; their ids."""
    closed = []
    for run in state.unfinished_runs():
        if not process_gone(run.pid):
            continue
        note = (
            f"process {run.pid} ended without recording a finish"
            if run.pid
            else ("recorded before run pids were kept; never finished")
        )
        summary = {**run.summary, "interrupted": note}
        state.finish_run(run.run_id, outcome=INTERRUPTED, mode=run.mode, summary=summary, now=now)
        log.warning("run.interrupted", interrupted_run=run.run_id, job=run.job, pid=run.pid)
        closed.append(run.run_id)
    return closed


def _keep_report(data_dir: Path, job: str, run_id: str, record: RunRecord, now: datetime) -> None:
    """The report on disk, its counts in the summary, old reports pruned; a report that
    cannot be written is logged, never the end of the run's record."""
    assert record.report is not None
    record.summary = {**record.summary, "counts": run_counts(job, record.report)}
    try:
        save_report(data_dir, job, run_id, record.report)
        prune_reports(data_dir, now)
    except (OSError, StateError) as error:
        log.warning("run.report_not_kept", job=job, error=str(error))
