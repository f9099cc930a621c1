"""The validate gate's rules, once for every store (seed 002 hand-off, seed 000 STEPs 2-3).

A collected item enters its store only when it passes every rule below, in
this order; the first that fails names the reason (each reason is one line
and never repeats a value the secret filter would drop):

1. ``malformed`` — the store held no valid item (its own format's parse);
2. ``credential_reason`` — a credential-shaped value in any stored field;
3. ``quotes_reason`` — untraceable: no quote, or a quote citing another session;
4. ``future_reason`` — no provenance: collected on a day that has not come;
5. ``stale_at_birth_reason`` — every reference is already missing from its repository.

``rejection`` applies them to a ``MemoryItem`` (the SQL rows, the sectioned
``MEMORY.md`` records, the graph's pending lines); the memory-folder gate reads
front matter rather than items and calls the same functions on what it read.

Near-duplicates are decided by ``near_duplicate`` everywhere: equal after
folding case and spaces, or at least ``MIN_SHARED_WORDS`` significant words
shared and seed 000's overlap rule met (``DUPLICATE_OVERLAP`` of the smaller
word set, or another threshold a store's rule names, e.g. ``COLLAPSE_OVERLAP``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from pathlib import Path

from dreamd.dream.folder.refs import check_refs
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.similarity import DUPLICATE_OVERLAP
from dreamd.dream.folder.staleness import classify
from dreamd.dream.folder.words import overlap_reaches, significant_words
from dreamd.dream.model import MEMORY_TYPES, MemoryFile, MemoryType, RefCheck
from dreamd.stores import MemoryItem

__all__ = [
    "COLLAPSE_OVERLAP",
    "DUPLICATE_OVERLAP",
    "FUTURE_TOLERANCE",
    "MIN_SHARED_WORDS",
    "as_memory",
    "credential_reason",
    "future_reason",
    "missing_refs",
    "near_duplicate",
    "normalised",
    "quotes_reason",
    "rejection",
    "stale_at_birth_reason",
]

#: The collector writes its local date and ``now`` is UTC: a day ahead is still today somewhere.
FUTURE_TOLERANCE = timedelta(days=1)
#: Two texts sharing fewer significant words than this are never near-duplicates (one
#: shared word out of two is half, but says nothing).
MIN_SHARED_WORDS = 3
#: What a store already holds collapses only when this share of the smaller text's words is
#: shared (the gardener's dedup candidates start at 0.90; new items use seed 000's 0.6).
COLLAPSE_OVERLAP = 0.9


def credential_reason(texts: Iterable[str]) -> str | None:
    """Seed 002 safety rule 5: a credential-shaped value in any of ``texts`` rejects the item.

    The secret filter (a few hundred patterns to compile) loads with the first item gated:
    a dream of folders with nothing waiting never needs it."""
    from dreamd.secrets import contains_secret

    return "credential-shaped value" if any(contains_secret(text) for text in texts) else None


def quotes_reason(message_ids: Sequence[str], session: str) -> str | None:
    """Seed 002 provenance: at least one quote, every one citing ``<session>:<message>``.

    ``session`` is ``<tool>:<machine>:<session>``; a quote from another session
    would make the provenance lie.
    """
    if not message_ids:
        return "untraceable: no quoted message"
    foreign = next((m for m in message_ids if not m.startswith(session + ":")), None)
    if foreign is not None:
        return f"untraceable: a quote cites {foreign}, not session {session}"
    return None


def future_reason(collected: date, now: datetime) -> str | None:
    """A collection day later than ``now`` (plus ``FUTURE_TOLERANCE``) did not happen."""
    if collected > (now.astimezone(UTC) + FUTURE_TOLERANCE).date():
        return f"no provenance: collected {collected.isoformat()} is in the future"
    return None


def missing_refs(check: RefCheck) -> str:
    """The missing files and symbols of a reference check, for a reason or a flag."""
    return ", ".join((*check.missing, *check.symbols_missing))


def stale_at_birth_reason(memory: MemoryFile, view: RepoView | None) -> str | None:
    """Seed 000 STEP 2 at the gate: an item whose references are all missing (FULLY_STALE).

    Unverifiable references, or none, are fine: only what the repository can
    disprove rejects.
    """
    check = check_refs(memory, view)
    if classify(check) == "FULLY_STALE":
        missing = missing_refs(check)
        return f"stale at birth: every reference is missing from the repository ({missing})"
    return None


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


def _item_texts(item: MemoryItem) -> list[str]:
    return [
        item.source,
        item.name,
        item.description,
        item.body,
        item.category,
        item.project or "",
    ] + [quote.text for quote in item.quotes]


def rejection(
    item: MemoryItem | None, *, now: datetime, views: Mapping[str, RepoView], where: Path
) -> str | None:
    """Why a collected item must not enter its store, or None (rules 1-5 above).

    ``views`` holds the repositories of the projects (an item of a project
    without one has unverifiable references); ``where`` names the store's file
    in the memory the rules see.
    """
    if item is None:
        return "malformed: the record holds no valid item"
    session = item.source.removeprefix("source:")
    collected = datetime(item.collected.year, item.collected.month, item.collected.day, tzinfo=UTC)
    memory = as_memory(
        where, item.name, item.body, kind=item.type, mtime=collected, description=item.description
    )
    return (
        credential_reason(_item_texts(item))
        or quotes_reason([quote.message_id for quote in item.quotes], session)
        or future_reason(item.collected, now)
        or stale_at_birth_reason(memory, views.get(item.project) if item.project else None)
    )


def normalised(text: str) -> str:
    """Case and whitespace folded: texts equal under it say the same thing."""
    return " ".join(text.casefold().split())


#: A gate compares each new statement with every entry or observation of its store: the word
#: sets of those are computed once (per process) instead of once per comparison.
_words = lru_cache(maxsize=1 << 16)(significant_words)


def near_duplicate(a: str, b: str, *, threshold: float = DUPLICATE_OVERLAP) -> float | None:
    """The overlap of two statements when one duplicates the other, else None.

    Equal after ``normalised``: 1.0. Otherwise at least ``MIN_SHARED_WORDS``
    significant words shared and ``threshold`` of the smaller set reached
    (seed 000's ratio, in exact arithmetic).
    """
    if normalised(a) == normalised(b):
        return 1.0
    ours, theirs = _words(a), _words(b)
    shared, smaller = len(ours & theirs), min(len(ours), len(theirs))
    if shared < MIN_SHARED_WORDS or not overlap_reaches(shared, smaller, threshold):
        return None
    return shared / smaller
