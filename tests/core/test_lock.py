"""The process lock: one holder, its PID named to the second, released by death."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreamd.errors import LockHeld
from dreamd.lock import ProcessLock, lock_holder

HOLD = """
import sys, time
from pathlib import Path
from dreamd.lock import ProcessLock
lock = ProcessLock(Path(sys.argv[1]), "collect")
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def hold(directory: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def test_second_holder_is_refused_with_the_pid(tmp_path: Path) -> None:
    """While another process holds the lock, acquiring raises LockHeld naming its PID."""
    process = hold(tmp_path)
    try:
        with pytest.raises(LockHeld, match=f"process {process.pid}"):
            ProcessLock(tmp_path, "collect").acquire()
        assert lock_holder(tmp_path, "collect") == process.pid
    finally:
        process.kill()
        process.wait()


def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    """SIGKILL of the holder frees the lock at once: no stale lock to clean."""
    process = hold(tmp_path)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    time.sleep(0.05)
    assert lock_holder(tmp_path, "collect") is None
    with ProcessLock(tmp_path, "collect"):
        assert lock_holder(tmp_path, "collect") == os.getpid()
    assert lock_holder(tmp_path, "collect") is None


def test_release_is_idempotent(tmp_path: Path) -> None:
    """Releasing twice is harmless and leaves no PID file."""
    lock = ProcessLock(tmp_path, "dream")
    lock.acquire()
    lock.release()
    lock.release()
    assert not (tmp_path / "dream.pid").exists()
