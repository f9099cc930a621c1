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

from collections.abc import Mapping
from dataclasses import dataclass

from dreamd.collect.cursorstate import (
    Cursor,
    Window,
    checkpoint_window,
    reconcile_window,
    source_unchanged,
)
from dreamd.collect.plan import WritePlan, plant, reconcile
from dreamd.errors import SourceError
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.stores import Store

__all__ = ["Reopened", "finish_open_window"]

log = get_logger("dreamd.collect")


@dataclass(frozen=True, slots=True)
class Reopened:
    """The cursor after the open window was finished, and how it was."""

    cursor: Cursor
    replayed: bool  # True: the plan was replayed and the window checkpointed
    note: str  # what the report says of a stale plan ("" when replayed)


def finish_open_window(
    cursor: Cursor,
    key: str,
    conversation: Conversation,
    plan: WritePlan,
    stores: Mapping[str, Store],
) -> Reopened:
    """Replay the open window's plan while its source is unchanged, else reconcile it.

    Raises ``SourceError`` when the plan names a store this run does not have:
    neither a write nor its absence can be confirmed there, so the window stays open.
    """
    intent = cursor.state(key).intent
    if intent is None or intent.plan_id != plan.plan_id:
        raise ValueError(f"{key}: plan {plan.plan_id} is not the open window's")
    missing = sorted({op.store for op in plan.operations if op.store not in stores})
    if missing:
        raise SourceError(
            f"open window {plan.window_key} plans writes to {', '.join(missing)}, "
            "which this run does not have; left pending"
        )
    if not source_unchanged(intent, conversation.messages):
        found = reconcile(plan, stores)
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
    receipts = [plant(stores[op.store], op).op_key for op in plan.operations]
    by_id = {m.id: m for m in conversation.messages}
    window = Window(tuple(by_id[mid] for mid in intent.message_ids if mid in by_id), "")
    done = checkpoint_window(cursor, key, window, receipts, window_key_=intent.window_key)
    log.info("collect.window.reconciled", session=key, operations=len(plan.operations))
    return Reopened(done, True, "")
