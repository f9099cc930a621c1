"""The validate gate and the dream for the knowledge-graph JSONL store (issue 6 item 3).

Gate (``gate_pending``, pure), each pending line in order, as the other gates:

- *rejected* (copied into ``.trash/<date>/<pending file>`` with its reason)
  when ``rejection`` refuses the item (no valid item, secrets, quotes,
  provenance, stale at birth);
- *merged* into the entity dreamd wrote under the same name (the body added
  as an observation unless one already says it), or into an entity dreamd
  wrote that already states the body (``near_duplicate``, seed 000's
  0.6); either way the entity gains the item's provenance observation, so
  its sources are kept. When only an entity dreamd did not write states it,
  that line is left as it is: the item is merged, its sources kept in the
  ledger;
- *accepted* otherwise: a new entity named after the item (a name another
  entity holds gets `` (2)``, `` (3)`` …: the server's names are unique),
  ``entityType`` its category, observations its body and its provenance.

Accepted and merged lines move into the ledger (``<stem>.sources<suffix>``).

Dream (``tidy``, pure), on entities dreamd owns only (it rewrites no other
line): duplicate observations in one entity collapse into the first (equal
once folded, or ``COLLAPSE_OVERLAP``), the others moved to the trash record;
an entity left with no observation but its provenance, or whose references
are all missing from its project (``judge``: FULLY_STALE after the prune
guards, its age its newest collection day) is moved to the trash record —
flagged instead while a relation names it. Entities of others without
observations are flagged.

``dream_graph`` is the I/O edge, run by ``storegate.run_gate``: under the
store's lock, through the journaling ``Executor``. The MCP server takes no
lock, so the graph file is read once and written only if it still holds
those bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from dreamd.dream.execute import Executor
from dreamd.dream.folder.refs import check_refs
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import judge
from dreamd.dream.gates.flow import (
    Decision,
    StoreFiles,
    StoreRun,
    TrashFile,
    append_to,
    ledger_additions,
    run_gate,
)
from dreamd.dream.gates.rules import (
    COLLAPSE_OVERLAP,
    as_memory,
    missing_refs,
    near_duplicate,
    rejection,
)
from dreamd.fs import read_if_present
from dreamd.stores.graph_jsonl import (
    GraphLine,
    GraphStore,
    Pending,
    join_lines,
    parse_graph,
    parse_line,
    parse_pending,
    parse_provenance,
    render_entity,
    render_provenance,
    sidecar_name,
    split_lines,
    with_observations,
)

__all__ = [
    "COLLAPSE_OVERLAP",
    "GraphDecision",
    "Removal",
    "body_observations",
    "dream_graph",
    "duplicate_observations",
    "gate_pending",
    "stale_reason",
    "tidy",
    "unique_name",
]

#: How many `` (N)`` suffixes to try for a new entity's name.
MAX_NAME_SUFFIX = 10_000


class GraphDecision(Decision[Pending]):
    """What the gate decided for one pending line (``target``: the entity it became or joined)."""

    __slots__ = ()


def _report_line(decision: GraphDecision, file: str) -> str:
    """The decision on a line of the pending ``file`` as one report line."""
    where = f"{file}:{decision.held.op_key or 'an unreadable line'}"
    placed = "as" if decision.verdict == "accept" else "into"
    return decision.line(where, f"{placed} entity '{decision.target}'")


@dataclass(frozen=True, slots=True)
class Removal:
    """What the dream takes out of the graph: an observation of an entity, or a whole line."""

    entity: str
    reason: str
    observation: str | None = None
    line: bytes | None = None

    def text(self, file: str) -> str:
        if self.observation is not None:
            return f"removed an observation of '{self.entity}' from {file}: {self.reason}"
        return f"moved entity '{self.entity}' out of {file}: {self.reason}"


def body_observations(line: GraphLine) -> list[str]:
    """An entity's observations that are not dreamd's provenance."""
    return [text for text in line.observations if parse_provenance(text) is None]


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, else ``name (2)``, ``name (3)`` … the first no entity holds."""
    for suffix in range(1, MAX_NAME_SUFFIX + 1):
        candidate = name if suffix == 1 else f"{name} ({suffix})"
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free entity name for {name!r}")


def _twin(lines: Sequence[GraphLine], body: str) -> tuple[int, float] | None:
    """The entity (index) with an observation saying ``body``: best overlap, owned first."""
    best: tuple[bool, float, int] | None = None
    for index, line in enumerate(lines):
        if line.kind != "entity":
            continue
        for observation in body_observations(line):
            ratio = near_duplicate(body, observation)
            if ratio is not None and (best is None or (line.owned, ratio) > best[:2]):
                best = (line.owned, ratio, index)
    return None if best is None else (best[2], best[1])


def _decide(
    pending: Pending,
    lines: list[GraphLine],
    *,
    now: datetime,
    views: Mapping[str, RepoView],
    where: Path,
) -> GraphDecision:
    """One pending line against the graph as the run left it (``lines``, updated here)."""
    done = next((x for x in lines if x.owned and set(pending.keys) & set(x.op_keys)), None)
    if pending.keys and done is not None:
        return GraphDecision(pending, "accept", "already in the graph", done.name)
    item = pending.item
    reason = rejection(item, now=now, views=views, where=where)
    if reason is not None:
        return GraphDecision(pending, "reject", reason)
    assert item is not None
    provenance = render_provenance(pending.keys, item)
    named = item.name.casefold()
    same = next((i for i, x in enumerate(lines) if x.owned and x.name.casefold() == named), None)
    if same is not None:
        line = lines[same]
        said = any(near_duplicate(item.body, text) for text in body_observations(line))
        added = [provenance] if said else [item.body, provenance]
        lines[same] = parse_line(with_observations(line, [*line.observations, *added]))
        return GraphDecision(pending, "merge", "same name; sources kept", line.name)
    twin = _twin(lines, item.body)
    if twin is not None:
        index, ratio = twin
        line = lines[index]
        if not line.owned:
            why = f"already stated there (overlap {ratio:.2f}); not dreamd's line: left as is"
            return GraphDecision(pending, "merge", why + ", sources kept in the ledger", line.name)
        lines[index] = parse_line(with_observations(line, [*line.observations, provenance]))
        return GraphDecision(
            pending, "merge", f"says the same (overlap {ratio:.2f}); sources kept", line.name
        )
    name = unique_name(item.name, {x.name for x in lines if x.kind == "entity"})
    lines.append(parse_line(render_entity(name, item.category, [item.body, provenance])))
    return GraphDecision(
        pending, "accept", f"provenance {item.source.removeprefix('source:')}", name
    )


def gate_pending(
    pending: Sequence[Pending],
    graph: Sequence[GraphLine],
    *,
    now: datetime,
    views: Mapping[str, RepoView],
    where: Path,
) -> tuple[list[GraphDecision], list[GraphLine]]:
    """Decide each pending line in order; returns the decisions and the graph's new lines.

    Lines the gate does not touch come back as they were, byte for byte; new
    entities are added at the end.
    """
    lines = list(graph)
    decisions = [_decide(p, lines, now=now, views=views, where=where) for p in pending]
    return decisions, lines


# --- the dream --------------------------------------------------------------------------------


def duplicate_observations(line: GraphLine) -> list[tuple[int, str]]:
    """(index, reason) of each observation that repeats an earlier one of the entity."""
    found: list[tuple[int, str]] = []
    kept: list[tuple[str, bool]] = []
    for index, text in enumerate(line.observations):
        is_provenance = parse_provenance(text) is not None
        for earlier, earlier_provenance in kept:
            if is_provenance or earlier_provenance:
                if text == earlier:
                    found.append((index, "repeats a provenance observation"))
                    break
                continue
            ratio = near_duplicate(text, earlier, threshold=COLLAPSE_OVERLAP)
            if ratio is not None:
                found.append((index, f"duplicate observation (overlap {ratio:.2f})"))
                break
        else:
            kept.append((text, is_provenance))
    return found


def _collected(text: str) -> datetime:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = date(1970, 1, 1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def stale_reason(
    line: GraphLine, view: RepoView | None, *, now: datetime, where: Path
) -> str | None:
    """Why an owned entity no longer belongs in the graph, or None (guards applied)."""
    body = body_observations(line)
    if not body:
        return "no observations left but its provenance"
    provenance = line.provenance
    age = max(_collected(p.collected) for p in provenance)
    memory = as_memory(where, line.name, "\n".join(body), kind=provenance[0].type, mtime=age)
    check = check_refs(memory, view)
    verdict = judge(memory, check, now=now, terms=frozenset(), read_paths=frozenset())
    if verdict.classification != "FULLY_STALE":
        return None
    return f"stale: every reference is missing from its project ({missing_refs(check)})"


def tidy(
    lines: Sequence[GraphLine],
    *,
    views: Mapping[str, RepoView],
    now: datetime,
    where: Path,
    fallback: RepoView | None = None,
) -> tuple[list[GraphLine], list[Removal], list[str]]:
    """The graph with duplicate observations collapsed and stale owned entities moved out.

    Returns the lines kept (untouched lines as they were), what was taken
    out, and flags for the report.
    """
    related = {end for x in lines if x.relation is not None for end in x.relation[:2]}
    kept: list[GraphLine] = []
    removals: list[Removal] = []
    flags: list[str] = []
    for line in lines:
        if not line.owned:
            if line.kind == "entity" and not line.observations:
                flags.append(f"entity '{line.name}' has no observations (not dreamd's: left as is)")
            kept.append(line)
            continue
        project = next((p.project for p in line.provenance if p.project), None)
        view = views.get(project, fallback) if project else fallback
        reason = stale_reason(line, view, now=now, where=where)
        if reason is not None and line.name in related:
            flags.append(f"entity '{line.name}': {reason}; kept, a relation names it")
        elif reason is not None:
            removals.append(Removal(line.name, reason, line=line.raw))
            continue
        duplicates = dict(duplicate_observations(line))
        if duplicates:
            observations = [t for i, t in enumerate(line.observations) if i not in duplicates]
            removals += [
                Removal(line.name, why, line.observations[i]) for i, why in duplicates.items()
            ]
            line = parse_line(with_observations(line, observations))
        kept.append(line)
    return kept, removals, flags


# --- I/O edge ---------------------------------------------------------------------------------


def _record(run_id: str, reason: str, **fields: str) -> bytes:
    value = {"run": run_id, "reason": reason, **fields}
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _read(path: Path) -> bytes | None:
    return read_if_present(path)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class _GraphPlan:
    """The gate's and the dream's decisions on one graph, and the bytes they were made on."""

    store: GraphStore
    graph_data: bytes
    pending_data: bytes
    decisions: list[GraphDecision]
    removals: list[Removal]
    lines: list[GraphLine]
    changes: list[str]
    flags: list[str]

    def conflict(self) -> str | None:
        if (_read(self.store.path) or b"") == self.graph_data:
            return None
        return f"{self.store.path} changed while the dream read it: left for later"

    def trash(self, run_id: str) -> list[TrashFile]:
        rejected = b"".join(
            _record(run_id, d.reason, line=_text(d.held.raw))
            for d in self.decisions
            if d.verdict == "reject"
        )
        removed = b"".join(
            _record(run_id, r.reason, entity=r.entity, observation=r.observation)
            if r.observation is not None
            else _record(run_id, r.reason, entity=r.entity, line=_text(r.line or b""))
            for r in self.removals
        )
        store = self.store
        return [
            TrashFile(store.pending_name, rejected),
            TrashFile(sidecar_name(store.graph_name, "removed"), removed),
        ]

    def commit(self, executor: Executor) -> str | None:
        store = self.store
        ledger = _read(store.ledger_path) or b""
        known = {key for raw in split_lines(ledger) for key in parse_pending(raw).keys}
        fresh = [d.held.raw for d in ledger_additions(self.decisions, known)]
        append_to(executor, store.ledger_path, b"", join_lines(fresh))
        new_graph = join_lines([line.raw for line in self.lines])
        if new_graph != self.graph_data:
            if (_read(store.path) or b"") != self.graph_data:
                return f"{store.path} changed during the dream: left for later"
            executor.write(store.path, new_graph)
        if self.pending_data:
            executor.write(store.pending_path, b"")
        return None


def _plan(
    store: GraphStore, views: Mapping[str, RepoView], fallback: RepoView | None, now: datetime
) -> _GraphPlan:
    """Read the graph and its pending lines (under the lock) and decide."""
    graph_data = _read(store.path) or b""
    pending_data = _read(store.pending_path) or b""
    pending = [parse_pending(raw) for raw in split_lines(pending_data)]
    decisions, gated = gate_pending(
        pending, parse_graph(graph_data), now=now, views=views, where=store.path
    )
    lines, removals, flags = tidy(gated, views=views, now=now, where=store.path, fallback=fallback)
    changes = [_report_line(d, store.pending_name) for d in decisions]
    changes += [removal.text(store.graph_name) for removal in removals]
    return _GraphPlan(store, graph_data, pending_data, decisions, removals, lines, changes, flags)


def _projects(store: GraphStore) -> list[str | None]:
    """The projects of the pending items and of dreamd's entities (read before the lock)."""
    before = [parse_pending(raw) for raw in split_lines(_read(store.pending_path) or b"")]
    owned = [x for x in parse_graph(_read(store.path) or b"") if x.owned]
    return [p.item.project for p in before if p.item] + [
        p.project for x in owned for p in x.provenance
    ]


def dream_graph(
    store: GraphStore,
    *,
    run_dir: Path,
    now: datetime,
    dry_run: bool,
    repo: Path | None = None,
) -> StoreRun:
    """Gate the pending lines and tidy the graph; returns the report lines."""
    files = StoreFiles("graph", store.folder, store.path, store.pending_path, store.ledger_path)
    return run_gate(
        files,
        locked=store.locked,
        projects=lambda: _projects(store),
        plan=lambda views, fallback: _plan(store, views, fallback, now),
        repo=repo,
        run_dir=run_dir,
        now=now,
        dry_run=dry_run,
    )
