"""The collector as a job: stores, extractor and filter wired from the settings; lock; records.

Store names in plans are the configured ones (``collect.stores``, looked up
in ``dreamd.stores.registry``): a per-project store (the Claude Code memory
folder) is opened for each session's project, the others once for the run
and given every session's items.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, tzinfo
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from dreamd.catalog import Catalog
from dreamd.collect.budget import (
    Deadline,
    RunBudget,
    budget_summary,
    lower_priority,
    run_budget,
    run_fields,
)
from dreamd.collect.collector import CollectRequest, CollectResult, collect
from dreamd.collect.cursordoc import CursorStore
from dreamd.collect.extraction import ExtractionRun
from dreamd.collect.keyindex import StateKeyIndex
from dreamd.collect.plan import sweep_plans
from dreamd.collect.planting import STORE_FAILURES, Unavailable, reason_of
from dreamd.collect.report import report_json
from dreamd.config import Settings
from dreamd.lock import pipeline_lock
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.runrecord import RunRecord, recorded_run
from dreamd.statedb import StateDB
from dreamd.stores import MemoryItem, Store
from dreamd.stores.registry import StoreContext

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

    from dreamd.secrets import FilterResult

__all__ = ["collect_job"]

log = get_logger("dreamd.collect")


def collect_job(
    settings: Settings,
    state: StateDB,
    request: CollectRequest,
    *,
    env: Mapping[str, str],
    home: Path,
    catalog: Catalog | None = None,
    lock_wait: float = 0.0,
    cancelled: Callable[[], bool] = lambda: False,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[CollectResult, dict[str, Any]]:
    """One recorded collector pass under the pipeline lock; returns the result and its report.

    ``lock_wait`` is how long to wait for a running dream (the service waits, a hand run
    does not); ``catalog`` lets the service reuse its catalog and what its watcher knows.
    """
    # A missing API key or SDK is a configuration error, reported before anything runs.
    extraction = ExtractionRun.configured(
        settings.config,
        env,
        machine=request.machine,
        collected=request.now.date(),
        path=settings.config_path,
    )
    trigger = settings.trigger("collect", _local_zone())  # a bad schedule stops it here
    context = msgspec.structs.replace(
        settings.store_context(env, home), key_index=StateKeyIndex(state)
    )
    shared = _shared_stores(settings, context)
    catalog = catalog or Catalog(state, settings.source_roots, settings.readers)
    lower_priority()
    lock = pipeline_lock(settings.data_dir, "collect")
    lock.acquire(wait=lock_wait, cancelled=cancelled)
    limits = _limits(settings, request)
    deadline = Deadline(limits.seconds, clock)  # the time budget starts once the lock is held
    request = replace(request, stop=_either(request.stop, deadline.expired))
    mode = "dry-run" if request.dry_run else "apply"
    try:
        with (
            lock,
            recorded_run(
                state, request.run_id, "collect", mode, request.now, data_dir=settings.data_dir
            ) as record,
        ):
            stores_for = _stores_finder(settings, catalog, context, shared)
            result = _collect_pass(settings, state, request, catalog, stores_for, extraction)
            if deadline.reached and result.stopped == "stop requested":
                result.stopped = f"time budget of {limits.seconds:g} s reached"
            document = _report(request, result, limits, deadline, trigger)
            document["context_shortened"] = extraction.shortened()
            _keep(record, document)
            return result, document
    finally:
        for store in shared.values():
            _close(store)
        extraction.close()


def _limits(settings: Settings, request: CollectRequest) -> RunBudget:
    """The run's budgets, with the selection's as the request has them (--budget included)."""
    return msgspec.structs.replace(
        run_budget(settings.config),
        sessions=request.policy.budget_sessions,
        messages=request.policy.budget_messages,
    )


def _collect_pass(
    settings: Settings,
    state: StateDB,
    request: CollectRequest,
    catalog: Catalog,
    stores_for: Callable[[Conversation], dict[str, Store]],
    extraction: ExtractionRun,
) -> CollectResult:
    """Old plans swept, the extractor wired to the stores, one collector pass."""
    if not request.dry_run:
        _sweep_plans(settings.data_dir / "plans", state, request)
    extraction.wire(stores_for, settings.data_dir)
    result = collect(
        request,
        state=state,
        catalog=catalog,
        plans_dir=settings.data_dir / "plans",
        extract=extraction.window,
        extract_session=extraction.session,
        filter_item=_filter_item,
        stores_for=stores_for,
    )
    extraction.finish(result)
    return result


def _report(
    request: CollectRequest,
    result: CollectResult,
    limits: RunBudget,
    deadline: Deadline,
    trigger: CronTrigger,
) -> dict[str, Any]:
    """The run's report: what was collected, and what ended the run and when it drains."""
    document = report_json(
        result,
        run_id=request.run_id,
        now=request.now,
        budget=request.policy.budget_sessions,
        dry_run=request.dry_run,
    )
    document.update(
        run_fields(result, budget=limits, deadline=deadline, trigger=trigger, now=request.now)
    )
    return document


def _keep(record: RunRecord, document: dict[str, Any]) -> None:
    """The report kept with the run (on disk for ``dreamd log`` / ``show``) and its counts."""
    record.report = document
    record.outcome = "ok"
    record.summary = {k: document[k] for k in ("planted", "windows", "dropped_secrets")}
    record.summary.update(budget_summary(document))


def _sweep_plans(directory: Path, state: StateDB, request: CollectRequest) -> None:
    """Remove old plans no open window names (a crash after a checkpoint, ``remember``)."""
    cursor = CursorStore(state, request.machine).cursor
    open_plans = [s.intent.plan_id for s in cursor.sessions.values() if s.intent is not None]
    removed = sweep_plans(directory, open_plans, now=request.now.timestamp())
    if removed:
        log.info("collect.plans.swept", removed=removed)


def _either(first: Callable[[], bool], second: Callable[[], bool]) -> Callable[[], bool]:
    """A stop that is asked for when either one is (both are always asked)."""

    def stop() -> bool:
        asked = first()
        return second() or asked

    return stop


def _filter_item(item: MemoryItem) -> FilterResult:
    """``dreamd.secrets.filter_item``, whose patterns load with the first item to plant."""
    from dreamd.secrets import filter_item

    return filter_item(item)


def _local_zone() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def _stores_finder(
    settings: Settings, catalog: Catalog, context: StoreContext, shared: Mapping[str, Store]
) -> Callable[[Conversation], dict[str, Store]]:
    """The stores each session's items go to; per-project stores are located after the scan,
    when the session cache knows every project's transcript folder."""
    located: list[StoreContext] = []

    def stores_for(conversation: Conversation) -> dict[str, Store]:
        if not located:
            located.append(
                msgspec.structs.replace(context, claude_projects=_project_folders(catalog))
            )
        return _stores_for(settings, located[0], conversation.project, shared)

    return stores_for


def _shared_stores(settings: Settings, context: StoreContext) -> dict[str, Store]:
    """The listed stores that take every session's items, opened once for the run."""
    shared: dict[str, Store] = {}
    for spec, table in settings.listed_stores():
        if not spec.per_project:
            store = _opened(spec.name, partial(spec.adapter, table, context, create=True))
            if store is not None:
                shared[spec.name] = store
    return shared


def _opened(name: str, open_store: Callable[[], Store | None]) -> Store | None:
    """The store, or one that fails every call with the reason it could not be opened
    (issue 15 item 4: the windows that need it stay pending, everything else goes on)."""
    try:
        return open_store()
    except STORE_FAILURES as error:
        log.warning("collect.store.unavailable", store=name, reason=reason_of(error))
        return Unavailable(name, reason_of(error))


def _stores_for(
    settings: Settings, context: StoreContext, project: str | None, shared: Mapping[str, Store]
) -> dict[str, Store]:
    """Every listed store one session's items go to, in ``collect.stores`` order."""
    stores: dict[str, Store] = {}
    for spec, table in settings.listed_stores():
        store = (
            _opened(spec.name, partial(spec.adapter, table, context, project, create=True))
            if spec.per_project
            else None
        )
        store = shared.get(spec.name) if store is None else store
        if store is not None:
            stores[spec.name] = store
    return stores


def _close(store: Store) -> None:
    """Release what a store holds open (a SQL engine's connections), if it holds anything."""
    close = getattr(store, "close", None)
    if callable(close):
        close()


def _project_folders(catalog: Catalog) -> dict[str, Path]:
    """Project path → Claude Code transcript folder, from the sessions that recorded them
    (the catalog's cache as its scan left it: not loaded from the state DB again)."""
    folders: dict[str, Path] = {}
    for info in catalog.cached():  # once per session: a path is made once per project
        if info.tool == "claude-code" and info.project and info.project not in folders:
            folders[info.project] = Path(info.path).parent
    return folders
