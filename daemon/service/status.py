"""``dreamd status``: what the service did, will do, and has waiting — read from state only.

Nothing here scans transcripts or takes a lock: the backlog comes from the
session cache the last scan left, the cursor and the records, so ``status``
answers at once even while a collect runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from dreamd.collect.budget import drain_estimate, drain_words, ended_by_words
from dreamd.collect.cursordoc import import_cursor
from dreamd.collect.cursorstate import selection_view
from dreamd.collect.quarantine import held_sessions
from dreamd.config import Settings
from dreamd.dream.pending import pending_files
from dreamd.dream.reporttext import apply_command
from dreamd.jobs import live_ids_from_env, selection_policy
from dreamd.lock import PIPELINE, holder
from dreamd.runrecord import shown_outcome
from dreamd.schedule import parse_schedule
from dreamd.selection import SELECTABLE, select
from dreamd.statedb import JobRun, QuarantinedPlan, StateDB

__all__ = ["FOLLOW_JOURNAL", "log_location", "status_document", "status_text"]

#: How to follow the service's log under systemd, as JSON objects.
FOLLOW_JOURNAL = "journalctl --user -u dreamd -f -o cat | jq"


def _run_json(run: JobRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "run_id": run.run_id,
        "mode": run.mode,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "outcome": shown_outcome(run),
        "summary": run.summary,
    }


def log_location(settings: Settings, env: Mapping[str, str]) -> dict[str, str]:
    """Where the service writes its log and the command that follows it."""
    configured = settings.config.service.log_file
    if configured:
        path = Path(configured).expanduser()
        return {"location": str(path), "follow": f"tail -F {path} | jq"}
    return {"location": "stdout (the systemd journal under systemd)", "follow": FOLLOW_JOURNAL}


def _proposals(data_dir: Path) -> list[dict[str, Any]]:
    """Pending dream proposals: which folder waits for review, why, and the command to apply."""
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


def status_document(
    settings: Settings,
    state: StateDB,
    *,
    env: Mapping[str, str],
    now: datetime,
    timezone: tzinfo,
) -> dict[str, Any]:
    """The status as one JSON-ready document."""
    jobs: dict[str, Any] = {}
    for job, expression in (
        ("collect", settings.config.collect.schedule),
        ("dream", settings.config.dream.schedule),
    ):
        trigger = parse_schedule(expression, timezone)
        upcoming = trigger.get_next_fire_time(None, now.astimezone(timezone))
        last = state.runs(job, limit=1)
        jobs[job] = {
            "schedule": expression,
            "last_run": _run_json(last[0] if last else None),
            "next_run": upcoming.isoformat() if upcoming else None,
        }
    service = holder(settings.data_dir, "service")
    pipeline = holder(settings.data_dir, PIPELINE)
    cursor = import_cursor(state.load_cursor(settings.machine)[1], settings.machine)
    known = state.load_session_cache()
    quarantined = state.quarantined_plans()
    selection = select(
        known.values(),
        held_sessions(selection_view(cursor), quarantined, known.values()),
        now=now,
        live_ids=live_ids_from_env(env),
        policy=selection_policy(settings),
    )
    backlog = Counter(d.session.tool for d in selection.decisions if d.status in SELECTABLE)
    drain = _drain(settings, state, sum(backlog.values()), now, timezone)
    plans = [
        {"session": key, "plan_id": entry.intent.plan_id}
        for key, entry in sorted(cursor.sessions.items())
        if entry.intent is not None
    ]
    proposals = _proposals(settings.data_dir)
    return {
        "machine": settings.machine,
        "service": {"running": service is not None, "pid": service.pid if service else None},
        "jobs": jobs,
        "sessions_known": len(known),  # 0: nothing scanned yet, the backlog is unknown
        "backlog": dict(sorted(backlog.items())),
        "drain": drain,
        "pending_plans": plans,
        "quarantined_plans": [_quarantined_json(q) for q in quarantined],
        "pending_proposals": proposals,
        "lock": {"pid": pipeline.pid, "job": pipeline.job} if pipeline else None,
        "logs": log_location(settings, env),
    }


#: How the status names the step a quarantined plan failed at.
_STAGE_WORDS = {"save": "saved", "replay": "replayed"}


def _quarantined_json(plan: QuarantinedPlan) -> dict[str, Any]:
    return {
        "session": plan.session,
        "plan_id": plan.plan_id,
        "stage": plan.stage,
        "reason": plan.reason,
        "path": plan.path,
        "run_id": plan.run_id,
        "quarantined_at": plan.quarantined_at.isoformat(),
    }


def _drain(
    settings: Settings, state: StateDB, backlog: int, now: datetime, timezone: tzinfo
) -> dict[str, Any]:
    """The backlog at the last collect's rate: which budget ended it, and how many more
    scheduled runs the backlog needs (``dreamd.collect.budget.drain_estimate``)."""
    last = state.runs("collect", limit=1)
    summary = last[0].summary if last else {}
    per_run = summary.get("resolved")
    trigger = parse_schedule(settings.config.collect.schedule, timezone)
    rate = per_run if isinstance(per_run, int) else 0
    estimate = drain_estimate(backlog, rate, trigger, now).as_json()
    return {"ended_by": summary.get("ended_by"), "known_rate": isinstance(per_run, int), **estimate}


def _when(value: str | None, now: datetime) -> str:
    if value is None:
        return "never"
    moment = datetime.fromisoformat(value)
    delta = moment - now
    ahead = delta >= timedelta(0)
    minutes = int(abs(delta).total_seconds() // 60)
    span = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
    relative = f"in {span}" if ahead else f"{span} ago"
    return f"{moment.isoformat(timespec='minutes')} ({relative})"


def status_text(document: Mapping[str, Any], now: datetime) -> str:
    """The status for a terminal."""
    service = document["service"]
    lines = [
        f"service: {'running, pid ' + str(service['pid']) if service['running'] else 'not running'}"
    ]
    for job, info in document["jobs"].items():
        last = info["last_run"]
        if last is None:
            done = "never ran"
        else:
            counts = ", ".join(f"{k} {v}" for k, v in last["summary"].items() if v is not None)
            done = f"last {_when(last['started_at'], now)}: {last['outcome']}"
            done += f" ({counts})" if counts else ""
        lines.append(f"{job}: {done}; next {_when(info['next_run'], now)} [{info['schedule']}]")
    backlog = document["backlog"]
    total = sum(backlog.values())
    if not document["sessions_known"]:
        lines.append("backlog: unknown, nothing scanned yet ('dreamd sources list' scans)")
    else:
        lines.append(
            f"backlog: {total} session(s)"
            + (": " + ", ".join(f"{tool} {n}" for tool, n in backlog.items()) if total else "")
        )
    drain = document.get("drain")
    if document["sessions_known"] and drain and drain.get("known_rate"):
        lines.append(
            f"drain: {drain_words(drain)}; the last collect ended by "
            f"{ended_by_words(drain.get('ended_by'))}"
        )
    lines.append(f"pending plans: {len(document['pending_plans'])}")
    for plan in document["pending_plans"]:
        lines.append(f"  {plan['session']} (plan {plan['plan_id']})")
    quarantined = document.get("quarantined_plans") or []
    if quarantined:
        lines.append(f"quarantined plans: {len(quarantined)}")
    for plan in quarantined:
        failed = _STAGE_WORDS.get(plan["stage"], plan["stage"])
        lines.append(
            f"  {plan['session']} (plan {plan['plan_id']}, could not be {failed}"
            f" {_when(plan['quarantined_at'], now)}): {plan['reason']}"
        )
    lines.append(f"pending dream proposals: {len(document['pending_proposals'])}")
    for proposal in document["pending_proposals"]:
        lines.append(f"  {proposal['folder']}: {proposal['reason']}; review {proposal['proposal']}")
        lines.append(f"    then apply it: {proposal['apply']}")
    lock = document["lock"]
    lines.append(
        f"lock: {'held by ' + lock['job'] + ', pid ' + str(lock['pid']) if lock else 'free'}"
    )
    lines.append(f"log: {document['logs']['location']}")
    lines.append(f"follow: {document['logs']['follow']}")
    return "\n".join(lines) + "\n"
