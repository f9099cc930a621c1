"""JSON logging: one object per line, library logs included, no frame locals."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from dreamd.logs import configure_logging, get_logger


@pytest.fixture(autouse=True)
def reset_logging() -> Iterator[None]:
    yield
    structlog.contextvars.clear_contextvars()
    configure_logging("warning", stream=io.StringIO())


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_event_lines_carry_ts_level_event_and_run_id() -> None:
    """Every line is JSON with an ISO UTC ts, level, dotted event and the bound run_id."""
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    structlog.contextvars.bind_contextvars(run_id="r-1")
    get_logger("dreamd.test").info("collect.window.planted", items=2)
    (line,) = lines(stream)
    assert list(line)[:4] == ["ts", "level", "event", "run_id"]
    assert (line["level"], line["event"], line["run_id"], line["items"]) == (
        "info",
        "collect.window.planted",
        "r-1",
        2,
    )
    assert str(line["ts"]).endswith("Z")


def test_standard_library_logs_are_json_too() -> None:
    """A library logging through `logging` comes out as the same JSON."""
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    logging.getLogger("apscheduler.scheduler").warning("job %s missed", "collect")
    (line,) = lines(stream)
    assert (line["event"], line["level"], line["logger"]) == (
        "job collect missed",
        "warning",
        "apscheduler.scheduler",
    )


def test_level_filters() -> None:
    """Lines below the configured level are not written."""
    stream = io.StringIO()
    configure_logging("warning", stream=stream)
    get_logger().info("quiet")
    get_logger().warning("loud")
    assert [line["event"] for line in lines(stream)] == ["loud"]


def test_exceptions_are_structured_without_locals() -> None:
    """A logged exception is data (type, value, frames) and never shows frame locals."""
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    secret = "sk-ant-api03-do-not-log-me"
    try:
        raise ValueError("bad value")
    except ValueError:
        get_logger().exception("job.failed")
    assert secret not in stream.getvalue()
    (line,) = lines(stream)
    (error,) = line["exception"]  # type: ignore[misc]
    assert (error["exc_type"], error["exc_value"]) == ("ValueError", "bad value")
    assert all("locals" not in frame for frame in error["frames"])


def test_journald_prefix_gives_priorities() -> None:
    """Under journald each line starts with its syslog priority and is JSON after it."""
    stream = io.StringIO()
    configure_logging("debug", stream=stream, journald=True)
    get_logger().error("boom")
    get_logger().info("fine")
    raw = stream.getvalue().splitlines()
    assert raw[0].startswith("<3>{") and raw[1].startswith("<6>{")
    assert json.loads(raw[0][3:])["event"] == "boom"


def test_file_destination_rotates(tmp_path: Path) -> None:
    """A log file is created (with its folder) and holds JSON lines."""
    target = tmp_path / "logs" / "dreamd.log"
    configure_logging("info", log_file=target)
    get_logger().info("service.started")
    logging.getLogger().handlers[0].flush()
    assert json.loads(target.read_text().splitlines()[0])["event"] == "service.started"


def test_credentials_never_reach_a_log_line() -> None:
    """A token in an event field or a library's message is redacted before it is written."""
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    get_logger().info("collect.window.planted", note=f"pushed with {token}", nested={"k": [token]})
    logging.getLogger("urllib3").warning("auth header Bearer %s", token)
    assert token not in stream.getvalue()
    assert "REDACTED" in stream.getvalue()


def test_credentials_in_exception_messages_are_redacted() -> None:
    """A token quoted in an exception's message never reaches the rendered line."""
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    try:
        raise RuntimeError(f"push failed with {token}")
    except RuntimeError:
        get_logger().exception("collect.failed")
    assert token not in stream.getvalue()
    assert (
        json.loads(stream.getvalue().splitlines()[0])["exception"][0]["exc_type"] == "RuntimeError"
    )


def _warner(home: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "DREAMD_", "CLAUDE_", "NOTIFY_SOCKET", "JOURNAL_STREAM"))
    }
    environment.update({"HOME": str(home), **env})
    return subprocess.Popen(
        [sys.executable, "-m", "tests.core.warner", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip


def _warning_line(raw: str) -> dict[str, object]:
    line: dict[str, object] = json.loads(re.sub(r"^<\d>", "", raw))
    return line


def test_a_python_warning_in_a_command_is_a_json_log_line(isolated_home: Path) -> None:
    """`dreamd status` with a warning issued mid-run: every stderr line is one JSON object,
    the warning among them with its category and message."""
    process = _warner(isolated_home, "status")
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    parsed = [json.loads(line) for line in stderr.splitlines()]
    (warning,) = [line for line in parsed if line["event"] == "python.warning"]
    assert warning["level"] == "warning" and warning["category"] == "UserWarning"
    assert "falling back to polling" in str(warning["message"])
    assert "Service:" in stdout


def test_a_python_warning_in_the_service_under_journald_is_json(isolated_home: Path) -> None:
    """`dreamd run` under journald: the warning is a prefixed JSON line of the log stream,
    and nothing reaches stderr as plain text."""
    process = _warner(isolated_home, "run", DREAMD_WARNER_JOURNAL="1", DREAMD_LOG_LEVEL="info")
    assert process.stdout is not None
    try:
        for raw in process.stdout:
            assert re.match(r"^<\d>\{", raw), raw
            line = _warning_line(raw)
            if line["event"] == "python.warning":
                assert raw.startswith("<4>") and line["category"] == "UserWarning"
                break
            if line["event"] == "service.started":
                raise AssertionError("the service started without logging the warning")
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    assert all(json.loads(line) for line in stderr.splitlines()), stderr


def test_journal_stream_is_trusted_only_for_the_stream_it_names(tmp_path: Path) -> None:
    """systemd's rule: ``JOURNAL_STREAM`` is DEVICE:INODE of the stream it connected."""
    from dreamd.logs import journal_stream_is

    with (tmp_path / "out").open("w") as stream:
        status = os.fstat(stream.fileno())
        assert journal_stream_is(f"{status.st_dev}:{status.st_ino}", stream)
        assert not journal_stream_is(f"{status.st_dev}:{status.st_ino + 1}", stream)
        assert not journal_stream_is("", stream) and not journal_stream_is("8:x", stream)
        assert not journal_stream_is(None, stream)
    assert not journal_stream_is("1:2", io.StringIO())


def test_readable_lines_for_a_person_at_a_terminal() -> None:
    """Time, level, event and a few short fields; no JSON braces."""
    stream = io.StringIO()
    configure_logging("info", stream=stream, readable=True)
    get_logger("dreamd.jobs").info(
        "collect.completed", mode="apply", outcome="ok", planted={"total": 3}, a=1, b=2, c=3
    )
    (line,) = stream.getvalue().splitlines()
    assert re.match(r"^\d\d:\d\d:\d\d info +collect\.completed  mode=apply outcome=ok ", line)
    assert 'planted={"total": 3}' in line and "(+1 more)" in line and "logger" not in line


def test_a_bound_run_id_is_on_every_line_and_binding_loads_no_structlog() -> None:
    """``bind_context`` in a fresh interpreter imports nothing; the value is on the lines
    logged while bound, a line's own field wins, and ``reset_context`` takes it off."""
    import subprocess
    import sys

    probe = (
        "import io, json, sys\n"
        "from dreamd.logs import bind_context, configure_logging, get_logger, reset_context\n"
        "stream = io.StringIO()\n"
        "configure_logging('info', stream=stream)\n"
        "token = bind_context(run_id='r-7')\n"
        "loaded = 'structlog' in sys.modules\n"
        "log = get_logger('dreamd.test')\n"
        "log.info('one')\n"
        "log.info('two', run_id='own')\n"
        "reset_context(token)\n"
        "log.info('three')\n"
        "print(json.dumps([loaded, [json.loads(l) for l in stream.getvalue().splitlines()]]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded, logged = json.loads(done.stdout)
    assert loaded is False
    assert [(line["event"], line.get("run_id")) for line in logged] == [
        ("one", "r-7"),
        ("two", "own"),
        ("three", None),
    ]
