"""The read path: every configured store opened for reading, searched, listed, looked up.

``open_read_path`` finds what there is to read (memory folders through
``folders.memory_folders``; every other store of ``dreamd.stores.registry``
whose table names one, created by nobody: a store never written is
skipped). ``search`` asks each store for its candidates, scores them all with
one BM25 (``bm25``) so that hits of different stores compare, folds the
same item held by several stores into one hit (``Hit.also``), and returns the
best. A store that fails — unreadable folder, server gone, a bug — is
reported in ``Outcome.failures`` and logged; the others still answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import msgspec

from dreamd.agentdirs import claude_dir
from dreamd.config import Settings
from dreamd.errors import DreamdError
from dreamd.logs import get_logger
from dreamd.search import bm25
from dreamd.search.folders import FolderSearch, MemoryFolder, memory_folders
from dreamd.search.model import Filter, Hit, Memory, Outcome, Searchable, StoreFailure, under
from dreamd.search.query import parse_query, words
from dreamd.search.sqlrows import SqlSearch
from dreamd.search.textfiles import GraphSearch, MemoryMdSearch
from dreamd.statedb import StateDB
from dreamd.stores.claude_memory import ClaudeMemoryStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore
from dreamd.stores.registry import STORES, StoreContext
from dreamd.stores.sql import SqlStore

__all__ = [
    "CANDIDATES_PER_HIT",
    "ReadPath",
    "get_memory",
    "open_read_path",
    "project_folders",
    "recent",
    "search",
]

log = get_logger("dreamd.search")
T = TypeVar("T")

#: Each store hands over this many candidates per hit asked for, for the common ranking.
CANDIDATES_PER_HIT = 4


@dataclass
class ReadPath:
    """The stores one configuration reads, and those that could not even be opened."""

    stores: list[Searchable] = field(default_factory=list)
    failures: list[StoreFailure] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # store kinds search does not read yet

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(store.name for store in self.stores)

    def close(self) -> None:
        """Release what the stores hold open (SQL connections)."""
        for store in self.stores:
            if isinstance(store, SqlSearch):
                store.store.close()


def project_folders(state: StateDB | None) -> dict[Path, list[str]]:
    """Claude Code transcript folder → the projects its sessions recorded (session cache)."""
    found: dict[Path, list[str]] = {}
    if state is None:
        return found
    for info in state.load_session_cache().values():
        if info.tool == "claude-code" and info.project:
            found.setdefault(Path(info.path).parent, []).append(info.project)
    return found


def open_read_path(
    settings: Settings,
    env: Mapping[str, str],
    home: Path,
    *,
    state: StateDB | None = None,
    project: str | None = None,
) -> ReadPath:
    """Every store the configuration names, opened for reading (nothing is created)."""
    read = ReadPath()
    transcripts = project_folders(state)
    known = {p: folder for folder, ps in transcripts.items() for p in ps}
    context = msgspec.structs.replace(settings.store_context(env, home), claude_projects=known)
    also = _project_folder(settings, context, project)
    roots = [Path(root).expanduser() for root in settings.config.dream.roots]
    for folder in memory_folders(claude_dir(env, home), transcripts, roots, also):
        if project is None or folder.project is None or under(folder.project, project):
            read.stores.append(FolderSearch(folder))
    for name, spec in STORES.items():
        if spec.per_project:
            continue
        try:
            store = spec.adapter(settings.config.stores[name], context, create=False)
        except (DreamdError, OSError) as error:
            read.failures.append(StoreFailure(name, str(error)))
            continue
        if store is None:
            continue
        searchable = _searchable(store)
        if searchable is None:
            log.info("search.store.skipped", store=name, reason="no search adapter for it yet")
            read.skipped.append(name)
        else:
            read.stores.append(searchable)
    return read


def _project_folder(
    settings: Settings, context: StoreContext, project: str | None
) -> list[MemoryFolder]:
    """The memory folder Claude Code uses for ``project`` (the memory store's own answer)."""
    if project is None:
        return []
    spec = STORES.get("claude-memory")
    if spec is None:
        return []
    store = spec.adapter(settings.config.stores[spec.name], context, project, create=False)
    return [MemoryFolder(store.folder, project)] if isinstance(store, ClaudeMemoryStore) else []


def _searchable(store: object) -> Searchable | None:
    if isinstance(store, SqlStore):
        return SqlSearch(store)
    if isinstance(store, MemoryMdStore):
        return MemoryMdSearch(store)
    if isinstance(store, GraphStore):
        return GraphSearch(store)
    return None


def _ask(
    read: ReadPath, ask: Callable[[Searchable], T], failures: list[StoreFailure]
) -> Iterable[tuple[Searchable, T]]:
    """``ask(store)`` of every store; a store that fails is recorded and skipped."""
    for store in read.stores:
        try:
            yield store, ask(store)
        except DreamdError as error:
            log.warning("search.store.failed", store=store.name, error=str(error))
            failures.append(StoreFailure(store.name, str(error)))
        except Exception as error:  # a bug in one adapter must not silence the others
            log.exception("search.store.crashed", store=store.name)
            failures.append(StoreFailure(store.name, f"{type(error).__name__}: {error}"))


def search(read: ReadPath, text: str, where: Filter, *, limit: int = 10) -> Outcome:
    """The best ``limit`` memories for the query ``text`` across every store."""
    query = parse_query(text)
    failures = list(read.failures)
    if query.empty:
        return Outcome((), tuple(failures), read.names)
    wanted = limit * CANDIDATES_PER_HIT
    found = [
        memory
        for _store, memories in _ask(read, lambda s: s.candidates(query, where, wanted), failures)
        for memory in memories
    ]
    documents = [bm25.document(words(m.title), words(f"{m.description}\n{m.body}")) for m in found]
    scored = sorted(
        zip(found, bm25.scores(documents, query.words), strict=True),
        key=lambda pair: (-pair[1], pair[0].status != "accepted", pair[0].id),
    )
    return Outcome(tuple(_fold(scored)[:limit]), tuple(failures), read.names)


def _fold(scored: Sequence[tuple[Memory, float]]) -> list[Hit]:
    """One hit per item: the same source, title and body in several stores is one hit."""
    hits: dict[tuple[str, ...], Hit] = {}
    for memory, score in scored:
        source = memory.source
        key = (source, memory.title, memory.body) if source is not None else (memory.id,)
        first = hits.get(key)
        if first is None:
            hits[key] = Hit(memory, score)
        else:
            hits[key] = replace(first, also=(*first.also, memory.id))
    return list(hits.values())


def get_memory(read: ReadPath, id: str) -> tuple[Memory | None, tuple[StoreFailure, ...]]:
    """The memory with this id (from any store), and the stores that failed to answer."""
    failures: list[StoreFailure] = []
    for _store, memory in _ask(read, lambda s: s.get(id), failures):
        if memory is not None:
            return memory, tuple(failures)
    return None, tuple(failures)


def recent(read: ReadPath, where: Filter, *, limit: int = 10) -> Outcome:
    """The ``limit`` memories changed last across every store, newest first."""
    failures = list(read.failures)
    found = [m for _s, ms in _ask(read, lambda s: s.recent(where, limit), failures) for m in ms]
    oldest = datetime.min.replace(tzinfo=UTC)
    found.sort(key=lambda m: (m.changed or oldest, m.id), reverse=True)
    hits = _fold([(memory, 0.0) for memory in found])
    return Outcome(tuple(hits[:limit]), tuple(failures), read.names)


def absolute_project(value: str) -> str:
    """A ``--project`` value as the absolute path items record (``~`` expanded)."""
    return str(Path(value).expanduser().absolute())
