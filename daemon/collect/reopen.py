"""A window a dead run left open (seed 002 phase 4): replay its plan, or reconcile it.

A plan is reused only while every message it was made from has the
fingerprint the intent recorded. Once one changed, the plan is stale and
never replayed: ``reconcileWindow`` looks up each planned write by its key,
keeps the receipts of those found as provenance and closes the window
without acknowledging a message, so the window's messages are analysed again
at their new fingerprints (what the old text planted is then matched through
the stores' held items, never planted twice).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dreamd.collect.cursorstate import (
    Cursor,
    Intent,
    Window,
    checkpoint_window,
    reconcile_window,
    source_unchanged,
)
from dreamd.collect.plan import WritePlan, load_plan, reconcile
from dreamd.collect.planting import STORE_FAILURES, StoresPending, plant_plan, reason_of
from dreamd.collect.quarantine import PLAN_ERRORS, PlanQuarantined
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.stores import Store

__all__ = ["Reopened", "finish_open_window", "replayable", "resume_open_window"]

log = get_logger("dreamd.collect")


@dataclass(frozen=True, slots=True)
class Reopened:
    """The cursor after the open window was finished, and how it was."""

    cursor: Cursor
    replayed: bool  # True: the plan was replayed and the window checkpointed
    note: str  # what the report says of a stale plan ("" when replayed)


def replayable(plan: WritePlan, intent: Intent, stores: Mapping[str, Store]) -> WritePlan:
    """``plan`` if it is the intent's and every store it names is open; else ``ValueError``
    (neither a write nor its absence could be confirmed in a store this run does not have)."""
    if plan.plan_id != intent.plan_id or plan.window_key != intent.window_key:
        raise ValueError(f"the plan file holds plan {plan.plan_id}, not {intent.plan_id}")
    missing = sorted({op.store for op in plan.operations if op.store not in stores})
    if missing:
        raise ValueError(f"the plan writes to {', '.join(missing)}, which this run does not have")
    return plan


def finish_open_window(
    cursor: Cursor,
    key: str,
    conversation: Conversation,
    plan: WritePlan,
    stores: Mapping[str, Store],
) -> Reopened:
    """Replay the open window's plan while its source is unchanged, else reconcile it.

    Raises ``ValueError`` when the plan is not ``replayable``.
    """
    intent = cursor.state(key).intent
    if intent is None:
        raise ValueError(f"{key} has no open window")
    replayable(plan, intent, stores)
    if not source_unchanged(intent, conversation.messages):
        try:
            found = reconcile(plan, stores)
        except STORE_FAILURES as error:  # absence cannot be confirmed: the window stays open
            reason = f"its writes cannot be looked up: {reason_of(error)}"
            raise StoresPending(key, plan.window_key, {"(reconcile)": reason}) from error
        receipts = [receipt.op_key for receipt in found.values() if receipt is not None]
        closed = reconcile_window(cursor, key, receipts)
        log.info(
            "collect.window.stale_plan",
            session=key,
            plan=plan.plan_id,
            written=len(receipts),
            planned=len(plan.operations),
        )
        note = (
            f"{key}: plan {plan.plan_id} not reused, its messages changed "
            f"({len(receipts)} of {len(plan.operations)} writes had been made)"
        )
        return Reopened(closed, False, note)
    planted = plant_plan(plan, stores, lambda: None)
    if planted.failed:
        raise StoresPending(key, plan.window_key, planted.failed)
    receipts = planted.receipts
    by_id = {m.id: m for m in conversation.messages}
    window = Window(tuple(by_id[mid] for mid in intent.message_ids if mid in by_id), "")
    done = checkpoint_window(cursor, key, window, receipts, window_key_=intent.window_key)
    log.info("collect.window.reconciled", session=key, operations=len(plan.operations))
    return Reopened(done, True, "")


#: Makes the signal that quarantines a plan: (stage, session, revision, window key, error,
#: plan_id=..., path=...).
Quarantine = Callable[..., PlanQuarantined]


def resume_open_window(
    cursor: Cursor,
    save: Callable[[Cursor], None],
    plans_dir: Path,
    conversation: Conversation,
    stores: Mapping[str, Store],
    quarantine: Quarantine,
) -> Reopened:
    """Finish the session's open window from its saved plan (``finish_open_window``); the
    cursor after it is saved with ``save``.

    A plan that cannot be read, is not the intent's, or names a store this run
    lacks is quarantined (issue 15 item 2): the window is closed without
    acknowledging a message (``reconcile_window`` with no receipts: its writes
    cannot be looked up) and ``PlanQuarantined`` is raised for the caller.
    """
    key = f"{conversation.tool}:{conversation.session_id}"
    intent = cursor.state(key).intent
    assert intent is not None
    path = plans_dir / f"{intent.plan_id}.json"
    try:
        plan = replayable(load_plan(path), intent, stores)
    except (OSError, *PLAN_ERRORS) as error:
        save(reconcile_window(cursor, key, ()))
        raise quarantine(
            "replay", key, intent.revision, intent.window_key, error,
            plan_id=intent.plan_id, path=str(path),
        ) from error  # fmt: skip
    done = finish_open_window(cursor, key, conversation, plan, stores)
    save(done.cursor)
    return done
