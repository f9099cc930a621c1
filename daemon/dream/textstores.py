"""The dream over the configured text stores: sectioned ``MEMORY.md`` and knowledge graph.

``dream_job`` hands the run's report to ``with_text_stores``, which runs each
store's gate and dream (``mdgate.dream_memory_md``, ``graph.dream_graph``)
and adds their lines to the report's messages, each prefixed with the
store's name. A store that fails (its folder unreadable, its lock refused)
is reported and the others still run. A run that changed a store is an
``apply`` run; findings alone (health line, flags) leave a no-op a no-op.
Every change is journaled under ``<state>/runs/<run id>/``, so ``dreamd undo``
restores it with the run's folder changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dreamd.config import Settings
from dreamd.dream.gates.flow import StoreRun
from dreamd.dream.gates.graph import dream_graph
from dreamd.dream.gates.sectioned import dream_memory_md
from dreamd.dream.report import RunReport
from dreamd.errors import DreamdError
from dreamd.logs import get_logger
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore

__all__ = ["TextStore", "configured_text_stores", "dream_text_store", "with_text_stores"]

log = get_logger("dreamd.dream")


@dataclass(frozen=True, slots=True)
class TextStore:
    """One configured text store and the repository its references are checked against."""

    store: MemoryMdStore | GraphStore
    repo: Path | None = None


def configured_text_stores(settings: Settings) -> list[TextStore]:
    """The text stores ``collect.stores`` lists, each with its ``repo`` (if configured)."""
    stores: list[TextStore] = []
    memory_md = settings.store_file("memory-md")
    if memory_md is not None:
        stores.append(TextStore(MemoryMdStore(memory_md[0]), memory_md[1]))
    graph = settings.store_file("graph")
    if graph is not None:
        stores.append(TextStore(GraphStore(graph[0]), graph[1]))
    return stores


def dream_text_store(entry: TextStore, run_dir: Path, *, now: datetime, dry_run: bool) -> StoreRun:
    """Gate and tidy one store; a failure becomes a report line, never an abort."""
    try:
        if isinstance(entry.store, MemoryMdStore):
            return dream_memory_md(
                entry.store, run_dir=run_dir, now=now, dry_run=dry_run, repo=entry.repo
            )
        return dream_graph(entry.store, run_dir=run_dir, now=now, dry_run=dry_run, repo=entry.repo)
    except (DreamdError, OSError) as error:
        log.warning("dream.store.failed", store=entry.store.name, error=str(error))
        return StoreRun(flags=[f"not dreamed over: {error}"])


def with_text_stores(
    report: RunReport,
    stores: Sequence[TextStore],
    run_dir: Path,
    *,
    now: datetime,
    mode: str,
) -> RunReport:
    """``report`` with the text stores' lines added (``mode``: the request's mode)."""
    messages = list(report.messages)
    changed = False
    for entry in stores:
        result = dream_text_store(entry, run_dir, now=now, dry_run=mode == "dry-run")
        messages += [f"{entry.store.name}: {line}" for line in result.lines]
        changed = changed or bool(result.changes)
    new_mode = "apply" if changed and mode == "apply" else report.mode
    return dataclasses.replace(report, mode=new_mode, messages=tuple(messages))
