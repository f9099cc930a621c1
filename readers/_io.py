"""The only place readers touch the file system.

Everything here opens transcripts read-only: files with ``open(..., "rb")``,
SQLite databases through a ``file:`` URI with ``mode=ro`` (and
``immutable=1`` when no write-ahead log exists, so that not even a ``-shm``
side file is created). A ``-wal`` without its ``-shm`` is refused
(``SideFileRefused``): SQLite would create the ``-shm`` even on a read-only
open. Readers call these helpers and never ``open`` a transcript themselves.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from collections.abc import Callable, Collection, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar
from urllib.parse import quote

from dreamd.fs import READ_FLAGS, regular_status

from ._model import FileVersion
from ._text import is_valid_text

__all__ = [
    "Found",
    "SideFileRefused",
    "SourceChanged",
    "connect_sqlite_readonly",
    "describe_os_error",
    "read_bytes",
    "read_head",
    "stat_version",
    "walk",
    "walk_files",
]

#: Larger files are not read whole; a transcript this big is reported, not loaded.
MAX_FILE_BYTES = 512 * 1024 * 1024


class SourceChanged(Exception):
    """The file changed between the stat before and after reading it."""


class SideFileRefused(sqlite3.OperationalError):
    """Opening the database, even read-only, would create a file beside it.

    A ``sqlite3.Error``, so every caller that reports SQLite failures reports
    this one too.
    """


def stat_version(path: Path, marker: str = "") -> FileVersion:
    """The ``FileVersion`` of ``path`` (following symlinks); raises ``OSError``."""
    st = os.stat(path)
    return _version(st, marker)


def _version(st: os.stat_result, marker: str = "") -> FileVersion:
    return FileVersion(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, marker)


def read_bytes(path: Path | str, expected: FileVersion | None = None) -> tuple[bytes, FileVersion]:
    """Read a whole file read-only, with its version checked before and after.

    Raises ``SourceChanged`` when the file was replaced or written to while it
    was being read (or differs from ``expected``'s inode), ``OSError`` when it
    cannot be read at all, also for anything but a regular file within
    ``MAX_FILE_BYTES``. Plain descriptor reads of the size ``stat`` gave (and
    one byte more, to see growth): a scan reads ten thousand files.
    """
    descriptor = os.open(path, READ_FLAGS)
    try:
        before = regular_status(descriptor, path, MAX_FILE_BYTES)
        data = _read_to_end(descriptor, before.st_size + 1)
        after = os.fstat(descriptor)
    finally:
        os.close(descriptor)
    version = _version(before)
    if _version(after) != version or len(data) != before.st_size:
        raise SourceChanged(f"{path} changed while it was read")
    replaced = expected is not None and (expected.device, expected.inode) != (
        version.device,
        version.inode,
    )
    if replaced:
        raise SourceChanged(f"{path} was replaced since it was discovered")
    return data, version


def _read_to_end(descriptor: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``descriptor``, up to its end."""
    chunks = []
    while limit > 0:
        chunk = os.read(descriptor, limit)
        if not chunk:
            break
        chunks.append(chunk)
        limit -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_head(path: Path, limit: int) -> bytes:
    """At most the first ``limit`` bytes of a regular file, read-only (a small read
    for discovery); raises ``OSError``, also for anything but a regular file."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return handle.read(limit)


def describe_os_error(error: OSError) -> str:
    """A short reason for an ``Unresolved`` entry: ``permission denied`` etc."""
    if error.errno == errno.ELOOP:
        return "symlink loop"
    if error.strerror:
        return error.strerror.lower()
    return str(error)


def connect_sqlite_readonly(path: Path) -> sqlite3.Connection:
    """Open a tool's SQLite database without ever writing to it.

    With a ``-wal`` or ``-journal`` file beside it the tool may be writing:
    ``mode=ro`` then reads the committed log and respects the writer's locks.
    Without either, ``immutable=1`` also keeps SQLite from creating
    ``-shm``/``-wal`` side files. A ``-wal`` without its ``-shm`` (an exclusive
    writer holds the database, or one crashed) is refused with
    ``SideFileRefused``: reading it would create the ``-shm``. Raises
    ``sqlite3.Error``/``OSError``.
    """
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, "no such database", str(path))
    refuse_side_file(path)
    params = "mode=ro" if _maybe_in_use(path) else "mode=ro&immutable=1"
    uri = f"file:{quote(str(path.resolve()))}?{params}"
    connection = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
    # A damaged page can hold invalid UTF-8: keep what is readable instead of failing the row.
    connection.text_factory = _lenient_text
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        connection.close()
        raise
    except UnicodeDecodeError as error:
        # SQLite's own message quoted the damaged schema text, which Python cannot decode.
        connection.close()
        raise sqlite3.DatabaseError("database disk image is malformed") from error
    return connection


def refuse_side_file(path: Path) -> None:
    """Raise ``SideFileRefused`` when a read-only open of ``path`` would create its ``-shm``.

    SQLite needs the shared-memory index of a write-ahead log; with the
    ``-wal`` present and the ``-shm`` absent it creates the ``-shm``, read-only
    or not. That happens while an exclusive writer holds the database or after
    one crashed; either way the database is left alone until it is closed.
    """
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and not path.with_name(path.name + "-shm").exists():
        raise SideFileRefused(
            "database is locked or was left by a crash: its -wal has no -shm, "
            "and even a read-only open would create one"
        )


def _lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _maybe_in_use(path: Path) -> bool:
    """True when a write-ahead log or rollback journal sits beside the database."""
    return any(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-journal"))


class Found(NamedTuple):
    """One file met by ``walk_files``: its version, or why it cannot be stat'ed.

    ``unlisted`` marks a folder that could not be listed rather than a file.
    ``location`` is a string (and this a named tuple) for the same reason as
    ``SessionRef.location``: rescans meet every file each time.
    """

    location: str
    version: FileVersion | None
    error: str | None = None
    unlisted: bool = False

    @property
    def path(self) -> Path:
        return Path(self.location)

    @property
    def name(self) -> str:
        return os.path.basename(self.location)


T = TypeVar("T")

#: Turns one accepted file (location, version or None, error or None) into an item, or skips it.
Make = Callable[[str, FileVersion | None, str | None], T | None]
#: Turns a folder that cannot be listed (location, reason) into an item, or skips it.
Unlistable = Callable[[str, str], T | None]
#: Items by folder, then by file name, each with the version of the file it was made from.
Items = dict[str, dict[str, tuple[FileVersion, T]]]


class Reuse(NamedTuple, Generic[T]):
    """What a walk hands back unchanged: the last complete walk's items (``last``), and this
    walk's (``found``, filled as it goes: the next walk's ``last``)."""

    last: Items[T]
    found: Items[T]


_NOTHING_HERE: dict[str, Any] = {}  # a folder the last walk found nothing in (never written)


#: Why an accepted name is reported instead of read.
NOT_A_FILE = "a directory, not a file"
NOT_TEXT_NAME = "file name is not valid UTF-8"


def walk_files(
    root: Path,
    accept: Callable[[str], bool],
    *,
    max_depth: int,
    prune: Callable[[str], bool] = lambda name: False,
    report_unlistable: bool = False,
    skip: Collection[Path] = (),
) -> Iterator[Found]:
    """Yield files under ``root`` whose name ``accept``s, at most ``max_depth`` deep.

    Depth 1 is ``root``'s own files. Symlinked directories are followed once
    (a loop is cut by remembering device and inode); a file whose stat fails
    (dangling link, link loop, no permission), that is not a regular file (a
    directory under a transcript's name, a FIFO) or whose name is not valid
    UTF-8 is yielded with its error so that it can be reported rather than
    silently skipped. With ``report_unlistable``, so is a folder that cannot
    be listed (``cannot list folder: ...``). Directories named so that
    ``prune`` is true are not entered, nor are the folders in ``skip``, by
    whatever path (symlinks included: they are told by device and inode, and
    only stat'ed, never listed). A missing root yields nothing. Files come in
    the directories' own order.
    """
    unlistable = _unlistable_found if report_unlistable else None
    return walk(
        root, accept, Found, max_depth=max_depth, prune=prune, unlistable=unlistable, skip=skip
    )


def _unlistable_found(location: str, reason: str) -> Found:
    return Found(location, None, reason, unlisted=True)


def unlistable_reason(error: OSError) -> str:
    """The reason reported for a folder whose entries cannot be listed."""
    return f"cannot list folder: {describe_os_error(error)}"


def walk(
    root: Path,
    accept: Callable[[str], bool],
    make: Make[T],
    *,
    max_depth: int,
    prune: Callable[[str], bool] = lambda name: False,
    unlistable: Unlistable[T] | None = None,
    skip: Collection[Path] = (),
    reuse: Reuse[T] | None = None,
) -> Iterator[T]:
    """``walk_files`` building each item with ``make`` (None skips the file).

    A folder that cannot be listed (no permission, gone mid-walk) is handed
    to ``unlistable`` when given, else skipped. Discovery builds its session
    references here directly: rescans meet every file every time, and each
    intermediate object per file costs as much as a good part of the ``stat``
    itself. With ``reuse``, a file whose version equals the one its item in
    ``reuse.last`` was made from yields that item again, neither accepted nor
    made anew; every item made or reused goes into ``reuse.found``.
    """
    try:
        root_stat = os.stat(root)
    except OSError:
        return
    # A folder to skip counts as entered already: no path leads into it.
    seen: set[tuple[int, int]] = {(root_stat.st_dev, root_stat.st_ino)} | _identities(skip)
    pending: list[tuple[str, int]] = [(os.fspath(root), max_depth)]
    while pending:
        directory, depth = pending.pop()
        subdirs = yield from _scan_directory(
            directory, depth, accept, make, prune, unlistable, reuse or Reuse({}, {})
        )
        for subdir in reversed(subdirs):
            try:
                st = os.stat(subdir)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                pending.append((subdir, depth - 1))


def _identities(folders: Collection[Path]) -> set[tuple[int, int]]:
    """Device and inode of each folder that exists (a ``stat``; nothing is listed)."""
    found: set[tuple[int, int]] = set()
    for folder in folders:
        try:
            st = os.stat(folder)
        except OSError:
            continue
        found.add((st.st_dev, st.st_ino))
    return found


def _scan_directory(
    directory: str,
    depth: int,
    accept: Callable[[str], bool],
    make: Make[T],
    prune: Callable[[str], bool],
    unlistable: Unlistable[T] | None,
    reuse: Reuse[T],
) -> Generator[T, None, list[str]]:
    """Items for one directory's accepted files; returns the subdirectories to enter.

    The directory is listed through a file descriptor where the platform can:
    each entry is then stat'ed relative to it, which spares the kernel the
    walk down the full path for every file.
    """
    subdirs: list[str] = []
    prefix = directory if directory.endswith(os.sep) else directory + os.sep
    last = reuse.last.get(directory, _NOTHING_HERE)
    found: dict[str, tuple[FileVersion, T]] = {}
    is_regular = stat.S_ISREG
    try:
        with _listing(directory) as entries:
            for entry in entries:
                name = entry.name
                known = last.get(name)
                if known is not None:
                    # Still the regular file the last walk saw (same device, inode, size and
                    # time)? Asked inline, without a call: once per file on every rescan.
                    kept = known[0]
                    try:
                        st = entry.stat()
                    except OSError:
                        st = None
                    if (
                        st is not None
                        and st.st_mtime_ns == kept.mtime_ns
                        and st.st_size == kept.size
                        and st.st_ino == kept.inode
                        and st.st_dev == kept.device
                        and is_regular(st.st_mode)
                    ):
                        found[name] = known
                        yield known[1]
                        continue
                if accept(name):
                    location = prefix + name
                    version = _entry_version(location, entry)
                    if isinstance(version, FileVersion):  # the common case, kept short
                        item = make(location, version, None)
                        if item is not None:
                            found[name] = (version, item)
                            yield item
                        continue
                    item = make(location, None, version)
                    if item is not None:
                        yield item
                    if version != NOT_A_FILE:
                        continue
                if depth > 1 and not prune(name) and _is_dir(entry):
                    subdirs.append(prefix + name)
        if found:
            reuse.found[directory] = found
    except OSError as error:
        if unlistable is not None:
            reported = unlistable(directory, unlistable_reason(error))
            if reported is not None:
                yield reported
    return subdirs


def _entry_version(location: str, entry: os.DirEntry[Any]) -> FileVersion | str:
    """An accepted file's version, or why it cannot be read (``NOT_A_FILE`` for a
    directory under an accepted name, which is still entered)."""
    if not is_valid_text(location):
        return NOT_TEXT_NAME
    try:
        st = entry.stat()
    except OSError as error:
        return describe_os_error(error)
    if stat.S_ISREG(st.st_mode):
        return FileVersion(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if stat.S_ISDIR(st.st_mode):
        return NOT_A_FILE
    return "not a regular file"


@contextmanager
def _listing(directory: str) -> Iterator[Iterator[os.DirEntry[Any]]]:
    """``os.scandir`` of ``directory``, through a descriptor where supported."""
    if os.scandir not in os.supports_fd:
        with os.scandir(directory) as entries:
            yield entries
        return
    descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with os.scandir(descriptor) as entries:
            yield entries
    finally:
        os.close(descriptor)


def _is_dir(entry: os.DirEntry[Any]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
