"""Which sessions the collector takes next (seed 002, phase 1). Pure.

Rules, each one function below:

1. Sources are merged before anything else: one list across all tools, never a
   budget per tool. The same ``tool:id`` found twice (a session archived and
   still present, a copied folder) collapses to the most recent copy.
2. Order: ``last_message_at`` newest first, then tool name, then session id by
   code point, then path. Sessions with no known time sort last.
3. Guards, in this order, before any budget is spent:
   excluded (a project the user keeps out: ``SelectionPolicy.excluded``
   names why, ``dreamd.privacy``; never read for extraction),
   unresolved (could not be read: reported, never taken as empty),
   live (written or last message within the guard, or named live: a live
   session is never marked trivial or resolved; one live copy makes the
   session live, so a duplicate is never taken in place of it, ``live_copies``;
   a last message more than ``DAMAGED_AHEAD`` ahead of the clock is a damaged timestamp, reported
   in the reason, and the file's time decides: ``damaged_timestamp``),
   resolved (the cursor resolved this exact revision, or a legacy record's
   time covers its last message: ``finished_before``, applied before the budget),
   trivial (fewer than 4 messages, no user message, or a machine-written
   opening prompt with no substantive human reply; or recorded skipped at
   this revision).
   A session read from a damaged source (``SessionInfo.partial``) is never
   ``resolved``, whatever the cursor says: it is ``partial``, as selectable
   as an eligible one, with the damaged lines in its reason (``damage_reason``).
4. Budget: selectable sessions (``eligible`` and ``partial``) in order until
   the session budget is reached or the message budget is used up (None:
   no such budget; the collector's own budgets then end the run, see
   ``dreamd.collect.budget``); the first one is always taken so that a long
   session cannot block the queue. The rest is deferred.

What a reader noted about a session (an unknown project) is added to its
reason (``with_notes``).

Invariants: the result does not depend on input order; every input session
gets exactly one decision; only ``eligible`` and ``partial`` sessions are
ever selected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

import msgspec

from dreamd.sessioninfo import SessionInfo

__all__ = [
    "SELECTABLE",
    "CursorEntry",
    "Decision",
    "Selection",
    "SelectionPolicy",
    "Status",
    "apply_budget",
    "collapse_duplicates",
    "damage_note",
    "damage_reason",
    "damaged_timestamp",
    "finished_before",
    "live_copies",
    "live_reason",
    "order_key",
    "resolved_reason",
    "select",
    "trivial_reason",
    "with_notes",
]

Status = Literal[
    "eligible",
    "partial",
    "damaged",
    "live",
    "trivial",
    "resolved",
    "unresolved",
    "held",
    "excluded",
]

#: The cursor's reason for a damaged session whose every readable message was collected at
#: its revision: it waits for the damage to go (``damaged``), instead of taking the budget
#: on every run.
READABLE_DONE = "every readable message collected"

#: Statuses the budget may take: ``partial`` is eligible, but read from a damaged source.
SELECTABLE: frozenset[str] = frozenset({"eligible", "partial"})

#: Damaged line numbers named in a reason, at most.
_LINES_SHOWN = 20

#: A last message further ahead of the clock than this cannot be real: a damaged timestamp.
DAMAGED_AHEAD = timedelta(days=1)

#: Seed 002: sessions of fewer than about four messages are not worth a window.
MIN_MESSAGES = 4


class CursorEntry(msgspec.Struct, frozen=True):
    """What the cursor records about one session."""

    state: Literal["resolved", "skipped_trivial", "partial", "held"]
    revision: str
    reason: str = ""  # for "held": why the cursor holds the session back (legacy review)
    #: Finished up to this time by a record without fingerprints (a legacy cursor): a
    #: session whose last message is no later is finished, whatever its revision.
    until: datetime | None = None
    note: str = ""  # where that record is, for the reason


def _nothing_excluded(project: str) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class SelectionPolicy:
    """Guard and budget settings (from ``[collect]`` in the config).

    ``excluded`` says why a project is kept out of collection, or None
    (``dreamd.privacy.ProjectExclusion``: it looks for ignore files, once per
    project); the default excludes nothing.
    """

    live_guard: timedelta = timedelta(minutes=30)
    budget_sessions: int | None = 3  # None: no session budget
    budget_messages: int | None = 150  # None: no message budget
    excluded: Callable[[str], str | None] = field(default=_nothing_excluded, compare=False)


class Decision(msgspec.Struct, frozen=True, gc=False):
    """One session's status, why, and whether this run takes it.

    A frozen struct rather than a dataclass: a selection makes one or two per
    session on every listing, and a struct is built in a tenth of the time.
    """

    session: SessionInfo
    status: Status
    reason: str
    selected: bool = False


class Selection(msgspec.Struct, frozen=True):
    """Every session's decision in selection order; ``selected`` is the run's work."""

    decisions: tuple[Decision, ...]
    selected: tuple[Decision, ...] = ()

    @property
    def backlog(self) -> int:
        """Selectable sessions left for a later run."""
        return sum(1 for d in self.decisions if d.status in SELECTABLE and not d.selected)


def select(
    sessions: Iterable[SessionInfo],
    cursor: Mapping[str, CursorEntry],
    *,
    now: datetime,
    live_ids: frozenset[str] = frozenset(),
    policy: SelectionPolicy = SelectionPolicy(),
) -> Selection:
    """Merge, order, guard and budget ``sessions`` against the ``cursor`` at ``now``."""
    every = list(sessions)
    live = live_copies(every, now, policy.live_guard, live_ids)
    ordered = sorted(collapse_duplicates(every), key=order_key)
    guarded = [_guard(info, cursor, now, live, policy) for info in ordered]
    decisions = apply_budget(guarded, policy)
    return Selection(tuple(decisions), tuple(d for d in decisions if d.selected))


def collapse_duplicates(sessions: Iterable[SessionInfo]) -> list[SessionInfo]:
    """One entry per ``tool:id``: a readable copy over an unreadable one, then the newest."""
    best: dict[str, SessionInfo] = {}
    for info in sessions:
        key = info.key
        current = best.setdefault(key, info)
        if current is not info and _preference(info) < _preference(current):
            best[key] = info
    return list(best.values())


def _preference(info: SessionInfo) -> tuple[bool, float, float, str, str]:
    last = info.last_message_at.timestamp() if info.last_message_at else float("-inf")
    activity = info.activity_at.timestamp() if info.activity_at else float("-inf")
    return (info.unresolved is not None, -last, -activity, info.path, info.locator)


def live_copies(
    sessions: Iterable[SessionInfo], now: datetime, guard: timedelta, live_ids: frozenset[str]
) -> dict[str, str]:
    """Why each ``tool:id`` with a live copy is live: one live copy makes the session live,
    so a stale or readable duplicate is never taken in place of the one being written."""
    threshold = now - guard
    candidates = [  # the only ones ``live_reason`` can call live: sorted, not all
        info
        for info in sessions
        if (info.activity_at is not None and info.activity_at > threshold)
        or (info.last_message_at is not None and info.last_message_at > threshold)
        or (live_ids and info.key in live_ids)
    ]
    live: dict[str, str] = {}
    for info in sorted(candidates, key=lambda i: (i.path, i.locator)):
        reason = live_reason(info, now, guard, live_ids)
        if reason is not None and info.key not in live:
            live[info.key] = f"{reason} ({info.path})" if info.path else reason
    return live


def order_key(info: SessionInfo) -> tuple[bool, float, str, str, str, str]:
    """Newest ``last_message_at`` first, then tool, session id (code points), path."""
    moment = info.last_message_at or (info.activity_at if info.unresolved else None)
    return (
        moment is None,
        -moment.timestamp() if moment else 0.0,
        info.tool,
        info.session_id,
        info.path,
        info.locator,
    )


def live_reason(
    info: SessionInfo, now: datetime, guard: timedelta, live_ids: frozenset[str]
) -> str | None:
    """Why a session counts as live (still being written), or None.

    A damaged last-message time (``damaged_timestamp``) is not evidence of
    life: the file's time decides alone, so such a session is not live forever.
    """
    if info.key in live_ids:
        return "named live"
    threshold = now - guard
    minutes = int(guard.total_seconds() // 60)
    if info.activity_at is not None and info.activity_at > threshold:
        return f"written in the last {minutes} min"
    last = info.last_message_at
    if last is not None and last > threshold and damaged_timestamp(info, now) is None:
        return f"last message in the last {minutes} min"
    return None


def damaged_timestamp(info: SessionInfo, now: datetime) -> str | None:
    """Why the session's last-message time cannot be trusted, or None.

    A last message more than ``DAMAGED_AHEAD`` ahead of ``now`` was never
    written at that time: the timestamp is damaged (or the clock that wrote it
    was), and it is reported rather than believed.
    """
    last = info.last_message_at
    if last is None or last <= now + DAMAGED_AHEAD:
        return None
    shown = last.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return (
        f"damaged timestamp: last message at {shown} UTC is more than a day ahead "
        "of the clock; the file's time decides"
    )


def resolved_reason(info: SessionInfo, entry: CursorEntry | None) -> str | None:
    """Why a session needs no work: the cursor resolved this exact revision, or a legacy
    record finished it (``finished_before``)."""
    if entry is not None and entry.state == "resolved" and entry.revision == info.revision:
        return "resolved at this revision"
    if entry is not None and entry.state == "resolved" and finished_before(info, entry):
        return f"{entry.note or 'finished in the legacy cursor'} at {_shown(entry.until)}"
    return None


def finished_before(info: SessionInfo, entry: CursorEntry) -> bool:
    """Whether a record without fingerprints covers the whole session: its time is set and
    the session's last message (known) is no later. Applied before any budget is spent."""
    last = info.last_message_at
    return entry.until is not None and last is not None and last <= entry.until


def _shown(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if moment else "?"


def trivial_reason(info: SessionInfo, entry: CursorEntry | None) -> str | None:
    """Why a session is not worth collecting, or None."""
    if entry is not None and entry.state == "skipped_trivial" and entry.revision == info.revision:
        return entry.reason or "skipped as trivial at this revision"
    if entry is not None and entry.state == "skipped_trivial" and finished_before(info, entry):
        return f"{entry.note or 'skipped as trivial in the legacy cursor'} at {_shown(entry.until)}"
    if info.user_messages == 0:
        return "no user message"
    if info.messages < MIN_MESSAGES:
        return f"only {info.messages} messages (fewer than {MIN_MESSAGES})"
    if info.machine_opening and info.human_replies == 0:
        return "machine-generated opening prompt with no human reply"
    return None


def damage_reason(info: SessionInfo) -> str:
    """Why a damaged session is ``partial``: the lines that could not be read."""
    return damage_note(info.damaged_lines)


def damage_note(lines: Sequence[int]) -> str:
    """The damaged line numbers, in words (the first few)."""
    shown = ", ".join(map(str, lines[:_LINES_SHOWN])) + (
        ", ..." if len(lines) > _LINES_SHOWN else ""
    )
    noun = "line" if len(lines) == 1 else "lines"
    return f"damaged {noun} {shown}: read from the rest, never resolved while damaged"


def with_notes(decision: Decision, *extra: str | None) -> Decision:
    """The decision with what the reader noted about the session (and ``extra``
    notes, None skipped) added to its reason."""
    if not decision.session.notes and not any(extra):  # most sessions: nothing to add
        return decision
    notes = [*decision.session.notes, *(note for note in extra if note)]
    return msgspec.structs.replace(decision, reason=f"{decision.reason}; {'; '.join(notes)}")


def _guard(
    info: SessionInfo,
    cursor: Mapping[str, CursorEntry],
    now: datetime,
    live: Mapping[str, str],
    policy: SelectionPolicy,
) -> Decision:
    decision = _decide(info, cursor, live, policy)
    return with_notes(decision, damaged_timestamp(info, now))


def _decide(
    info: SessionInfo,
    cursor: Mapping[str, CursorEntry],
    live_by_key: Mapping[str, str],
    policy: SelectionPolicy,
) -> Decision:
    excluded = policy.excluded(info.project) if info.project else None
    if excluded is not None:
        return Decision(info, "excluded", excluded)
    if info.unresolved is not None:
        return Decision(info, "unresolved", info.unresolved)
    key = info.key
    live = live_by_key.get(key)
    if live is not None:
        return Decision(info, "live", live)
    entry = cursor.get(key)
    if entry is not None and entry.state == "held":
        return Decision(info, "held", entry.reason)
    if info.partial:
        trivial = trivial_reason(info, entry)
        if trivial is not None:
            return Decision(info, "trivial", trivial)
        if _readable_done(info, entry):
            return Decision(info, "damaged", f"{damage_reason(info)}; {READABLE_DONE}")
        return Decision(info, "partial", damage_reason(info))
    resolved = resolved_reason(info, entry)
    if resolved is not None:
        return Decision(info, "resolved", resolved)
    trivial = trivial_reason(info, entry)
    if trivial is not None:
        return Decision(info, "trivial", trivial)
    if entry is not None and entry.until is not None and entry.revision != info.revision:
        return _after_legacy(info, entry)
    if entry is not None and entry.state == "partial":
        return Decision(info, "eligible", "partial: resumes where it stopped")
    if entry is not None and entry.state == "resolved":
        return Decision(info, "eligible", "changed since it was resolved")
    return Decision(info, "eligible", "new")


def _after_legacy(info: SessionInfo, entry: CursorEntry) -> Decision:
    """A session a record without fingerprints finished up to ``until``, not all of it: new
    work after that time; held when its messages carry no time to place them by."""
    if info.last_message_at is None:
        return Decision(
            info, "held", f"legacy review: {entry.note} at {_shown(entry.until)}, and the "
            "session's messages carry no time to tell what came after; not guessed",
        )  # fmt: skip
    return Decision(info, "eligible", f"new since {entry.note} at {_shown(entry.until)}")


def _readable_done(info: SessionInfo, entry: CursorEntry | None) -> bool:
    """Whether the collector took everything readable of this damaged revision already."""
    return (
        entry is not None
        and entry.state == "partial"
        and entry.revision == info.revision
        and entry.reason == READABLE_DONE
    )


def apply_budget(decisions: list[Decision], policy: SelectionPolicy) -> list[Decision]:
    """Mark eligible sessions selected, in order, until a budget is reached."""
    taken = messages = 0
    sessions_cap = policy.budget_sessions
    messages_cap = policy.budget_messages
    result: list[Decision] = []
    for decision in decisions:
        if decision.status not in SELECTABLE:
            result.append(decision)
            continue
        sessions_left = sessions_cap is None or taken < sessions_cap
        if sessions_left and (taken == 0 or messages_cap is None or messages < messages_cap):
            taken += 1
            messages += decision.session.messages
            of = f" of {sessions_cap}" if sessions_cap is not None else ""
            reason = f"{decision.reason}; selected ({taken}{of})"
            result.append(Decision(decision.session, decision.status, reason, selected=True))
        else:
            which = "message" if sessions_left else "session"
            reason = f"{decision.reason}; deferred: {which} budget reached"
            result.append(Decision(decision.session, decision.status, reason, decision.selected))
    return result
