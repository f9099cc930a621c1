"""One collector pass (seed 002): select, read, window, extract, plan, plant, checkpoint, report.

The order of every window is the seed's safety contract:

1. the plan (items already secret-filtered, one keyed operation per store,
   made against what each store holds for the session, so a restated item
   updates its pending match instead of planting a twin) is saved and read back;
2. the intent is recorded in the cursor, which is saved and read back —
   the save refuses when another process changed the cursor meanwhile;
3. each operation is planted once (find by key, else write or update, then read back);
4. only when every write is confirmed is the window checkpointed.

A crash anywhere leaves either no intent (nothing was written) or an intent whose plan is on disk:
the next run reconciles it before anything else, so nothing is planted twice and no message is
lost. A session is completed only when a fresh read shows the same revision with every message
acknowledged.

A session the earlier collector recorded as processed (a legacy record) is taken over by a baseline
saved with its first observation: only messages after the recorded time stay pending; a record with
no usable time is held for legacy review before selection, never guessed (see ``cursor``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamd.catalog import Catalog
from dreamd.collect import plan as write_plans
from dreamd.collect.cursordoc import CursorStore
from dreamd.collect.cursorstate import (
    Cursor,
    Intent,
    Window,
    adopt_legacy_baseline,
    begin_window,
    checkpoint_window,
    complete_readable,
    complete_session,
    governed_by_legacy,
    legacy_boundary,
    legacy_review_reason,
    legacy_split,
    observe,
    pending_messages,
    plan_source,
    selection_view,
    split_windows,
    window_key,
)
from dreamd.collect.plan import WritePlan, make_plan, save_plan
from dreamd.collect.planted import PlantedItem, planted_item
from dreamd.collect.planting import StoresPending, one_plan, plant_plan, tolerant_held
from dreamd.collect.quarantine import PLAN_ERRORS, PlanQuarantined, held_sessions, quarantined
from dreamd.collect.reopen import resume_open_window
from dreamd.collect.signals import StopCollecting, WindowPending
from dreamd.collect.skipped import record_own_runs, record_trivial
from dreamd.fswrite import CrashPoint
from dreamd.gcpause import collector_paused, objects_frozen
from dreamd.logs import get_logger
from dreamd.progress import NO_PROGRESS, JobProgress, counter
from dreamd.readers import Conversation, Message
from dreamd.selection import SELECTABLE, Decision, Selection, SelectionPolicy, damage_note, select
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import QuarantinedPlan, StateDB
from dreamd.stores import MemoryItem, Store

__all__ = ["CollectRequest", "CollectResult", "collect"]

log = get_logger("dreamd.collect")

#: Items the extractor is less sure of than this are dropped and counted (noise is worse).
MIN_CONFIDENCE = 0.5

#: Working folders of dreamd's own headless extraction runs carry this in their name; the
#: transcripts those runs leave behind are never collected (issue 4, item 9).
OWN_RUN_MARKER = "dreamd-extract-"

#: Fault injection for the chaos test (``DREAMD_TEST_CRASH_AT``); inert in real use.
CRASH = CrashPoint()

#: Extracts the items of one window (the extractor pipeline, already wired to its session).
ExtractWindow = Callable[[Conversation, Window, Sequence[str]], Sequence[MemoryItem]]
#: Filters one item: the item to keep (or None) and how many credential-shaped values it dropped.
FilterItem = Callable[[MemoryItem], tuple[MemoryItem | None, int]]
#: Extracts the session-level items (seed 002 phase 3 step 3: events, once per session).
ExtractSession = Callable[[Conversation, Sequence[Window]], Sequence[MemoryItem]]
#: The stores a session's items go to, by store name.
StoreMap = Mapping[str, Store]
StoresFor = Callable[[Conversation], StoreMap]


@dataclass(frozen=True, slots=True)
class CollectRequest:
    """One collector pass as asked for."""

    machine: str
    now: datetime
    run_id: str
    policy: SelectionPolicy
    window_messages: int = 30
    live_ids: frozenset[str] = frozenset()
    dry_run: bool = False
    #: Asked between windows; True stops the pass cleanly (the service's SIGTERM): every
    #: finished window stays checkpointed, the session stays partial and resumes next time.
    stop: Callable[[], bool] = field(default=lambda: False, compare=False)
    progress: JobProgress = field(default=NO_PROGRESS, compare=False)


@dataclass
class CollectResult:
    """What the pass did, in the collection report's terms (seed 002 phase 5)."""

    selection: Selection | None = None
    windows: int = 0
    planted: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)  # pending items a later find updated
    would_plant: list[MemoryItem] = field(default_factory=list)
    dropped_secrets: int = 0
    dropped_low_confidence: int = 0
    resolved: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)
    skipped_trivial: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    legacy_baseline: list[str] = field(default_factory=list)  # legacy sessions taken over
    legacy_review: list[str] = field(default_factory=list)  # "tool:id: reason", never guessed
    handoff: int = 0
    taken: list[str] = field(default_factory=list)  # "tool:id" of every session this pass began
    tokens: int = 0
    tokens_by_session: dict[str, int] = field(default_factory=dict)  # "tool:id" -> tokens
    stopped: str | None = None  # why the pass ended early, if it did
    planted_items: list[PlantedItem] = field(default_factory=list)  # each confirmed write
    quarantined: list[QuarantinedPlan] = field(default_factory=list)  # plans set aside
    pending_stores: list[dict[str, str]] = field(default_factory=list)  # session, store, reason
    reconciled: list[str] = field(default_factory=list)  # stale plans closed, not reused

    def deferred(self) -> list[Decision]:
        """The selectable sessions this pass did not begin, in selection order: those the
        budget deferred and any selected one the pass never reached.

        Only selected sessions are ever begun, so only theirs are looked up by key
        (ten thousand deferred sessions are not named once each).
        """
        if self.selection is None:
            return []
        reached = set(self.taken)
        return [
            d
            for d in self.selection.decisions
            if d.status in SELECTABLE and (not d.selected or d.session.key not in reached)
        ]


@dataclass
class _Pass:
    """One collector pass: what it was asked, what it works with, and what it did so far.

    The pass's steps are its methods (session, window, plant, reconcile, complete); each reads
    its inputs from here instead of a long argument list, and records what it did in ``result``.
    """

    request: CollectRequest
    cursors: CursorStore
    catalog: Catalog
    plans_dir: Path
    extract: ExtractWindow
    filter_item: FilterItem
    extract_session: ExtractSession | None
    result: CollectResult = field(default_factory=CollectResult)
    position: tuple[int, int] = (0, 0)  # (session number, sessions selected)

    @property
    def dry_run(self) -> bool:
        return self.request.dry_run

    def stopping(self) -> bool:
        """Whether the pass was asked to stop (recorded once); between units: progress."""
        self.request.progress("collecting sessions", *self.position)
        if self.result.stopped is None and self.request.stop():
            self.result.stopped = "stop requested"
            log.info("collect.stopping", reason=self.result.stopped)
        return self.result.stopped is not None

    def save(self, cursor: Cursor) -> None:
        self.cursors.save(cursor, self.request.now)

    def quarantine(self, *args: Any, **where: Any) -> PlanQuarantined:
        """The signal that sets this window's plan aside (``quarantine.quarantined``)."""
        return quarantined(*args, run_id=self.request.run_id, now=self.request.now, **where)

    def source(self, conversation: Conversation) -> str:
        """The session's provenance tag, as its items carry it (seed 002 phase 4)."""
        return f"source:{conversation.tool}:{self.request.machine}:{conversation.session_id}"

    def clean(self, items: Iterable[MemoryItem], *, count_low: bool) -> list[MemoryItem]:
        """Items after the secret filter and the confidence floor (dropped ones counted)."""
        kept: list[MemoryItem] = []
        for item in items:
            clean, dropped = self.filter_item(item)
            self.result.dropped_secrets += dropped
            if clean is None:
                continue
            if clean.confidence < MIN_CONFIDENCE:
                self.result.dropped_low_confidence += count_low
                continue
            kept.append(clean)
        return kept


def collect(
    request: CollectRequest,
    *,
    state: StateDB,
    catalog: Catalog,
    plans_dir: Path,
    extract: ExtractWindow,
    filter_item: FilterItem,
    stores_for: StoresFor,
    extract_session: ExtractSession | None = None,
) -> CollectResult:
    """One collector pass over the sessions selection offers."""
    cursors = CursorStore(state, request.machine)
    run = _Pass(request, cursors, catalog, plans_dir, extract, filter_item, extract_session)
    result = run.result
    with ExitStack() as frozen:
        with collector_paused():  # 10,000 sessions' metadata and decisions: nothing cyclic
            selection = _scan_and_select(request, state, catalog, cursors, result)
            # ... which no collection need walk while the sessions are collected: frozen
            # before the collector runs again, so not even its first collection walks them.
            frozen.enter_context(objects_frozen())
        for number, decision in enumerate(selection.selected, start=1):
            run.position = (number, len(selection.selected))
            if run.stopping():
                break
            _take(run, decision.session, stores_for)
    return result


def _scan_and_select(
    request: CollectRequest,
    state: StateDB,
    catalog: Catalog,
    cursors: CursorStore,
    result: CollectResult,
) -> Selection:
    """The scan, dreamd's own runs and trivial sessions recorded, and the selection."""
    scan = catalog.scan(now=request.now, progress=counter(request.progress, "reading sessions"))
    own: list[SessionInfo] = []
    others: list[SessionInfo] = []
    for info in scan.sessions:
        (own if is_own_run(info.project) else others).append(info)
    if own and not request.dry_run:
        result.skipped_trivial += record_own_runs(own, cursors, request.now)
    selection = select(
        _held_for_review(others, cursors, result),
        held_sessions(selection_view(cursors.cursor), state.quarantined_plans(), others),
        now=request.now,
        live_ids=request.live_ids,
        policy=request.policy,
    )
    result.selection = selection
    if not request.dry_run:
        result.skipped_trivial += record_trivial(selection, cursors, request.now)
    return selection


def _take(run: _Pass, info: SessionInfo, stores_for: StoresFor) -> None:
    """Read one selected session again and collect it (a failure is the session's alone)."""
    run.result.taken.append(info.key)
    try:
        conversation = run.catalog.read(info.tool, info.session_id)
    except Exception as error:  # a source that vanished or broke since the scan
        run.result.blocked.append(f"{info.key}: {error}")
        return
    if conversation.revision != info.revision:
        run.result.blocked.append(f"{info.key}: changed since it was selected")
        return
    try:
        _collect_session(run, conversation, stores_for(conversation))
    except StopCollecting as stop:  # raised before the window's plan: nothing half-written
        run.result.stopped = str(stop)
        run.result.partial.append(info.key)
        log.info("collect.stopping", reason=run.result.stopped)
    except StoresPending as why:  # the window waits for those stores; other sessions go on
        run.result.pending_stores += why.entries()
        run.result.blocked.append(f"{info.key}: unresolved: {why}")
    except PlanQuarantined as why:  # this session alone: the run goes on with the next one
        if not run.dry_run:
            run.cursors.state.quarantine_plan(why.plan)
        run.result.quarantined.append(why.plan)
        run.result.blocked.append(f"{info.key}: unresolved: {why}")
        log.warning("collect.plan.quarantined", session=info.key, plan=why.plan.plan_id,
                    stage=why.plan.stage, reason=why.plan.reason)  # fmt: skip


def is_own_run(project: str | None) -> bool:
    """Whether a session was started by dreamd itself (an extraction run in its own folder)."""
    return project is not None and OWN_RUN_MARKER in project


def _held_for_review(
    sessions: Sequence[SessionInfo], cursors: CursorStore, result: CollectResult
) -> list[SessionInfo]:
    """Sessions selection may take: a legacy record without a usable time is held for review."""
    cursor = cursors.cursor
    if not cursor.legacy_sessions:  # no legacy record: nothing to hold (most cursors)
        return list(sessions)
    kept = []
    for info in sessions:
        reason = legacy_review_reason(cursor, info.key)
        if reason is None:
            kept.append(info)
        else:
            result.legacy_review.append(f"{info.key}: {reason}")
    return kept


def _legacy_baseline(
    conversation: Conversation, key: str, cursor: Cursor, result: CollectResult
) -> Cursor | None:
    """Seed 002 phase 2: a legacy session's first V2 transition; None when held for review.

    Messages at or before the legacy record's time are acknowledged without
    analysis (``legacyBaseline``); those after it stay pending. The stores'
    items tagged with the session are read before each of its windows is
    planned (``held_items``), so what the old collector planted is matched,
    never planted again.
    """
    record = cursor.legacy_sessions.get(key)
    if record is None or not governed_by_legacy(cursor.state(key), record):
        return cursor
    boundary = legacy_boundary(record)
    split = None if boundary is None else legacy_split(conversation.messages, boundary)
    if record.skipped:  # skipped as trivial, never analysed: all of it is new work
        split = ((), conversation.messages)
    if split is None:
        result.legacy_review.append(f"{key}: a message without a timestamp; not guessed")
        return None
    result.legacy_baseline.append(key)
    return adopt_legacy_baseline(cursor, key, split[0])


def _collect_session(run: _Pass, conversation: Conversation, stores: Mapping[str, Store]) -> None:
    """Seed 002 phases 3-5 for one session: finish an open window, plan and plant each
    pending window, the session stage, then complete the session if it did not change."""
    key = f"{conversation.tool}:{conversation.session_id}"
    observed = observe(run.cursors.cursor, key, conversation.revision)
    cursor = _legacy_baseline(conversation, key, observed, run.result)
    if cursor is None:
        return
    if cursor is not run.cursors.cursor and not run.dry_run:
        run.save(cursor)
    if cursor.state(key).intent is not None and not run.dry_run:
        _finish_open_window(run, conversation, stores)
    state = run.cursors.cursor.state(key) if not run.dry_run else cursor.state(key)
    pending = pending_messages(state, conversation.messages)
    windows = split_windows(conversation, pending, run.request.window_messages)
    for window in windows:
        if run.stopping():
            run.result.partial.append(key)
            return
        _collect_window(run, conversation, window, state.generation, stores)
    if run.extract_session is not None and windows:
        _session_stage(run, conversation, windows, state.generation, stores)
    if not run.dry_run:
        _complete_if_stable(run, conversation, key)


def _collect_window(
    run: _Pass,
    conversation: Conversation,
    window: Window,
    generation: int,
    stores: Mapping[str, Store],
) -> None:
    """One window: extract, filter, plan (keyed by its messages), then plant and checkpoint."""
    key = f"{conversation.tool}:{conversation.session_id}"
    try:
        extracted = run.extract(conversation, window, ())
        items = run.clean(extracted, count_low=True)
    except WindowPending as why:  # not planned, not checkpointed: the next run retries
        run.result.blocked.append(f"{key}: {len(window.messages)} messages left pending: {why}")
        return
    run.result.windows += 1
    request = run.request
    wkey = window_key(
        request.machine, conversation.tool, conversation.session_id, generation, window.messages
    )
    _plan_and_plant(run, conversation, wkey, items, window, window.messages, stores)


def _plan_and_plant(
    run: _Pass,
    conversation: Conversation,
    wkey: str,
    items: Sequence[MemoryItem],
    window: Window,
    source: Sequence[Message],
    stores: Mapping[str, Store],
) -> None:
    """The window's write plan against what the stores hold for the session; planted
    (or, in a dry run, only listed). ``source`` is what the items were extracted from."""
    key = f"{conversation.tool}:{conversation.session_id}"
    with one_plan(stores):  # the stores are looked at once for the plan
        held = None if run.dry_run else tolerant_held(stores, run.source(conversation))
        try:
            plan = make_plan(wkey, key, items, sorted(stores), held)
        except PLAN_ERRORS as error:  # text the plan cannot hold
            raise run.quarantine("save", key, conversation.revision, wkey, error) from error
        if run.dry_run:
            run.result.would_plant.extend(items)
            return
        intent = Intent(
            plan.window_key,
            plan.plan_id,
            tuple(m.id for m in window.messages),
            plan_source(source),
            conversation.revision,
        )
        _plant_window(run, plan, window, intent, stores)


def _session_stage(
    run: _Pass,
    conversation: Conversation,
    windows: Sequence[Window],
    generation: int,
    stores: Mapping[str, Store],
) -> None:
    """Seed 002 phase 3 step 3: the events scan, once per session after its windows.

    Its plan is keyed by every analysed message, so a retry finds the same
    keys; its checkpoint acknowledges nothing new (the windows already did).
    """
    assert run.extract_session is not None
    analysed = [m for window in windows for m in window.messages]
    items = run.clean(run.extract_session(conversation, windows), count_low=False)
    if not items:
        return
    request = run.request
    wkey = "events-" + window_key(
        request.machine, conversation.tool, conversation.session_id, generation, analysed
    )
    _plan_and_plant(run, conversation, wkey, items, Window((), ""), analysed, stores)


def _plant_window(
    run: _Pass, plan: WritePlan, window: Window, intent: Intent, stores: Mapping[str, Store]
) -> None:
    """Plan saved and read back, intent saved, plant once each, then checkpoint."""
    key = plan.session
    CRASH.tick()
    try:
        save_plan(run.plans_dir, plan)
    except PLAN_ERRORS as error:
        raise run.quarantine(
            "save", key, intent.revision, plan.window_key, error, plan_id=plan.plan_id
        ) from error
    CRASH.tick()
    run.save(begin_window(run.cursors.cursor, key, intent))
    planted = plant_plan(plan, stores, CRASH.tick)
    CRASH.tick()
    result, done = run.result, [op for op, _ in planted.done]
    result.planted_items += [
        planted_item(op.store, op.item, receipt, updated=op.target is not None)
        for op, receipt in planted.done
    ]
    result.planted.update(op.item.category for op in done if op.target is None)
    result.updated.update(op.item.category for op in done if op.target is not None)
    result.handoff += sum(op.target is None for op in done)
    if planted.failed:  # the intent stays open: the next run retries only those stores
        raise StoresPending(key, plan.window_key, planted.failed)
    receipts = planted.receipts
    checkpoint = checkpoint_window(
        run.cursors.cursor, key, window, receipts, window_key_=plan.window_key
    )
    run.save(checkpoint)
    write_plans.remove_plan(run.plans_dir, plan.plan_id)  # checkpointed: never replayed
    CRASH.tick()
    log.info("collect.window.planted", session=key, items=len(plan.operations))


def _finish_open_window(run: _Pass, conversation: Conversation, stores: StoreMap) -> None:
    """A window begun by a run that died is finished first (``reopen``)."""
    cursor = run.cursors.cursor
    with one_plan(stores):
        done = resume_open_window(
            cursor, run.save, run.plans_dir, conversation, stores, run.quarantine
        )
    run.result.windows += done.replayed
    run.result.reconciled += [done.note] if not done.replayed else []


def _complete_if_stable(run: _Pass, conversation: Conversation, key: str) -> None:
    """Re-read the session; complete it only at the same revision with nothing pending."""
    try:
        fresh = run.catalog.read(conversation.tool, conversation.session_id)
    except Exception as error:
        run.result.partial.append(f"{key}: {error}")
        return
    state = run.cursors.cursor.state(key)
    if fresh.revision != conversation.revision or pending_messages(state, fresh.messages):
        run.result.partial.append(key)
        return
    CRASH.tick()
    if fresh.partial:  # damaged: collected from what could be read, never resolved (seed 002)
        run.save(complete_readable(run.cursors.cursor, key, fresh))
        run.result.partial.append(f"{key}: {damage_note(fresh.damaged_lines)}")
        return
    run.save(complete_session(run.cursors.cursor, key, fresh))
    run.result.resolved.append(key)
