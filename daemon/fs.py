"""The one file layer: checked names, contained folders, safe read-only opens.

Every module that writes a file (stores, the dream, plans and reports, the
service installer) or reads one it does not own (transcripts, memory files,
repository files) goes through here and its writing half, ``dreamd.fswrite``,
so each guarantee is written once.

Invariants:

- A name reaches the file system only as one checked component
  (``check_name``): no separator, no NUL, not ``.`` or ``..``, not absolute,
  at most ``MAX_NAME_BYTES``. Free text becomes such a name only through
  ``slugify``. A hidden name ending in ``TEMP_SUFFIX`` is a temp file of a
  write (``is_temp_name``): never real content, whatever it holds.
- Contained operations are relative to a directory descriptor. The root
  folder itself may be reached through a symbolic link (a user's moved home);
  everything inside it is opened with ``O_NOFOLLOW`` on each component
  (``open_folder``, ``open_subfolder``, ``open_within``): a symbolic link,
  planted before or during a write, is never followed out of the folder, and
  refusing one raises ``UnsafePath`` with a one-line reason.
- Reads never block and never write: ``O_NONBLOCK`` (a FIFO squatting on a
  name returns at once), regular files only, a size cap.
- Errors of the descriptor operations: ``StoreError``, or ``UnsafePath`` for
  a refused name or link; each chains the ``OSError``. The path-level helpers
  (``read_regular``, ``read_if_present``) are for files dreamd only reads,
  and raise ``OSError``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path, PurePath
from typing import BinaryIO

from dreamd.errors import StoreError, UnsafePath

__all__ = [
    "CLOEXEC",
    "MAX_NAME_BYTES",
    "MAX_SLUG_BYTES",
    "PRIVATE_FOLDER",
    "READ_FLAGS",
    "TEMP_SUFFIX",
    "check_name",
    "digest",
    "error_reason",
    "exists",
    "fsync_dir",
    "is_safe_name",
    "is_temp_name",
    "list_names",
    "open_folder",
    "open_regular",
    "open_subfolder",
    "open_within",
    "read_file",
    "read_if_present",
    "read_regular",
    "regular_status",
    "sha256_of",
    "slugify",
]

#: Longest file name most file systems accept (ext4, APFS, btrfs: 255 bytes).
MAX_NAME_BYTES = 255
#: Longest slug, in UTF-8 bytes: room left for a type prefix, a suffix and the temp decoration.
MAX_SLUG_BYTES = 120
#: Suffix of temp files; with the leading dot it marks a file that is not (yet) real.
TEMP_SUFFIX = ".tmp"
#: Slug of a name with no letter or digit in it.
FALLBACK_SLUG = "memory"
#: Mode of the folders dreamd creates for itself.
PRIVATE_FOLDER = 0o700

#: ``O_CLOEXEC`` where the platform has it: no descriptor leaks into a child process.
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | CLOEXEC
#: How every file dreamd only reads is opened: never blocking on a FIFO, never inherited.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | CLOEXEC
_READ_FLAGS = READ_FLAGS
_SEPARATORS = re.compile(r"[^\w]+|_+")


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
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | CLOEXEC)
    except OSError as error:
        raise StoreError(f"cannot open the folder {path}: {error_reason(error)}") from error
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
        raise StoreError(f"cannot open the folder {name!r}: {error_reason(error)}") from error


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
        raise StoreError(f"cannot list the folder: {error_reason(error)}") from error


def fsync_dir(directory: Path | int) -> None:
    """Make a folder's entries durable (after a rename or a new file in it)."""
    if isinstance(directory, int):
        os.fsync(directory)
        return
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | CLOEXEC)
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
    """The bytes and status of a regular file, read-only (see ``open_regular``).

    On the descriptor itself, without a file object: a dream reads ten thousand
    small files this way, and the buffered layer tripled the cost of each.
    """
    descriptor = os.open(path, _READ_FLAGS if follow else _READ_FLAGS | os.O_NOFOLLOW)
    try:
        status = regular_status(descriptor, path, max_bytes)
        return _read_to_end(descriptor, max_bytes + 1, status.st_size), status
    finally:
        os.close(descriptor)


def _read_to_end(descriptor: int, limit: int, size: int) -> bytes:
    """At most ``limit`` bytes up to the end of the file (which may have grown past
    ``size`` since its status was taken); reads of at least 64 KiB after the first."""
    chunks: list[bytes] = []
    left = limit
    want = size + 1
    while left > 0:
        chunk = os.read(descriptor, min(left, want))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        want = max(want, 1 << 16)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


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
        raise StoreError(f"cannot read {name!r}: {error_reason(error)}") from error
    try:
        with os.fdopen(descriptor, "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
                return None
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise StoreError(f"cannot read {name!r}: {error_reason(error)}") from error
    return None if len(data) > max_bytes else data


def exists(folder: int, name: str) -> bool:
    """Whether anything (a symbolic link included) is called ``name`` in ``folder``."""
    check_name(name)
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise StoreError(f"cannot look up {name!r}: {error_reason(error)}") from error
    return True


def error_reason(error: OSError) -> str:
    """An ``OSError`` as our messages end: its reason, lower case, without the path."""
    return (error.strerror or str(error)).lower()
