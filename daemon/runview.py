"""``dreamd log`` and ``dreamd show``: the recorded runs as documents and sentences.

One line per run for the log (job, started, took, DRY RUN or APPLIED,
outcome, what it did in words), one document per run for ``show`` (its
record, its kept report, the ``dreamd undo`` command when it changed
anything). Reading only: the state database and the kept reports.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from dreamd.runlog import SCHEMA
from dreamd.runrecord import shown_outcome
from dreamd.runstory import counts_words, mode_label, took_words
from dreamd.statedb import JobRun

__all__ = [
    "log_json",
    "log_lines",
    "parse_since",
    "run_json",
    "run_sentence",
    "show_header",
    "show_json",
    "undo_command",
]

_SPAN = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime) -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` before ``now``, or an ISO date or time (local)."""
    match = _SPAN.match(text)
    if match:
        return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{text!r}: give a span such as 7d, 12h, 30m or 2w, or a date such as 2026-12-01"
        ) from None
    return moment if moment.tzinfo else moment.astimezone()


def local(moment: datetime) -> str:
    """A moment in local time, to the minute."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def undo_command(data_dir: Path, run: JobRun) -> str | None:
    """``dreamd undo RUN_ID`` when the run changed something it can put back."""
    if run.job != "dream" or run.mode not in ("apply", "apply-pending"):
        return None
    journal = data_dir / "runs" / run.run_id
    try:
        changed = journal.is_dir() and any(journal.iterdir())
    except OSError:
        changed = False
    return f"dreamd undo {run.run_id}" if changed else None


def _words(run: JobRun) -> str:
    if run.outcome is None:
        return "still running"
    if run.outcome == "failed":
        return "failed before it finished (see the log)"
    return counts_words(run.job, run.summary.get("counts"))


def run_json(run: JobRun, data_dir: Path) -> dict[str, Any]:
    """One run as ``dreamd log --json`` lists it."""
    return {
        "run_id": run.run_id,
        "job": run.job,
        "mode": run.mode,
        "dry_run": run.mode == "dry-run",
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "seconds": (run.finished_at - run.started_at).total_seconds() if run.finished_at else None,
        "outcome": run.outcome or "running",
        "what": _words(run),
        "counts": run.summary.get("counts"),
        "undo": undo_command(data_dir, run),
    }


def log_json(runs: list[JobRun], data_dir: Path) -> dict[str, Any]:
    """The ``dreamd log --json`` document."""
    return {"schema": SCHEMA, "runs": [run_json(run, data_dir) for run in runs]}


def log_lines(runs: list[JobRun]) -> list[tuple[str, ...]]:
    """(run, job, started, took, mode, outcome, what) per run, newest first."""
    return [
        (
            run.run_id,
            run.job,
            local(run.started_at),
            took_words(run.started_at, run.finished_at),
            mode_label(run.mode),
            run.outcome or "running",
            _words(run),
        )
        for run in runs
    ]


def _ago(moment: datetime, now: datetime) -> str:
    minutes = int(max(0.0, (now - moment).total_seconds()) // 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h {minutes % 60} min ago"
    return f"{minutes // (24 * 60)} days ago"


def run_sentence(run: JobRun, now: datetime) -> str:
    """One run as a sentence: ``dream ran 6 h 10 min ago (2026-12-02 03:30), a DRY RUN
    that took 2.1 s: ok; would trash 2 memories.``"""
    kind = {"dry-run": "a DRY RUN", "apply-pending": "applying reviewed proposals"}.get(
        run.mode, "applied"
    )
    took = took_words(run.started_at, run.finished_at)
    return (
        f"{run.job} ran {_ago(run.started_at, now)} ({local(run.started_at)}), {kind}, "
        f"took {took}: {shown_outcome(run)}; {_words(run)}."
    )


def show_header(run: JobRun, undo: str | None) -> list[str]:
    """The lines above a run's full report."""
    lines = [
        f"Run {run.run_id}: {run.job}, {mode_label(run.mode)}, {shown_outcome(run)}",
        f"Started {local(run.started_at)}, took {took_words(run.started_at, run.finished_at)}",
        f"What it did: {_words(run)}",
    ]
    if run.mode == "dry-run":
        lines.insert(0, "DRY RUN: nothing was changed.")
    if undo:
        lines.append(f"Undo it: {undo}")
    return lines


def show_json(run: JobRun, report: dict[str, Any] | None, data_dir: Path) -> dict[str, Any]:
    """The ``dreamd show --json`` document: the run, its kept report (None once pruned)."""
    return {"schema": SCHEMA, **run_json(run, data_dir), "report": report}
