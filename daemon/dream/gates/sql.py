"""The validate gate for SQL-store items (seed 002 hand-off): ``new`` rows accepted or not.

The rules every gate applies (``gates.rules``), on the rows' items: a row is
rejected when it holds no valid item, a credential-shaped value, a quote that
does not cite its own session (or none), a collection day in the future, or
references that are all missing at birth; it is merged when it duplicates an
item already accepted (same type, ``rules.near_duplicate``); otherwise it is
accepted. Rows are never deleted: their status moves from ``new`` to
``accepted``, ``merged`` or ``rejected``, and the run records every move so
that ``dreamd undo`` can move it back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from dreamd.dream.folder.refs import RepoView
from dreamd.dream.gates.rules import near_duplicate, rejection
from dreamd.stores import MemoryItem

__all__ = ["SqlVerdict", "sql_gate"]

Status = Literal["accepted", "merged", "rejected"]

#: What the rules see as the row's file (only its references are checked, never this path).
_WHERE = Path("memory_item")


@dataclass(frozen=True, slots=True)
class SqlVerdict:
    """What the gate decided for one row, and why."""

    op_key: str
    status: Status
    reason: str


def sql_gate(
    new: Sequence[tuple[str, MemoryItem | None]],
    accepted: Sequence[tuple[str, MemoryItem | None]],
    *,
    now: datetime,
    views: Mapping[str, RepoView],
) -> list[SqlVerdict]:
    """Decide every ``new`` row against the accepted ones (and the new ones accepted before it).

    ``views``: the repositories of the rows' projects (see ``rules.rejection``).
    """
    kept = [(key, item) for key, item in accepted if item is not None]
    verdicts: list[SqlVerdict] = []
    for key, item in new:
        if item is None:
            verdicts.append(SqlVerdict(key, "rejected", "malformed: the row holds no valid item"))
            continue
        reason = rejection(item, now=now, views=views, where=_WHERE)
        if reason is not None:
            verdicts.append(SqlVerdict(key, "rejected", reason))
            continue
        twin = next((k for k, other in kept if _duplicates(item, other)), None)
        if twin is not None:
            verdicts.append(SqlVerdict(key, "merged", f"duplicate of {twin}"))
            continue
        kept.append((key, item))
        verdicts.append(SqlVerdict(key, "accepted", "provenance, quotes and content check out"))
    return verdicts


def _duplicates(item: MemoryItem, other: MemoryItem) -> bool:
    return item.type == other.type and near_duplicate(item.body, other.body) is not None
