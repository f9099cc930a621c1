"""What each MCP tool does, as plain functions over one configuration (no MCP SDK here).

``Tools`` answers the four tools ``dreamd mcp`` offers with JSON-ready
dicts; ``server`` turns them into MCP tools. Every call opens the stores
afresh (a folder created or a row planted since the last call is seen), so a
long-running server never serves a stale view, and closes them again.
Failures of single stores are part of the answer (``failures``); a refusal
(remembering switched off, a secret in the text, a bad argument) raises
``Refused``, which the server reports as a tool error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dreamd.config import Settings
from dreamd.errors import Refused
from dreamd.mcpserver.remember import context_for, remember, remembered_item
from dreamd.search import Filter, Outcome, get_memory, open_read_path, recent, search
from dreamd.search.engine import absolute_project, project_folders
from dreamd.statedb import StateDB

__all__ = ["MAX_LIMIT", "Tools"]

#: The most hits or memories one call returns.
MAX_LIMIT = 50


def _failures(outcome: Outcome) -> list[dict[str, str]]:
    return [{"store": f.store, "reason": f.reason} for f in outcome.failures]


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise Refused(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    return limit


@dataclass
class Tools:
    """The tools over one configuration; ``cwd`` is the project a call names by default."""

    settings: Settings
    state: StateDB
    env: Mapping[str, str]
    home: Path
    cwd: Path

    def _project(self, project: str | None) -> str:
        return absolute_project(project) if project else str(self.cwd)

    def search(
        self, query: str, project: str | None, kind: str | None, limit: int
    ) -> dict[str, Any]:
        """``search_memories``: the best hits across every store."""
        wanted = absolute_project(project) if project else None
        read = open_read_path(self.settings, self.env, self.home, state=self.state, project=wanted)
        try:
            found = search(read, query, Filter(wanted, kind), limit=_limit(limit))
        finally:
            read.close()
        return {
            "query": query,
            "hits": [hit.to_json() for hit in found.hits],
            "failures": _failures(found),
        }

    def get(self, id: str) -> dict[str, Any]:
        """``get_memory``: one memory, its text and its provenance."""
        read = open_read_path(self.settings, self.env, self.home, state=self.state)
        try:
            memory, failures = get_memory(read, id)
        finally:
            read.close()
        if memory is None:
            stores = "; ".join(f"{f.store}: {f.reason}" for f in failures)
            raise Refused(f"no memory has the id {id!r}" + (f" ({stores})" if stores else ""))
        return memory.to_json(full=True)

    def recent(self, project: str | None, limit: int) -> dict[str, Any]:
        """``recent_memories``: the memories of a project changed last."""
        wanted = self._project(project)
        read = open_read_path(self.settings, self.env, self.home, state=self.state, project=wanted)
        try:
            found = recent(read, Filter(wanted), limit=_limit(limit))
        finally:
            read.close()
        return {
            "project": wanted,
            "memories": [hit.memory.to_json() for hit in found.hits],
            "failures": _failures(found),
        }

    def remember(
        self,
        text: str,
        kind: str,
        title: str | None,
        category: str | None,
        project: str | None,
        session: str | None,
    ) -> dict[str, Any]:
        """``remember``: plant one item through the collector's plan (see ``remember``)."""
        if not self.settings.config.mcp.allow_remember:
            raise Refused("remembering is off: set [mcp] allow_remember = true in the config")
        wanted = self._project(project)
        item = remembered_item(
            text,
            kind=kind,
            machine=self.settings.machine,
            today=datetime.now(UTC),
            title=title,
            category=category,
            project=wanted,
            session=session,
        )
        known = {p: folder for folder, ps in project_folders(self.state).items() for p in ps}
        context = context_for(self.settings, self.env, self.home, known)
        window = f"mcp:{item.source}:{item.quotes[0].message_id}"
        done = remember(self.settings, context, item, window=window)
        return {
            "remembered": bool(done.planted),
            "already_held": not done.planted,
            "title": done.item.name,
            "kind": done.item.type,
            "source": done.item.source,
            "planted": [{"store": store, "location": where} for store, where in done.planted],
            "note": "new items wait for the next dream to check and accept them",
        }
