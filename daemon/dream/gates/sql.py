"""The validate gate for SQL-store items (seed 002 hand-off): ``new`` rows accepted or not.

The rules every gate applies (``gates.rules``), on the rows' items: a row is
rejected when it holds no valid item, a credential-shaped value, a quote that
does not cite its own session (or none), a collection day in the future, or
references that are all missing at birth; it is merged when it duplicates an
item already accepted (same type, ``rules.near_duplicate``); otherwise it is
accepted. Rows are never deleted: their status moves from ``new`` to
``accepted``, ``merged`` or ``rejected``, and the run records every move so
that ``dreamd undo`` can move it back.

A shared SQL store (PostgreSQL) is gated by one host at a time: ``dream_rows``
holds the store's dream lease; a host refused it skips the rows, logs
``dream.shared_store.skipped`` and says so in the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import msgspec

from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.flow import StoreRun, scan_views
from dreamd.dream.gates.rules import near_duplicate, rejection
from dreamd.errors import StoreError
from dreamd.fs import read_if_present
from dreamd.fswrite import atomic_write
from dreamd.logs import get_logger
from dreamd.stores import MemoryItem
from dreamd.stores.sql import STATUS_NEW, DreamLease, SqlStore

__all__ = [
    "SQL_MOVES",
    "SqlVerdict",
    "dream_rows",
    "gate_rows",
    "sql_gate",
    "undo_conflicts",
    "undo_rows",
]

log = get_logger("dreamd.dream")

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


# --- the gate over a store: lease, journal, undo --------------------------------------------

#: The run's record of every status it moved (``[op_key, old, new]``), for ``dreamd undo``.
SQL_MOVES = "sql-status.json"


def dream_rows(store: SqlStore, *, run_dir: Path, now: datetime, dry_run: bool) -> StoreRun:
    """Gate the store's ``new`` rows under its dream lease (one host at a time).

    A store that cannot be reached does not stop the dream of this host's own
    folders: the run goes on without the store and says why; a lease another
    host holds leaves the rows to that host.
    """
    try:
        with store.dream_lease() as lease:
            if not lease.held:
                return StoreRun(flags=[_skipped(store, lease)])
            return StoreRun(changes=gate_rows(store, run_dir, now=now, dry_run=dry_run))
    except StoreError as error:
        log.warning("dream.shared_store.unreachable", store=store.name, error=str(error))
        return StoreRun(flags=[f"SQL store skipped: {error}"])


def _skipped(store: SqlStore, lease: DreamLease) -> str:
    """Log and describe a run that leaves the shared store to the host dreaming over it."""
    log.info("dream.shared_store.skipped", store=store.name, holder=lease.holder)
    holder = lease.holder or "another host"
    return f"SQL store skipped: {holder} is dreaming over {store.name}; its new rows wait"


def gate_rows(store: SqlStore, run_dir: Path, *, now: datetime, dry_run: bool) -> list[str]:
    """Run the validate gate over the store's ``new`` rows; record each move for undo."""
    new = store.items_with_status(STATUS_NEW)
    views = scan_views(item.project for _, item in new if item is not None)
    verdicts = sql_gate(new, store.items_with_status("accepted"), now=now, views=views)
    if dry_run:
        return [f"would mark SQL item {v.op_key} {v.status}: {v.reason}" for v in verdicts]
    moves: list[list[str]] = []
    lines: list[str] = []
    for verdict in verdicts:
        if store.set_status(verdict.op_key, verdict.status, expected=STATUS_NEW):
            moves.append([verdict.op_key, STATUS_NEW, verdict.status])
            atomic_write(run_dir / SQL_MOVES, msgspec.json.encode(moves))
            lines.append(f"SQL item {verdict.op_key} {verdict.status}: {verdict.reason}")
    return lines


def _moves(run_dir: Path) -> list[list[str]] | None:
    data = read_if_present(run_dir / SQL_MOVES)
    return None if data is None else msgspec.json.decode(data, type=list[list[str]])


def undo_conflicts(store: SqlStore | None, run_dir: Path) -> list[str]:
    """Why the run's status moves cannot be undone now (empty when they can)."""
    moves = _moves(run_dir)
    if moves is None:
        return []
    if store is None:
        return ["the run changed SQL store items, but no SQL store is configured"]
    return [
        f"SQL item {key} is no longer {new}"
        for key, _old, new in moves
        if store.status_of(key) != new
    ]


def undo_rows(store: SqlStore | None, run_dir: Path) -> list[str]:
    """Move every row the run moved back to its old status; returns what was restored."""
    moves = _moves(run_dir)
    if store is None or moves is None:
        return []
    restored: list[str] = []
    for key, old, new in reversed(moves):
        store.set_status(key, old, expected=new)
        restored.append(f"SQL item {key}")
    (run_dir / SQL_MOVES).rename(run_dir / (SQL_MOVES + ".undone"))
    return restored
