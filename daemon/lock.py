"""One process at a time: a ``flock`` on a file in the state dir, with the holder's PID beside it.

``flock`` is released by the kernel when its holder dies, even by SIGKILL, so
there is never a stale lock to clean up. The PID file is only information
(for the error message and ``dreamd status``); the lock is the ``flock``.

Collect and dream share one lock, the *pipeline* lock (``pipeline_lock``):
they never run at the same time, nor twice at once, whether started by the
service or by hand. The PID file names which job holds it.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import msgspec

from dreamd.errors import LockHeld
from dreamd.fswrite import atomic_write, private_folder

__all__ = ["PIPELINE", "Holder", "ProcessLock", "holder", "lock_holder", "pipeline_lock"]

#: The lock collect and dream share.
PIPELINE = "pipeline"

_POLL_SECONDS = 0.5


class Holder(msgspec.Struct, frozen=True):
    """Who holds a lock: a PID and the job it runs (``collect``, ``dream``)."""

    pid: int
    job: str


class ProcessLock:
    """An exclusive process lock named ``what``, held for ``job`` (default: ``what``)."""

    def __init__(self, directory: Path, what: str, *, job: str | None = None) -> None:
        self.what = what
        self.job = job or what
        self.path = directory / f"{what}.lock"
        self.pid_path = directory / f"{what}.pid"
        self._descriptor: int | None = None

    def acquire(self, *, wait: float = 0.0, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Take the lock, waiting up to ``wait`` seconds; else raise ``LockHeld`` naming the holder.

        ``cancelled`` is asked while waiting: a service shutting down stops waiting at once.
        """
        private_folder(self.path.parent)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline or cancelled():
                    os.close(descriptor)
                    current = holder(self.path.parent, self.what)
                    running = f"dreamd {current.job}" if current else f"dreamd {self.what}"
                    raise LockHeld(running, current.pid if current else None) from None
                time.sleep(_POLL_SECONDS)
        self._descriptor = descriptor
        atomic_write(self.pid_path, f"{os.getpid()} {self.job}\n".encode())

    def release(self) -> None:
        """Give the lock back (the PID file goes first, so nobody reads a stale PID)."""
        if self._descriptor is None:
            return
        self.pid_path.unlink(missing_ok=True)
        fcntl.flock(self._descriptor, fcntl.LOCK_UN)
        os.close(self._descriptor)
        self._descriptor = None

    def __enter__(self) -> ProcessLock:
        if self._descriptor is None:  # not taken yet by an explicit ``acquire``
            self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def pipeline_lock(directory: Path, job: str) -> ProcessLock:
    """The lock ``job`` (collect or dream) takes: one for both, so they never overlap."""
    return ProcessLock(directory, PIPELINE, job=job)


def holder(directory: Path, what: str) -> Holder | None:
    """The current holder of lock ``what``, if it is held (the PID as its holder wrote it)."""
    path = directory / f"{what}.lock"
    try:
        descriptor = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return _recorded(directory / f"{what}.pid", what)
    else:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None
    finally:
        os.close(descriptor)


def _recorded(pid_path: Path, what: str) -> Holder | None:
    try:
        fields = pid_path.read_text().split()
        return Holder(int(fields[0]), fields[1] if len(fields) > 1 else what)
    except (OSError, ValueError, IndexError):
        return None


def lock_holder(directory: Path, what: str) -> int | None:
    """The PID recorded by the current holder of lock ``what``, if any is held."""
    current = holder(directory, what)
    return current.pid if current else None
