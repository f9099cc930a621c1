"""The dream over the configured stores that are not memory folders (SQL, sectioned, graph).

``gate_stores`` runs each store's gate (``gates.registry.GATES``) after the
folders are dreamed and adds its lines to the run's report. A store that fails
(its folder unreadable, its lock refused, its server gone) is reported and the
others still run. A run that changed a store is an ``apply`` run; findings
alone (health line, flags) leave a no-op a no-op. Every change is journaled
under ``<state>/runs/<run id>/``, so ``dreamd undo`` restores it with the
run's folder changes (``undo_stores`` for what is not a file).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamd.dream.gates.flow import StoreRun
from dreamd.dream.gates.registry import GATES, UNDO, GateRun
from dreamd.dream.report import RunReport
from dreamd.errors import DreamdError
from dreamd.logs import get_logger
from dreamd.progress import NO_PROGRESS, JobProgress
from dreamd.stores import Store
from dreamd.stores.registry import StoreContext, StoreSpec, StoreTable

__all__ = [
    "GatedStore",
    "close_stores",
    "gate_stores",
    "gated_stores",
    "undo_conflicts",
    "undo_stores",
]

log = get_logger("dreamd.dream")


@dataclass(frozen=True, slots=True)
class GatedStore:
    """One configured store the dream gates, with its spec and table."""

    spec: StoreSpec
    table: StoreTable
    store: Any  # the adapter its gate takes (``SqlStore``, ``MemoryMdStore``, ``GraphStore``)

    @property
    def name(self) -> str:
        return str(self.store.name)


def gated_stores(
    listed: Sequence[tuple[StoreSpec, StoreTable]], context: StoreContext
) -> list[GatedStore]:
    """The listed stores that are not per-project folders and exist (nothing to gate else)."""
    stores: list[GatedStore] = []
    for spec, table in listed:
        if spec.per_project:
            continue
        store = spec.adapter(table, context, create=False)
        if store is not None:
            stores.append(GatedStore(spec, table, store))
    return stores


def _gate_one(entry: GatedStore, run: GateRun) -> StoreRun:
    """Gate one store; a failure becomes a report line, never an abort."""
    try:
        return GATES[entry.spec.gate](entry.store, entry.table, run)
    except (DreamdError, OSError) as error:
        log.warning("dream.store.failed", store=entry.name, error=str(error))
        return StoreRun(flags=[f"{entry.name}: not dreamed over: {error}"])


def gate_stores(
    report: RunReport,
    stores: Sequence[GatedStore],
    run: GateRun,
    *,
    mode: str,
    progress: JobProgress = NO_PROGRESS,
) -> RunReport:
    """``report`` with every store's lines added (``mode``: the request's mode)."""
    messages = list(report.messages)
    changed = False
    for number, entry in enumerate(stores, start=1):
        progress("checking stores", number, len(stores))
        result = _gate_one(entry, run)
        messages += result.lines
        changed = changed or bool(result.changes)
    new_mode = "apply" if changed and mode == "apply" else report.mode
    return dataclasses.replace(report, mode=new_mode, messages=tuple(messages))


def undo_conflicts(stores: Sequence[GatedStore], run_dir: Path) -> list[str]:
    """Why what the stores' gates changed outside files cannot be put back now."""
    return [
        c for kind, undo in UNDO.items() for c in undo.conflicts(_store_of(stores, kind), run_dir)
    ]


def undo_stores(stores: Sequence[GatedStore], run_dir: Path) -> list[str]:
    """Put back what the stores' gates changed outside files; returns what was restored."""
    return [
        line
        for kind, undo in UNDO.items()
        for line in undo.restore(_store_of(stores, kind), run_dir)
    ]


def _store_of(stores: Sequence[GatedStore], kind: str) -> Store | None:
    return next((entry.store for entry in stores if entry.spec.gate == kind), None)


def close_stores(stores: Sequence[GatedStore]) -> None:
    """Release what the stores hold open (a SQL engine's connections)."""
    for entry in stores:
        close = getattr(entry.store, "close", None)
        if callable(close):
            close()
