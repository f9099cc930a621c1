"""Which of two memories is the newer one, or that it cannot be told (seed 000 STEPs 3-4). Pure.

Seed 000 keeps the newer file of a duplicate or contradicting pair "by
filesystem mtime". Real folders often have no usable mtimes: a checkout or a
copy gives every file the same one. Seed 001 judges new and old by the git
history instead. So the evidence, in order (issue 12, items 4 and 6):

- in a git-managed folder, the time of the last commit that touched the file
  (the later-committed memory is the newer); outside git, the mtime;
- on a tie, a date the memory itself carries: a front matter date
  (``date``, ``updated``, ``created`` ...) or a date in its file name
  (``_2026-03-26``, ``_20260608``);
- nothing else, never the file name: when all of that ties, the pair is
  undecided and both memories are kept and flagged (no decision beats a guess).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime

from dreamd.dream.model import MemoryFile

__all__ = ["DATE_KEYS", "Age", "age_of", "ages_of", "newer_of", "own_date", "sort_key"]

#: Front matter keys that date a memory, most telling first.
DATE_KEYS = ("updated", "last_updated", "modified", "date", "created")

_NAME_DATE = re.compile(r"(?<!\d)(20\d{2})[-_]?([01]\d)[-_]?([0-3]\d)(?!\d)")


@dataclass(frozen=True, slots=True)
class Age:
    """The evidence of one memory's age: mtime, its own date, its last commit (git mode)."""

    mtime: float
    own: date | None = None
    committed: float | None = None
    git: bool = False

    @property
    def primary(self) -> float:
        """The first thing compared: the commit time in git mode, else the mtime."""
        return self.committed if self.git and self.committed is not None else self.mtime


def _as_date(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = _NAME_DATE.search(value)
        return _date(match) if match else None
    return None


def _date(match: re.Match[str]) -> date | None:
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def own_date(memory: MemoryFile) -> date | None:
    """A date the memory carries itself: front matter first, then its file name."""
    for key in DATE_KEYS:
        found = _as_date(memory.front_matter.get(key))
        if found is not None:
            return found
    match = _NAME_DATE.search(memory.stem)
    return _date(match) if match else None


def age_of(memory: MemoryFile, committed: float | None = None, *, git: bool = False) -> Age:
    """The age evidence of one memory (``committed``: its last commit time, git mode)."""
    return Age(memory.mtime.timestamp(), own_date(memory), committed, git)


def newer_of(a: Age, b: Age) -> int | None:
    """1 when ``a`` is the newer, -1 when ``b`` is, None when it cannot be told.

    Seed 001 in git mode (commit times), seed 000 outside (mtimes); on a tie
    the memories' own dates, when both carry one; never names.
    """
    if a.primary != b.primary:
        return 1 if a.primary > b.primary else -1
    if a.own is not None and b.own is not None and a.own != b.own:
        return 1 if a.own > b.own else -1
    return None


def sort_key(age: Age) -> tuple[float, int]:
    """A total order that agrees with ``newer_of`` wherever that decides (ties: any order)."""
    return (age.primary, age.own.toordinal() if age.own else 0)


def ages_of(
    files: Mapping[str, MemoryFile], committed: Mapping[str, float] | None = None
) -> dict[str, Age]:
    """Every file's age; ``committed`` (git mode) maps file names to last commit times."""
    git = committed is not None
    return {
        name: age_of(memory, (committed or {}).get(name), git=git) for name, memory in files.items()
    }
