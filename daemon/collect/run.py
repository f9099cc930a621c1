"""The collector as a job: stores, extractor and filter wired from the settings; lock; records.

Store names in plans are the configured ones (``claude-memory``, ``sql``,
``memory-md``, ``graph``): the Claude Code memory folder a session's items go
to is the one of its project — found through the transcripts that recorded
that project, or made from the project path the way Claude Code names its
folders; the one-file stores (``[stores.memory-md]``, ``[stores.graph]``)
take every session's items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from dreamd.catalog import Catalog
from dreamd.collect.collector import CollectRequest, CollectResult, collect
from dreamd.collect.extraction import ExtractionRun
from dreamd.collect.report import report_json, store_report
from dreamd.config import Settings
from dreamd.lock import pipeline_lock
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.readers.claude_code import claude_dir
from dreamd.secrets import filter_item
from dreamd.statedb import StateDB
from dreamd.stores import Store
from dreamd.stores.claude_memory import ClaudeMemoryStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore
from dreamd.stores.sql import SqlStore

__all__ = ["collect_job", "memory_folder_for"]

log = get_logger("dreamd.collect")


def memory_folder_for(project: str, claude: Path, known: Mapping[str, Path]) -> Path:
    """The Claude Code memory folder of ``project``.

    ``known`` maps project paths to the transcript folders whose sessions
    recorded them; otherwise the folder is named the way Claude Code names
    it (every character but letters and digits becomes ``-``).
    """
    folder = known.get(project)
    if folder is None:
        folder = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", project)
    return folder / "memory"


def collect_job(
    settings: Settings,
    state: StateDB,
    request: CollectRequest,
    *,
    env: Mapping[str, str],
    home: Path,
    catalog: Catalog | None = None,
    lock_wait: float = 0.0,
    cancelled: Callable[[], bool] = lambda: False,
) -> tuple[CollectResult, dict[str, Any]]:
    """One recorded collector pass under the pipeline lock; returns the result and its report.

    ``lock_wait`` is how long to wait for a running dream (the service waits, a hand run
    does not); ``catalog`` lets the service reuse its catalog and what its watcher knows.
    """
    configured = settings.config.collect
    # A missing API key or SDK is a configuration error, reported before anything runs.
    extraction = ExtractionRun.configured(
        settings.config,
        env,
        machine=request.machine,
        collected=request.now.date(),
        path=settings.config_path,
    )
    claude = claude_dir(env, home)
    sql = SqlStore(settings.sql_url, host=request.machine) if "sql" in configured.stores else None
    files = _file_stores(settings)
    catalog = catalog or Catalog(state, settings.source_roots)
    lock = pipeline_lock(settings.data_dir, "collect")
    lock.acquire(wait=lock_wait, cancelled=cancelled)
    with lock:
        bound = structlog.contextvars.bind_contextvars(run_id=request.run_id)
        state.start_run(
            request.run_id, "collect", "dry-run" if request.dry_run else "apply", request.now
        )
        outcome, document = "failed", None
        try:
            known: dict[str, Path] = {}

            def stores_for(conversation: Conversation) -> dict[str, Store]:
                # Called after the scan, so the session cache knows every project's folder.
                if not known:
                    known.update(_project_folders(state))
                stores: dict[str, Store] = {}
                if "claude-memory" in configured.stores and conversation.project:
                    folder = memory_folder_for(conversation.project, claude, known)
                    stores["claude-memory"] = ClaudeMemoryStore(folder)
                if sql is not None:
                    stores["sql"] = sql
                stores.update(files)
                return stores

            result = collect(
                request,
                state=state,
                catalog=catalog,
                plans_dir=settings.data_dir / "plans",
                extract=extraction.window,
                extract_session=extraction.session,
                filter_item=filter_item,
                stores_for=stores_for,
            )
            extraction.finish(result)
            document = report_json(
                result,
                run_id=request.run_id,
                now=request.now,
                budget=request.policy.budget_sessions,
            )
            store_report(settings.data_dir / "reports", document)
            outcome = "ok"
            return result, document
        finally:
            state.finish_run(
                request.run_id,
                outcome=outcome,
                mode="dry-run" if request.dry_run else "apply",
                summary={k: document[k] for k in ("planted", "windows", "dropped_secrets")}
                if document
                else {},
                now=datetime.now(request.now.tzinfo),
            )
            log.info("collect.completed", outcome=outcome)
            structlog.contextvars.reset_contextvars(**bound)  # the caller's run id, if any
            if sql is not None:
                sql.close()
            extraction.close()


def _file_stores(settings: Settings) -> dict[str, Store]:
    """The one-file stores listed in ``collect.stores``: every session's items go to each."""
    stores: dict[str, Store] = {}
    memory_md = settings.store_file("memory-md")
    if memory_md is not None:
        stores["memory-md"] = MemoryMdStore(memory_md[0])
    graph = settings.store_file("graph")
    if graph is not None:
        stores["graph"] = GraphStore(graph[0])
    return stores


def _project_folders(state: StateDB) -> dict[str, Path]:
    """Project path → Claude Code transcript folder, from the sessions that recorded them."""
    folders: dict[str, Path] = {}
    for info in state.load_session_cache().values():
        if info.tool == "claude-code" and info.project:
            folders.setdefault(info.project, Path(info.path).parent)
    return folders
