"""Every job run recorded the same way: its run id on every log line, a start and a finish row.

Seed 004: a run that is not recorded did not happen. ``recorded_run`` wraps
one run of any job (collect, dream): it binds ``run_id`` to every log line
of the run, writes the start row, and — whatever happens inside, an
exception included — the finish row with the outcome, mode and summary the
run set on its ``RunRecord``, then logs ``<job>.completed``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog

from dreamd.logs import get_logger
from dreamd.statedb import StateDB

__all__ = ["RunRecord", "recorded_run"]

log = get_logger("dreamd.jobs")


@dataclass
class RunRecord:
    """What the run reports about itself; ``outcome`` stays ``failed`` unless it says more."""

    mode: str
    outcome: str = "failed"
    summary: dict[str, Any] = field(default_factory=dict)


@contextmanager
def recorded_run(
    state: StateDB, run_id: str, job: str, mode: str, now: datetime
) -> Iterator[RunRecord]:
    """Record one run of ``job`` started at ``now`` (see the module docstring)."""
    record = RunRecord(mode)
    bound = structlog.contextvars.bind_contextvars(run_id=run_id)
    state.start_run(run_id, job, mode, now)
    try:
        yield record
    finally:
        state.finish_run(
            run_id,
            outcome=record.outcome,
            mode=record.mode,
            summary=record.summary,
            now=datetime.now(now.tzinfo),
        )
        log.info(f"{job}.completed", mode=record.mode, outcome=record.outcome, **record.summary)
        structlog.contextvars.reset_contextvars(**bound)  # the caller's run id, if any
