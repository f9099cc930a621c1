"""The collector as a job: stores, extractor and filter wired from the settings; lock; records.

Store names in plans are the configured ones (``claude-memory``, ``sql``):
the Claude Code memory folder a session's items go to is the one of its
project — found through the transcripts that recorded that project, or
made from the project path the way Claude Code names its folders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from dreamd.catalog import Catalog
from dreamd.collect.collector import CollectRequest, CollectResult, collect
from dreamd.collect.collector import ExtractSession as ExtractSessionFn
from dreamd.collect.collector import ExtractWindow as ExtractFn
from dreamd.collect.cursor import Window as CursorWindow
from dreamd.collect.extract import SessionInfo, run_window
from dreamd.collect.extract import Window as ExtractWindow
from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.report import report_json, store_report
from dreamd.collect.secrets import filter_item
from dreamd.config import Settings
from dreamd.dream.discovery import claude_dir
from dreamd.errors import ConfigError
from dreamd.lock import pipeline_lock
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.statedb import StateDB
from dreamd.stores import MemoryItem, Store
from dreamd.stores.claude_memory import ClaudeMemoryStore
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


def _extractor(machine: str, now: datetime) -> ExtractFn:
    def extract(
        conversation: Conversation, window: CursorWindow, missing: Sequence[str]
    ) -> Sequence[MemoryItem]:
        session = SessionInfo.of(conversation, machine=machine, collected=now.date())
        piece = ExtractWindow(session, window.messages, window.digest)
        return run_window(HEURISTIC, piece, missing_facts=missing or None).items

    return extract


def _session_extractor(machine: str, now: datetime) -> ExtractSessionFn:
    def extract_session(
        conversation: Conversation, windows: Sequence[CursorWindow]
    ) -> Sequence[MemoryItem]:
        session = SessionInfo.of(conversation, machine=machine, collected=now.date())
        pieces = [ExtractWindow(session, w.messages, w.digest) for w in windows if w.messages]
        return HEURISTIC.events(pieces) if pieces else []

    return extract_session


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
    if configured.extractor != "heuristic":
        raise ConfigError(
            settings.config_path,
            "collect.extractor",
            f"{configured.extractor!r} is not available yet",
        )
    claude = claude_dir(env, home)
    sql = SqlStore(settings.sql_url, host=request.machine) if "sql" in configured.stores else None
    catalog = catalog or Catalog(state, settings.source_roots)
    lock = pipeline_lock(settings.data_dir, "collect")
    lock.acquire(wait=lock_wait, cancelled=cancelled)
    with lock:
        structlog.contextvars.bind_contextvars(run_id=request.run_id)
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
                return stores

            result = collect(
                request,
                state=state,
                catalog=catalog,
                plans_dir=settings.data_dir / "plans",
                extract=_extractor(request.machine, request.now),
                extract_session=_session_extractor(request.machine, request.now),
                filter_item=filter_item,
                stores_for=stores_for,
            )
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
            structlog.contextvars.unbind_contextvars("run_id")
            if sql is not None:
                sql.close()


def _project_folders(state: StateDB) -> dict[str, Path]:
    """Project path → Claude Code transcript folder, from the sessions that recorded them."""
    folders: dict[str, Path] = {}
    for info in state.load_session_cache().values():
        if info.tool == "claude-code" and info.project:
            folders.setdefault(info.project, Path(info.path).parent)
    return folders
