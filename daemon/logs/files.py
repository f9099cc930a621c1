"""The log file ``[service] log_file`` names: size-rotated, and only its user can read it."""

from __future__ import annotations

import logging
import logging.handlers
from io import TextIOWrapper
from pathlib import Path
from typing import cast

from dreamd.fswrite import PRIVATE_FILE, append_private, private_folder

__all__ = ["PrivateRotatingFile", "rotating_file"]


class PrivateRotatingFile(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file (the first and each after a rollover) is 0600."""

    def _open(self) -> TextIOWrapper:
        descriptor = append_private(Path(self.baseFilename))
        stream = open(descriptor, self.mode, encoding=self.encoding, errors=self.errors)  # noqa: SIM115
        return cast(TextIOWrapper, stream)  # text mode: the handler's mode is "a"


def rotating_file(path: Path, max_bytes: int, backup_count: int) -> tuple[logging.Handler, bool]:
    """A size-rotated file only its user can read, and whether an existing one was tightened.

    Created 0600 (its folder 0700 when missing); an existing file readable by
    others is made 0600 (the caller logs it).
    """
    private_folder(path.parent)
    loose = path.is_file() and not path.is_symlink() and bool(path.stat().st_mode & 0o077)
    if loose:
        path.chmod(PRIVATE_FILE)
    handler = PrivateRotatingFile(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
    )
    return handler, loose
