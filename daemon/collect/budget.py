"""How much one collect may do: a budget that follows the extractor's cost (issue 11 item 5).

Seed 002's budget (3 sessions, about 150 messages a run) fits an agent that
reads transcripts into its own context; for a daemon it means a backlog of
500 sessions never drains while 15 new ones arrive a day. So the budget
depends on what a session costs, each rule one function below:

- ``run_budget``: the heuristic costs nothing but time, so it takes every
  eligible session, newest first, until ``collect.time_budget_seconds``
  (``DEFAULT_TIME_BUDGET_SECONDS``) runs out; an LLM extractor with a token
  cap (``collect.max_tokens_per_run``) takes sessions until the cap stops
  it; an LLM extractor without a cap keeps seed 002's 3 sessions / 150
  messages. ``collect.budget_sessions`` / ``budget_messages``, when set,
  apply to every extractor (the seed's budget stays one setting away), and
  ``collect --budget N`` takes N sessions with no message budget unless one
  is configured;
- ``ended_by``: which budget ended a run (``sessions``, ``messages``,
  ``time``, ``tokens``), or that something else did (``stop``: a signal;
  ``extractor``: the model could not be reached), or ``none``: every
  eligible session was taken;
- ``drain_estimate``: at the rate of the run just finished, how many more
  scheduled runs the backlog needs and when the last of them is due;
- ``collect_on_quiet``: the service also collects once changed sessions are
  quiet, by default only for the free heuristic;
- ``lower_priority``: a collect job runs at ``COLLECT_NICENESS`` (``os.nice``
  on the job's thread, which on Linux is that thread alone).

Everything here is pure except ``Deadline`` (reads a clock) and
``lower_priority`` (changes the calling thread's niceness).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from dreamd.config import Config
from dreamd.selection import SELECTABLE

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

    from dreamd.collect.collector import CollectResult

__all__ = [
    "COLLECT_NICENESS",
    "DEFAULT_TIME_BUDGET_SECONDS",
    "SEED_BUDGET_MESSAGES",
    "SEED_BUDGET_SESSIONS",
    "Deadline",
    "Drain",
    "EndedBy",
    "RunBudget",
    "budget_summary",
    "collect_on_quiet",
    "drain_estimate",
    "drain_runs",
    "drain_words",
    "ended_by",
    "ended_by_words",
    "lower_priority",
    "nth_fire_time",
    "run_budget",
    "run_fields",
]

#: Seed 002's per-run budget: sessions, and about this many messages.
SEED_BUDGET_SESSIONS = 3
SEED_BUDGET_MESSAGES = 150
#: How long a heuristic collect may run (twenty minutes: done long before the 03:30 dream).
DEFAULT_TIME_BUDGET_SECONDS = 1200
#: The niceness a collect job runs at (the systemd unit's ``Nice=`` value).
COLLECT_NICENESS = 10

EndedBy = Literal["sessions", "messages", "time", "tokens", "stop", "extractor", "none"]


class RunBudget(msgspec.Struct, frozen=True):
    """One run's limits: None (or 0 for seconds and tokens) means no such limit."""

    sessions: int | None
    messages: int | None
    seconds: float
    tokens: int

    def as_json(self) -> dict[str, int | float | None]:
        """The limits as the report shows them."""
        return {
            "max_sessions": self.sessions,
            "max_messages": self.messages,
            "time_budget_seconds": self.seconds or None,
            "token_cap": self.tokens or None,
        }


def run_budget(config: Config, sessions_override: int | None = None) -> RunBudget:
    """The budget of one collect under ``config`` (see the module docstring)."""
    collect = config.collect
    llm = collect.extractor != "heuristic"
    sessions = sessions_override or collect.budget_sessions
    messages = collect.budget_messages
    if llm and collect.max_tokens_per_run == 0 and sessions is None:
        sessions = SEED_BUDGET_SESSIONS  # nothing else bounds what the run spends
        messages = SEED_BUDGET_MESSAGES if messages is None else messages
    seconds = collect.time_budget_seconds
    if seconds is None:
        seconds = 0 if llm else DEFAULT_TIME_BUDGET_SECONDS
    return RunBudget(sessions, messages, float(seconds), collect.max_tokens_per_run)


def collect_on_quiet(config: Config) -> bool:
    """Whether the service collects once changed sessions are quiet (default: heuristic only)."""
    configured = config.service.collect_on_quiet
    return config.collect.extractor == "heuristic" if configured is None else configured


class Deadline:
    """The time budget of one run, on a monotonic clock (injectable for tests)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._start = clock()
        self.reached = False

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return self._clock() - self._start

    def expired(self) -> bool:
        """Whether the budget is used up (never, for 0); remembered once it is."""
        if self.seconds > 0 and not self.reached and self.elapsed() >= self.seconds:
            self.reached = True
        return self.reached


def ended_by(
    *,
    stopped: str | None,
    deadline_reached: bool,
    tokens_exhausted: bool,
    deferred_reasons: list[str],
) -> EndedBy:
    """Which budget ended the run, or what else did (``none``: nothing was left).

    ``deferred_reasons``: the selection reasons of the selectable sessions
    this run did not take (each says which budget deferred it).
    """
    if deadline_reached:
        return "time"
    if tokens_exhausted:
        return "tokens"
    if stopped is not None:
        return "stop" if stopped == "stop requested" else "extractor"
    if any("session budget reached" in reason for reason in deferred_reasons):
        return "sessions"
    if any("message budget reached" in reason for reason in deferred_reasons):
        return "messages"
    return "none"


class Drain(msgspec.Struct, frozen=True):
    """How the backlog goes at the last run's rate."""

    remaining: int
    per_run: int
    runs: int | None  # None: this rate never drains it (the run took nothing)
    until: datetime | None  # when the last of those scheduled runs is due

    def as_json(self) -> dict[str, int | str | None]:
        """The estimate as the report and ``status`` show it."""
        return {
            "remaining": self.remaining,
            "per_run": self.per_run,
            "runs": self.runs,
            "until": self.until.isoformat() if self.until else None,
        }


def drain_estimate(
    remaining: int, per_run: int, trigger: CronTrigger | None, now: datetime
) -> Drain:
    """Runs needed for ``remaining`` sessions at ``per_run`` a run, and when the last is due.

    The runs counted are the collect schedule's (on-quiet collects only make
    it sooner); ``trigger`` None leaves the date out.
    """
    runs = drain_runs(remaining, per_run)
    until = None if not runs or trigger is None else nth_fire_time(trigger, now, runs)
    return Drain(max(remaining, 0), per_run, runs, until)


def drain_runs(remaining: int, per_run: int) -> int | None:
    """Runs needed for ``remaining`` sessions at ``per_run`` a run: 0 when none is left,
    None when the rate never drains it (the run took nothing)."""
    if remaining <= 0:
        return 0
    if per_run <= 0:
        return None
    return math.ceil(remaining / per_run)


def nth_fire_time(trigger: CronTrigger, now: datetime, count: int) -> datetime | None:
    """The ``count``-th fire time at or after ``now`` (None past the trigger's last one).

    A schedule in a fixed-offset zone repeats with a period (``_period``): its
    fire times in one period, shifted by whole periods, are all of them. So
    only the first period's fire times are asked of the trigger (at most
    ``count``), not ``count`` of them: a backlog of 10,000 sessions at 3 a run
    on a monthly schedule asks 12, not 3,334.
    """
    first: datetime | None = trigger.get_next_fire_time(None, now)
    if first is None:
        return None
    period = _period(trigger)
    end = None if period is None else _shifted(first, period, 1)
    fires = [first]
    while len(fires) < count:
        moment = trigger.get_next_fire_time(fires[-1], fires[-1] + timedelta(seconds=1))
        if moment is None:
            return None
        if end is not None and moment >= end:
            break
        fires.append(moment)
    if len(fires) >= count or period is None:
        return fires[count - 1]
    whole, index = divmod(count - 1, len(fires))
    return _shifted(fires[index], period, whole)


#: Fields whose default value (every value) makes a schedule repeat each day or week.
_DAILY_FIELDS = ("year", "month", "day", "week", "day_of_week")
_WEEKLY_FIELDS = ("year", "month", "day", "week")


def _period(trigger: CronTrigger) -> timedelta | int | None:
    """How often ``trigger``'s fire times repeat: a day or a week (a ``timedelta``), a year
    (an ``int``: years) when its dates are the same each year, else 400 years (the
    Gregorian calendar's cycle: dates, weekdays and ISO weeks all repeat), or None when
    it cannot be said (a zone with daylight saving, jitter, an end or a year)."""
    if not isinstance(trigger.timezone, timezone) or trigger.jitter or trigger.end_date:
        return None
    every = {field.name for field in trigger.fields if str(field) == "*"}
    if every.issuperset(_DAILY_FIELDS):
        return timedelta(days=1)
    if every.issuperset(_WEEKLY_FIELDS):
        return timedelta(days=7)
    if every.issuperset(_YEARLY_FIELDS) and _in_every_month(_field(trigger, "day")):
        return 1
    return _GREGORIAN_YEARS if "year" in every else None


#: Fields whose default value, with days of the month every month has, repeat each year.
_YEARLY_FIELDS = ("year", "week", "day_of_week")
#: Days every month has.
_SHORTEST_MONTH = 28
_DAY_TOKEN = re.compile(r"(\d+)(?:-(\d+))?(?:/\d+)?")


def _field(trigger: CronTrigger, name: str) -> str:
    return next(str(field) for field in trigger.fields if field.name == name)


def _in_every_month(days: str) -> bool:
    """Whether a day-of-month field names only days every month has (``1``, ``1-7``,
    ``5,20``): then the same dates come back every year, leap or not."""
    for token in days.split(","):
        match = _DAY_TOKEN.fullmatch(token)
        if match is None or int(match[2] or match[1]) > _SHORTEST_MONTH:
            return False
    return True


#: The years after which the Gregorian calendar repeats exactly.
_GREGORIAN_YEARS = 400


def _shifted(moment: datetime, period: timedelta | int, times: int) -> datetime | None:
    """``moment`` plus ``times`` periods (an ``int`` period counts years); None past year
    9999, as the trigger itself ends there."""
    try:
        if isinstance(period, int):
            return moment.replace(year=moment.year + period * times)
        return moment + period * times
    except (ValueError, OverflowError):
        return None


def run_fields(
    result: CollectResult,
    *,
    budget: RunBudget,
    deadline: Deadline,
    trigger: CronTrigger | None,
    now: datetime,
) -> dict[str, Any]:
    """The report's ``budget`` (used, limits, what ended the run) and ``drain`` sections."""
    decisions = result.selection.decisions if result.selection else ()
    selectable = sum(1 for d in decisions if d.status in SELECTABLE)
    deferred = [d.reason for d in result.deferred()]
    tokens_exhausted = budget.tokens > 0 and result.tokens >= budget.tokens
    ended = ended_by(
        stopped=result.stopped,
        deadline_reached=deadline.reached,
        tokens_exhausted=tokens_exhausted,
        deferred_reasons=deferred,
    )
    remaining = max(0, selectable - len(result.resolved))
    drain = drain_estimate(remaining, len(result.resolved), trigger, now)
    return {
        "budget": {
            "sessions": len(set(result.taken)),
            "max": budget.sessions,
            "ended_by": ended,
            "elapsed_seconds": round(deadline.elapsed(), 1),
            **budget.as_json(),
        },
        "drain": drain.as_json(),
    }


def budget_summary(document: Mapping[str, Any]) -> dict[str, object]:
    """What a run's record keeps of its budget, for ``status``: sessions taken, sessions
    resolved (the rate), and what ended the run."""
    budget, drain = document.get("budget", {}), document.get("drain", {})
    return {
        "sessions": budget.get("sessions"),
        "resolved": drain.get("per_run"),
        "ended_by": budget.get("ended_by"),
    }


#: What each ``ended_by`` value says in the text report and in ``status``.
ENDED_BY_WORDS: dict[str, str] = {
    "sessions": "the session budget",
    "messages": "the message budget",
    "time": "the time budget",
    "tokens": "the token cap",
    "stop": "a stop request",
    "extractor": "the extractor (unavailable)",
    "none": "nothing left to take",
}


def ended_by_words(value: object) -> str:
    """``ended_by`` in words."""
    return ENDED_BY_WORDS.get(str(value), str(value))


def drain_words(drain: Mapping[str, Any]) -> str:
    """The drain estimate in words (``Backlog drains ...``)."""
    remaining, runs = drain.get("remaining", 0), drain.get("runs")
    if not remaining:
        return "nothing left: every eligible session is collected"
    if runs is None:
        return f"{remaining} session(s) left; this run collected none, so no estimate"
    until = f" (the last due {drain['until'][:16]})" if drain.get("until") else ""
    return (
        f"{remaining} session(s) left: about {runs} more scheduled run(s) at "
        f"{drain.get('per_run')} a run{until}"
    )


def lower_priority(niceness: int = COLLECT_NICENESS) -> int:
    """Run the calling thread at ``niceness`` at least (never raised back); the value now."""
    current = os.nice(0)
    if current < niceness:
        current = os.nice(niceness - current)
    return current
