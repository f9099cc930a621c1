"""``dreamd search``: one search over every configured store, as text or one JSON document.

Exit code 0 when at least one store answered (a store that failed is named on
stderr and in ``failures``), 1 when every store failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dreamd.config import Settings
from dreamd.search.engine import absolute_project, open_read_path, search
from dreamd.search.model import Filter, Hit, Outcome
from dreamd.statedb import StateDB

__all__ = ["hit_lines", "outcome_json", "run_search"]

#: Characters of a memory's text shown under its title.
EXCERPT_CHARS = 160


def run_search(
    settings: Settings,
    state: StateDB,
    env: Mapping[str, str],
    home: Path,
    *,
    query: str,
    project: str | None,
    kind: str | None,
    limit: int,
) -> tuple[Outcome, int]:
    """Search every store; the outcome and the exit code."""
    project = absolute_project(project) if project else None
    read = open_read_path(settings, env, home, state=state, project=project)
    try:
        outcome = search(read, query, Filter(project=project, kind=kind), limit=limit)
    finally:
        read.close()
    failed = {failure.store for failure in outcome.failures}
    answered = [name for name in outcome.stores if name not in failed]
    return outcome, 1 if failed and not answered else 0


#: The version of the document (every ``--json`` document's: ``dreamd.runlog.SCHEMA``).
SCHEMA = 1


def outcome_json(query: str, outcome: Outcome) -> dict[str, Any]:
    """The search as one JSON document."""
    return {
        "schema": SCHEMA,
        "query": query,
        "hits": [hit.to_json() for hit in outcome.hits],
        "failures": [{"store": f.store, "reason": f.reason} for f in outcome.failures],
        "stores": list(outcome.stores),
    }


def _excerpt(hit: Hit) -> str:
    memory = hit.memory
    text = " ".join((memory.description or memory.body).split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"


def hit_lines(outcome: Outcome) -> str:
    """The hits as text: title, kind and status; excerpt; provenance; where it is held."""
    if not outcome.hits:
        return f"no memory matches (searched {len(outcome.stores)} store(s))\n"
    lines: list[str] = []
    for number, hit in enumerate(outcome.hits, start=1):
        memory = hit.memory
        kind = "/".join(k for k in (memory.type, memory.category) if k) or "memory"
        lines.append(f"{number}. {memory.title}  [{kind}, {memory.status}]")
        if excerpt := _excerpt(hit):
            lines.append(f"   {excerpt}")
        facts = [
            f"project {memory.project}" if memory.project else "",
            f"session {memory.session}" if memory.session else "",
            f"collected {memory.collected.isoformat()}" if memory.collected else "",
        ]
        if any(facts):
            lines.append("   " + " · ".join(f for f in facts if f))
        lines.append(f"   {memory.store} {memory.location}")
        lines.append(f"   id {memory.id}")
    return "\n".join(lines) + "\n"
