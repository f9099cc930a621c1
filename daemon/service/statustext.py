"""``dreamd status`` as a person reads it: "what happened last night?" on one screen. Pure.

The last run of each job as a sentence; what waits for you, each with the
command that handles it; the next runs, only when the service is installed
or running (else how to install it); the backlog per source; where the log is.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from dreamd.collect.budget import drain_words, ended_by_words

__all__ = ["status_text"]


def _when(value: str, now: datetime) -> str:
    moment = datetime.fromisoformat(value)
    delta = moment - now
    minutes = int(abs(delta).total_seconds() // 60)
    span = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
    relative = f"in {span}" if delta >= timedelta(0) else f"{span} ago"
    return f"{moment.astimezone().strftime('%Y-%m-%d %H:%M')} ({relative})"


def _service_line(service: Mapping[str, Any]) -> str:
    if service["running"]:
        return f"Service: running (pid {service['pid']})."
    if service["installed"]:
        return f"Service: installed ({service['unit']}) but not running."
    return "Service: not installed; 'dreamd install-service' runs collect and dream on schedule."


def _last_runs(document: Mapping[str, Any]) -> list[str]:
    lines = ["Last runs:"]
    for job, info in document["jobs"].items():
        last = info["last_run"]
        if last is None:
            hint = "dreamd collect --dry-run" if job == "collect" else "dreamd dream --dry-run"
            lines.append(f"  {job} has never run ('{hint}' shows what it would do).")
        else:
            lines.append(f"  {last['sentence']} (details: dreamd show {last['run_id']})")
        change = info.get("last_change")
        if change:
            lines.append(
                f"  The last {job} that changed files: {change['sentence']} "
                f"(undo: {change['undo']})"
            )
    return lines


#: How the status names the step a quarantined plan failed at.
_STAGE_WORDS = {"save": "saved", "replay": "replayed"}
#: What happens next to the session of a quarantined plan, by the step that failed.
_QUARANTINE_NEXT = {
    "save": "the session waits until its transcript changes",
    "replay": "its window was closed without acknowledging a message; the next collect reads it",
}


def _waiting(document: Mapping[str, Any], now: datetime) -> list[str]:
    proposals, plans = document["pending_proposals"], document["pending_plans"]
    lines = ["Waiting for you:"]
    for proposal in proposals:
        lines.append(
            f"  a dream proposal for {proposal['folder']} ({proposal['reason']}, "
            f"{proposal['moves']} moves): read {proposal['proposal']}, then run "
            f"'{proposal['apply']}'"
        )
    if plans:
        sessions = ", ".join(plan["session"] for plan in plans)
        lines.append(
            f"  {len(plans)} half-planted collect window(s) of an interrupted run ({sessions}): "
            "the next 'dreamd collect' finishes them"
        )
    for plan in document.get("quarantined_plans") or ():
        failed = _STAGE_WORDS.get(plan["stage"], plan["stage"])
        lines.append(
            f"  a quarantined collect plan of {plan['session']} (plan {plan['plan_id']}, could not"
            f" be {failed} {_when(plan['quarantined_at'], now)}): {plan['reason']}; "
            + _QUARANTINE_NEXT.get(plan["stage"], "see 'dreamd show " + plan["run_id"] + "'")
        )
    if len(lines) == 1:
        lines.append("  nothing.")
    return lines


def _next_runs(document: Mapping[str, Any], now: datetime) -> list[str]:
    service = document["service"]
    if not (service["running"] or service["installed"]):
        return []
    lines = ["Next runs:"]
    for job, info in document["jobs"].items():
        upcoming = _when(info["next_run"], now) if info["next_run"] else "never"
        lines.append(f"  {job} {upcoming} [{info['schedule']}]")
    return lines


def _backlog(document: Mapping[str, Any]) -> list[str]:
    if not document["sessions_known"]:
        return ["Backlog: unknown, nothing scanned yet ('dreamd sources list' scans)."]
    backlog = document["backlog"]
    total = sum(backlog.values())
    if not total:
        return ["Backlog: none; every finished session is collected."]
    per_source = ", ".join(f"{tool} {n}" for tool, n in backlog.items())
    lines = [f"Backlog: {total} session(s) to collect: {per_source}."]
    drain = document.get("drain")
    if drain and drain.get("known_rate"):
        ended = ended_by_words(drain.get("ended_by"))
        lines.append(f"  {drain_words(drain)}; the last collect ended by {ended}.")
    return lines


def status_text(document: Mapping[str, Any], now: datetime) -> str:
    """The status for a terminal, one screen."""
    lines = [_service_line(document["service"]), *_last_runs(document), *_waiting(document, now)]
    lines += _next_runs(document, now)
    lines += _backlog(document)
    lock = document["lock"]
    if lock:
        lines.append(f"Busy: {lock['job']} is running now (pid {lock['pid']}).")
    logs = document["logs"]
    follow = f"; follow it with: {logs['follow']}" if logs.get("follow") else ""
    lines.append(f"Log: {logs['location']}{follow}")
    lines.append("All runs: dreamd log")
    return "\n".join(lines) + "\n"
