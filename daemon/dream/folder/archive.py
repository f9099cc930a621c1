"""Which entries move from ``MEMORY.md`` to its archive, and how both files end. Pure.

Seed 000 STEP 5.5. Archive moves go by file-name prefix (``demotion_rank``):
``project_handoff_*`` older than 7 days first (date from a ``_YYYY_MM_DD``
suffix, else mtime), then ``feedback_*``, then ``project_*`` / ``reference_*``
unmodified for 30 days; never ``hub_*``, ``user_*``, entries under a Policy
heading, or files modified in the last 7 days (``never_move_reason``). Oldest
first within a class (``move_candidates``).

Moved lines go unshortened to ``MEMORY-ARCHIVE.md`` under ``## Moved from
MEMORY.md <date> (N)`` (``archive_section``); the index ends with exactly one
trailer line when an archive exists (``with_trailer``). How many entries move
is the budget's decision (``dreamd.dream.folder.budget``). The archive itself
is not budgeted: it is read on demand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from dreamd.dream.folder.indexfile import (
    ARCHIVE_NAME,
    INDEX_NAME,
    Entry,
    Index,
    IndexLine,
    close_open_fence,
    parse_index,
    parse_line,
)
from dreamd.dream.model import MemoryFile

__all__ = [
    "Candidate",
    "archive_section",
    "demotion_rank",
    "handoff_date",
    "move_candidates",
    "never_move_reason",
    "strip_trailers",
    "trailer_text",
    "with_trailer",
]

#: A handoff note older than this is the first thing to leave the index.
HANDOFF_AGE = timedelta(days=7)
#: ``project_*`` / ``reference_*`` files unmodified this long may leave the index.
STALE_AGE = timedelta(days=30)
#: A file modified more recently than this never leaves the index.
RECENT_GUARD = timedelta(days=7)

HANDOFF_PREFIX = "project_handoff_"
FEEDBACK_PREFIX = "feedback_"
STALE_PREFIXES = ("project_", "reference_")
NEVER_PREFIXES = ("hub_", "user_")
POLICY_WORDS = frozenset({"policy", "policies"})

ARCHIVE_HEADER = (
    "# Memory archive",
    "",
    "Index lines moved out of MEMORY.md to keep it within its byte budget. Every",
    "file listed here is still in this folder; open it when a task needs it.",
)

_DATE_SUFFIX = re.compile(r"_(\d{4})[_-](\d{2})[_-](\d{2})\.md$", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True, slots=True)
class Candidate:
    """An entry that may move to the archive: its class rank and the age it sorts by."""

    file: str
    rank: int  # 0 old handoff, 1 feedback, 2 stale project/reference
    since: datetime
    line: str


# --------------------------------------------------------------------------- demotion


def handoff_date(name: str, mtime: datetime) -> datetime:
    """A handoff's date: its ``_YYYY_MM_DD`` suffix (midnight, mtime's zone), else its mtime.

    ``_YYYY-MM-DD`` is read the same way.
    """
    match = _DATE_SUFFIX.search(name)
    if match is None:
        return mtime
    try:
        return datetime(int(match[1]), int(match[2]), int(match[3]), tzinfo=mtime.tzinfo)
    except ValueError:
        return mtime


def never_move_reason(
    name: str, mtime: datetime, *, under_policy: bool, now: datetime
) -> str | None:
    """Why an entry must stay in ``MEMORY.md`` whatever the budget, or None.

    SPEC "Index budget": ``hub_*``, ``user_*``, anything under a Policy
    heading, anything modified in the last 7 days.
    """
    lower = name.casefold()
    for prefix in NEVER_PREFIXES:
        if lower.startswith(prefix):
            return f"{prefix}* files never move"
    if under_policy:
        return "under a Policy heading"
    if now - mtime < RECENT_GUARD:
        return f"modified within {RECENT_GUARD.days} days"
    return None


def demotion_rank(name: str, mtime: datetime, now: datetime) -> tuple[int, datetime] | None:
    """The demotion class of a file (0 first) and the date it sorts by, or None.

    SPEC "Index budget": 0 ``project_handoff_*`` older than 7 days; 1
    ``feedback_*``; 2 ``project_*`` / ``reference_*`` unmodified for 30 days.
    """
    lower = name.casefold()
    if lower.startswith(HANDOFF_PREFIX):
        since = handoff_date(name, mtime)
        return (0, since) if now - since > HANDOFF_AGE else None
    if lower.startswith(FEEDBACK_PREFIX):
        return (1, mtime)
    if lower.startswith(STALE_PREFIXES) and now - mtime > STALE_AGE:
        return (2, mtime)
    return None


def _entries_with_policy(index: Index) -> Iterator[tuple[Entry, str, bool]]:
    """Each entry, its line, and whether a heading above it names a policy."""
    stack: list[tuple[int, bool]] = []
    for line in index.lines:
        if line.kind == "heading":
            while stack and stack[-1][0] >= line.level:
                stack.pop()
            words = set(_WORD.findall(line.heading.casefold()))
            stack.append((line.level, bool(words & POLICY_WORDS)))
        elif line.entry is not None:
            yield line.entry, line.text, any(policy for _, policy in stack)


def move_candidates(
    index: Index, files: Mapping[str, MemoryFile], now: datetime
) -> tuple[tuple[Candidate, ...], dict[str, str]]:
    """Entries that may move, in move order, and why each other entry may not.

    Order: class, then oldest first, then file name (seed 000 STEP 5.5).
    """
    candidates: list[Candidate] = []
    kept: dict[str, str] = {}
    for entry, text, under_policy in _entries_with_policy(index):
        file = entry.file
        memory = files.get(file)
        if memory is None:
            kept[file] = "not a surviving file"
            continue
        reason = never_move_reason(file, memory.mtime, under_policy=under_policy, now=now)
        ranked = None if reason else demotion_rank(file, memory.mtime, now)
        if ranked is None:
            kept[file] = reason or "no demotion class for its name"
            continue
        candidates.append(Candidate(file, ranked[0], ranked[1], text))
    candidates.sort(key=lambda c: (c.rank, c.since, c.file.casefold(), c.file))
    return tuple(candidates), kept


# --------------------------------------------------------------------------- trailer, archive


def trailer_text(archived: int) -> str:
    """The single trailer line of ``MEMORY.md`` (seed 000 STEP 5: ``> N memory files ...``).

    The seed's form for every count, one included: the seed's own budget tool
    reads ``> N memory files``, and a grammatical "1 memory file is" would not
    be read back as a trailer by it (issue 12, 16a).
    """
    return (
        f"> {archived} memory files are archived in [{ARCHIVE_NAME}]({ARCHIVE_NAME}); "
        "open it to find them."
    )


def strip_trailers(index: Index) -> Index:
    """The index without its trailer lines."""
    return index.with_lines(line for line in index.lines if line.kind != "trailer")


def with_trailer(index: Index, archived: int) -> Index:
    """The index ending with exactly one trailer line, after one blank line."""
    lines = list(close_open_fence(strip_trailers(index)).lines)
    while lines and lines[-1].kind == "blank":
        lines.pop()
    if lines:
        lines.append(IndexLine("", "blank"))
    lines.append(parse_line(trailer_text(archived)))
    return replace(index.with_lines(lines), final_newline=True)


def archive_section(archive: Index | None, moved: Sequence[str], now: datetime) -> Index:
    """The archive with moved lines appended under ``## Moved from MEMORY.md <date> (N)``.

    A new archive starts with a short header saying what it is.
    """
    if archive is None or not archive.lines:
        archive = parse_index("\n".join(ARCHIVE_HEADER) + "\n")
    lines = list(close_open_fence(archive).lines)
    while lines and lines[-1].kind == "blank":
        lines.pop()
    heading = f"## Moved from {INDEX_NAME} {now.date().isoformat()} ({len(moved)})"
    added = ["", heading, "", *moved]
    lines.extend(parse_line(text) for text in added)
    return replace(archive.with_lines(lines), final_newline=True)
