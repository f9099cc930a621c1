"""Which operation keys each file of a memory folder holds, without re-reading the folder.

A collect asks a folder store "does any file hold this key?" several times
per item it plants (seed 002 ``plantOnce``: find, write, find again). The
files are the truth, so the answer used to mean reading and parsing every
file each time: linear in the folder per plant, quadratic over its life.

The index remembers, per file, the version it read (``ItemVersion``: inode,
size, modification and change times in nanoseconds), the keys it found and
the session the item came from (``metadata.source``, for ``items_from``).
Each lookup still lists the folder and ``stat``\\ s every file (cheap, and
the only way to see a file added, edited, deleted or replaced by hand), but
reads only the files whose version is not the one remembered. An entry is
trusted only while its file's version is unchanged, so the index can never
make a stale answer; at worst it is empty and every file is read once.

``KeyIndex`` is where the entries persist between runs (the state database,
``dreamd.storekeys``); ``MemoryKeyIndex`` keeps them for one process.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "Entry",
    "ItemVersion",
    "KeyIndex",
    "MemoryKeyIndex",
    "folder_versions",
    "held_keys",
    "stale_locations",
    "tagged",
]


@dataclass(frozen=True, slots=True)
class ItemVersion:
    """What identifies one state of a file: any write, rename onto it or replacement changes it
    (the change time cannot be set back by a user)."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> ItemVersion:
        return cls(status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


#: (the version read, the keys that version holds, its ``metadata.source`` or "")
Entry = tuple[ItemVersion, frozenset[str], str]


class KeyIndex(Protocol):
    """Persistent entries per store (its ``name``), keyed by location in the store."""

    def entries(self, store: str) -> dict[str, Entry]:
        """Every entry remembered for ``store`` (a copy the caller may change)."""
        ...

    def update(self, store: str, changed: Mapping[str, Entry], gone: Iterable[str]) -> None:
        """Remember ``changed`` and forget ``gone`` for ``store``."""
        ...


class MemoryKeyIndex:
    """A ``KeyIndex`` held in this process only."""

    def __init__(self) -> None:
        self._stores: dict[str, dict[str, Entry]] = {}

    def entries(self, store: str) -> dict[str, Entry]:
        return dict(self._stores.get(store, {}))

    def update(self, store: str, changed: Mapping[str, Entry], gone: Iterable[str]) -> None:
        held = self._stores.setdefault(store, {})
        for location in gone:
            held.pop(location, None)
        held.update(changed)


def folder_versions(
    folder: int, prefix: str, wanted: Callable[[str], bool]
) -> dict[str, ItemVersion]:
    """``prefix + name`` → version of every wanted regular file (or link) in ``folder``."""
    found: dict[str, ItemVersion] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if not wanted(entry.name):
                continue
            try:
                status = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(status.st_mode) or stat.S_ISLNK(status.st_mode):
                found[prefix + entry.name] = ItemVersion.of(status)
    return found


def stale_locations(
    remembered: Mapping[str, Entry], current: Mapping[str, ItemVersion]
) -> tuple[list[str], list[str]]:
    """(locations to read again: new or changed, locations gone from the folder)."""
    stale = [
        location
        for location, version in current.items()
        if (entry := remembered.get(location)) is None or entry[0] != version
    ]
    gone = [location for location in remembered if location not in current]
    return stale, gone


def held_keys(
    remembered: Mapping[str, Entry], current: Mapping[str, ItemVersion], op_key: str
) -> list[str]:
    """Locations (in ``current``'s order) whose up-to-date entry holds ``op_key``."""
    return [
        location
        for location, version in current.items()
        if (entry := remembered.get(location)) is not None
        and entry[0] == version
        and op_key in entry[1]
    ]


def tagged(
    remembered: Mapping[str, Entry], current: Mapping[str, ItemVersion], source: str
) -> list[str]:
    """Locations (in ``current``'s order) whose up-to-date entry is tagged ``source``."""
    return [
        location
        for location, version in current.items()
        if (entry := remembered.get(location)) is not None
        and entry[0] == version
        and entry[2] == source
    ]
