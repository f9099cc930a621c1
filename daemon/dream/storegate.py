"""What the validate gates of the two text stores share: item checks, views, trash and ledger.

The sectioned ``MEMORY.md`` gate (``mdgate``) and the knowledge-graph gate
(``graph``) judge collected items by the rules the folder and SQL gates use
(issue 4 item 8, seed 002 hand-off): an item is rejected when it holds no
valid item, a credential-shaped value, no quote of its own session, a
collection day in the future, or references that are all gone at birth.
Near-duplicates are decided by each gate against its own store.

``item_rejection``, ``as_memory`` and ``is_near_duplicate`` are pure; the rest
are I/O edges that go through the journaling ``Executor`` (so ``dreamd undo``
puts every byte back) and never delete: a gated record leaves the holding
file only after it was copied into the ledger (accepted, merged) or the trash
(rejected).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path

from dreamd.collect.secrets import contains_secret
from dreamd.dream.execute import CrashPoint, Executor
from dreamd.dream.model import MEMORY_TYPES, MemoryFile, MemoryType
from dreamd.dream.refs import RepoView, check_refs
from dreamd.dream.similarity import is_duplicate_overlap, significant_words
from dreamd.dream.sqlgate import rejection
from dreamd.dream.staleness import classify
from dreamd.stores import MemoryItem

__all__ = [
    "FUTURE_TOLERANCE",
    "MIN_SHARED_WORDS",
    "StoreRun",
    "append_to",
    "as_memory",
    "executor_for",
    "is_near_duplicate",
    "item_rejection",
    "linked",
    "normalised",
    "scan_views",
]

#: As the folder gate: the collector writes its local date, ``now`` is UTC.
FUTURE_TOLERANCE = timedelta(days=1)
#: Two texts sharing fewer significant words than this are never near-duplicates (one
#: shared word out of two is half, but says nothing).
MIN_SHARED_WORDS = 3


@dataclass(frozen=True, slots=True)
class StoreRun:
    """What one store's gate and dream did (``changes``) and found (``flags``), as report lines."""

    changes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return [*self.changes, *self.flags]


def normalised(text: str) -> str:
    """Case and whitespace folded: texts equal under it say the same thing."""
    return " ".join(text.casefold().split())


#: A gate compares each new statement with every entry or observation of its store: the word
#: sets of those are computed once (per process) instead of once per comparison.
_words = lru_cache(maxsize=1 << 16)(significant_words)


def is_near_duplicate(a: str, b: str, *, threshold: float | None = None) -> float | None:
    """The overlap of two statements when one duplicates the other, else None.

    Equal after ``normalised``: 1.0. Otherwise at least ``MIN_SHARED_WORDS``
    significant words shared and the seed's overlap rule met (``threshold``:
    that share of the smaller set instead of seed 000's 0.6).
    """
    if normalised(a) == normalised(b):
        return 1.0
    ours, theirs = _words(a), _words(b)
    shared, smaller = len(ours & theirs), min(len(ours), len(theirs))
    if shared < MIN_SHARED_WORDS or smaller == 0:
        return None
    ratio = shared / smaller
    met = ratio >= threshold if threshold is not None else is_duplicate_overlap(shared, smaller)
    return ratio if met else None


def as_memory(
    path: Path,
    name: str,
    body: str,
    *,
    kind: str | None,
    mtime: datetime,
    description: str | None = None,
) -> MemoryFile:
    """A statement seen as the dream's rules see a memory file (for references and guards)."""
    data = body.encode("utf-8", "surrogatepass")
    typed: MemoryType | None = kind if kind in MEMORY_TYPES else None  # type: ignore[assignment]
    return MemoryFile(
        path=path,
        name=name,
        title=name,
        description=description,
        type=typed,
        has_front_matter=True,
        front_matter={},
        body=body,
        mtime=mtime,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def item_rejection(
    item: MemoryItem | None, *, now: datetime, view: RepoView | None, where: Path
) -> str | None:
    """Why a collected item must not enter its store, or None (``where``: the store's file)."""
    if item is None:
        return "malformed: the record holds no valid item"
    reason = rejection(item)
    if reason is not None:
        return reason
    if contains_secret(item.source) or contains_secret(item.name):
        return "credential-shaped value"
    if item.collected > (now.astimezone(UTC) + FUTURE_TOLERANCE).date():
        return f"no provenance: collected {item.collected.isoformat()} is in the future"
    collected = datetime(item.collected.year, item.collected.month, item.collected.day, tzinfo=UTC)
    memory = as_memory(
        where, item.name, item.body, kind=item.type, mtime=collected, description=item.description
    )
    check = check_refs(memory, view)
    if classify(check) == "FULLY_STALE":
        missing = ", ".join((*check.missing, *check.symbols_missing))
        return f"stale at birth: every reference is missing from the repository ({missing})"
    return None


def scan_views(projects: Iterable[str | Path | None]) -> dict[str, RepoView]:
    """A repository view per project folder that exists (scanned once each)."""
    views: dict[str, RepoView] = {}
    for project in projects:
        if project is not None and str(project) not in views and Path(project).is_dir():
            views[str(project)] = RepoView.scan(Path(project))
    return views


def linked(paths: Iterable[Path]) -> Path | None:
    """The first of ``paths`` that is a symbolic link (the gate never writes through one)."""
    return next((path for path in paths if path.is_symlink()), None)


def executor_for(folder: Path, run_dir: Path, label: str, now: datetime) -> Executor:
    """The journaling executor of one store's folder, under ``<run_dir>/<label>-<slug>``."""
    slug = "".join(c if c.isalnum() else "-" for c in str(folder)).strip("-")[-100:] or "root"
    return Executor(folder, run_dir / f"{label}-{slug}", now.date(), CrashPoint())


def append_to(executor: Executor, path: Path, header: bytes, addition: bytes) -> None:
    """``path`` gains ``addition`` at its end (created with ``header``), journaled."""
    if not addition:
        return
    old = path.read_bytes() if path.exists() else header
    if old and not old.endswith(b"\n"):
        old += b"\n"
    executor.write(path, old + addition)
