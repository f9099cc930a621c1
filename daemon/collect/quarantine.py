"""Write plans that cannot be saved or replayed (issue 15 item 2): set aside, the run goes on.

A plan whose items the plan encoding rejects (text that is not valid
Unicode), or whose file cannot be read back when its window is resumed, would
otherwise fail every later run at the same place and keep the sessions behind
it from ever being collected. Instead it is quarantined: recorded in the
state database with its reason (``dreamd status`` lists it), its session is
reported unresolved, and the run goes on with the next session.

- A plan that could not be *saved* is made again from the same text on
  every run, so its session is held (not selected) while its revision stays
  the one quarantined; a changed session is tried again.
- A plan that could not be *replayed* has its window closed without
  acknowledging a message (its writes cannot be looked up by key); the next
  run analyses those messages again, and what the lost plan had planted is
  matched through the items each store holds for the session, never planted
  twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

import msgspec

from dreamd.errors import StoreError
from dreamd.selection import CursorEntry
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import QuarantinedPlan

__all__ = ["PLAN_ERRORS", "QUARANTINED", "PlanQuarantined", "held_sessions", "quarantined"]

#: What a plan that cannot be made, encoded, saved or read back raises (``UnicodeError``
#: and msgspec's validation errors are ``ValueError``s; ``StoreError``: a read-back mismatch).
PLAN_ERRORS = (ValueError, TypeError, KeyError, msgspec.MsgspecError, StoreError)

#: How a held session's reason begins.
QUARANTINED = "quarantined plan"


class PlanQuarantined(Exception):
    """The session stops here; its plan is set aside with the reason (``plan``)."""

    def __init__(self, plan: QuarantinedPlan) -> None:
        self.plan = plan
        super().__init__(f"{QUARANTINED} {plan.plan_id} ({plan.stage}): {plan.reason}")


def quarantined(
    stage: str,
    session: str,
    revision: str,
    window_key: str,
    error: BaseException,
    *,
    run_id: str,
    now: datetime,
    plan_id: str = "",
    path: str | None = None,
) -> PlanQuarantined:
    """The signal for a plan that failed at ``stage`` ("save" or "replay") with ``error``."""
    reason = f"{type(error).__name__}: {error}".encode("utf-8", "backslashreplace").decode()
    record = QuarantinedPlan(
        plan_id=plan_id or f"window-{window_key}",
        session=session,
        revision=revision,
        window_key=window_key,
        stage=stage,
        reason=reason,
        path=path,
        run_id=run_id,
        quarantined_at=now,
    )
    return PlanQuarantined(record)


def held_sessions(
    view: Mapping[str, CursorEntry],
    plans: Iterable[QuarantinedPlan],
    sessions: Iterable[SessionInfo],
) -> dict[str, CursorEntry]:
    """The selection view with every session held whose plan could not be saved at the
    revision it has now (retrying the same text would fail the same way)."""
    unsaved = {(p.session, p.revision): p for p in plans if p.stage == "save"}
    held = dict(view)
    if not unsaved:  # no plan set aside at saving (most runs): no session to look up
        return held
    for info in sessions:
        plan = unsaved.get((info.key, info.revision or ""))
        if plan is not None:
            reason = f"{QUARANTINED} {plan.plan_id}: {plan.reason}"
            held[info.key] = CursorEntry("held", info.revision or "", reason)
    return held
