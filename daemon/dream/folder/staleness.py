"""Staleness, prune guards and the consult gate (seed 000 STEPs 2c, 2d, 2.5). Pure.

Invariants:

- only FULLY_STALE is ever eligible for the trash; every guard and the
  consult gate can only move a memory *down* to PARTIALLY_STALE (kept,
  flagged), never up;
- a memory with no verifiable reference is EVERGREEN however many external
  paths it names;
- when in doubt the memory is kept: matching in the consult gate is loose on
  purpose, because a wrongly kept memory costs a line and a wrongly trashed
  one costs a lesson.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import msgspec

from dreamd.dream.model import Classification, MemoryFile, RefCheck

__all__ = [
    "CONSULT_DAYS",
    "GUARD_DAYS",
    "ConsultEntry",
    "classify",
    "consult_gate",
    "consulted_terms",
    "guard_directive",
    "guard_lesson_types",
    "guard_recent",
    "guard_untyped",
    "guard_user_type",
    "memory_path_texts",
    "memory_paths_in",
    "parse_consult_log",
    "prune_guard",
]

#: Seed 000 STEP 2d: a memory written this recently describes the present.
GUARD_DAYS = 14
#: Seed 000 STEP 2.5: consults older than this no longer protect a memory.
CONSULT_DAYS = 14


def classify(check: RefCheck) -> Classification:
    """Seed 000 STEP 2c: the four staleness classes from verified references.

    No verifiable reference: EVERGREEN. Every verifiable file and symbol
    found: FRESH. None found: FULLY_STALE. Some found: PARTIALLY_STALE.
    """
    if check.verifiable == 0:
        return "EVERGREEN"
    if not check.missing and not check.symbols_missing:
        return "FRESH"
    if not check.present and not check.symbols_present:
        return "FULLY_STALE"
    return "PARTIALLY_STALE"


def guard_user_type(memory: MemoryFile) -> str | None:
    """Guard 1: preferences do not decay because a path moved."""
    return "type:user is never auto-pruned" if memory.type == "user" else None


def guard_lesson_types(memory: MemoryFile) -> str | None:
    """Guard 2: a feedback/reference memory's worth is its lesson, not its file refs."""
    if memory.type in ("feedback", "reference"):
        return f"type:{memory.type} value is the lesson, not its file refs"
    return None


def guard_recent(memory: MemoryFile, now: datetime) -> str | None:
    """Guard 3: a memory modified within ``GUARD_DAYS`` describes the present."""
    if now - memory.mtime < timedelta(days=GUARD_DAYS):
        return f"modified within {GUARD_DAYS}d"
    return None


_DIRECTIVE = re.compile(r"\b(do not|don't|don’t|never|avoid)\b", re.IGNORECASE)  # noqa: RUF001


def guard_directive(memory: MemoryFile) -> str | None:
    """Guard 4: a memory that exists to prevent a regression outlives the code it cites."""
    return "carries a do-not/never directive" if _DIRECTIVE.search(memory.body) else None


def guard_untyped(memory: MemoryFile) -> str | None:
    """Only project memories track live work: a memory of no known type is never pruned."""
    return "no memory type: only project memories go stale" if memory.type is None else None


def prune_guard(memory: MemoryFile, now: datetime) -> str | None:
    """The first prune guard (seed 000 STEP 2d, in the seed's order) that keeps a memory.

    The seed's four guards come first; a fifth keeps memories whose type is
    unknown, since the seed lets only project memories go stale on dead refs.
    """
    for reason in (
        guard_user_type(memory),
        guard_lesson_types(memory),
        guard_recent(memory, now),
        guard_directive(memory),
        guard_untyped(memory),
    ):
        if reason is not None:
            return f"prune-guard: {reason}"
    return None


class ConsultEntry(msgspec.Struct, frozen=True):
    """One line of ``.claude/logs/memory-consult.jsonl``."""

    ts: datetime
    names: tuple[str, ...] = ()
    query: str | None = None


def parse_consult_log(text: str) -> list[ConsultEntry]:
    """Entries of a consult log; malformed lines are skipped (seed 000 STEP 2.5)."""
    entries: list[ConsultEntry] = []
    for line in text.splitlines():
        entry = _consult_entry(line)
        if entry is not None:
            entries.append(entry)
    return entries


def _consult_entry(line: str) -> ConsultEntry | None:
    try:
        raw = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    if not isinstance(raw, dict):
        return None
    names = raw.get("names")
    raw["names"] = [n for n in names if isinstance(n, str)][:50] if isinstance(names, list) else []
    query = raw.get("query")
    raw["query"] = query[:500] if isinstance(query, str) else None
    try:
        entry = msgspec.convert(raw, ConsultEntry, strict=False)
    except msgspec.ValidationError:
        return None
    if entry.ts.tzinfo is None:
        return None
    return entry


def consulted_terms(
    entries: Iterable[ConsultEntry], now: datetime, days: int = CONSULT_DAYS
) -> frozenset[str]:
    """Names and query words (longer than 2 chars) looked up within ``days`` of ``now``.

    The seed computes a cutoff and then forgets to apply it; here it is applied
    to each entry's ``ts``: an old lookup does not keep a memory forever.
    """
    cutoff = now - timedelta(days=days)
    terms: set[str] = set()
    for entry in entries:
        if entry.ts < cutoff:
            continue
        terms.update(name.lower() for name in entry.names if name.strip())
        if entry.query:
            terms.update(word.lower() for word in entry.query.split() if len(word) > 2)
    return frozenset(terms)


def consult_gate(
    memory: MemoryFile, terms: frozenset[str], read_paths: frozenset[Path]
) -> str | None:
    """Seed 000 STEP 2.5: keep a FULLY_STALE memory that agents still look up.

    Two kinds of evidence: the consult log's recent names and query words
    (matched loosely against the file's slug and ``name``, as the seed does),
    and transcripts showing an agent read this very file recently.
    """
    if memory.path in read_paths:
        return "consult-gate: read by an agent in the last 14 days (transcripts)"
    slug = memory.stem.lower()
    name = (memory.title or "").lower()
    if (name and name in terms) or any(term in slug or slug in term for term in terms):
        return "consult-gate: looked up in the last 14 days (consult log)"
    return None


@dataclass(frozen=True, slots=True)
class Verdict:
    """A file's classification after guards and gate, with the reason it was kept."""

    classification: Classification
    kept_reason: str | None = None


def judge(
    memory: MemoryFile,
    check: RefCheck,
    *,
    now: datetime,
    terms: frozenset[str],
    read_paths: frozenset[Path],
) -> Verdict:
    """Classify, then let the prune guards and the consult gate demote FULLY_STALE.

    A memory without front matter is EVERGREEN whatever it cites (seed 000's
    error table: without metadata its references cannot be judged).
    """
    classification = classify(check) if memory.has_front_matter else "EVERGREEN"
    if classification != "FULLY_STALE":
        return Verdict(classification)
    kept = prune_guard(memory, now) or consult_gate(memory, terms, read_paths)
    if kept is not None:
        return Verdict("PARTIALLY_STALE", kept)
    return Verdict("FULLY_STALE")


#: Where a memory file's path ends: ``/memory/<file>.md`` or ``/agent-memory/<agent>/<file>.md``
#: (no whitespace, quote, backtick, ``<``, ``>`` or ``|``: those end a path).
_MEMORY_TAIL = re.compile(rb"/(?:memory|agent-memory/[^/\s\"'`<>|]+)/[^/\s\"'`<>|]+\.md")
#: Every byte that ends a run of path bytes, mapped to ``\n`` so one ``rfind`` finds the last.
_DELIMITERS_TO_NEWLINE = bytes.maketrans(b" \t\r\f\v\"'`<>|", b"\n" * 11)


def memory_paths_in(data: bytes) -> Iterator[Path]:
    """Absolute memory-file paths named anywhere in a transcript's raw bytes."""
    for text in memory_path_texts(data):
        yield Path(text)


def memory_path_texts(data: bytes) -> Iterator[str]:
    """``memory_paths_in`` as strings, every occurrence in order.

    A path runs from the first ``/`` of its run of path bytes (or after the
    previous path in that run) to the end of the next memory-file tail.
    Linear in the input and mostly in C: a transcript that names no
    ``memory/`` costs one substring search; otherwise one regex pass finds
    the tails and each looks back only to the delimiter before it. (A single
    lazy regex over the whole transcript went quadratic on long lines full of
    slashes; a loop over whitespace tokens in Python ran at 20 MB/s.)
    """
    if b"memory/" not in data:
        return
    start = 0  # where the next path may begin: its run's start, or after the last path
    scanned = 0  # end of the previous tail: delimiters before it are accounted for
    for tail in _MEMORY_TAIL.finditer(data):
        begin, end = tail.span()
        run = _run_start(data, scanned, begin)
        if run >= 0:
            start = run
        scanned = end
        slash = data.find(b"/", start, begin)
        if slash < 0:
            continue  # a path needs a folder before its memory folder
        start = end
        try:
            yield data[slash:end].decode("utf-8")
        except UnicodeDecodeError:
            continue


def _run_start(data: bytes, low: int, high: int) -> int:
    """One past the last delimiter in ``data[low:high]``, or -1 when there is none.

    Looks back in growing windows: a path is short, the gap to the previous
    tail may be megabytes.
    """
    width = 256
    while True:
        edge = max(low, high - width)
        last = data[edge:high].translate(_DELIMITERS_TO_NEWLINE).rfind(b"\n")
        if last >= 0:
            return edge + last + 1
        if edge == low:
            return -1
        high, width = edge, width * 4
