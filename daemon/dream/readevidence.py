"""Which memory files agents read in the last 14 days, from the transcripts (seed 000 STEP 2.5).

Finding the reads means scanning every transcript written in the window for
memory-file paths (``staleness.memory_path_texts``). What one scan found is
kept in the state database's ``transcript_reads`` table, keyed by the
transcript's path and file version (device, inode, size, mtime): the next
dream ``stat``s every recent transcript and reads only those that are new or
changed since, so its cost grows with the bytes that changed, not with the
history (issue 13). A transcript that is gone, or that left the window, loses
its row. Without a state database (or when it fails) every recent transcript
is scanned, as before.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dreamd.dream.folder.staleness import memory_path_texts
from dreamd.errors import StateError
from dreamd.logs import get_logger
from dreamd.statedb import StateDB

__all__ = ["Scanned", "Version", "reads_in", "recent_reads", "to_rescan"]

log = get_logger("dreamd.dream")

#: A transcript's file version: (device, inode, size, mtime in ns).
Version = tuple[int, int, int, int]

#: The cache's table (migration 0008): one row per transcript path, at the version scanned.
_COLUMNS = ("path", "device", "inode", "size", "mtime_ns", "memory_paths")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM transcript_reads"
_UPSERT = (
    f"INSERT INTO transcript_reads ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join(':' + name for name in _COLUMNS)}) "
    "ON CONFLICT (path) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in _COLUMNS[1:])
)


@dataclass(frozen=True, slots=True)
class Scanned:
    """What one scan of one transcript version found: the memory paths it names."""

    version: Version
    paths: tuple[str, ...]


def recent_reads(
    transcripts: Iterable[str | Path], cutoff: float, state: StateDB | None = None
) -> frozenset[Path]:
    """Memory files named in the transcripts last written at or after ``cutoff`` (a timestamp).

    With ``state``, unchanged transcripts are answered from the cache and the
    cache is brought up to date (new, changed, gone).
    """
    versions = _recent_versions(transcripts, cutoff)
    cached = _load(state) if state is not None else {}
    rescan = set(to_rescan(versions, cached))
    found: dict[str, Scanned] = {}
    changed: dict[str, Scanned] = {}
    for path in versions:
        if path not in rescan:
            found[path] = cached[path]
        elif (scanned := _scan(path)) is not None:  # unreadable now: no evidence, as before
            found[path] = changed[path] = scanned
    gone = cached.keys() - versions.keys()
    if state is not None and (changed or gone):
        _save(state, changed, gone)
    return frozenset(Path(text) for scanned in found.values() for text in scanned.paths)


def to_rescan(versions: Mapping[str, Version], cached: Mapping[str, Scanned]) -> list[str]:
    """The transcripts whose cached scan is missing or of another file version. Pure."""
    return [
        path
        for path, version in versions.items()
        if (hit := cached.get(path)) is None or hit.version != version
    ]


def reads_in(data: bytes) -> tuple[str, ...]:
    """The distinct memory paths one transcript's bytes name, in the order first named."""
    return tuple(dict.fromkeys(memory_path_texts(data)))


def _recent_versions(transcripts: Iterable[str | Path], cutoff: float) -> dict[str, Version]:
    """Each distinct transcript written at or after ``cutoff``, with its file version."""
    versions: dict[str, Version] = {}
    for transcript in transcripts:
        key = str(transcript)
        if key in versions:
            continue
        try:
            info = os.stat(key)
        except OSError:
            continue
        if info.st_mtime >= cutoff:
            versions[key] = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    return versions


def _scan(path: str) -> Scanned | None:
    """Read one transcript (never written to) and scan it; None when it cannot be read.

    The version stored is the open file's, so a transcript that changes while
    it is read is scanned again next time.
    """
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except OSError:
        return None
    version = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    return Scanned(version, reads_in(data))


def _load(state: StateDB) -> dict[str, Scanned]:
    try:
        with state.transaction() as connection:
            rows = connection.execute(_SELECT).fetchall()
    except StateError:
        log.exception("dream.read_evidence.unreadable")
        return {}
    return {
        path: Scanned((device, inode, size, mtime_ns), tuple(paths.split("\n")) if paths else ())
        for path, device, inode, size, mtime_ns, paths in rows
    }


def _save(state: StateDB, changed: Mapping[str, Scanned], gone: Collection[str]) -> None:
    """Store the new scans and drop the rows of transcripts gone or out of the window.

    A cache that cannot be written costs the next dream a rescan, nothing more.
    """
    rows = [
        {
            "path": path,
            "device": s.version[0],
            "inode": s.version[1],
            "size": s.version[2],
            "mtime_ns": s.version[3],
            "memory_paths": "\n".join(s.paths),
        }
        for path, s in changed.items()
    ]
    stale = [(path,) for path in gone]
    try:
        with state.transaction() as connection:
            connection.executemany(_UPSERT, rows)
            connection.executemany("DELETE FROM transcript_reads WHERE path = ?", stale)
    except StateError:
        log.exception("dream.read_evidence.unsaved", changed=len(rows), gone=len(stale))
