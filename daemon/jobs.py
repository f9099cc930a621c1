"""The two jobs as the command line and the service both start them.

One place turns the settings into a collect or dream request and runs it
under the pipeline lock, so ``dreamd collect`` by hand and the service's
02:30 run are the same code: same selection, same stores, same records.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamd.catalog import Catalog
from dreamd.collect.policy import live_ids_from_env, selection_policy
from dreamd.config import Settings
from dreamd.dream.gardener import default_budget
from dreamd.dream.model import DreamRequest
from dreamd.dream.run import DreamOutcome, dream_job, undo_job
from dreamd.dream.stores import GatedStore, close_stores, gated_stores
from dreamd.lock import pipeline_lock
from dreamd.progress import NO_PROGRESS, JobProgress, counter
from dreamd.statedb import StateDB

if TYPE_CHECKING:  # the collector is imported by the collect jobs only: a dream never loads it
    from dreamd.collect.collector import CollectRequest, CollectResult

__all__ = [
    "JobContext",
    "collect_request",
    "dream_request",
    "live_ids_from_env",
    "new_run_id",
    "run_collect",
    "run_dream",
    "undo_dream",
    "waiting",
]


def new_run_id() -> str:
    """A short random id naming one job run in logs, records and reports."""
    return secrets.token_hex(6)


def collect_request(
    settings: Settings,
    env: Mapping[str, str],
    *,
    now: datetime,
    budget: int | None = None,
    live: frozenset[str] = frozenset(),
    dry_run: bool = False,
    stop: Callable[[], bool] = lambda: False,
    progress: JobProgress = NO_PROGRESS,
) -> CollectRequest:
    """A collector pass as configured, with the command line's or the service's overrides."""
    from dreamd.collect.collector import CollectRequest

    return CollectRequest(
        machine=settings.machine,
        now=now,
        run_id=new_run_id(),
        policy=selection_policy(settings, budget),
        window_messages=settings.config.collect.window_messages,
        live_ids=live_ids_from_env(env) | live,
        dry_run=dry_run,
        stop=stop,
        progress=progress,
    )


def dream_request(
    settings: Settings,
    env: Mapping[str, str],
    *,
    now: datetime,
    dry_run: bool = False,
    apply_pending: bool = False,
    roots: tuple[Path, ...] = (),
    scheduled: bool = False,
    progress: JobProgress = NO_PROGRESS,
) -> DreamRequest:
    """A dream run as configured (``mode = "propose"`` makes every run a dry run).

    ``scheduled``: the service started it; nobody is there to review, so a
    folder's first dream and any run over ``max_unattended_moves`` only propose.
    """
    configured = settings.config.dream
    mode = "dry-run" if dry_run or configured.mode == "propose" else "apply"
    return DreamRequest(
        mode="apply-pending" if apply_pending else mode,  # type: ignore[arg-type]
        now=now,
        budget=default_budget(env, configured.index_budget_bytes),
        only=tuple(path.absolute() for path in roots),
        extra_roots=tuple(Path(root).expanduser() for root in configured.roots),
        run_id=new_run_id(),
        scheduled=scheduled,
        max_unattended_moves=configured.max_unattended_moves,
        progress=progress,
    )


@dataclass(frozen=True, slots=True)
class JobContext:
    """Where and how a job runs: the same for every job a command or the service starts.

    ``lock_wait`` is how long to wait for a job holding the pipeline lock (the
    service waits, a hand run does not); ``cancelled`` stops that wait (the
    service shutting down); ``catalog`` lets the service reuse its catalog and
    what its watcher knows.
    """

    settings: Settings
    state: StateDB
    env: Mapping[str, str]
    home: Path
    catalog: Catalog | None = None
    lock_wait: float = 0.0
    cancelled: Callable[[], bool] = lambda: False
    #: The clock a collect's time budget runs on (seconds; a test's own clock in tests).
    monotonic: Callable[[], float] = time.monotonic


def run_collect(
    context: JobContext, request: CollectRequest
) -> tuple[CollectResult, dict[str, Any]]:
    """One collector pass under the pipeline lock (see ``collect_job``)."""
    from dreamd.collect.run import collect_job

    return collect_job(
        context.settings,
        context.state,
        request,
        env=context.env,
        home=context.home,
        catalog=context.catalog,
        lock_wait=context.lock_wait,
        cancelled=waiting(context.cancelled, request.progress),
        clock=context.monotonic,
    )


def waiting(cancelled: Callable[[], bool], progress: JobProgress) -> Callable[[], bool]:
    """``cancelled``, which also tells ``progress`` that the job waits for the pipeline lock.

    The lock asks it at every poll: a job waiting for a run started by hand is
    not stuck (the wait has its own limit, ``lock_wait``).
    """

    def asked() -> bool:
        progress("waiting for a run started by hand", 0, 0)
        return cancelled()

    return asked


def run_dream(
    context: JobContext,
    request: DreamRequest,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> DreamOutcome:
    """One dream run under the pipeline lock.

    Transcripts name the projects whose memory folders and repositories the
    dream checks; the scan first reads only the sessions that changed.
    """
    settings = context.settings
    scanned = progress or counter(request.progress, "reading sessions")
    catalog = context.catalog or Catalog(context.state, settings.source_roots, settings.readers)
    catalog.scan(progress=scanned)
    lock = pipeline_lock(settings.data_dir, "dream")
    lock.acquire(wait=context.lock_wait, cancelled=waiting(context.cancelled, request.progress))
    stores = _gated(context)
    try:
        with lock:
            return dream_job(
                request,
                state=context.state,
                state_dir=settings.data_dir,
                env=context.env,
                home=context.home,
                stores=stores,
            )
    finally:
        close_stores(stores)


def undo_dream(context: JobContext, run_id: str) -> list[str]:
    """Put back everything one dream run changed (see ``undo_job``)."""
    stores = _gated(context)
    try:
        return undo_job(
            run_id, state=context.state, state_dir=context.settings.data_dir, stores=stores
        )
    finally:
        close_stores(stores)


def _gated(context: JobContext) -> list[GatedStore]:
    """The configured stores the dream gates besides the memory folders."""
    settings = context.settings
    store_context = settings.store_context(context.env, context.home)
    return gated_stores(settings.listed_stores(), store_context)
