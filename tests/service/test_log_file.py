"""The service's rotating JSON log file (launchd does not rotate its own log files)."""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamd.logs import configure_logging, get_logger, log_file_setting


@pytest.fixture(autouse=True)
def reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=io.StringIO())


def test_file_rotates_at_the_given_size_and_keeps_the_given_count(tmp_path: Path) -> None:
    """Past max_bytes the file rotates; backup_count old files stay, every line whole JSON."""
    target = tmp_path / "logs" / "dreamd.log"
    configure_logging("info", log_file=target, max_bytes=2_000, backup_count=2, journald=True)
    for index in range(200):
        get_logger("dreamd.test").info("service.tick", index=index)
    logging.getLogger().handlers[0].flush()
    names = sorted(path.name for path in target.parent.iterdir())
    assert names == ["dreamd.log", "dreamd.log.1", "dreamd.log.2"]
    for path in target.parent.iterdir():
        assert path.stat().st_size <= 2_000
        events = [json.loads(line) for line in path.read_text().splitlines()]  # no <N> prefix
        assert events
        assert {event["event"] for event in events} == {"service.tick"}
    newest = json.loads(target.read_text().splitlines()[-1])
    assert newest["index"] == 199


def test_library_lines_reach_the_file_as_json(tmp_path: Path) -> None:
    """A library's stdlib logging lands in the same file, as JSON."""
    target = tmp_path / "dreamd.log"
    configure_logging("info", log_file=target)
    logging.getLogger("sqlalchemy.pool").warning("connection invalidated")
    logging.getLogger().handlers[0].flush()
    line = json.loads(target.read_text())
    assert (line["event"], line["logger"]) == ("connection invalidated", "sqlalchemy.pool")


def test_missing_folder_is_created_private(tmp_path: Path) -> None:
    """The log folder is created 0700: log lines name projects and sessions."""
    previous = os.umask(0o022)
    try:
        configure_logging("info", log_file=tmp_path / "Library" / "Logs" / "dreamd" / "d.log")
    finally:
        os.umask(previous)
    assert (tmp_path / "Library" / "Logs" / "dreamd").stat().st_mode & 0o777 == 0o700


def test_log_file_setting(isolated_home: Path) -> None:
    """A command-line path wins over [service] log_file; an empty setting means no file."""
    assert log_file_setting(None, "") is None
    assert log_file_setting(None, "  ") is None
    assert log_file_setting(None, "~/logs/d.log") == isolated_home / "logs" / "d.log"
    assert log_file_setting(Path("~/x.log"), "/var/d.log") == isolated_home / "x.log"


def test_an_inherited_journal_stream_does_not_prefix_a_pipe(isolated_home: Path) -> None:
    """A shell started from a service inherits ``JOURNAL_STREAM``; its pipe gets clean JSON."""
    from tests.service.daemon import Daemon

    daemon = Daemon(isolated_home, JOURNAL_STREAM="8:12345")
    try:
        daemon.event("service.started")
    finally:
        daemon.terminate()
    assert daemon.raw and all(line.startswith("{") for line in daemon.raw if line.strip())


def test_run_on_a_terminal_prints_readable_lines(isolated_home: Path) -> None:
    """``dreamd run`` at a terminal: time, level, event, a few fields, not JSON."""
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys

    master, slave = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_"))}
    environment.pop("JOURNAL_STREAM", None)
    environment.update({"HOME": str(isolated_home), "DREAMD_LOG_LEVEL": "info"})
    process = subprocess.Popen(
        [sys.executable, "-m", "dreamd", "run"], stdout=slave, stderr=slave, env=environment
    )
    os.close(slave)
    seen = b""
    try:
        while b"service.started" not in seen:
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, seen
            seen += os.read(master, 65536)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        os.close(master)
    started = next(line for line in seen.decode().splitlines() if "service.started" in line)
    assert not started.lstrip().startswith("{") and " info " in started
