"""``dreamd status``: what happened, what waits for you, what runs next — read from state.

Nothing here scans transcripts or takes a lock: the backlog comes from the
session cache the last scan left, the cursor and the records, so ``status``
answers at once even while a collect runs. The one thing it writes is its own
count of that backlog, kept for the next ``status`` (``dreamd.collect.waiting``).
The text (``dreamd.service.statustext``) answers "what happened last night?" on
one screen.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Literal

from dreamd.collect.budget import Drain, drain_runs, nth_fire_time
from dreamd.collect.cursordoc import import_cursor
from dreamd.collect.cursorstate import Cursor, selection_view
from dreamd.collect.policy import live_ids_from_env, selection_policy
from dreamd.collect.quarantine import held_sessions
from dreamd.collect.waiting import (
    Waiting,
    count_waiting,
    decode_waiting,
    encode_waiting,
    memo_inputs,
    shown_backlog,
)
from dreamd.config import Settings
from dreamd.dream.pendingdir import sidecars
from dreamd.errors import StateError
from dreamd.gcpause import collector_paused
from dreamd.lock import PIPELINE, holder
from dreamd.logs import get_logger
from dreamd.runlog import SCHEMA
from dreamd.runrecord import shown_outcome
from dreamd.runstory import counts_words, mode_label, took_words
from dreamd.runview import run_sentence, undo_command
from dreamd.schedule import KeptFires, decode_fires, encode_fires, schedule_key
from dreamd.service.servicefiles import LOG_FILE_NAME, launchd_log_dir, plist_path, unit_path
from dreamd.statedb import JobRun, QuarantinedPlan, StateDB

__all__ = ["FOLLOW_JOURNAL", "log_location", "service_state", "status_document"]

#: How to follow the service's log under systemd, as JSON objects.
FOLLOW_JOURNAL = "journalctl --user -u dreamd -f -o cat | jq"

_JOBS: tuple[Literal["collect", "dream"], ...] = ("collect", "dream")

log = get_logger("dreamd.status")


def _run_json(run: JobRun | None, now: datetime) -> dict[str, Any] | None:
    if run is None:
        return None
    words = counts_words(run.job, run.summary.get("counts"))
    return {
        "run_id": run.run_id,
        "mode": run.mode,
        "dry_run": run.mode == "dry-run",
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "took": took_words(run.started_at, run.finished_at),
        "outcome": shown_outcome(run),
        "label": mode_label(run.mode),
        "what": words,
        "sentence": run_sentence(run, now),
        "summary": run.summary,
    }


def service_state(
    settings: Settings, env: Mapping[str, str], platform: str = sys.platform
) -> dict[str, Any]:
    """Whether the service runs now (its lock's holder) and whether its unit is installed."""
    home = settings.home or Path.home()
    unit = plist_path(home) if platform == "darwin" else unit_path(home, env)
    running = holder(settings.data_dir, "service")
    return {
        "running": running is not None,
        "pid": running.pid if running else None,
        "installed": unit.is_file(),
        "unit": str(unit),
    }


def log_location(
    settings: Settings,
    env: Mapping[str, str],
    *,
    installed: bool = False,
    platform: str = sys.platform,
) -> dict[str, str | None]:
    """Where the service's log is on this platform and the command that follows it."""
    configured = settings.config.service.log_file
    home = settings.home or Path.home()
    if configured.strip():
        path: Path | None = Path(configured).expanduser()
    elif platform == "darwin":
        path = launchd_log_dir(home) / LOG_FILE_NAME
    else:
        path = None
    if path is not None:
        return {"location": str(path), "follow": f"tail -F {path} | jq"}
    if installed:
        return {"location": "the systemd journal (unit dreamd)", "follow": FOLLOW_JOURNAL}
    return {
        "location": "none yet: the service is not installed ('dreamd run' logs to its stdout)",
        "follow": None,
    }


def _jobs(
    settings: Settings, state: StateDB, now: datetime, upcoming: Mapping[str, datetime | None]
) -> dict[str, dict[str, Any]]:
    """Each job's schedule, last run and next scheduled time (``upcoming``)."""
    jobs: dict[str, dict[str, Any]] = {}
    for job in _JOBS:
        recent = state.runs(job, limit=20)
        next_run = upcoming[job]
        jobs[job] = {
            "schedule": getattr(settings.config, job).schedule,
            "last_run": _run_json(recent[0] if recent else None, now),
            "last_change": _last_change(settings.data_dir, recent, now),
            "next_run": next_run.isoformat() if next_run else None,
        }
    return jobs


def _fire_times(
    settings: Settings,
    state: StateDB,
    job: Literal["collect", "dream"],
    now: datetime,
    zone: tzinfo,
    count: int,
) -> tuple[datetime | None, datetime | None]:
    """(``job``'s next fire time at ``now``, its ``count``-th, None for 0): kept from an
    earlier ``status`` while they hold (``dreamd.schedule.KeptFires``), else asked of the
    trigger (which loads the scheduler) and kept."""
    key = schedule_key(getattr(settings.config, job).schedule, zone)
    stored = state.schedule_memo(job)
    kept = decode_fires(stored) if stored is not None else None
    if kept is not None and kept.holds_at(key, now, count):
        return kept.times(zone)
    trigger = settings.trigger(job, zone)
    moment = now.astimezone(zone)
    upcoming: datetime | None = trigger.get_next_fire_time(None, moment)
    nth = nth_fire_time(trigger, moment, count) if count else None
    kept = KeptFires(key, now.timestamp(), _stamp(upcoming), count, _stamp(nth))
    try:
        state.save_schedule_memo(job, encode_fires(kept))
    except StateError as error:
        log.warning("status.fire_times_not_kept", job=job, error=str(error))
    return upcoming, nth


def _stamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _last_change(data_dir: Path, recent: list[JobRun], now: datetime) -> dict[str, Any] | None:
    """The latest of ``recent`` that changed files (it can be undone), when it is not the
    last run: a refused or empty run afterwards must not hide what the dream did."""
    for index, run in enumerate(recent):
        undo = undo_command(data_dir, run)
        if undo is not None:
            return None if index == 0 else {**(_run_json(run, now) or {}), "undo": undo}
    return None


def _proposals(data_dir: Path) -> list[dict[str, Any]]:
    """Pending dream proposals: which folder waits for review, why, and the command to apply.

    The proposal code is loaded only when a proposal is stored (most calls: none is)."""
    if not sidecars(data_dir):
        return []
    from dreamd.dream.pending import apply_command, pending_files

    return [
        {
            "folder": str(p.folder),
            "proposal": str(p.path),
            "reason": p.reason,
            "moves": p.moves,
            "apply": apply_command(str(p.folder)),
        }
        for p in pending_files(data_dir)
    ]


def _plans(cursor: Cursor) -> list[dict[str, Any]]:
    """Windows a collect left half-planted (an interrupted run): the next collect settles them."""
    return [
        {"session": key, "plan_id": entry.intent.plan_id}
        for key, entry in sorted(cursor.sessions.items())
        if entry.intent is not None
    ]


def _quarantined_json(plan: QuarantinedPlan) -> dict[str, Any]:
    """A plan set aside (issue 15 item 2): which session, why, and where its file is."""
    return {
        "session": plan.session,
        "plan_id": plan.plan_id,
        "stage": plan.stage,
        "reason": plan.reason,
        "path": plan.path,
        "run_id": plan.run_id,
        "quarantined_at": plan.quarantined_at.isoformat(),
    }


def _backlog(
    settings: Settings,
    state: StateDB,
    cursor: tuple[int, Cursor],
    quarantined: list[QuarantinedPlan],
    env: Mapping[str, str],
    now: datetime,
) -> tuple[int, dict[str, int]]:
    """(sessions known, sessions waiting per source) from the last scan's cache; sessions
    held by a quarantined plan do not wait, nor those of an excluded project.

    The count is kept (``dreamd.collect.waiting``) and used again while the cache, the
    cursor, the quarantined plans and the live sessions are as they were, up to the first
    moment the clock alone could change it; which projects are excluded is asked anew.
    """
    policy = selection_policy(settings)
    live_ids = live_ids_from_env(env)
    version, document = cursor
    inputs = memo_inputs(
        machine=settings.machine,
        cursor_version=version,
        quarantined=quarantined,
        live_ids=live_ids,
        live_guard=policy.live_guard,
    )
    kept = state.backlog_memo(inputs)
    waiting = decode_waiting(kept) if kept is not None else None
    if waiting is None or not waiting.holds_at(now):
        with collector_paused():  # ten thousand sessions and decisions: nothing cyclic
            generation, known = state.cached_sessions()
            waiting = count_waiting(
                known.values(),
                held_sessions(selection_view(document), quarantined, known.values()),
                now=now,
                live_ids=live_ids,
                live_guard=policy.live_guard,
            )
        _keep(state, generation, inputs, waiting)
    return waiting.known, shown_backlog(waiting, policy.excluded)


def _keep(state: StateDB, generation: int, inputs: str, waiting: Waiting) -> None:
    """Keep the count for the next ``status``; one that cannot be kept is counted again."""
    try:
        state.save_backlog_memo(generation, inputs, encode_waiting(waiting))
    except StateError as error:
        log.warning("status.backlog_not_kept", error=str(error))


def status_document(
    settings: Settings,
    state: StateDB,
    *,
    env: Mapping[str, str],
    now: datetime,
    timezone: tzinfo,
) -> dict[str, Any]:
    """The status as one JSON-ready document."""
    service = service_state(settings, env)
    pipeline = holder(settings.data_dir, PIPELINE)
    version, stored = state.load_cursor(settings.machine)
    cursor = import_cursor(stored, settings.machine)
    quarantined = state.quarantined_plans()
    known, backlog = _backlog(settings, state, (version, cursor), quarantined, env, now)
    last = state.runs("collect", limit=1)
    summary = last[0].summary if last else {}
    runs = drain_runs(sum(backlog.values()), _rate(summary))
    collect_next, last_due = _fire_times(settings, state, "collect", now, timezone, runs or 0)
    dream_next, _ = _fire_times(settings, state, "dream", now, timezone, 0)
    upcoming = {"collect": collect_next, "dream": dream_next}
    return {
        "schema": SCHEMA,
        "machine": settings.machine,
        "service": service,
        "jobs": _jobs(settings, state, now, upcoming),
        "sessions_known": known,  # 0: nothing scanned yet, the backlog is unknown
        "backlog": backlog,
        "drain": _drain(summary, sum(backlog.values()), runs, last_due),
        "pending_plans": _plans(cursor),
        "quarantined_plans": [_quarantined_json(plan) for plan in quarantined],
        "pending_proposals": _proposals(settings.data_dir),
        "lock": {"pid": pipeline.pid, "job": pipeline.job} if pipeline else None,
        "logs": log_location(settings, env, installed=service["installed"]),
    }


def _rate(summary: Mapping[str, Any]) -> int:
    """Sessions the last collect resolved (0 when no collect ran or its record says not)."""
    per_run = summary.get("resolved")
    return per_run if isinstance(per_run, int) else 0


def _drain(
    summary: Mapping[str, Any], backlog: int, runs: int | None, last_due: datetime | None
) -> dict[str, Any]:
    """The backlog at the last collect's rate (its record's ``summary``): which budget ended
    that run, how many more scheduled runs the backlog needs (``runs``:
    ``dreamd.collect.budget.drain_runs``) and when the last of them is due."""
    known_rate = isinstance(summary.get("resolved"), int)
    estimate = Drain(max(backlog, 0), _rate(summary), runs, last_due).as_json()
    return {"ended_by": summary.get("ended_by"), "known_rate": known_rate, **estimate}
