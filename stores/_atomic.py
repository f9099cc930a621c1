"""Atomic file writes that can never leave their folder (SPEC "Stores").

SPEC: "Writes are atomic (temp file, fsync, rename) and never leave the
store's folder, whatever a name contains." Seed 002, safety contract 2: the
collector only adds, so a new file never replaces an existing one.

Invariants:

- A name reaches the file system only as one checked component
  (``check_name``): no separator, no NUL, not ``.`` or ``..``, not absolute,
  at most ``MAX_NAME_BYTES``. Free text becomes such a name only through
  ``slugify``.
- Every operation is relative to a directory descriptor (``dir_fd``); the
  store's own folder may be reached through a link (a user's moved home), but
  subfolders and files inside it are opened with ``O_NOFOLLOW``: a symbolic
  link, planted before or during a write, is never followed out of the folder.
- ``write_new`` writes a hidden temp file (``.<name>.<random>.tmp``), fsyncs
  it, then publishes it under its name with ``link`` (the no-replace form of
  ``rename``: it fails when the name is taken) and fsyncs the directory. A
  crash leaves no file or the whole file, and at most a temp file, which
  ``is_temp_name`` tells readers to ignore and ``sweep_temps`` removes later.
- ``replace_file`` is the one write that replaces a file (the collector's
  update of an item it planted and the gate has not taken yet): the same
  temp file and fsync, then ``rename`` over the name and a directory fsync.
  A crash leaves the old bytes or the new ones under the name, never a mix.
- Errors: a failure before publishing is a ``StoreError`` (nothing was
  written); from the publishing call on it is a ``WriteUncertain``. Both chain
  the ``OSError``.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from dreamd.errors import StoreError, WriteUncertain

__all__ = [
    "MAX_NAME_BYTES",
    "MAX_SLUG_BYTES",
    "TEMP_SUFFIX",
    "check_name",
    "digest",
    "exclusive_lock",
    "exists",
    "is_safe_name",
    "is_temp_name",
    "list_names",
    "open_folder",
    "open_subfolder",
    "read_file",
    "replace_file",
    "slugify",
    "sweep_temps",
    "write_new",
]

#: Longest file name most file systems accept (ext4, APFS, btrfs: 255 bytes).
MAX_NAME_BYTES = 255
#: Longest slug, in UTF-8 bytes: room left for a type prefix, a suffix and the temp decoration.
MAX_SLUG_BYTES = 120
#: Suffix of temp files; with the leading dot it marks a file that is not (yet) an item.
TEMP_SUFFIX = ".tmp"
#: Slug of a name with no letter or digit in it.
FALLBACK_SLUG = "memory"

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_SEPARATORS = re.compile(r"[^\w]+|_+")
#: Errors of ``link`` meaning "this file system has no hard links", not "the write failed".
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


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
    """``name`` itself when it is one safe path component; raises ``StoreError`` otherwise."""
    problem = _name_problem(name)
    if problem:
        raise StoreError(f"refusing the file name {name!r}: {problem}")
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
    """Whether ``name`` is a temp file of ``write_new`` (never an item, whatever it holds)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def digest(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (what receipts record)."""
    return hashlib.sha256(data).hexdigest()


@contextmanager
def open_folder(path: Path, *, create: bool) -> Iterator[int]:
    """A descriptor of the store's own folder (created with its parents when ``create``).

    The folder itself may be reached through a symbolic link (a user's moved
    home); what lies inside it is never followed (see ``open_subfolder``).
    """
    try:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except OSError as error:
        raise StoreError(f"cannot open the store folder {path}: {_reason(error)}") from error
    try:
        yield descriptor
    finally:
        os.close(descriptor)


@contextmanager
def open_subfolder(parent: int, name: str, *, create: bool) -> Iterator[int | None]:
    """A descriptor of ``name`` inside ``parent`` (None when absent and not ``create``).

    A symbolic link in its place is refused: it could lead out of the store.
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
                os.mkdir(name, 0o700, dir_fd=parent)
        return os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if create:
            raise StoreError(f"the store folder {name!r} vanished while opening it") from None
        return None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and _is_symlink(parent, name):
            raise StoreError(f"refusing {name!r}: it is a symbolic link") from error
        raise StoreError(f"cannot open the store folder {name!r}: {_reason(error)}") from error


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
        raise StoreError(f"cannot list the store folder: {_reason(error)}") from error


def read_file(folder: int, name: str, *, max_bytes: int) -> bytes | None:
    """The bytes of regular file ``name`` in ``folder``; None when absent, a link, or too big."""
    check_name(name)
    try:
        # O_NONBLOCK: a FIFO squatting on a name must not hang the reader.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
        descriptor = os.open(name, flags, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
        raise StoreError(f"cannot read {name!r} in the store: {_reason(error)}") from error
    try:
        with os.fdopen(descriptor, "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
                return None
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise StoreError(f"cannot read {name!r} in the store: {_reason(error)}") from error
    return None if len(data) > max_bytes else data


def write_new(folder: int, name: str, data: bytes) -> bool:
    """Create file ``name`` in ``folder`` holding ``data``, atomically and durably.

    Returns False, having written nothing, when ``name`` is already taken (by
    anything, a symbolic link included). Raises ``StoreError`` when nothing
    was written and ``WriteUncertain`` when the file may exist.
    """
    check_name(name)
    temp = _write_temp(folder, name, data)
    try:
        published = _publish(folder, temp, name)
    except OSError as error:
        _discard(folder, temp)
        raise WriteUncertain(f"writing {name!r} broke off: {_reason(error)}") from error
    _discard(folder, temp)
    if not published:
        return False
    try:
        os.fsync(folder)
    except OSError as error:
        raise WriteUncertain(f"{name!r} was written but not synced: {_reason(error)}") from error
    return True


def replace_file(folder: int, name: str, data: bytes) -> None:
    """Replace existing regular file ``name`` in ``folder`` with ``data``, atomically, durably.

    Callers hold ``exclusive_lock`` on the folder and have just read the file.
    Raises ``StoreError`` when nothing was replaced (the name is no longer a
    regular file, or the temp file could not be written) and ``WriteUncertain``
    from the ``rename`` on.
    """
    check_name(name)
    try:
        status = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as error:
        raise StoreError(f"cannot replace {name!r} in the store: {_reason(error)}") from error
    if not stat.S_ISREG(status.st_mode):
        raise StoreError(f"refusing to replace {name!r}: not a regular file")
    temp = _write_temp(folder, name, data)
    try:
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError as error:
        _discard(folder, temp)
        raise WriteUncertain(f"replacing {name!r} broke off: {_reason(error)}") from error
    try:
        os.fsync(folder)
    except OSError as error:
        raise WriteUncertain(f"{name!r} was replaced but not synced: {_reason(error)}") from error


def _write_temp(folder: int, name: str, data: bytes) -> str:
    """A new fsynced temp file of ``name`` holding ``data``, by its name; ``StoreError``
    (no temp file left) when it cannot be written."""
    temp = check_name(f".{name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
    try:
        _write_durably(folder, temp, data)
    except OSError as error:
        _discard(folder, temp)
        raise StoreError(f"cannot write {name!r} in the store: {_reason(error)}") from error
    return temp


def _write_durably(folder: int, name: str, data: bytes) -> None:
    """Write a new file and fsync it; the file is created exclusively, never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
    descriptor = os.open(name, flags, 0o666, dir_fd=folder)
    try:
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


def exists(folder: int, name: str) -> bool:
    """Whether anything (a symbolic link included) is called ``name`` in ``folder``."""
    check_name(name)
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise StoreError(f"cannot look up {name!r} in the store: {_reason(error)}") from error
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


@contextmanager
def exclusive_lock(folder: int, name: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on file ``name`` in ``folder`` (released on exit or death)."""
    check_name(name)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC
    try:
        descriptor = os.open(name, flags, 0o600, dir_fd=folder)
    except OSError as error:
        raise StoreError(f"cannot open the store lock {name!r}: {_reason(error)}") from error
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError as error:
            raise StoreError(f"cannot lock the store: {_reason(error)}") from error
        yield
    finally:
        os.close(descriptor)


def _reason(error: OSError) -> str:
    return (error.strerror or str(error)).lower()
