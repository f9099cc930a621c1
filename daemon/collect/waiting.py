"""How many sessions wait per source, as ``dreamd status`` shows it, and how long that holds. Pure.

Counting them is a selection over every cached session (``dreamd.selection.select``):
ten thousand decisions on every ``status``, though between two scans nothing they
depend on changes but the clock. So the count is kept (the state database's
``backlog_memo``) beside what it was counted from, and used again while all of it
is the same:

- the session cache, by its generation (each write to it counts one up:
  ``StateDB.cached_sessions``);
- the cursor, the quarantined plans, the sessions named live, the live guard
  and dreamd's version, by a digest (``memo_inputs``);
- the clock, up to the first moment a decision could change with time alone
  (``stable_until``): a live session's guard runs out, or a last message from
  the future stops being ahead of the clock.

Projects kept out of collection are asked each time, never kept: the count is
kept per project as if none were excluded (``count_waiting``), and the projects
excluded when it is shown are left out (``shown_backlog``), so a ``.dreamd-ignore``
added since the count takes effect at once. That is exact: exclusion is the
first guard, so a session's status in a project that is not excluded is the one
counted.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

import msgspec

from dreamd import __version__
from dreamd.selection import DAMAGED_AHEAD, SELECTABLE, CursorEntry, SelectionPolicy, select
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import QuarantinedPlan

__all__ = [
    "MEMO_VERSION",
    "Waiting",
    "count_waiting",
    "decode_waiting",
    "encode_waiting",
    "memo_inputs",
    "shown_backlog",
    "stable_until",
]

#: Bumped whenever what is kept, or how it is counted, changes: every kept count is then stale.
MEMO_VERSION = 1


class Waiting(msgspec.Struct, frozen=True, array_like=True):
    """Sessions known, and those waiting per (tool, project) as if no project were excluded
    ("" for a session of no known project), counted at ``counted_at`` and holding until
    ``until`` (None: until something else changes); times are POSIX seconds."""

    known: int
    counted_at: float
    until: float | None
    rows: tuple[tuple[str, str, int], ...]

    def holds_at(self, now: datetime) -> bool:
        """Whether the count still holds at ``now`` (a clock set back invalidates it too)."""
        moment = now.timestamp()
        return self.counted_at <= moment and (self.until is None or moment < self.until)


def count_waiting(
    sessions: Iterable[SessionInfo],
    cursor: Mapping[str, CursorEntry],
    *,
    now: datetime,
    live_ids: frozenset[str],
    live_guard: timedelta,
) -> Waiting:
    """The selectable sessions per (tool, project) at ``now``, no project excluded, and until
    when that count holds (``stable_until``)."""
    every = list(sessions)
    policy = SelectionPolicy(live_guard=live_guard)  # excludes nothing; budgets change no status
    selection = select(every, cursor, now=now, live_ids=live_ids, policy=policy)
    counts = Counter(
        (d.session.tool, d.session.project or "") for d in selection.decisions
        if d.status in SELECTABLE
    )  # fmt: skip
    until = stable_until(every, now, live_guard)
    return Waiting(
        known=len(every),
        counted_at=now.timestamp(),
        until=until.timestamp() if until is not None else None,
        rows=tuple((tool, project, n) for (tool, project), n in sorted(counts.items())),
    )


def stable_until(
    sessions: Iterable[SessionInfo], now: datetime, live_guard: timedelta
) -> datetime | None:
    """The first moment after ``now`` at which time alone could change a session's decision,
    or None when none can.

    Only two guards read the clock (``dreamd.selection``): a session is live while it
    was written, or its last message came, within ``live_guard``; and a last message
    more than ``DAMAGED_AHEAD`` ahead of the clock is a damaged time, not evidence of
    life. So each session's moments are when its guard runs out for its activity and
    for its last message, and when that message stops being ahead of the clock. Nothing
    else in the selection depends on ``now``.
    """
    soonest: datetime | None = None
    for info in sessions:
        for moment in _turning_points(info, live_guard):
            if moment > now and (soonest is None or moment < soonest):
                soonest = moment
    return soonest


def _turning_points(info: SessionInfo, live_guard: timedelta) -> Iterable[datetime]:
    if info.activity_at is not None:
        yield info.activity_at + live_guard
    if info.last_message_at is not None:
        yield info.last_message_at + live_guard
        yield info.last_message_at - DAMAGED_AHEAD


def shown_backlog(waiting: Waiting, excluded: Callable[[str], str | None]) -> dict[str, int]:
    """Sessions waiting per tool, those of projects ``excluded`` now left out (sorted by tool)."""
    backlog: Counter[str] = Counter()
    for tool, project, count in waiting.rows:
        if not project or excluded(project) is None:
            backlog[tool] += count
    return dict(sorted(backlog.items()))


def memo_inputs(
    *,
    machine: str,
    cursor_version: int,
    quarantined: Iterable[QuarantinedPlan],
    live_ids: frozenset[str],
    live_guard: timedelta,
) -> str:
    """A digest of everything but the session cache and the clock that the count depends on."""
    plans = sorted((p.plan_id, p.session, p.revision, p.stage) for p in quarantined)
    document = [
        MEMO_VERSION, __version__, machine, cursor_version, plans, sorted(live_ids),
        live_guard.total_seconds(),
    ]  # fmt: skip
    return hashlib.blake2b(msgspec.msgpack.encode(document), digest_size=16).hexdigest()


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Waiting).decode


def encode_waiting(waiting: Waiting) -> bytes:
    """The count as kept in the state database."""
    return _encode(waiting)


def decode_waiting(value: bytes) -> Waiting | None:
    """The kept count; None when it does not decode (damaged, or kept by another dreamd)."""
    try:
        return _decode(value)
    except msgspec.MsgspecError:
        return None
