"""Relative dates in a memory folder: found everywhere, made absolute in git mode. Pure.

Seed 004 Phase 2 step 3 finds relative dates ("yesterday", "gestern") in the
memory folder, ``MEMORY.md`` included (seed 003 Phase 4 converts them there
too); seed 001 Phase 2 turns them into absolute dates counted from the day
the line was committed, and leaves (and flags) what it cannot date. So:

- outside git every relative date is reported as something to do, with its
  line counted from the top of the file;
- in a git-managed folder each one that names one day, on a committed line,
  is converted (the topic file becomes a ``Rewrite``, ``MEMORY.md`` is
  converted before its rebuild) and reported as done; only the rest are
  listed as still to do (issue 12, items 10 and 15).

The git facts (blame dates per line) come in from the edge (``GitFacts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from dreamd.dream.folder import checks
from dreamd.dream.folder.inventory import INDEX_NAME
from dreamd.dream.gitmode import Conversion, absolutize_relative_dates
from dreamd.dream.model import GitFacts, MemoryFile

__all__ = ["Dating", "Rewrite", "date_folder", "has_relative_dates"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A topic file rewritten with absolute dates: what it held, what it will hold."""

    name: str
    old_sha256: str
    content: bytes
    converted: tuple[Conversion, ...]


@dataclass(frozen=True, slots=True)
class Dating:
    """The folder's relative dates: the index text to rebuild from, rewrites, report lines."""

    index_text: str | None
    index_converted: tuple[Conversion, ...]
    rewrites: tuple[Rewrite, ...]
    findings: tuple[str, ...]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def has_relative_dates(text: str) -> bool:
    """Whether a text holds a relative date at all (the edge blames only those files)."""
    return bool(checks.relative_dates(text))


def _convert(
    name: str, text: str, dates: Mapping[int, date] | None
) -> tuple[str, tuple[Conversion, ...], list[str]]:
    """One file: its text with dates converted (git mode) and its report lines."""
    if dates is None:
        found = checks.relative_dates(text)
        return text, (), [f"{name}:{f.line}: {f.message}" for f in found]
    new_text, converted, left = absolutize_relative_dates(text, dates)
    lines = [
        f"{name}:{c.line}: relative date '{c.original}' made absolute: {c.replacement}"
        for c in converted
    ]
    lines += [f"{name}:{f.line}: {f.message}" for f in left]
    return new_text, tuple(converted), lines


def date_folder(
    index_text: str | None, survivors: Iterable[MemoryFile], git: GitFacts | None
) -> Dating:
    """Seeds 004, 001, 003: every relative date of the index and the surviving memories.

    ``git`` None: reported only. Otherwise converted where ``git.line_dates``
    dates the line, reported as done, the rest left and flagged.
    """
    line_dates = git.line_dates if git is not None else None
    findings: list[str] = []
    index_converted: tuple[Conversion, ...] = ()
    if index_text is not None:
        dates = line_dates.get(INDEX_NAME, {}) if line_dates is not None else None
        index_text, index_converted, lines = _convert(INDEX_NAME, index_text, dates)
        findings += lines
    rewrites: list[Rewrite] = []
    for memory in survivors:
        text = _text(memory.raw) if memory.raw else memory.body
        dates = line_dates.get(memory.name, {}) if line_dates is not None else None
        new_text, converted, lines = _convert(memory.name, text, dates)
        findings += lines
        if converted and memory.raw:
            content = new_text.encode("utf-8", "surrogateescape")
            rewrites.append(Rewrite(memory.name, memory.sha256, content, converted))
    return Dating(index_text, index_converted, tuple(rewrites), tuple(findings))
