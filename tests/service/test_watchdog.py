"""``dreamd run`` under a real NOTIFY_SOCKET: STATUS= lines, and no watchdog pings while stuck.

The stuck job is real: the configured extractor is a command that sleeps (a
headless agent CLI that hangs does exactly this), with a timeout far beyond the
service's stall limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import PROMPTS, session
from tests.service.daemon import Daemon, write_config

pytestmark = pytest.mark.slow

NEVER = 'schedule = "0 0 1 1 *"'


class Listener:
    """The test's end of NOTIFY_SOCKET: every datagram, split into fields, kept in order."""

    def __init__(self, address: Path) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(address))
        self.fields: list[str] = []

    def until(self, match: Callable[[str], bool], timeout: float = 60.0) -> list[str]:
        """Fields up to and including the first that ``match`` accepts (a guard, not a timing)."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                data = self.socket.recv(65536)
            except TimeoutError:
                break
            for field in data.decode().splitlines():
                got.append(field)
                self.fields.append(field)
                if match(field):
                    return got
        raise AssertionError(f"no matching notification; got {got[-20:]}")

    def during(self, seconds: float) -> list[str]:
        """Every field that arrives in the next ``seconds``."""
        deadline = time.monotonic() + seconds
        got: list[str] = []
        while (remaining := deadline - time.monotonic()) > 0:
            self.socket.settimeout(remaining)
            try:
                data = self.socket.recv(65536)
            except TimeoutError:
                break
            got += data.decode().splitlines()
        self.fields += got
        return got


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: a socket path must fit in 108 bytes."""
    with tempfile.TemporaryDirectory(prefix="dw-", dir="/tmp") as folder:
        yield Path(folder)


def _hanging_extractor(folder: Path) -> Path:
    """A command that hangs the first time (its PID written down), then fails at once."""
    script = folder / "hang.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ -e "{folder}/hung" ]; then exit 3; fi\n'
        f'touch "{folder}/hung"\n'
        f'echo $$ > "{folder}/hang.pid"\n'
        "exec sleep 3600\n"
    )
    return script


def _pid(folder: Path) -> int | None:
    path = folder / "hang.pid"
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text else None


def test_status_lines_follow_the_job_and_pings_stop_while_it_is_stuck(
    isolated_home: Path, short_dir: Path
) -> None:
    """STATUS= says idle and what the collect does; stuck past the limit, no WATCHDOG=1."""
    session(isolated_home, PROMPTS)
    script = _hanging_extractor(short_dir)
    write_config(
        isolated_home,
        '[collect]\nschedule = "*/3 * * * * *"\nextractor = "command"\nlive_guard_minutes = 0\n'
        f'[extractors.command]\nargv = ["/bin/sh", "{script}"]\ntimeout_seconds = 3600\n'
        f"[dream]\n{NEVER}\n[service]\nwatch = false\nstall_seconds = 2\n",
    )
    listener = Listener(short_dir / "notify.sock")
    daemon = Daemon(
        isolated_home,
        NOTIFY_SOCKET=str(short_dir / "notify.sock"),
        WATCHDOG_USEC="1000000",  # a ping every half second while the service moves
    )
    try:
        listener.until(lambda field: field == "STATUS=collecting 1/1 sessions")
        before = listener.until(lambda field: field.startswith("STATUS=stuck: "))
        assert "WATCHDOG=1" in listener.fields  # it pinged while it was alive
        assert before[-1] == (
            "STATUS=stuck: collecting 1/1 sessions; no progress for over 2 s,"
            " watchdog pings stopped"
        )
        # Pinged every half second while it moved: three seconds stuck bring none.
        assert "WATCHDOG=1" not in listener.during(3.0)
        stalled = daemon.event("service.stalled", job="collect")
        assert stalled["limit_seconds"] == 2
        # The hung command dies (as systemd's restart would end it): progress, pings again.
        pid = _pid(short_dir)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        after = listener.until(lambda field: field == "WATCHDOG=1")
        assert any(field.startswith("STATUS=idle; next collect") for field in after)
        daemon.event("service.progressing", job="collect")
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
        pid = _pid(short_dir)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        listener.socket.close()
