"""The one file layer's writes: atomic and durable, contained, never through a link.

Built on the checked names and folder descriptors of ``dreamd.fs``.

Invariants:

- ``write_new`` writes a hidden temp file (``.<name>.<random>.tmp``), fsyncs
  it, then publishes it under its name with ``link`` (the no-replace form of
  ``rename``) and fsyncs the directory. ``replace_file`` and ``write_file`` do
  the same but ``rename`` over the name. A crash leaves no file, the old bytes
  or the new ones, never a mix, and at most a temp file, which
  ``is_temp_name`` tells readers to ignore and ``sweep_temps`` removes.
- Errors: ``StoreError`` when nothing was written, ``WriteUncertain`` from
  the publishing call on, ``UnsafePath`` for a refused name or link; each
  chains the ``OSError``. ``atomic_write`` (files dreamd owns) raises
  ``OSError``.
- Files dreamd keeps for itself (``atomic_write``: state, plans, reports) are
  private, folders 0700 and files 0600 whatever the umask; files in a store
  follow the umask like the agents' own files (``mode=None``), unless the
  caller names a mode (a service unit other programs read: 0644).
- ``private_folder``, ``private_file`` and ``append_private`` make the
  folders, the empty files (a database or log a library then opens) and the
  journals dreamd keeps for itself with the same modes; ``tighten_once``
  takes group and other permissions off a data folder made by an older
  dreamd, once (a marker file remembers it was done).
- ``CrashPoint`` kills the process at a chosen step, for the crash tests of
  every write above; unset in real use, it does nothing.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from dreamd.errors import StoreError, UnsafePath, WriteUncertain
from dreamd.fs import (
    CLOEXEC,
    PRIVATE_FOLDER,
    TEMP_SUFFIX,
    check_name,
    error_reason,
    exists,
    is_temp_name,
    list_names,
    open_folder,
)

__all__ = [
    "PRIVATE_FILE",
    "TIGHTENED_MARKER",
    "CrashPoint",
    "append_private",
    "atomic_write",
    "exclusive_lock",
    "move",
    "private_file",
    "private_folder",
    "replace_file",
    "sweep_temps",
    "tighten",
    "tighten_once",
    "write_file",
    "write_new",
]

#: Mode of the files dreamd creates for itself.
PRIVATE_FILE = 0o600

#: Errors of ``link`` meaning "this file system has no hard links", not "the write failed".
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


# --- Writing ----------------------------------------------------------------------------------


def write_new(folder: int, name: str, data: bytes, *, mode: int | None = None) -> bool:
    """Create file ``name`` in ``folder`` holding ``data``, atomically and durably.

    Returns False, having written nothing, when ``name`` is already taken (by
    anything, a symbolic link included). Raises ``StoreError`` when nothing
    was written and ``WriteUncertain`` when the file may exist.
    """
    check_name(name)
    temp = _write_temp(folder, name, data, mode)
    try:
        published = _publish(folder, temp, name)
    except OSError as error:
        _discard(folder, temp)
        raise WriteUncertain(f"writing {name!r} broke off: {error_reason(error)}") from error
    _discard(folder, temp)
    if not published:
        return False
    _sync(folder, name, "written")
    return True


def replace_file(folder: int, name: str, data: bytes, *, mode: int | None = None) -> None:
    """Replace existing regular file ``name`` in ``folder`` with ``data``, atomically, durably.

    Callers hold ``exclusive_lock`` on the folder and have just read the file.
    Raises ``StoreError`` when nothing was replaced (the name is no longer a
    regular file, or the temp file could not be written), ``UnsafePath`` when
    it is a link, and ``WriteUncertain`` from the ``rename`` on.
    """
    check_name(name)
    try:
        status = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as error:
        raise StoreError(f"cannot replace {name!r}: {error_reason(error)}") from error
    if stat.S_ISLNK(status.st_mode):
        raise UnsafePath(f"refusing to replace {name!r}: it is a symbolic link")
    if not stat.S_ISREG(status.st_mode):
        raise StoreError(f"refusing to replace {name!r}: not a regular file")
    if mode is None:
        mode = stat.S_IMODE(status.st_mode)  # a rewrite keeps the file's mode
    _rename_in(folder, _write_temp(folder, name, data, mode), name)


def write_file(folder: int, name: str, data: bytes, *, mode: int | None = None) -> None:
    """Create or replace file ``name`` in ``folder`` with ``data``, atomically and durably.

    A symbolic link or anything but a regular file under the name is refused.
    """
    check_name(name)
    try:
        status: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise StoreError(f"cannot write {name!r}: {error_reason(error)}") from error
    if status is not None and stat.S_ISLNK(status.st_mode):
        raise UnsafePath(f"refusing to write {name!r}: it is a symbolic link")
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise StoreError(f"refusing to write {name!r}: not a regular file")
    if status is not None and mode is None:
        mode = stat.S_IMODE(status.st_mode)  # a rewrite keeps the file's mode
    _rename_in(folder, _write_temp(folder, name, data, mode), name)


def _rename_in(folder: int, temp: str, name: str) -> None:
    try:
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError as error:
        _discard(folder, temp)
        raise WriteUncertain(f"replacing {name!r} broke off: {error_reason(error)}") from error
    _sync(folder, name, "replaced")


def move(source: int, name: str, target: int, new_name: str) -> None:
    """Move file ``name`` from folder ``source`` to folder ``target`` as ``new_name``.

    Never replaces: an existing ``new_name`` (a link included) is refused.
    The link in ``source`` itself is moved, never what it points to. Both
    folders are fsynced afterwards.
    """
    check_name(name)
    if exists(target, check_name(new_name)):
        raise StoreError(f"refusing to move {name!r}: {new_name!r} is taken")
    try:
        os.rename(name, new_name, src_dir_fd=source, dst_dir_fd=target)
    except OSError as error:
        raise StoreError(f"cannot move {name!r}: {error_reason(error)}") from error
    _sync(target, new_name, "moved")
    _sync(source, name, "moved")


def _sync(folder: int, name: str, done: str) -> None:
    try:
        os.fsync(folder)
    except OSError as error:
        raise WriteUncertain(
            f"{name!r} was {done} but not synced: {error_reason(error)}"
        ) from error


def _write_temp(folder: int, name: str, data: bytes, mode: int | None) -> str:
    """A new fsynced temp file of ``name`` holding ``data``, by its name; ``StoreError``
    (no temp file left) when it cannot be written."""
    temp = check_name(f".{name}.{os.urandom(6).hex()}{TEMP_SUFFIX}")
    try:
        _write_durably(folder, temp, data, mode)
    except OSError as error:
        _discard(folder, temp)
        raise StoreError(f"cannot write {name!r}: {error_reason(error)}") from error
    return temp


def _write_durably(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """Write a new file and fsync it; created exclusively, never through a link, with
    ``mode`` whatever the umask (None: 0666 under the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | CLOEXEC
    descriptor = os.open(name, flags, 0o666 if mode is None else mode, dir_fd=folder)
    try:
        if mode is not None:
            os.fchmod(descriptor, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _publish(folder: int, temp: str, name: str) -> bool:
    """Give the fsynced ``temp`` its final ``name`` unless taken; False when taken."""
    try:
        os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS:
            raise
        # No hard links here (some FUSE and network file systems): rename, after a check
        # that is only safe because callers hold ``exclusive_lock`` on the folder.
        if exists(folder, name):
            return False
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    return True


def _discard(folder: int, name: str) -> None:
    """Remove a temp file; a leftover is harmless (readers skip it), so errors are ignored."""
    with suppress(OSError):
        os.unlink(name, dir_fd=folder)


def sweep_temps(folder: int, *, now: float, older_than: float, prefix: str = "") -> int:
    """Remove temp files last modified more than ``older_than`` seconds before ``now``.

    Younger ones may belong to a write in progress in another process. With
    ``prefix`` (``.<name>.``), only the temp files of that one file.
    """
    removed = 0
    for name in list_names(folder):
        if not (name.startswith(prefix) and is_temp_name(name)):
            continue
        try:
            status = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if now - status.st_mtime > older_than:
                os.unlink(name, dir_fd=folder)
                removed += 1
        except OSError:
            continue
    return removed


def atomic_write(path: Path, content: bytes, *, mode: int = PRIVATE_FILE) -> None:
    """Create or replace ``path`` (a file dreamd owns) atomically and durably.

    Its folder is created (private) when missing; the name itself is never
    followed as a link. Raises ``OSError`` (the layer's errors chain one).
    """
    try:
        with open_folder(path.parent, create=True, mode=PRIVATE_FOLDER) as folder:
            write_file(folder, path.name, content, mode=mode)
    except (StoreError, UnsafePath) as error:
        raise _as_os_error(error) from error


def _as_os_error(error: StoreError | UnsafePath) -> OSError:
    cause = error.__cause__
    return cause if isinstance(cause, OSError) else OSError(errno.EIO, str(error))


def private_folder(path: Path) -> Path:
    """``mkdir -p`` of a folder dreamd keeps for itself: what it creates is 0700."""
    try:
        with open_folder(path, create=True, mode=PRIVATE_FOLDER):
            return path
    except (StoreError, UnsafePath) as error:
        raise _as_os_error(error) from error


def private_file(path: Path) -> Path:
    """Create ``path`` empty and 0600 when missing (its folder private); never through a link.

    For files a library opens by name afterwards (SQLite, logging): SQLite gives
    a database's ``-wal`` and ``-shm`` the mode of the database file.
    """
    private_folder(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | CLOEXEC
    with suppress(FileExistsError):
        os.close(os.open(path, flags, PRIVATE_FILE))
    return path


def append_private(path: Path) -> int:
    """A descriptor appending to ``path`` (a journal), created 0600 when missing."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | CLOEXEC
    return os.open(path, flags, PRIVATE_FILE)


#: File a data folder keeps once ``tighten_once`` went through it.
TIGHTENED_MARKER = ".private"
_GROUP_AND_OTHER = 0o077


def tighten(root: Path) -> list[Path]:
    """Take group and other permission bits off ``root`` and everything under it.

    Links are neither followed nor changed; an entry that cannot be changed is
    left as it is. Returns the paths that changed.
    """
    changed: list[Path] = []
    for folder, names, files in os.walk(root, followlinks=False):
        base = Path(folder)
        paths = [base] if base == root else []
        paths += [base / name for name in (*names, *files)]
        changed += [path for path in paths if _tighten_one(path)]
    return changed


def _tighten_one(path: Path) -> bool:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | CLOEXEC)
    except OSError:  # a link, a socket, or gone
        return False
    try:
        mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
        if not mode & _GROUP_AND_OTHER:
            return False
        os.fchmod(descriptor, mode & ~_GROUP_AND_OTHER)
        return True
    except OSError:
        return False
    finally:
        os.close(descriptor)


def tighten_once(root: Path) -> list[Path]:
    """``tighten`` a data folder the first time dreamd opens it (``TIGHTENED_MARKER``)."""
    marker = root / TIGHTENED_MARKER
    if not root.is_dir() or marker.exists():
        return []
    changed = tighten(root)
    private_file(marker)
    return changed


@contextmanager
def exclusive_lock(folder: int, name: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on file ``name`` in ``folder`` (released on exit or death)."""
    check_name(name)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | CLOEXEC
    try:
        descriptor = os.open(name, flags, PRIVATE_FILE, dir_fd=folder)
    except OSError as error:
        raise StoreError(f"cannot open the lock {name!r}: {error_reason(error)}") from error
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError as error:
            raise StoreError(f"cannot take the lock {name!r}: {error_reason(error)}") from error
        yield
    finally:
        os.close(descriptor)


# --- Crash tests ------------------------------------------------------------------------------


class CrashPoint:
    """Fault injection for crash tests: ``DREAMD_TEST_CRASH_AT=<n>`` kills the process
    (SIGKILL) at the n-th ``tick``. Unset in real use, it does nothing."""

    def __init__(self, variable: str = "DREAMD_TEST_CRASH_AT") -> None:
        value = os.environ.get(variable, "")
        self.at = int(value) if value.isdigit() else None
        self.count = 0

    def tick(self) -> None:
        self.count += 1
        if self.at is not None and self.count == self.at:
            os.kill(os.getpid(), signal.SIGKILL)
