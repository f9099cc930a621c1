"""The catalog of sessions on this machine: discovery, cache, reads.

``scan`` asks every enabled reader to discover its sessions (cheap), reuses
the cached metadata of every session whose file version is unchanged, and
fully reads only the new or changed ones, saving their metadata as it goes
so an interrupted first scan keeps its progress. Unreadable sources come
back as unresolved entries and are not cached: they are retried next time.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from dreamd.errors import NotFound, SourceError
from dreamd.gcpause import collector_paused
from dreamd.logs import get_logger
from dreamd.readers import (
    READERS,
    Conversation,
    Digest,
    ProjectRoots,
    Reader,
    SessionRef,
    Unresolved,
)
from dreamd.readpool import summaries
from dreamd.sessioninfo import SessionInfo, from_unresolved, summarize, summarize_digest
from dreamd.statedb import CacheKey, StateDB

__all__ = [
    "Catalog",
    "Progress",
    "ScanResult",
    "discover_all",
    "read_safely",
    "summarize_safely",
]

log = get_logger("dreamd.catalog")

#: Called with (sessions read so far, sessions to read) during a scan.
Progress = Callable[[int, int], None]

_SAVE_EVERY = 200


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Every session found, and how many needed a full read this time."""

    sessions: list[SessionInfo]
    read: int
    cached: int
    reused: tuple[str, ...] = ()  # tools not discovered again: nothing changed there


def read_safely(reader: Reader, ref: SessionRef) -> Conversation | Unresolved:
    """``reader.read(ref)``; a reader bug becomes an ``Unresolved`` and a logged error.

    The cycle collector is off during the read: a read makes hundreds of
    thousands of short-lived, acyclic objects, and collecting them cost about
    30 % of reading a large transcript (anything cyclic is collected after).
    """
    with collector_paused():
        return _read_or_unresolved(reader.read, ref)


def summarize_safely(reader: Reader, ref: SessionRef) -> SessionInfo:
    """The metadata of one session, read as ``read_safely`` reads it; from the reader's
    digest when it offers one (``Digests``: the same metadata, no messages built)."""
    # ``getattr``, not ``isinstance(reader, Digests)``: a runtime protocol check per session
    # would cost more than the digest saves.
    read_digest: Callable[[SessionRef], Digest | Unresolved] | None
    read_digest = getattr(reader, "read_digest", None)
    with collector_paused():
        if read_digest is not None:
            digest = _read_or_unresolved(read_digest, ref)
            if isinstance(digest, Unresolved):
                return from_unresolved(digest)
            return summarize_digest(digest)
        result = _read_or_unresolved(reader.read, ref)
    return from_unresolved(result) if isinstance(result, Unresolved) else summarize(result)


_Read = TypeVar("_Read", Conversation, Digest)


def _read_or_unresolved(
    read: Callable[[SessionRef], _Read | Unresolved], ref: SessionRef
) -> _Read | Unresolved:
    try:
        return read(ref)
    except Exception as error:
        log.exception("reader.failed", tool=ref.tool, path=str(ref.path), session=ref.session_id)
        return Unresolved(
            ref.tool,
            ref.path,
            f"reader error: {error.__class__.__name__}",
            session_id=ref.session_id,
            file_version=ref.file_version,
            locator=ref.locator,
        )


def discover_all(reader: Reader, roots: Collection[Path]) -> Iterator[SessionRef | Unresolved]:
    """Every session ``reader`` finds under ``roots``; a failing root becomes unresolved."""
    for root in roots:
        try:
            yield from reader.discover(root)
        except Exception as error:
            log.exception("reader.discover_failed", tool=reader.tool, root=str(root))
            yield Unresolved(reader.tool, root, _discovery_failed(error))


def _discovery_failed(error: Exception) -> str:
    return f"discovery failed: {error.__class__.__name__}"


class Catalog:
    """Sessions of the enabled sources, backed by the state database's cache.

    The cache is loaded from the database on the first scan and then kept in
    memory, so that the service's periodic rescans cost one ``stat`` per file
    and a dictionary lookup; the database is written only for what changed.
    """

    def __init__(
        self,
        state: StateDB,
        source_roots: Mapping[str, Collection[Path]],
        readers: Mapping[str, Reader] = READERS,
        *,
        workers: int | None = None,
        share_strings: bool = False,
    ) -> None:
        self.state = state
        self.source_roots = source_roots
        self.readers = readers
        #: Whether a session loaded from the state DB takes the walk's strings and file
        #: version in place of its own equal copies when its file is found unchanged (the
        #: service, which keeps both for days; a one-shot command would only pay for it).
        self.share_strings = share_strings
        #: Worker processes a scan reads with (``dreamd.readpool.summaries``): None picks
        #: by the batch, the cores and the threads; 0 reads every session in this process.
        self.workers = workers
        self._index: dict[CacheKey, SessionInfo] | None = None
        self._last: dict[str, list[SessionInfo]] = {}
        #: The refs the last scan of each tool found: what ``read`` tries first (filed by
        #: session id and alias on the first read), so reading a selected session does not
        #: discover every session again.
        self._found: dict[str, list[SessionRef]] = {}
        self._refs: dict[str, dict[str, list[SessionRef]]] = {}
        #: Tools known to be unchanged since their last scan (the service's watcher sets
        #: this); their sessions are reused instead of discovered again.
        self.unchanged: Callable[[], Collection[str]] = tuple
        #: The projects the cache names, sorted: kept while no scan reads a session.
        self._projects: list[str] | None = None

    def cached(self) -> list[SessionInfo]:
        """Every session the cache holds (loaded from the state DB once, then kept)."""
        if self._index is None:
            self._index = self.state.load_session_cache()
        return list(self._index.values())

    def tools(self, only: str | None = None) -> list[str]:
        """Enabled tools, or just ``only`` if it is enabled."""
        return [tool for tool in self.source_roots if only is None or tool == only]

    def scan(
        self,
        only: str | None = None,
        *,
        now: datetime | None = None,
        progress: Progress | None = None,
    ) -> ScanResult:
        """Discover, reuse cached metadata of unchanged sessions, read the rest.

        Tools ``unchanged()`` names that were scanned before are not discovered
        again: their last result is reused.
        """
        now = now or datetime.now(UTC)
        if self._index is None:
            self._index = self.state.load_session_cache()
        cache = self._index
        sessions: list[SessionInfo] = []
        to_read: list[SessionRef] = []
        seen: dict[CacheKey, SessionRef] = {}
        unchanged = set(self.unchanged())
        reused = tuple(t for t in self.tools(only) if t in unchanged and t in self._last)
        tools = [t for t in self.tools(only) if t not in reused]
        for tool in tools:
            self._found[tool] = []
            self._refs.pop(tool, None)
        for tool in tools:
            self._discover(self.readers[tool], self.source_roots[tool], sessions, to_read, seen)
        fresh = self._read_all(to_read, now, progress)
        # Tools that keep sessions inside project folders (Aider) are also looked
        # for in every project the other tools reported, once those are known.
        late: list[SessionRef] = []
        rooted = [r for r in map(self.readers.__getitem__, tools) if isinstance(r, ProjectRoots)]
        if rooted:
            if fresh or self._projects is None:
                self._projects = sorted({i.project for i in (*cache.values(), *fresh) if i.project})
            for reader in rooted:
                roots = reader.project_roots(self._projects)
                self._discover(reader, roots, sessions, late, seen)
        fresh += self._read_all(late, now, progress)
        sessions.extend(fresh)
        for info in fresh:
            if info.unresolved is None:
                cache[(info.tool, info.path, info.locator)] = info
        stale = [key for key in cache.keys() - seen.keys() if key[0] in tools]
        if fresh or stale:
            self._projects = None  # the cache changed: its projects are listed again
        if stale:
            self.state.forget_sessions(stale)
            for key in stale:
                del cache[key]
        by_tool: dict[str, list[SessionInfo]] = defaultdict(list)
        for info in sessions:
            by_tool[info.tool].append(info)
        for tool in tools:
            self._last[tool] = by_tool.get(tool, [])
        for tool in reused:
            sessions.extend(self._last[tool])
        read = len(to_read) + len(late)
        log.info("catalog.scanned", tools=tools, reused=reused, read=read)
        return ScanResult(sessions, read=read, cached=len(sessions) - read, reused=reused)

    def _discover(
        self,
        reader: Reader,
        roots: Collection[Path],
        sessions: list[SessionInfo],
        to_read: list[SessionRef],
        seen: dict[CacheKey, SessionRef],
    ) -> None:
        """``discover_all`` matched as it goes, without its generator between the reader
        and ``_match`` (rescans pass every file through here)."""
        for root in roots:
            try:
                self._match(reader.tool, reader.discover(root), sessions, to_read, seen)
            except Exception as error:
                log.exception("reader.discover_failed", tool=reader.tool, root=str(root))
                failed = Unresolved(reader.tool, root, _discovery_failed(error))
                sessions.append(from_unresolved(failed))

    def _match(
        self,
        tool: str,
        found_items: Iterator[SessionRef | Unresolved],
        sessions: list[SessionInfo],
        to_read: list[SessionRef],
        seen: dict[CacheKey, SessionRef],
    ) -> None:
        """Sort what ``tool``'s reader found into cached (unchanged) and to be read (new or
        changed); ``seen`` collects the keys found, first finding kept."""
        cache = self._index or {}
        share = self.share_strings
        # Once per file on every rescan: kept lean, the bound methods looked up once.
        lookup, keep, note = cache.get, sessions.append, seen.setdefault
        remember = self._found.setdefault(tool, []).append
        for found in found_items:
            if isinstance(found, Unresolved):
                keep(from_unresolved(found))
                continue
            key = (found.tool, found.location, found.locator)
            if note(key, found) is not found:
                continue  # found twice (overlapping roots): the first finding counts
            remember(found)
            cached = lookup(key)
            if cached is not None and (
                cached.file_version == found.file_version or _still_valid(cached, found)
            ):
                if share and cached.path is not found.location:
                    cached = cache[key] = _sharing(cached, found)
                keep(cached)
            else:
                to_read.append(found)

    def _read_all(
        self, refs: list[SessionRef], now: datetime, progress: Progress | None
    ) -> list[SessionInfo]:
        infos: list[SessionInfo] = []
        pending: list[SessionInfo] = []
        read = summaries(self.readers, refs, summarize_safely, workers=self.workers)
        for done, info in enumerate(read, start=1):
            infos.append(info)
            if info.unresolved is None:
                pending.append(info)
            if len(pending) >= _SAVE_EVERY:
                self.state.save_sessions(pending, now=now)
                pending.clear()
            if progress is not None:
                progress(done, len(refs))
        self.state.save_sessions(pending, now=now)
        return infos

    def _filed(self, tool: str) -> dict[str, list[SessionRef]]:
        """The last scan's refs of ``tool`` by session id and alias (filed once per scan)."""
        filed = self._refs.get(tool)
        if filed is None:
            filed = self._refs[tool] = _file_by_name(self._found.get(tool, []))
        return filed

    def read(self, tool: str, session_id: str) -> Conversation:
        """The cleaned conversation of ``tool:session_id``; raises ``NotFound``.

        A session is found by its id or by one of its aliases (a Gemini chat by
        its file name, an Aider chat by the id an older reader gave it).
        """
        if tool not in self.readers:
            raise NotFound(f"unknown tool {tool!r} (known: {', '.join(self.readers)})")
        if tool not in self.source_roots:
            raise NotFound(f"source {tool} is disabled in the configuration")
        reader = self.readers[tool]
        known = self._filed(tool).get(session_id)
        if known:  # found by the last scan: read it where it was, unless it moved or broke
            result = read_safely(reader, _newest(known))
            if not isinstance(result, Unresolved):
                return result
        refs = [
            found
            for found in discover_all(reader, self.source_roots[tool])
            if found.session_id == session_id
            or (isinstance(found, SessionRef) and session_id in found.aliases)
        ]
        if not refs:
            raise NotFound(
                f"no session {tool}:{session_id}; "
                f"'dreamd sources list --tool {tool}' lists the sessions found"
            )
        readable = [ref for ref in refs if isinstance(ref, SessionRef)]
        failures = [ref for ref in refs if isinstance(ref, Unresolved)]
        if not readable:
            raise SourceError(f"{tool}:{session_id} cannot be read: {failures[0].reason}")
        result = read_safely(reader, _newest(readable))
        if isinstance(result, Unresolved):
            raise SourceError(f"{tool}:{session_id} cannot be read: {result.reason}")
        return result


def _file_by_name(found: list[SessionRef]) -> dict[str, list[SessionRef]]:
    """``found`` filed under each ref's session id and alias (as ``Catalog.read`` looks up)."""
    refs: dict[str, list[SessionRef]] = {}
    file = refs.get
    for ref in found:  # every ref of a tool, before a collect's first read: kept lean
        same = file(ref.session_id)
        if same is None:
            refs[ref.session_id] = [ref]
        else:
            same.append(ref)
        for alias in ref.aliases:
            refs.setdefault(alias, []).append(ref)
    return refs


def _sharing(cached: SessionInfo, ref: SessionRef) -> SessionInfo:
    """``cached`` holding ``ref``'s equal strings (and file version) instead of its own.

    Key equality makes the tool, path and locator equal; the session id and
    the file version are taken only where they are equal too. The project is
    interned: the sessions of one project share one copy of its path.
    """
    project = cached.project
    return SessionInfo(
        ref.tool,
        ref.session_id if ref.session_id == cached.session_id else cached.session_id,
        ref.location,
        ref.locator,
        ref.file_version if ref.file_version == cached.file_version else cached.file_version,
        cached.activity_at,
        sys.intern(project) if project is not None else None,
        *cached[7:],
    )


def _newest(refs: list[SessionRef]) -> SessionRef:
    """Of several files holding one session, the one written last (ties: by path)."""
    return max(refs, key=lambda ref: (ref.activity_at, str(ref.path)))


def _still_valid(cached: SessionInfo, ref: SessionRef) -> bool:
    """Whether cached metadata still describes ``ref``.

    A session that shares its file (a database row, one chat of a history
    file) carries a per-session ``marker``: other sessions' writes change the
    file's size and mtime but not this session's marker, so only the file's
    identity and the marker are compared.
    """
    old, new = cached.file_version, ref.file_version
    if old is None or cached.session_id != ref.session_id:
        return False
    if old == new:
        return True
    if new.marker:
        return (old.device, old.inode, old.marker) == (new.device, new.inode, new.marker)
    return old == new
