"""The folder stores' key index kept in the state database (``dreamd.stores.KeyIndex``).

Entries are loaded once per store and run, kept in memory and written
through: a collect pays one query per folder it plants into, plus one
transaction for each lookup that found files new or changed. Entries from
another process are as good as ours: every entry is checked against its
file's version before it is used (``dreamd.stores._keyindex``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dreamd.statedb import KeyRow, StateDB
from dreamd.stores import ItemVersion

__all__ = ["StateKeyIndex"]

Entry = tuple[ItemVersion, frozenset[str], str]


class StateKeyIndex:
    """A ``KeyIndex`` over the state database's ``store_key_index`` table."""

    def __init__(self, state: StateDB) -> None:
        self._state = state
        self._loaded: dict[str, dict[str, Entry]] = {}

    def entries(self, store: str) -> dict[str, Entry]:
        held = self._loaded.get(store)
        if held is None:
            held = dict(_entry(row) for row in self._state.load_key_index(store))
            self._loaded[store] = held
        return dict(held)

    def update(self, store: str, changed: Mapping[str, Entry], gone: Iterable[str]) -> None:
        dropped = list(gone)
        self._state.save_key_index(store, [_row(k, e) for k, e in changed.items()], dropped)
        held = self._loaded.setdefault(store, {})
        for location in dropped:
            held.pop(location, None)
        held.update(changed)


def _entry(row: KeyRow) -> tuple[str, Entry]:
    location, inode, size, mtime_ns, ctime_ns, keys, source = row
    return location, (ItemVersion(inode, size, mtime_ns, ctime_ns), frozenset(keys), source)


def _row(location: str, entry: Entry) -> KeyRow:
    version, keys, source = entry
    return (location, version.inode, version.size, version.mtime_ns, version.ctime_ns,
            tuple(sorted(keys)), source)  # fmt: skip
