"""The collection report (seed 002 phase 5): text, JSON, stored and read back."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from dreamd.collect.budget import drain_words, ended_by_words
from dreamd.collect.collector import CollectResult
from dreamd.readers import isoformat
from dreamd.runlog import SCHEMA

__all__ = ["report_json", "report_text"]

_PEOPLE, _EVENTS, _FACTS = "Person", "Event", "Fact"
#: What ``sources`` counts per tool, in this order.
_SOURCE_COUNTS = ("found", "processed", "skipped_live")


def report_json(
    result: CollectResult,
    *,
    run_id: str,
    now: datetime,
    budget: int | None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """The ``collect --json`` document (and what is stored)."""
    selection = result.selection
    decisions = selection.decisions if selection else ()
    sources: dict[str, dict[str, int]] = {}
    for decision in decisions:  # once per session found: plain counts
        counts = sources.get(decision.session.tool)
        if counts is None:
            counts = sources[decision.session.tool] = dict.fromkeys(_SOURCE_COUNTS, 0)
        counts["found"] += 1
        counts["processed"] += decision.selected
        counts["skipped_live"] += decision.status == "live"
    deferred = result.deferred()
    oldest = deferred[-1].session if deferred else None
    planted, updated = result.planted, result.updated
    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "dry_run": dry_run,
        "generated_at": isoformat(now),
        "selected": [d.session.key for d in selection.selected] if selection else [],
        "sources": {tool: dict(counts) for tool, counts in sorted(sources.items())},
        "windows": result.windows,
        "budget": {"sessions": len(selection.selected) if selection else 0, "max": budget},
        "planted": {**_by_stage(planted), "updated": _by_stage(updated)},
        "planted_items": [entry.as_json() for entry in result.planted_items],
        "would_plant": [
            {"type": i.type, "category": i.category, "name": i.name, "description": i.description}
            for i in result.would_plant
        ],
        "dropped_secrets": result.dropped_secrets,
        "dropped_low_confidence": result.dropped_low_confidence,
        "cursor": {
            "resolved": result.resolved,
            "partial": result.partial,
            "skipped_trivial": result.skipped_trivial,
            "legacy_high_water": "unchanged",
            "legacy_baseline": result.legacy_baseline,
            "legacy_review": result.legacy_review,
            "reconciled": result.reconciled,
        },
        "backlog": {
            "eligible_deferred": len(deferred),
            "oldest_discoverable": f"{oldest.key} {isoformat(oldest.last_message_at)}"
            if oldest
            else None,
            "blocked": result.blocked
            + [f"{d.session.key}: {d.reason}" for d in decisions if d.status == "unresolved"]
            + [f"{d.session.key}: unresolved: {d.reason}" for d in decisions if d.status == "held"],
        },
        "pending_stores": result.pending_stores,
        "quarantined": [
            {"session": q.session, "plan_id": q.plan_id, "stage": q.stage, "reason": q.reason}
            for q in result.quarantined
        ],
        "handoff": result.handoff,
        "tokens": result.tokens,
        "tokens_by_session": dict(sorted(result.tokens_by_session.items())),
        "stopped": result.stopped,
    }


def _by_stage(counts: Counter[str]) -> dict[str, int]:
    """Operations per pipeline stage (every other category is a topic) and in all."""
    topics = sum(n for category, n in counts.items() if category not in (_PEOPLE, _EVENTS, _FACTS))
    return {
        "topics": topics,
        "people": counts[_PEOPLE],
        "events": counts[_EVENTS],
        "facts": counts[_FACTS],
        "total": sum(counts.values()),
    }


def report_text(document: dict[str, Any]) -> str:
    """The seed's report layout."""
    sources = " · ".join(
        f"{tool}: {c.get('found', 0)} / {c.get('processed', 0)} / {c.get('skipped_live', 0)}"
        for tool, c in document["sources"].items()
    )
    planted = document["planted"]
    updated = planted.get("updated", {})
    topics_updated = updated.get("topics", 0)
    cursor = document["cursor"]
    backlog = document["backlog"]
    lines = [
        *_dry_run_banner(document),
        f"# Collection report — {document['generated_at']}",
        f"Sources (found / processed / skipped-live): {sources or 'none'}",
        f"Windows analyzed: {document['windows']} · budget used: "
        f"{document['budget']['sessions']}/{document['budget']['max'] or 'no session cap'}"
        + _ended_by(document),
        f"Planted: topics {planted['topics'] + topics_updated} (new {planted['topics']}, "
        f"updated {topics_updated}) · people {planted['people']} · "
        f"events {planted['events']} · facts {planted['facts']}",
        f"Dropped: secrets-shaped values {document['dropped_secrets']} · "
        f"low-confidence extractions {document['dropped_low_confidence']}",
        f"Cursor: resolved {', '.join(cursor['resolved']) or 'none'}; "
        f"partial {', '.join(cursor['partial']) or 'none'}",
        f"Backlog: {backlog['eligible_deferred']}; oldest discoverable "
        f"{backlog['oldest_discoverable'] or '-'}; blocked "
        f"{'; '.join(backlog['blocked']) or 'none'}",
        *_legacy_lines(cursor),
        *(f"Reconciled: {entry}" for entry in cursor.get("reconciled") or ()),
        *(
            f"Store pending: {entry['store']} for {entry['session']}: {entry['reason']}"
            for entry in document.get("pending_stores") or ()
        ),
        f"Waiting for the next dream to check and accept: {document['handoff']} new items",
        _tokens_line(document),
        *_drain_line(document),
    ]
    if document.get("stopped"):
        lines.append(f"Stopped early: {document['stopped']} (partial sessions resume next run)")
    lines += _planted_lines(document.get("planted_items") or [])
    if document["would_plant"]:
        lines.append("Would plant (dry run):")
        lines += [
            f"- [{i['type']}/{i['category']}] {i['name']}: {i['description']}"
            for i in document["would_plant"]
        ]
    return "\n".join(lines) + "\n"


def _dry_run_banner(document: dict[str, Any]) -> list[str]:
    """``DRY RUN`` at the top of a dry run's report."""
    if not document.get("dry_run"):
        return []
    return [
        "[DRY RUN] Nothing was planted and no progress saved. Run without --dry-run to collect."
    ]


def _planted_lines(entries: list[dict[str, Any]]) -> list[str]:
    """One line per item planted or updated: what, into which store, where, from which session."""
    if not entries:
        return []
    lines = ["Planted items:"]
    for entry in entries:
        where = entry["file"] or entry["location"]
        lines.append(
            f"- {entry['action']} [{entry['type']}/{entry['category']}] {entry['title']} "
            f"→ {entry['store']}: {where} (from {entry['session']})"
        )
    return lines


def _legacy_lines(cursor: dict[str, Any]) -> list[str]:
    """The legacy cursor lines, when a legacy session was taken over or held for review."""
    baseline, review = cursor.get("legacy_baseline", []), cursor.get("legacy_review", [])
    if not baseline and not review:
        return []
    return [
        f"Sessions the older cursor format recorded: taken over {', '.join(baseline) or 'none'}; "
        f"held for your review {'; '.join(review) or 'none'}"
    ]


def _ended_by(document: dict[str, Any]) -> str:
    """`` · ended by <which budget>``, when the run says."""
    ended = document["budget"].get("ended_by")
    return f" · ended by {ended_by_words(ended)}" if ended else ""


def _drain_line(document: dict[str, Any]) -> list[str]:
    """How long the backlog takes at this run's rate, when the run estimated it."""
    drain = document.get("drain")
    return [f"Drain: {drain_words(drain)}"] if drain else []


def _tokens_line(document: dict[str, Any]) -> str:
    """Model tokens spent in all, and per session when any were."""
    per_session = document.get("tokens_by_session") or {}
    detail = "; ".join(f"{key} {n}" for key, n in per_session.items())
    return f"Tokens: {document['tokens']}" + (f" ({detail})" if detail else "")
