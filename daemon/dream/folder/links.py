"""Which names in a memory folder are the folder's own files (issue 15, items 5 and 6).

A memory folder's files are regular files with one name. A symbolic link (to a
file elsewhere, to itself) or a hard link (a second name of bytes that may live
outside) is not a memory: reading it would copy another place's content into
the index and ``.MEMORY.md.prev``, writing it would change that place. Such a
file is left alone and the run says so; when it is ``MEMORY.md`` itself (or a
file the dream writes), the folder is not dreamed at all.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["lstat_problem", "not_own_file"]


def not_own_file(status: os.stat_result) -> str | None:
    """Why a file with this (``lstat``) status is not the folder's own file, or None."""
    if stat.S_ISLNK(status.st_mode):
        return "a symbolic link"
    if stat.S_ISDIR(status.st_mode):
        return "a directory"
    if not stat.S_ISREG(status.st_mode):
        return "not a regular file"
    if status.st_nlink > 1:
        return f"a hard link ({status.st_nlink} names share its bytes)"
    return None


def lstat_problem(path: Path) -> str | None:
    """``not_own_file`` for a path, never following it; None when nothing is there."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"unreadable ({(error.strerror or str(error)).lower()})"
    return not_own_file(status)
