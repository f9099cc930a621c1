"""One process at a time: a ``flock`` on a file in the state dir, with the holder's PID beside it.

``flock`` is released by the kernel when its holder dies, even by SIGKILL, so
there is never a stale lock to clean up. The PID file is only information
(for the error message and ``dreamd status``); the lock is the ``flock``.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from dreamd.errors import LockHeld

__all__ = ["ProcessLock", "lock_holder"]


class ProcessLock:
    """An exclusive, non-blocking process lock named ``what`` (e.g. "collect")."""

    def __init__(self, directory: Path, what: str) -> None:
        self.what = what
        self.path = directory / f"{what}.lock"
        self.pid_path = directory / f"{what}.pid"
        self._descriptor: int | None = None

    def acquire(self) -> None:
        """Take the lock now or raise ``LockHeld`` naming the holder's PID."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise LockHeld(
                f"dreamd {self.what}", lock_holder(self.path.parent, self.what)
            ) from None
        self._descriptor = descriptor
        self.pid_path.write_text(f"{os.getpid()}\n")

    def release(self) -> None:
        """Give the lock back (the PID file goes first, so nobody reads a stale PID)."""
        if self._descriptor is None:
            return
        self.pid_path.unlink(missing_ok=True)
        fcntl.flock(self._descriptor, fcntl.LOCK_UN)
        os.close(self._descriptor)
        self._descriptor = None

    def __enter__(self) -> ProcessLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def lock_holder(directory: Path, what: str) -> int | None:
    """The PID recorded by the current holder of lock ``what``, if any is held."""
    path = directory / f"{what}.lock"
    try:
        descriptor = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            return int((directory / f"{what}.pid").read_text().strip())
        except (OSError, ValueError):
            return None
    else:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None
    finally:
        os.close(descriptor)
