"""Before a folder is dreamed: every file the dream would write is the folder's own (issue 15).

The executor opens every path relative to the memory folder's directory handle
with ``O_NOFOLLOW`` on each component and refuses a link on the way
(``dreamd.fs``); this check comes first, so that a folder whose ``MEMORY.md``
is a link (whose content lives elsewhere), or whose ``.MEMORY.md.prev``,
``MEMORY-ARCHIVE.md``, ``.trash`` or ``.trash/<date>`` is a link or not what
it should be, is refused as a whole with one line, before anything is read
through that link or written. I/O: ``lstat`` only.
"""

from __future__ import annotations

import os
import stat
from datetime import date
from pathlib import Path

from dreamd.dream.folder.inventory import ARCHIVE_NAME, INDEX_NAME
from dreamd.dream.folder.links import lstat_problem

__all__ = ["WRITTEN_FILES", "preflight"]

#: The files a dream writes in a folder besides topic files.
WRITTEN_FILES = (INDEX_NAME, ARCHIVE_NAME, ".MEMORY.md.prev")


def _folder_problem(path: Path) -> str | None:
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"unreadable ({(error.strerror or str(error)).lower()})"
    if stat.S_ISLNK(status.st_mode):
        return "a symbolic link"
    return None if stat.S_ISDIR(status.st_mode) else "not a folder"


def preflight(folder: Path, today: date) -> str | None:
    """Why ``folder`` must not be dreamed at all, in one line, or None.

    Refused: the folder is not a folder; ``MEMORY.md``, ``MEMORY-ARCHIVE.md``
    or ``.MEMORY.md.prev`` is a symbolic link, a hard link (its bytes may
    live outside) or not a regular file; ``.trash`` or ``.trash/<today>`` is
    a symbolic link or not a folder.
    """
    if not folder.is_dir():
        return f"{folder} is not a folder"
    for name in WRITTEN_FILES:
        problem = lstat_problem(folder / name)
        if problem is not None:
            return f"{name} is {problem}: left alone, nothing in this folder was read or changed"
    for relative in (".trash", f".trash/{today.isoformat()}"):
        problem = _folder_problem(folder / relative)
        if problem is not None:
            return f"{relative} is {problem}: refusing to move anything there"
    return None
