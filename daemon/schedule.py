"""When the jobs run: cron schedules, missed runs and resume detection, as pure functions.

- A schedule is a crontab expression (minute hour day month weekday) or the
  six-field form with leading seconds. Weekday numbers mean what crontab
  means (0 and 7 are Sunday); APScheduler 3 counts from Monday, so numbers
  are turned into names before they reach it.
- A run is *missed* when the schedule's latest fire time has passed while the
  service was installed (a run record older than that fire time exists) and
  no run of the job started since. A missed run is made up once, however many
  fire times were missed: dreamd's own run records decide, not a job store.
- The scheduler thread sleeps on a monotonic clock; a wall clock that moved
  much further than the monotonic one during a tick means the machine slept.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

__all__ = [
    "KeptFires",
    "crontab_weekdays",
    "decode_fires",
    "encode_fires",
    "is_missed",
    "local_timezone",
    "parse_schedule",
    "previous_fire",
    "resumed",
    "schedule_key",
]

_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WEEKDAY_TOKEN = re.compile(r"^(?P<start>\*|\d+)(?:-(?P<end>\d+))?(?:/(?P<step>\d+))?$")
#: How far back ``previous_fire`` looks, widening until it finds a fire time.
_LOOKBACK = (timedelta(minutes=2), timedelta(hours=2), timedelta(days=2), timedelta(days=400))


def local_timezone() -> tzinfo:
    """The machine's local time zone (schedules are local time)."""
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def _day(number: str) -> str:
    value = int(number)
    if value > 7:
        raise ValueError(f"weekday {value} is out of range (0-7, 0 and 7 are Sunday)")
    return _DAY_NAMES[value]


def crontab_weekdays(field: str) -> str:
    """A crontab weekday field (``0``/``7`` = Sunday) in APScheduler's terms (names).

    ``1-5`` → ``mon-fri``; a range starting on Sunday is split, since Sunday is
    the last day of APScheduler's week (``0-2`` → ``sun,mon-tue``). Names pass.
    """
    parts: list[str] = []
    for token in field.lower().split(","):
        match = _WEEKDAY_TOKEN.match(token)
        if match is None:
            parts.append(token)  # names, or an error APScheduler will name
            continue
        start, end, step = match.group("start"), match.group("end"), match.group("step")
        suffix = f"/{step}" if step else ""
        if start == "*":
            parts.append(f"*{suffix}")
        elif end is None:
            parts.append(f"{_day(start)}{suffix}" if not step else f"{_day(start)}-sun{suffix}")
        elif int(start) == 0 and int(end) > 0 and not step:
            parts.append("sun")
            if int(end) >= 1:
                parts.append(f"mon-{_day(end)}" if int(end) < 7 else "mon-sat")
        else:
            parts.append(f"{_day(start)}-{_day(end)}{suffix}")
    return ",".join(dict.fromkeys(parts))


def parse_schedule(expression: str, timezone: tzinfo, jitter: int | None = None) -> CronTrigger:
    """A cron trigger from five fields, or six with leading seconds; raises ``ValueError``."""
    fields = expression.split()
    if len(fields) == 5:
        fields = ["0", *fields]
    if len(fields) != 6:
        raise ValueError(
            f"expected 5 cron fields (minute hour day month weekday) or 6 with leading "
            f"seconds, got {len(fields)}"
        )
    from apscheduler.triggers.cron import CronTrigger  # loaded by what computes fire times

    second, minute, hour, day, month, weekday = fields
    return CronTrigger(
        second=second,
        minute=minute,
        hour=hour,
        day=day,
        month=month,
        day_of_week=crontab_weekdays(weekday),
        timezone=timezone,
        jitter=jitter or None,
    )


def previous_fire(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The schedule's latest fire time at or before ``now`` (None if none within a year)."""
    for lookback in _LOOKBACK:
        latest: datetime | None = None
        moment: datetime | None = trigger.get_next_fire_time(None, now - lookback)
        while moment is not None and moment <= now:
            latest = moment
            moment = trigger.get_next_fire_time(moment, moment + timedelta(microseconds=1))
        if latest is not None:
            return latest
    return None


def is_missed(
    due: datetime | None, last_started: datetime | None, installed_since: datetime | None
) -> bool:
    """Whether the run due at ``due`` never happened while the service was installed.

    ``last_started``: the latest run of this job (by hand or scheduled);
    ``installed_since``: the earliest record dreamd has of running at all.
    A fresh install has missed nothing.
    """
    if due is None or installed_since is None or installed_since > due:
        return False
    return last_started is None or last_started < due


def resumed(wall_elapsed: float, monotonic_elapsed: float, slack: float = 60.0) -> bool:
    """Whether the machine slept during a tick: the wall clock ran ahead of the monotonic one."""
    return wall_elapsed - monotonic_elapsed > slack


# --- fire times kept between commands ------------------------------------------------------

#: Bumped whenever what is kept changes meaning: every kept fire time is then computed again.
FIRES_VERSION = 1


def schedule_key(expression: str, zone: tzinfo) -> str:
    """What a kept fire time was computed for: the expression in the zone (a zone whose
    offset changed, at a daylight-saving switch, is another zone)."""
    return f"{FIRES_VERSION}|{expression}|{zone!r}"


class KeptFires(msgspec.Struct, frozen=True, array_like=True):
    """A schedule's first fire time at or after ``counted_at``, and its ``count``-th, as
    computed then (POSIX seconds; None: there is no such fire time).

    ``dreamd status`` shows the next run of each job and when the backlog's last run is
    due; asking the trigger costs loading the scheduler, more than the rest of ``status``.
    Both answers hold from ``counted_at`` until ``next`` itself: no fire time lies between,
    so the fire times at or after any moment of that span are the very ones counted
    (``holds_at``).
    """

    schedule: str
    counted_at: float
    next: float | None
    count: int = 0
    nth: float | None = None

    def holds_at(self, key: str, now: datetime, count: int) -> bool:
        """Whether this answers ``count`` for the schedule ``key`` at ``now``."""
        moment = now.timestamp()
        return (
            self.schedule == key
            and self.count == count
            and self.counted_at <= moment
            and (self.next is None or moment <= self.next)
        )

    def times(self, zone: tzinfo) -> tuple[datetime | None, datetime | None]:
        """(the next fire time, the ``count``-th) in ``zone``."""
        return _moment(self.next, zone), _moment(self.nth, zone)


def _moment(value: float | None, zone: tzinfo) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, zone)


_encode_fires = msgspec.msgpack.Encoder().encode
_decode_fires = msgspec.msgpack.Decoder(KeptFires).decode


def encode_fires(kept: KeptFires) -> bytes:
    """The fire times as kept in the state database."""
    return _encode_fires(kept)


def decode_fires(value: bytes) -> KeptFires | None:
    """Kept fire times; None when they do not decode (damaged, or kept by another dreamd)."""
    try:
        return _decode_fires(value)
    except msgspec.MsgspecError:
        return None
