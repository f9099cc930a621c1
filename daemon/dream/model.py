"""Data the dream's rules exchange. Frozen, so a rule cannot change its input.

Names follow seed 000: a memory *file* is one topic file beside ``MEMORY.md``;
its *classification* is one of the four staleness classes; the *action* the
dream takes on it is ``keep``, ``flag`` (kept, reported for review) or
``trash`` (moved to ``.trash/<date>/``, never deleted).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from dreamd.progress import NO_PROGRESS, JobProgress

#: A memory folder's index and the archive of entries the index had no room for.
INDEX_NAME = "MEMORY.md"
ARCHIVE_NAME = "MEMORY-ARCHIVE.md"

__all__ = [
    "ARCHIVE_NAME",
    "INDEX_NAME",
    "MEMORY_TYPES",
    "Action",
    "Classification",
    "Decision",
    "DreamRequest",
    "GitFacts",
    "MemoryFile",
    "MemoryFolder",
    "MemoryType",
    "Mode",
    "RefCheck",
]

MemoryType = Literal["user", "feedback", "project", "reference"]
MEMORY_TYPES: frozenset[str] = frozenset({"user", "feedback", "project", "reference"})
Classification = Literal["EVERGREEN", "FRESH", "PARTIALLY_STALE", "FULLY_STALE"]
Action = Literal["keep", "flag", "trash"]


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """One topic file of a memory folder, parsed.

    ``type`` is None when the file has no front matter or no recognised type
    (seed 000: no front matter means EVERGREEN, since nothing can be checked).
    ``front_matter`` is the parsed mapping (empty when absent); ``body`` is
    the text after it.
    """

    path: Path
    name: str  # file name, e.g. "feedback_x.md"
    title: str | None  # front matter ``name``
    description: str | None
    type: MemoryType | None
    has_front_matter: bool
    front_matter: dict[str, object]
    body: str
    mtime: datetime
    size: int
    sha256: str
    body_line: int = 1  # the file line (1-based, from the top) the body starts on
    raw: bytes = b""  # the file's bytes as read (rewrites keep every byte they do not change)

    @property
    def stem(self) -> str:
        return self.name[:-3] if self.name.endswith(".md") else self.name


@dataclass(frozen=True, slots=True)
class MemoryFolder:
    """A memory folder and the repository its references are checked against.

    ``repo`` is None when unknown: every reference is then unverifiable.
    ``index_text`` is ``MEMORY.md`` as read (None when absent); ``archive_text``
    the same for ``MEMORY-ARCHIVE.md``.
    """

    path: Path
    repo: Path | None
    files: tuple[MemoryFile, ...]
    index_text: str | None
    archive_text: str | None = None
    excluded: tuple[tuple[str, str], ...] = ()  # (name, why): links, not memory files


@dataclass(frozen=True, slots=True)
class RefCheck:
    """References of one memory and what verifying them found (seed 000 STEP 2)."""

    present: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unverifiable: tuple[str, ...] = ()
    symbols_present: tuple[str, ...] = ()
    symbols_missing: tuple[str, ...] = ()

    @property
    def verifiable(self) -> int:
        return (
            len(self.present)
            + len(self.missing)
            + len(self.symbols_present)
            + len(self.symbols_missing)
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """What the dream decided for one file, and why (the JSON contract's ``files[]``)."""

    file: str
    type: MemoryType | None
    classification: Classification
    action: Action
    reason: str
    of: str | None = None  # the surviving file of a duplicate or contradiction
    kept_reason: str | None = None  # why a guard or the consult gate kept it
    missing_refs: tuple[str, ...] = field(default=())
    unverifiable_refs: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class GitFacts:
    """What git says about a git-managed memory folder (seed 001), gathered at the I/O edge.

    ``committed``: each file name's last commit time (seconds); ``line_dates``:
    per file name, each line's commit day (``git blame``); ``dirty``: the
    ``git status`` lines within the folder (empty: clean).
    """

    root: Path
    head: str | None = None
    committed: Mapping[str, float] = field(default_factory=dict)
    line_dates: Mapping[str, Mapping[int, date]] = field(default_factory=dict)
    dirty: tuple[str, ...] = ()


Mode = Literal["apply", "dry-run", "apply-pending"]


@dataclass(frozen=True, slots=True)
class DreamRequest:
    """What the user asked for."""

    mode: Mode
    now: datetime
    budget: int
    only: tuple[Path, ...] = ()
    extra_roots: tuple[Path, ...] = ()
    run_id: str = field(default_factory=lambda: secrets.token_hex(6))
    #: Started by the service's schedule, not by hand: nobody is there to ask (issue 12, 9).
    scheduled: bool = False
    #: Trash or archive moves a scheduled run may make in one folder without a review.
    max_unattended_moves: int = 3
    #: Told before each repository scanned, folder dreamed and store gated.
    progress: JobProgress = field(default=NO_PROGRESS, compare=False)
