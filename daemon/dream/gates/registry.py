"""The gate the dream runs over each kind of store (``StoreSpec.gate`` names it).

A memory folder's ``.inbox/`` (``folder``) is gated by the gardener inside
each folder's dream; the others run once per dream over the store the
configuration lists, through ``GATES``. Every gate returns a ``StoreRun``:
the changes it made (or would make) and what it flagged, as report lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamd.dream.gates import gemini, graph, sectioned
from dreamd.dream.gates.flow import StoreRun
from dreamd.stores import FileStoreTable, located
from dreamd.stores.registry import GateKind

__all__ = ["GATES", "UNDO", "GateRun"]


@dataclass(frozen=True, slots=True)
class GateRun:
    """One dream's view of a gate: where it journals, its clock, dry or not, whose home."""

    run_dir: Path
    now: datetime
    dry_run: bool
    home: Path


Gate = Callable[[Any, Any, GateRun], StoreRun]


def _repo(table: FileStoreTable, home: Path) -> Path | None:
    found = located(table, home)
    return None if found is None else found[1]


def _prefixed(name: str, run: StoreRun) -> StoreRun:
    """A text store's lines say which store they are about."""
    return StoreRun(
        [f"{name}: {line}" for line in run.changes], [f"{name}: {x}" for x in run.flags]
    )


def _rows(store: Any, table: Any, run: GateRun) -> StoreRun:
    from dreamd.dream.gates import sql  # SQLAlchemy only for a dream that has a SQL store

    return sql.dream_rows(store, run_dir=run.run_dir, now=run.now, dry_run=run.dry_run)


def _sectioned(store: Any, table: FileStoreTable, run: GateRun) -> StoreRun:
    repo = _repo(table, run.home)
    found = sectioned.dream_memory_md(
        store, run_dir=run.run_dir, now=run.now, dry_run=run.dry_run, repo=repo
    )
    return _prefixed(store.name, found)


def _graph(store: Any, table: FileStoreTable, run: GateRun) -> StoreRun:
    repo = _repo(table, run.home)
    found = graph.dream_graph(
        store, run_dir=run.run_dir, now=run.now, dry_run=run.dry_run, repo=repo
    )
    return _prefixed(store.name, found)


def _gemini(store: Any, table: Any, run: GateRun) -> StoreRun:
    found = gemini.dream_gemini(store, run_dir=run.run_dir, now=run.now, dry_run=run.dry_run)
    return _prefixed(store.name, found)


#: The gates run once per dream, by kind (the ``folder`` gate runs inside each folder's dream).
GATES: dict[GateKind, Gate] = {
    "rows": _rows,
    "sectioned": _sectioned,
    "graph": _graph,
    "gemini": _gemini,
}


@dataclass(frozen=True, slots=True)
class Undo:
    """How ``dreamd undo`` puts back what a gate changed outside the journaled files."""

    conflicts: Callable[[Any, Path], list[str]]
    restore: Callable[[Any, Path], list[str]]


def _row_conflicts(store: Any, run_dir: Path) -> list[str]:
    from dreamd.dream.gates import sql

    return sql.undo_conflicts(store, run_dir)


def _row_restore(store: Any, run_dir: Path) -> list[str]:
    from dreamd.dream.gates import sql

    return sql.undo_rows(store, run_dir)


#: Gates whose changes are not journaled file writes (row statuses), by kind.
UNDO: dict[GateKind, Undo] = {"rows": Undo(_row_conflicts, _row_restore)}
