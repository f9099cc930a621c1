"""The one file layer: atomic writes, contained operations, safe read-only opens.

Every module that writes a file (stores, the dream, plans and reports, the
service installer) or reads one it does not own (transcripts, memory files,
repository files) goes through here, so each guarantee is written once.

Invariants:

- A name reaches the file system only as one checked component
  (``check_name``): no separator, no NUL, not ``.`` or ``..``, not absolute,
  at most ``MAX_NAME_BYTES``. Free text becomes such a name only through
  ``slugify``.
- Contained operations are relative to a directory descriptor. The root
  folder itself may be reached through a symbolic link (a user's moved home);
  everything inside it is opened with ``O_NOFOLLOW`` on each component
  (``open_folder``, ``open_subfolder``, ``open_within``): a symbolic link,
  planted before or during a write, is never followed out of the folder, and
  refusing one raises ``UnsafePath`` with a one-line reason.
- ``write_new`` writes a hidden temp file (``.<name>.<random>.tmp``), fsyncs
  it, then publishes it under its name with ``link`` (the no-replace form of
  ``rename``) and fsyncs the directory. ``replace_file`` and ``write_file`` do
  the same but ``rename`` over the name. A crash leaves no file, the old bytes
  or the new ones, never a mix, and at most a temp file, which
  ``is_temp_name`` tells readers to ignore and ``sweep_temps`` removes.
- Errors of the descriptor operations: ``StoreError`` when nothing was
  written, ``WriteUncertain`` from the publishing call on, ``UnsafePath`` for
  a refused name or link; each chains the ``OSError``. The path-level helpers
  (``atomic_write``, ``read_regular``) are for files dreamd owns or only reads,
  and raise ``OSError``.
- Reads never block and never write: ``O_NONBLOCK`` (a FIFO squatting on a
  name returns at once), regular files only, a size cap.
- Files dreamd keeps for itself (``atomic_write``: state, plans, reports) are
  private, folders 0700 and files 0600 whatever the umask; files in a store
  follow the umask like the agents' own files (``mode=None``), unless the
  caller names a mode (a service unit other programs read: 0644).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import secrets
import signal
import stat
import unicodedata
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path, PurePath
from typing import BinaryIO

from dreamd.errors import StoreError, UnsafePath, WriteUncertain

__all__ = [
    "MAX_NAME_BYTES",
    "MAX_SLUG_BYTES",
    "TEMP_SUFFIX",
    "CrashPoint",
    "atomic_write",
    "check_name",
    "digest",
    "exclusive_lock",
    "exists",
    "fsync_dir",
    "is_safe_name",
    "is_temp_name",
    "list_names",
    "move",
    "open_folder",
    "open_regular",
    "open_subfolder",
    "open_within",
    "read_file",
    "read_if_present",
    "read_regular",
    "regular_status",
    "replace_file",
    "sha256_of",
    "slugify",
    "sweep_temps",
    "write_file",
    "write_new",
]

#: Longest file name most file systems accept (ext4, APFS, btrfs: 255 bytes).
MAX_NAME_BYTES = 255
#: Longest slug, in UTF-8 bytes: room left for a type prefix, a suffix and the temp decoration.
MAX_SLUG_BYTES = 120
#: Suffix of temp files; with the leading dot it marks a file that is not (yet) real.
TEMP_SUFFIX = ".tmp"
#: Slug of a name with no letter or digit in it.
FALLBACK_SLUG = "memory"
#: Mode of the files and folders dreamd creates for itself.
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC
_SEPARATORS = re.compile(r"[^\w]+|_+")
#: Errors of ``link`` meaning "this file system has no hard links", not "the write failed".
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


# --- Names ----------------------------------------------------------------------------------


def slugify(text: str, *, max_bytes: int = MAX_SLUG_BYTES) -> str:
    """A file-name-safe slug of ``text``: lowercase letters and digits joined by ``-``.

    Unicode letters are kept (NFKC-normalised, case-folded); everything else,
    separators, dots and NUL included, becomes one ``-``. The result is cut at
    a character boundary to ``max_bytes`` UTF-8 bytes and never starts with a
    dot, so it is always a valid ``check_name`` component.
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    slug = _SEPARATORS.sub("-", folded).strip("-")
    encoded = slug.encode("utf-8")[:max_bytes]
    slug = encoded.decode("utf-8", errors="ignore").strip("-")
    return slug or FALLBACK_SLUG


def check_name(name: str) -> str:
    """``name`` itself when it is one safe path component; raises ``UnsafePath`` otherwise."""
    problem = _name_problem(name)
    if problem:
        raise UnsafePath(f"refusing the file name {name!r}: {problem}")
    return name


def is_safe_name(name: str) -> bool:
    """Whether ``name`` passes ``check_name`` (for checking names read from outside)."""
    return _name_problem(name) is None


def _name_problem(name: str) -> str | None:
    if not name or name in {".", ".."}:
        return "not a file name"
    if "\x00" in name:
        return "contains NUL"
    if "/" in name or "\\" in name:
        return "contains a path separator"
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid text"
    if len(encoded) > MAX_NAME_BYTES:
        return f"longer than {MAX_NAME_BYTES} bytes"
    return None


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is a temp file of this layer (never real content, whatever it holds)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def digest(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (what receipts and journals record)."""
    return hashlib.sha256(data).hexdigest()


def sha256_of(path: Path) -> str | None:
    """Hex SHA-256 of a regular file's bytes (never through a link), or None when absent."""
    try:
        data, _ = read_regular(path, follow=False)
    except FileNotFoundError:
        return None
    return digest(data)


# --- Folders ----------------------------------------------------------------------------------


@contextmanager
def open_folder(path: Path, *, create: bool, mode: int | None = None) -> Iterator[int]:
    """A descriptor of a root folder (created with its parents when ``create``; ``mode``
    for the folders it creates, else the umask decides).

    The folder itself may be reached through a symbolic link (a user's moved
    home); what lies inside it is never followed (see ``open_subfolder``).
    """
    try:
        if create:
            _make_folders(path, mode)
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except OSError as error:
        raise StoreError(f"cannot open the folder {path}: {_reason(error)}") from error
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _make_folders(path: Path, mode: int | None) -> None:
    """``mkdir -p``; the folders it creates get ``mode`` whatever the umask (if given)."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        with suppress(FileExistsError):
            folder.mkdir(0o777 if mode is None else mode)
            if mode is not None:
                folder.chmod(mode)


@contextmanager
def open_subfolder(parent: int, name: str, *, create: bool) -> Iterator[int | None]:
    """A descriptor of ``name`` inside ``parent`` (None when absent and not ``create``).

    A symbolic link in its place is refused (``UnsafePath``): it could lead out.
    """
    descriptor = _open_subfolder(parent, check_name(name), create=create)
    try:
        yield descriptor
    finally:
        if descriptor is not None:
            os.close(descriptor)


def _open_subfolder(parent: int, name: str, *, create: bool) -> int | None:
    try:
        if create:
            with suppress(FileExistsError):
                os.mkdir(name, PRIVATE_FOLDER, dir_fd=parent)
        return os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if create:
            raise StoreError(f"the folder {name!r} vanished while opening it") from None
        return None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and _is_symlink(parent, name):
            raise UnsafePath(f"refusing {name!r}: it is a symbolic link") from error
        raise StoreError(f"cannot open the folder {name!r}: {_reason(error)}") from error


@contextmanager
def open_within(root: Path, relative: PurePath, *, create: bool) -> Iterator[int | None]:
    """A descriptor of folder ``root/relative``, each component opened with ``O_NOFOLLOW``.

    ``relative`` must be a plain relative path (no ``..``, not absolute). None
    when a component is absent and not ``create``.
    """
    if relative.is_absolute() or ".." in relative.parts:
        raise UnsafePath(f"refusing {relative}: it leaves {root}")
    with ExitStack() as stack:
        current: int | None = stack.enter_context(open_folder(root, create=create))
        for part in relative.parts:
            assert current is not None
            current = stack.enter_context(open_subfolder(current, part, create=create))
            if current is None:
                break
        yield current


def _is_symlink(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def list_names(folder: int) -> list[str]:
    """Names in the folder behind descriptor ``folder``, sorted."""
    try:
        return sorted(os.listdir(folder))
    except OSError as error:
        raise StoreError(f"cannot list the folder: {_reason(error)}") from error


def fsync_dir(directory: Path | int) -> None:
    """Make a folder's entries durable (after a rename or a new file in it)."""
    if isinstance(directory, int):
        os.fsync(directory)
        return
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# --- Reading ----------------------------------------------------------------------------------


def regular_status(handle: BinaryIO | int, path: object, max_bytes: int) -> os.stat_result:
    """The status of an open file; ``OSError`` unless it is a regular file within the cap."""
    status = os.fstat(handle if isinstance(handle, int) else handle.fileno())
    if not stat.S_ISREG(status.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    if status.st_size > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes} bytes", str(path))
    return status


@contextmanager
def open_regular(
    path: Path, *, max_bytes: int, follow: bool = True
) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """A file opened read-only without blocking, checked to be regular and within the cap.

    ``follow=False`` refuses a symbolic link in the last component (``ELOOP``).
    Raises ``OSError``.
    """
    flags = _READ_FLAGS if follow else _READ_FLAGS | os.O_NOFOLLOW
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        yield handle, regular_status(handle, path, max_bytes)


def read_regular(
    path: Path, *, max_bytes: int = 512 * 2**20, follow: bool = True
) -> tuple[bytes, os.stat_result]:
    """The bytes and status of a regular file, read-only (see ``open_regular``)."""
    with open_regular(path, max_bytes=max_bytes, follow=follow) as (handle, status):
        return handle.read(max_bytes + 1), status


def read_if_present(path: Path, *, max_bytes: int = 512 * 2**20) -> bytes | None:
    """The bytes of regular file ``path``, never through a link in its last component;
    None when there is no such file. Raises ``OSError`` (``ELOOP`` for a link)."""
    try:
        data, _ = read_regular(path, max_bytes=max_bytes, follow=False)
    except FileNotFoundError:
        return None
    return data


def read_file(folder: int, name: str, *, max_bytes: int) -> bytes | None:
    """The bytes of regular file ``name`` in ``folder``; None when absent, a link, or too big."""
    check_name(name)
    try:
        descriptor = os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
        raise StoreError(f"cannot read {name!r}: {_reason(error)}") from error
    try:
        with os.fdopen(descriptor, "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
                return None
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise StoreError(f"cannot read {name!r}: {_reason(error)}") from error
    return None if len(data) > max_bytes else data


def exists(folder: int, name: str) -> bool:
    """Whether anything (a symbolic link included) is called ``name`` in ``folder``."""
    check_name(name)
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise StoreError(f"cannot look up {name!r}: {_reason(error)}") from error
    return True


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
        raise WriteUncertain(f"writing {name!r} broke off: {_reason(error)}") from error
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
        raise StoreError(f"cannot replace {name!r}: {_reason(error)}") from error
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
        raise StoreError(f"cannot write {name!r}: {_reason(error)}") from error
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
        raise WriteUncertain(f"replacing {name!r} broke off: {_reason(error)}") from error
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
        raise StoreError(f"cannot move {name!r}: {_reason(error)}") from error
    _sync(target, new_name, "moved")
    _sync(source, name, "moved")


def _sync(folder: int, name: str, done: str) -> None:
    try:
        os.fsync(folder)
    except OSError as error:
        raise WriteUncertain(f"{name!r} was {done} but not synced: {_reason(error)}") from error


def _write_temp(folder: int, name: str, data: bytes, mode: int | None) -> str:
    """A new fsynced temp file of ``name`` holding ``data``, by its name; ``StoreError``
    (no temp file left) when it cannot be written."""
    temp = check_name(f".{name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
    try:
        _write_durably(folder, temp, data, mode)
    except OSError as error:
        _discard(folder, temp)
        raise StoreError(f"cannot write {name!r}: {_reason(error)}") from error
    return temp


def _write_durably(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """Write a new file and fsync it; created exclusively, never through a link, with
    ``mode`` whatever the umask (None: 0666 under the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
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
        cause = error.__cause__
        raise (cause if isinstance(cause, OSError) else OSError(errno.EIO, str(error))) from error


@contextmanager
def exclusive_lock(folder: int, name: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on file ``name`` in ``folder`` (released on exit or death)."""
    check_name(name)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC
    try:
        descriptor = os.open(name, flags, PRIVATE_FILE, dir_fd=folder)
    except OSError as error:
        raise StoreError(f"cannot open the lock {name!r}: {_reason(error)}") from error
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError as error:
            raise StoreError(f"cannot take the lock {name!r}: {_reason(error)}") from error
        yield
    finally:
        os.close(descriptor)


def _reason(error: OSError) -> str:
    return (error.strerror or str(error)).lower()


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
