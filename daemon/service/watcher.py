"""The transcript watcher: file events only mark paths dirty; scans decide what changed.

Invariants (ENGINEERING-NOTES "watchdog"):

- an event never reads a transcript; it marks its path (and the tool whose
  root holds it) dirty. Paths are reported once quiet for ``debounce``
  seconds, so a session being written reports once, not once per line;
- a tool is *unchanged* only while its roots are watched by inotify and no
  event arrived since its last scan; the catalog then reuses its sessions
  instead of discovering them again. Events are not replayed after an
  overflow or a sleep, so reconcile scans (start-up, resume, periodic) ignore
  this and look at everything;
- a root that holds another tool's root or dreamd's own data (Aider's is
  HOME) is not watched: a recursive watch there would cost a watch per
  directory of the home and report dreamd's own writes. That tool is simply
  scanned every time. Events inside memory folders and on temporary files
  are dreamd's own writes, never transcripts, and are ignored;
- when the kernel refuses more watches (``ENOSPC``/``EMFILE``) the watcher
  falls back to a slow polling observer, says so in the log, and no tool
  counts as unchanged any more (polling may lag a scan).
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from dreamd.logs import get_logger

__all__ = [
    "DirtyPaths",
    "TranscriptWatcher",
    "is_transcript_event",
    "too_broad",
    "tools_for_path",
]

log = get_logger("dreamd.watch")

#: The polling fallback's interval: slow on purpose (a 2 s poll costs ~5 % of a core).
POLL_SECONDS = 30.0
_LIMIT_ERRORS = frozenset({errno.ENOSPC, errno.EMFILE})
#: Path components under which no transcript lives: memory folders dreamd itself writes.
_NOT_TRANSCRIPTS = frozenset({"memory", ".inbox", ".trash"})


def is_transcript_event(path: str) -> bool:
    """Whether an event on ``path`` may concern a transcript (not a memory or temp file)."""
    parts = path.split("/")
    name = parts[-1]
    if name.endswith((".tmp", ".lock")) or not name:
        return False
    return _NOT_TRANSCRIPTS.isdisjoint(parts[:-1]) and name not in _NOT_TRANSCRIPTS


def too_broad(root: Path, others: Iterable[Path]) -> bool:
    """Whether watching ``root`` recursively would also watch another root or dreamd's data."""
    return any(other != root and other.is_relative_to(root) for other in others)


def tools_for_path(path: str, roots: Mapping[str, Iterable[Path]]) -> list[str]:
    """The tools whose roots hold ``path`` (roots of two tools may nest)."""
    found = []
    for tool, tool_roots in roots.items():
        for root in tool_roots:
            text = str(root)
            if path == text or path.startswith(text.rstrip("/") + "/"):
                found.append(tool)
                break
    return found


@dataclass
class DirtyPaths:
    """Paths with events not yet reported, and tools with events since their last scan.

    Thread-safe: the observer's thread marks, the service's main loop settles,
    the job thread takes the dirty tools when it scans.
    """

    debounce: float = 2.0
    _paths: dict[str, tuple[float, tuple[str, ...]]] = field(default_factory=dict)
    _tools: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def mark(self, path: str, tools: Iterable[str], at: float) -> None:
        """An event on ``path`` at monotonic time ``at``."""
        owners = tuple(tools)
        with self._lock:
            self._paths[path] = (at, owners)
            self._tools.update(owners)

    def settled(self, now: float) -> list[tuple[str, tuple[str, ...]]]:
        """Paths quiet for ``debounce`` seconds (each reported once), with their tools."""
        with self._lock:
            quiet = [p for p, (at, _) in self._paths.items() if now - at >= self.debounce]
            return sorted((path, self._paths.pop(path)[1]) for path in quiet)

    def pending(self) -> int:
        """Paths with events not yet settled."""
        with self._lock:
            return len(self._paths)

    def take_tools(self) -> set[str]:
        """The tools with events since the last call (and forget them)."""
        with self._lock:
            tools, self._tools = self._tools, set()
            return tools


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: TranscriptWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in {"opened", "closed_no_write"}:
            return  # reads, including dreamd's own, change nothing
        if event.is_directory and event.event_type == "modified":
            return  # a file inside changed; that file's own event says which
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = raw.decode() if isinstance(raw, bytes) else raw
            if path and is_transcript_event(path):
                self.watcher.mark(path)


class TranscriptWatcher:
    """A watchdog observer on every existing source root, feeding ``DirtyPaths``."""

    def __init__(
        self, roots: Mapping[str, Iterable[Path]], dirty: DirtyPaths, data_dir: Path
    ) -> None:
        self.roots = {tool: tuple(paths) for tool, paths in roots.items()}
        self.dirty = dirty
        self.data_dir = data_dir
        self.polling = False
        self.watched: set[str] = set()  # tools every existing root of which is watched
        self._observer: BaseObserver | None = None

    def mark(self, path: str) -> None:
        self.dirty.mark(path, tools_for_path(path, self.roots), time.monotonic())

    def start(self) -> None:
        """Watch every root that exists (inotify; polling when the kernel refuses)."""
        try:
            self._observe(Observer())
        except OSError as error:
            if error.errno not in _LIMIT_ERRORS:
                raise
            self.stop()
            log.warning(
                "watch.fallback_polling",
                reason=error.strerror or str(error),
                interval_seconds=POLL_SECONDS,
                hint="raise fs.inotify.max_user_watches / max_user_instances",
            )
            self.polling = True
            self._observe(PollingObserver(timeout=POLL_SECONDS))
        log.info(
            "watch.started",
            observer="polling" if self.polling else "native",
            tools=sorted(self.watched),
            roots=sum(len(paths) for paths in self.roots.values()),
        )

    def _observe(self, observer: BaseObserver) -> None:
        self._observer = observer
        self.watched = set()
        observer.start()
        handler = _Handler(self)
        everything = [self.data_dir, *(p for paths in self.roots.values() for p in paths)]
        for tool, paths in self.roots.items():
            broad = [path for path in paths if too_broad(path, everything)]
            if broad:
                log.info("watch.root_skipped", tool=tool, roots=[str(p) for p in broad])
                continue  # this tool is scanned every time instead
            existing = [path for path in paths if path.is_dir()]
            for path in existing:
                observer.schedule(handler, str(path), recursive=True)
            if existing:  # a root created later is found by the next reconcile scan
                self.watched.add(tool)

    def unchanged_tools(self) -> set[str]:
        """Tools whose sessions cannot have changed since their last scan."""
        dirty = self.dirty.take_tools()
        if self.polling or self._observer is None or not self._observer.is_alive():
            return set()
        return self.watched - dirty

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            if self._observer.is_alive():
                self._observer.join(timeout=5)
            self._observer = None
