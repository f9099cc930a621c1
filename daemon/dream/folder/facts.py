"""What a memory's text says, kept from one dream to the next (issue 13).

A nightly dream meets the same ten thousand memories it met the night before.
The references a memory cites, its negation cues and its subject words are
pure functions of its text, so inside ``kept_facts`` they are answered from
the previous dream's results for the very same text (keyed by a hash of the
function's whole input, never by file name or time) and computed, then kept,
for any other. Decisions never depend on the store: an answer from it is the
function's own answer for that input, a missing or damaged store only costs
the computation, and the store keeps only what the last dream asked for, so a
deleted memory leaves it with that dream.

Each kind of fact is one ``Kind``: the function's name (part of the key, with
``FACTS_VERSION``), and how its value is written to and read back from the
store (msgpack holds lists, not tuples or sets).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from dreamd.fs import read_if_present
from dreamd.fswrite import atomic_write
from dreamd.logs import get_logger

__all__ = ["FACTS_VERSION", "Kind", "kept_facts", "remembered"]

#: Bumped whenever a remembered function may answer differently: every kept fact is then new.
FACTS_VERSION = 1

log = get_logger("dreamd.dream")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Kind(Generic[T]):
    """One remembered function: its name, and its value as stored and as read back."""

    name: str
    dump: Callable[[T], Any]
    load: Callable[[Any], T]


class _Store:
    """The facts of one folder: those read from the last dream, those asked for now."""

    def __init__(self, kept: dict[bytes, Any]) -> None:
        self.kept = kept
        self.used: dict[bytes, Any] = {}
        self.computed = 0


_STORE: _Store | None = None


def _key(kind: Kind[Any], text: str) -> bytes:
    data = f"{FACTS_VERSION}\0{kind.name}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def remembered(kind: Kind[T], text: str, compute: Callable[[], T]) -> T:
    """``compute()`` — a pure function of ``text`` — or its kept answer for the same text.

    Outside ``kept_facts`` this is ``compute()``.
    """
    store = _STORE
    if store is None:
        return compute()
    key = _key(kind, text)
    stored = store.used.get(key)
    if stored is None:
        stored = store.kept.get(key)
    if stored is not None:
        try:
            value = kind.load(stored)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError):
            value = None  # a damaged entry is computed again
        if value is not None:
            store.used[key] = stored
            return value
    value = compute()
    store.used[key] = kind.dump(value)
    store.computed += 1
    return value


def _read(path: Path) -> dict[bytes, Any]:
    """The kept facts, or none when the file is missing, damaged or of another version."""
    try:
        data = read_if_present(path)
        if data is None:
            return {}
        document = msgspec.msgpack.decode(data)
    except (OSError, msgspec.DecodeError):
        return {}
    if not isinstance(document, dict) or document.get("version") != FACTS_VERSION:
        return {}
    facts = document.get("facts")
    return facts if isinstance(facts, dict) else {}


@contextmanager
def kept_facts(path: Path) -> Iterator[None]:
    """Inside the block, ``remembered`` answers from ``path`` (the last dream's facts of this
    folder); after it, the facts asked for are written back, atomically, when any changed.
    Not reentrant: an inner block would lose the outer one's facts."""
    global _STORE
    outer, store = _STORE, _Store(_read(path))
    _STORE = store
    try:
        yield
    finally:
        _STORE = outer
    if store.computed or len(store.used) != len(store.kept):
        document = {"version": FACTS_VERSION, "facts": store.used}
        try:
            atomic_write(path, msgspec.msgpack.encode(document))
        except OSError:  # the next dream computes them again, nothing more
            log.warning("dream.facts.unsaved", path=str(path))
