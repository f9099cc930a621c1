"""``dreamd run``: the scheduler, the transcript watcher and the main loop, until a signal.

Threads and who owns what:

- the **main thread** handles signals, tells systemd what the service does
  (``STATUS=``) and pets its watchdog while jobs make progress
  (``dreamd.service.heartbeat``), notices a resume from sleep, reports
  settled file events, and submits work; it never reads transcripts or memory;
- the **job thread** (APScheduler's pool of one) runs everything that touches
  the catalog and the stores — collect, dream, reconcile scans — one at a
  time, in the order submitted; across processes the pipeline lock keeps a
  hand-started ``dreamd collect``/``dream`` and the service apart (the
  service waits for it, a hand run is refused);
- the **observer thread** (watchdog) only marks paths dirty.

A scheduled run is skipped when a run of its job already started since the
fire time it was due for, so a catch-up, APScheduler's own misfire handling
after a sleep, and a run by hand never add up to two runs. SIGTERM/SIGINT stop
the loop; the running collect stops after its current window (checkpointed),
queued work is dropped, and the process exits 0.
"""

from __future__ import annotations

import ctypes
import gc
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Literal

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from dreamd.catalog import Catalog
from dreamd.collect.budget import collect_on_quiet
from dreamd.config import Settings
from dreamd.errors import LockHeld
from dreamd.jobs import (
    JobContext,
    collect_request,
    dream_request,
    new_run_id,
    run_collect,
    run_dream,
)
from dreamd.lock import ProcessLock
from dreamd.logs import bind_context, get_logger, unbind_context
from dreamd.progress import counter
from dreamd.runrecord import close_interrupted
from dreamd.schedule import is_missed, local_timezone, previous_fire, resumed
from dreamd.service.heartbeat import Heartbeat, SystemdReporter, idle_status, stall_limit
from dreamd.service.notify import Notifier, watchdog_interval
from dreamd.service.watcher import DirtyPaths, TranscriptWatcher
from dreamd.statedb import StateDB

if TYPE_CHECKING:
    from dreamd.collect.collector import CollectRequest

__all__ = ["JOBS", "Service", "ServiceTiming", "local_timezone"]

log = get_logger("dreamd.service")

Job = Literal["collect", "dream"]
#: The scheduled jobs, in the order a catch-up runs them (collect feeds the dream).
JOBS: tuple[Job, ...] = ("collect", "dream")


@dataclass(frozen=True, slots=True)
class ServiceTiming:
    """The main loop's clocks (seconds)."""

    tick: float = 1.0  # how often the main loop wakes
    debounce: float = 2.0  # a path is reported once quiet this long
    reconcile: float = 1800.0  # a full scan this often, whatever the watcher says
    lock_wait: float = 3600.0  # how long a job waits for a hand-started one


class Service:
    """One running service; ``run()`` returns the exit code."""

    def __init__(
        self,
        settings: Settings,
        state: StateDB,
        *,
        env: Mapping[str, str],
        home: Path,
        timing: ServiceTiming = ServiceTiming(),
        timezone: tzinfo | None = None,
        wall_clock: Callable[[], float] = time.time,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        job_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.wall_clock = wall_clock  # read beside the monotonic clock to notice a sleep
        self.clock = clock  # "now" for schedules, catch-up and each job's request

        self.state = state
        self.env = env
        self.home = home
        self.timing = timing
        self.timezone = timezone or local_timezone()
        self.stop_requested = threading.Event()
        self.notifier = Notifier.from_env(env)
        self.heartbeat = Heartbeat()  # the running job's progress, for systemd
        self.catalog = Catalog(state, settings.source_roots, settings.readers, share_strings=True)
        self.context = JobContext(
            settings,
            state,
            env,
            home,
            catalog=self.catalog,
            lock_wait=timing.lock_wait,
            cancelled=self.stop_requested.is_set,
            monotonic=job_clock,
        )
        self.dirty = DirtyPaths(debounce=timing.debounce)
        self.watcher: TranscriptWatcher | None = None
        service = settings.config.service
        jitter = service.jitter_seconds
        self.triggers: dict[Job, CronTrigger] = {
            "collect": settings.trigger("collect", self.timezone),
            "dream": settings.trigger("dream", self.timezone),
        }
        self._jittered: dict[Job, CronTrigger] = {
            "collect": settings.trigger("collect", self.timezone, jitter),
            "dream": settings.trigger("dream", self.timezone, jitter),
        }
        self.scheduler = BackgroundScheduler(
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=self.timezone,
        )
        self._changed_at: float | None = None  # last settled change not yet collected
        self._submitted = 0  # submissions so far: each gets its own job id

    # ------------------------------------------------------------------ lifecycle

    def run(self) -> int:
        """Start, loop until a signal, stop; 0 on a clean stop."""
        with ProcessLock(self.settings.data_dir, "service"):
            self._install_signal_handlers()
            run_id = new_run_id()
            started = datetime.now(UTC)
            installed_since = self.state.earliest_run_start()
            close_interrupted(self.state, started)  # runs a killed process left "running"
            self.state.start_run(run_id, "service", "run", started)
            try:
                self._start(installed_since)
                self._loop()
            finally:
                self._stop()
                self.state.finish_run(
                    run_id, outcome="stopped", mode="run", summary={}, now=datetime.now(UTC)
                )
                log.info("service.stopped")
        return 0

    def _install_signal_handlers(self) -> None:
        def request_stop(number: int, _frame: FrameType | None) -> None:
            log.info("service.stopping", signal=signal.Signals(number).name)
            self.stop_requested.set()

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)

    def _start(self, installed_since: datetime | None) -> None:
        service = self.settings.config.service
        if service.watch:
            self.watcher = TranscriptWatcher(
                self.settings.source_roots, self.dirty, self.settings.data_dir
            )
            self.watcher.start()
            self.catalog.unchanged = self.watcher.unchanged_tools
        for job in JOBS:
            self.scheduler.add_job(
                self._scheduled, self._jittered[job], args=(job,), id=job, name=job
            )
        self.scheduler.start()
        # Start-up work runs on the job thread, in order: reconcile (then READY), catch-up.
        self._submit(self._reconcile, "reconcile", "start-up")
        now = self.clock()
        for job in JOBS:
            due = previous_fire(self.triggers[job], now.astimezone(self.timezone))
            last = self.state.runs(job, limit=1)
            if is_missed(due, last[0].started_at if last else None, installed_since):
                log.info("scheduler.catch_up", job=job, due=due.isoformat() if due else None)
                self._submit(self._scheduled, f"{job}-catch-up", job)
        log.info(
            "service.started",
            next_runs={job.id: _iso(job.next_run_time) for job in self.scheduler.get_jobs()},
            watch=service.watch,
        )

    def _loop(self) -> None:
        limit = stall_limit(self.settings.config)
        reporter = SystemdReporter(
            self.notifier, self.heartbeat, interval=watchdog_interval(self.env), limit=limit
        )
        last_reconcile = time.monotonic()
        wall, mono = self.wall_clock(), time.monotonic()
        while not self.stop_requested.wait(self.timing.tick):
            now_wall, now_mono = self.wall_clock(), time.monotonic()
            if resumed(now_wall - wall, now_mono - mono):
                slept = round((now_wall - wall) - (now_mono - mono))
                log.info("service.resumed", slept_seconds=slept)
                self.scheduler.wakeup()  # its sleep did not count the suspended time
                self._submit(self._reconcile, "reconcile", "resume")
                last_reconcile = now_mono
            wall, mono = now_wall, now_mono
            reporter.tick(now_mono, self._idle_status)
            if now_mono - last_reconcile >= self.timing.reconcile:
                self._submit(self._reconcile, "reconcile", "periodic")
                last_reconcile = now_mono
            self._report_changes(now_mono)

    def _idle_status(self) -> str:
        """``"idle; next collect 02:30, dream 03:30"``, from the scheduler's next fire times."""
        jobs = {job.id: job.next_run_time for job in self.scheduler.get_jobs() if job.id in JOBS}
        return idle_status(jobs, datetime.now(self.timezone))

    def _stop(self) -> None:
        self.stop_requested.set()
        self.notifier.stopping()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=True)  # the running job checkpoints and returns
        if self.watcher is not None:
            self.watcher.stop()
        self.notifier.close()

    # ------------------------------------------------------------------ main-loop work

    def _report_changes(self, now: float) -> None:
        for path, tools in self.dirty.settled(now):
            log.info("watch.changed", path=path, tools=list(tools))
            self._changed_at = now
        guard = self.settings.config.collect.live_guard_minutes * 60
        quiet_since = self._changed_at
        if (
            collect_on_quiet(self.settings.config)
            and quiet_since is not None
            and self.dirty.pending() == 0
            and now - quiet_since >= guard
        ):
            self._changed_at = None
            self._submit(self._run_collect, "collect-on-quiet", "quiet")

    def _submit(self, function: Callable[..., None], name: str, *args: object) -> None:
        """Run ``function`` on the job thread once it is free; once, if ``name`` is already waiting.

        Every submission gets its own job id: APScheduler drops a job whose id is
        still running (``max_instances``), so reusing the id of a reconcile that is
        just finishing would lose the next one.
        """
        if any(job.name == name for job in self.scheduler.get_jobs()):
            return  # the same work is already waiting for the job thread
        self._submitted += 1
        self.scheduler.add_job(
            function,
            args=args,
            id=f"{name}-{self._submitted}",
            name=name,
            next_run_time=datetime.now(self.timezone),
        )

    # ------------------------------------------------------------------ job thread

    def _scheduled(self, job: Job) -> None:
        """A scheduled (or caught-up) run, unless a run of ``job`` started since it was due."""
        if self.stop_requested.is_set():
            return
        due = previous_fire(self.triggers[job], self.clock().astimezone(self.timezone))
        last = self.state.runs(job, limit=1)
        if due is not None and last and last[0].started_at >= due:
            log.info("scheduler.skipped", job=job, reason="already ran", run_id=last[0].run_id)
            return
        if job == "collect":
            self._run_collect("schedule")
        else:
            self._run_dream()

    def _run_collect(self, reason: str) -> None:
        if self.stop_requested.is_set():
            return
        request = collect_request(
            self.settings,
            self.env,
            now=self.clock(),
            stop=self.stop_requested.is_set,
            progress=self.heartbeat,
        )
        self._guarded("collect", reason, request.run_id, lambda: self._collect(request))

    def _collect(self, request: CollectRequest) -> None:
        result, document = run_collect(self.context, request)
        log.info(
            "job.collect.finished",
            planted=document.get("planted"),
            windows=result.windows,
            stopped=result.stopped,
        )

    def _run_dream(self) -> None:
        request = dream_request(
            self.settings, self.env, now=self.clock(), scheduled=True, progress=self.heartbeat
        )

        def dream() -> None:
            outcome = run_dream(self.context, request)
            log.info(
                "job.dream.finished",
                exit_code=outcome.exit_code,
                **outcome.report.totals(),
            )

        self._guarded("dream", "schedule", request.run_id, dream)

    def _guarded(self, job: str, reason: str, run_id: str, work: Callable[[], None]) -> None:
        """Run one job with its ``run_id`` on every log line; a failure is logged, not raised."""
        bind_context(run_id=run_id)
        log.info("job.starting", job=job, reason=reason)
        self.heartbeat.begin(job, "collecting" if job == "collect" else "dreaming")
        try:
            work()
        except LockHeld as error:
            log.warning("job.skipped", job=job, reason=str(error))
        except Exception:
            log.exception("job.failed", job=job)
        finally:
            self.heartbeat.end()
            unbind_context("run_id")
            self.state.close()  # its page cache too: the next job opens it again
            release_memory()

    def _reconcile(self, reason: str) -> None:
        """A full scan: events are not replayed after an overflow or a sleep."""
        if self.stop_requested.is_set():
            return
        self.dirty.take_tools()  # a full scan covers whatever they marked
        unchanged, self.catalog.unchanged = self.catalog.unchanged, tuple
        self.heartbeat.begin("reconcile", "reading sessions")
        try:
            result = self.catalog.scan(progress=counter(self.heartbeat, "reading sessions"))
            log.info(
                "service.reconciled",
                reason=reason,
                sessions=len(result.sessions),
                read=result.read,
            )
        except Exception:
            log.exception("service.reconcile_failed", reason=reason)
        finally:
            self.heartbeat.end()
            self.catalog.unchanged = unchanged
            self.state.close()
            release_memory()
            if reason == "start-up":  # start-up work done: systemd may now count us as up
                self.notifier.ready()  # the main loop keeps STATUS= current


def release_memory() -> None:
    """Hand memory freed by a scan or a job back to the system (glibc keeps it otherwise).

    An idle service should be as small as its imports: a scan reads every changed
    transcript, and the allocator would keep that peak for the days until the next job.
    """
    gc.collect()
    try:
        libc = ctypes.CDLL(None)  # the symbols the process has loaded: libc's among them
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc (macOS): its allocator returns memory on its own


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
