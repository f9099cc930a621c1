"""Sessions recorded as skipped before any is read (seed 002 phase 1): the cursor's bookkeeping.

Both functions save the cursor once, only when they changed it, and return the
sessions they recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from dreamd.collect.cursordoc import CursorStore
from dreamd.collect.cursorstate import skip_trivial
from dreamd.selection import Selection
from dreamd.sessioninfo import SessionInfo

__all__ = ["record_own_runs", "record_trivial"]


def record_own_runs(
    sessions: Sequence[SessionInfo], cursors: CursorStore, now: datetime
) -> list[str]:
    """dreamd's own extraction runs are recorded as skipped, never read for memories."""
    cursor, recorded = cursors.cursor, []
    for info in sessions:
        if info.revision is None or cursor.state(info.key).status == "skipped_trivial":
            continue
        cursor = skip_trivial(cursor, info.key, info.revision, "dreamd's own extraction run")
        recorded.append(info.key)
    if cursor is not cursors.cursor:
        cursors.save(cursor, now)
    return recorded


def record_trivial(selection: Selection, cursors: CursorStore, now: datetime) -> list[str]:
    """Skipped-trivial recorded, with its reason, for the revision seen."""
    cursor, recorded = cursors.cursor, []
    for decision in selection.decisions:
        info = decision.session
        if decision.status != "trivial" or info.revision is None:
            continue
        current = cursor.state(info.key)
        if current.status == "skipped_trivial" and current.revision == info.revision:
            continue
        cursor = skip_trivial(cursor, info.key, info.revision, decision.reason)
        recorded.append(info.key)
    if cursor is not cursors.cursor:
        cursors.save(cursor, now)
    return recorded
