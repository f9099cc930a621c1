"""What the service tells systemd while it runs: a status line, and whether it still moves.

The job thread reports progress into a :class:`Heartbeat` (it is the jobs'
``JobProgress``); the main loop reads it once a tick and decides, with the
pure functions below, what ``STATUS=`` says and whether ``WATCHDOG=1`` may be
sent.

Rules:

- idle: ``"idle; next collect 02:30, dream 03:30"`` (soonest first);
- busy: the job's last progress, ``"collecting 2/3 sessions"`` (``describe``);
- stalled: a job that reported no progress for longer than the stall limit
  (``stall_limit``: ``service.stall_seconds``, else 900 s or the extractor's
  longest call plus a minute, whichever is longer). The watchdog pings stop,
  so systemd (``WatchdogSec=``) kills and restarts the stuck service; the
  status line says so. Progress again: the pings resume.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from dreamd.config import Config
from dreamd.logs import get_logger
from dreamd.progress import describe
from dreamd.service.notify import Notifier

__all__ = [
    "DEFAULT_STALL_SECONDS",
    "Beat",
    "Heartbeat",
    "SystemdReporter",
    "busy_status",
    "idle_status",
    "stall_limit",
    "stalled",
    "when",
]

_log = get_logger("dreamd.service")

#: A job that reports nothing for this long (15 minutes) is taken as stuck, by default.
DEFAULT_STALL_SECONDS = 900.0
#: Added to the longest call the extractor may make before it counts as stuck.
_CALL_SLACK = 60.0


@dataclass(frozen=True, slots=True)
class Beat:
    """The running job: its name, its last progress and when that came (monotonic s)."""

    job: str
    status: str
    since: float


class Heartbeat:
    """The running job's last progress; written by the job thread, read by the main loop."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._beat: Beat | None = None

    def begin(self, job: str, status: str) -> None:
        """A job starts: it counts as progress."""
        with self._lock:
            self._beat = Beat(job, status, self._clock())

    def __call__(self, stage: str, done: int, total: int) -> None:
        """Progress of the running job (``dreamd.progress.JobProgress``)."""
        with self._lock:
            job = self._beat.job if self._beat is not None else "job"
            self._beat = Beat(job, describe(stage, done, total), self._clock())

    def end(self) -> None:
        """The job is over: the service is idle."""
        with self._lock:
            self._beat = None

    def current(self) -> Beat | None:
        """The running job's last beat; ``None`` when idle."""
        with self._lock:
            return self._beat


def stall_limit(config: Config) -> float:
    """Seconds without progress after which a job counts as stuck (see the module rules)."""
    configured = config.service.stall_seconds
    if configured is not None:
        return float(configured)
    tables = config.extractors
    longest = {
        "heuristic": 0.0,
        "openai": tables.openai.timeout_seconds * (tables.openai.max_retries + 1),
        "anthropic": tables.anthropic.timeout_seconds * (tables.anthropic.max_retries + 1),
        "command": tables.command.timeout_seconds,
    }[config.collect.extractor]
    return max(DEFAULT_STALL_SECONDS, longest + _CALL_SLACK)


def stalled(beat: Beat | None, now: float, limit: float) -> bool:
    """Whether the running job has made no progress for longer than ``limit`` seconds."""
    return beat is not None and now - beat.since > limit


def busy_status(beat: Beat, stuck: bool, limit: float) -> str:
    """The status line of a running job; a stuck one says the pings stopped."""
    if not stuck:
        return beat.status
    return f"stuck: {beat.status}; no progress for over {limit:g} s, watchdog pings stopped"


def when(moment: datetime, now: datetime) -> str:
    """A fire time for a status line: ``02:30`` today, ``Mon 02:30`` this week, else the date."""
    local = moment.astimezone(now.tzinfo)
    if local.date() == now.date():
        return local.strftime("%H:%M")
    if local - now < timedelta(days=6):
        return local.strftime("%a %H:%M")
    return local.strftime("%Y-%m-%d %H:%M")


def idle_status(next_runs: Mapping[str, datetime | None], now: datetime) -> str:
    """``"idle; next collect 02:30, dream 03:30"``, the soonest first; no runs: ``"idle"``."""
    planned = sorted((moment, job) for job, moment in next_runs.items() if moment is not None)
    if not planned:
        return "idle"
    return "idle; next " + ", ".join(f"{job} {when(moment, now)}" for moment, job in planned)


class SystemdReporter:
    """Once a tick: ``STATUS=`` when the line changed, ``WATCHDOG=1`` each interval unless stuck.

    ``interval`` is ``None`` when systemd asked for no watchdog; the status line is sent all
    the same (``Notifier`` makes both no-ops without ``NOTIFY_SOCKET``).
    """

    def __init__(
        self, notifier: Notifier, heartbeat: Heartbeat, *, interval: float | None, limit: float
    ) -> None:
        self.notifier = notifier
        self.heartbeat = heartbeat
        self.interval = interval
        self.limit = limit
        self._status = ""
        self._last_ping: float | None = None
        self._stuck: Beat | None = None  # the beat a job stalled on, until it moves or ends

    def tick(self, now: float, idle: Callable[[], str]) -> None:
        """Report the state at monotonic time ``now``; ``idle`` gives the idle status line."""
        beat = self.heartbeat.current()
        stuck = stalled(beat, now, self.limit)
        self._note_stall(beat, stuck)
        status = idle() if beat is None else busy_status(beat, stuck, self.limit)
        if status != self._status:
            self.notifier.status(status)
            self._status = status
        if stuck or self.interval is None:
            return
        if self._last_ping is None or now - self._last_ping >= self.interval:
            self.notifier.watchdog()
            self._last_ping = now

    def _note_stall(self, beat: Beat | None, stuck: bool) -> None:
        """Log a stall once (``service.stalled``) and its end (``service.progressing``)."""
        if stuck and self._stuck is None and beat is not None:
            _log.warning(
                "service.stalled",
                job=beat.job,
                status=beat.status,
                limit_seconds=self.limit,
                watchdog=self.interval is not None,
            )
            self._stuck = beat
        elif self._stuck is not None and not stuck:
            _log.info("service.progressing", job=self._stuck.job, ended=beat is None)
            self._stuck = None
