"""Which operation keys each file of a memory folder holds, without re-reading the folder.

A collect asks a folder store "does any file hold this key?" several times
per item it plants (seed 002 ``plantOnce``: find, write, find again). The
files are the truth, so the answer used to mean reading and parsing every
file each time: linear in the folder per plant, quadratic over its life.

The index remembers, per file, the version it read (``ItemVersion``: inode,
size, modification and change times in nanoseconds), the keys it found and
the session the item came from (``metadata.source``, for ``items_from``).
A listing ``stat``\\ s every file (the only way to see a file added, edited,
deleted or replaced by hand) but reads only the files whose version is not
the one remembered. An entry is trusted only while its file's version is
unchanged, so the index can never make a stale answer; at worst it is empty
and every file is read once.

Each look-up lists the folder afresh, except while a plan is planted
(``ClaudeMemoryStore.planning``): then the folder is listed once and the
plan's look-ups share that ``Listing``, with the plan's own writes added.
Under the writers' lock, before a write decides a key is not held, the
listing is trusted only while neither folder changed since it was taken
(``Listing.still_true``: the folders' own inode and times, two ``fstat``\\ s),
so a write by another process is always seen; a listing taken within a
timestamp tick of the folder's last change is not trusted (``settled``).

``KeyIndex`` is where the entries persist between runs (the state database,
``dreamd.storekeys``); ``MemoryKeyIndex`` keeps them for one process.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

__all__ = [
    "Entry",
    "FolderVersion",
    "ItemVersion",
    "KeyIndex",
    "Listing",
    "MemoryKeyIndex",
    "folder_version",
    "folder_versions",
    "held_keys",
    "settled",
    "stale_locations",
    "tagged",
]


class ItemVersion(NamedTuple):
    """What identifies one state of a file: any write, rename onto it or replacement changes it
    (the change time cannot be set back by a user). A tuple: one is made per file per look-up."""

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
    regular, link = stat.S_ISREG, stat.S_ISLNK
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if not wanted(name):
                continue
            try:
                status = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            mode = status.st_mode
            if regular(mode) or link(mode):
                found[prefix + name] = ItemVersion(
                    status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns
                )
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


class FolderVersion(NamedTuple):
    """What identifies one state of a folder's entries: a file added, removed or renamed in
    or out changes its modification and change times (editing a file in place does not)."""

    inode: int
    mtime_ns: int
    ctime_ns: int


def folder_version(folder: int) -> FolderVersion:
    """The version of the open folder ``folder``."""
    status = os.fstat(folder)
    return FolderVersion(status.st_ino, status.st_mtime_ns, status.st_ctime_ns)


#: File systems stamp a change with a clock that ticks every few milliseconds (Linux: its
#: coarse clock, one tick of 1 to 10 ms); a change this close after the one a version shows
#: may leave the version as it was. Twice the longest tick.
TICK_NS = 20_000_000
#: ... and some keep whole seconds (two, on FAT): a time with no fraction of a second may be one.
COARSE_TICK_NS = 2_000_000_000


def settled(version: FolderVersion, listed_ns: int) -> bool:
    """Whether every change after ``listed_ns`` (wall clock, nanoseconds) must show in the
    folder's version: its last change is more than a timestamp tick older than that."""
    tick = COARSE_TICK_NS if version.ctime_ns % 1_000_000_000 == 0 else TICK_NS
    return version.ctime_ns < listed_ns - tick


@dataclass
class Listing:
    """One listing of a folder store: every item file's version (in listing order), the
    index entries, what this process wrote since, and the listed folders' versions.

    ``folders`` maps each listed folder's prefix to its version before the
    listing began, or None once this process wrote there since. The first
    look-up by key (or by source) maps every key to where it is, once per
    listing: a location string per key, a list only for a key several files
    hold (thousands of small lists cost more in allocation and garbage
    collection than the scans they would save).
    """

    folders: dict[str, FolderVersion | None]
    listed_ns: int
    current: Mapping[str, ItemVersion] = field(default_factory=dict)
    remembered: Mapping[str, Entry] = field(default_factory=dict)
    #: (location, keys, source) of each write this process made since the listing
    written: list[tuple[str, frozenset[str], str]] = field(default_factory=list)
    _by_key: _Located | None = field(default=None, repr=False)
    _by_source: _Located | None = field(default=None, repr=False)

    def holding(self, op_key: str) -> list[str]:
        """Locations whose listed version (or our own write since) holds ``op_key``."""
        if self._by_key is None:
            self._by_key = _located(self.remembered, self.current, lambda entry: entry[1])
        found = self._by_key.get(op_key, [])
        return _with(found, [loc for loc, keys, _ in self.written if op_key in keys])

    def tagged(self, source: str) -> list[str]:
        """Locations whose listed version (or our own write since) is tagged ``source``."""
        if self._by_source is None:
            self._by_source = _located(self.remembered, self.current, lambda e: (e[2],))
        found = self._by_source.get(source, [])
        return _with(found, [loc for loc, _, tag in self.written if tag == source])

    def wrote(self, prefix: str, location: str, keys: Iterable[str], source: str) -> None:
        """This process wrote ``location`` in the folder ``prefix`` names, holding ``keys``
        and tagged ``source``: later look-ups find it; the folder is no longer as listed."""
        self.folders[prefix] = None
        self.written.append((location, frozenset(keys), source))

    def still_true(self, versions: Mapping[str, FolderVersion]) -> bool:
        """Whether the folders (``versions``: prefix → version now) are the ones listed,
        unchanged since, and were listed long enough after their last change to tell."""
        if versions.keys() != self.folders.keys():
            return False
        return all(
            (seen := self.folders[prefix]) is not None
            and seen == version
            and settled(seen, self.listed_ns)
            for prefix, version in versions.items()
        )


class _Located:
    """Locations by value (key or source), in listing order: a plain string for most."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        self.more: dict[str, list[str]] = {}

    def get(self, value: str, default: list[str]) -> list[str]:
        first = self.first.get(value)
        if first is None:
            return default
        return [first, *self.more.get(value, ())]


def _located(
    remembered: Mapping[str, Entry],
    current: Mapping[str, ItemVersion],
    values: Callable[[Entry], Iterable[str]],
) -> _Located:
    """Where each of ``values`` is held, among the up-to-date entries (``current``'s order)."""
    located = _Located()
    first, more = located.first, located.more
    for location, version in current.items():
        entry = remembered.get(location)
        if entry is None or entry[0] != version:
            continue
        for value in values(entry):
            if not value:
                continue
            if value in first:
                more.setdefault(value, []).append(location)
            else:
                first[value] = location
    return located


def _with(found: list[str], extra: list[str]) -> list[str]:
    """``found`` and ``extra`` in listing order (sub-folder files first, by name), once each."""
    if not extra:
        return found
    return sorted({*found, *extra}, key=lambda name: ("/" not in name, name))
