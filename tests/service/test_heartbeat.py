"""The status line and the stall rule the service reports to systemd, as pure functions."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamd.config import parse_config
from dreamd.progress import counter, describe
from dreamd.service.heartbeat import (
    DEFAULT_STALL_SECONDS,
    Beat,
    Heartbeat,
    SystemdReporter,
    busy_status,
    idle_status,
    stall_limit,
    stalled,
    when,
)
from dreamd.service.notify import Notifier

NOW = datetime(2026, 12, 2, 1, 15, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("stage", "done", "total", "text"),
    [
        ("collecting sessions", 2, 3, "collecting 2/3 sessions"),
        ("dreaming folders", 1, 4, "dreaming 1/4 folders"),
        ("reading sessions", 0, 0, "reading sessions"),
        ("waiting for a run started by hand", 0, 0, "waiting for a run started by hand"),
        ("collecting", 0, 0, "collecting"),
    ],
)
def test_describe_puts_the_count_between_verb_and_noun(
    stage: str, done: int, total: int, text: str
) -> None:
    """A stage is a verb and a noun; the count goes between them, and only when there is one."""
    assert describe(stage, done, total) == text


def test_counter_is_the_catalog_callback_for_one_stage() -> None:
    """``counter`` adapts a job progress to the ``(done, total)`` shape the scan takes."""
    heard: list[tuple[str, int, int]] = []
    report = counter(lambda stage, done, total: heard.append((stage, done, total)), "reading x")
    report(3, 9)
    assert heard == [("reading x", 3, 9)]


def test_idle_status_names_the_next_runs_soonest_first() -> None:
    """Same day: the time; within the week: weekday and time; later: the date."""
    runs = {
        "dream": NOW.replace(hour=3, minute=30),
        "collect": NOW.replace(hour=2, minute=30),
    }
    assert idle_status(runs, NOW) == "idle; next collect 02:30, dream 03:30"
    assert idle_status({"collect": None}, NOW) == "idle"
    assert when(NOW + timedelta(days=1), NOW) == "Thu 01:15"
    assert when(NOW + timedelta(days=30), NOW) == "2027-01-01 01:15"


def test_a_job_is_stalled_only_after_the_limit_without_progress() -> None:
    """Idle is never stalled; a job is stalled once its last progress is older than the limit."""
    beat = Beat("collect", "collecting 1/2 sessions", since=100.0)
    assert not stalled(None, 10_000.0, 30.0)
    assert not stalled(beat, 130.0, 30.0)
    assert stalled(beat, 130.5, 30.0)
    assert busy_status(beat, False, 30.0) == "collecting 1/2 sessions"
    assert busy_status(beat, True, 30.0).startswith("stuck: collecting 1/2 sessions; no progress")


def test_the_stall_limit_outlasts_the_extractors_longest_call() -> None:
    """Configured: as set. Unset: 900 s, or the extractor's longest call plus a minute."""
    assert stall_limit(parse_config("")) == DEFAULT_STALL_SECONDS
    assert stall_limit(parse_config("[service]\nstall_seconds = 45\n")) == 45
    slow = parse_config(
        '[collect]\nextractor = "command"\n'
        '[extractors.command]\nargv = ["sh"]\ntimeout_seconds = 1800\n'
    )
    assert stall_limit(slow) == 1860
    retried = parse_config(
        '[collect]\nextractor = "openai"\n'
        '[extractors.openai]\nmodel = "m"\ntimeout_seconds = 400\nmax_retries = 2\n'
    )
    assert stall_limit(retried) == 1260


def test_stall_seconds_must_be_positive() -> None:
    """A limit of zero would stop the pings at once: refused, naming the key."""
    with pytest.raises(Exception, match=r"service\.stall_seconds"):
        parse_config("[service]\nstall_seconds = 0\n")


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, str]]:
    with tempfile.TemporaryDirectory(prefix="dh-", dir="/tmp") as folder:
        address = str(Path(folder) / "n.sock")
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        receiver.bind(address)
        receiver.setblocking(False)
        yield receiver, address
        receiver.close()


def _received(receiver: socket.socket) -> list[str]:
    fields: list[str] = []
    while True:
        try:
            fields += receiver.recv(4096).decode().splitlines()
        except BlockingIOError:
            return fields


def test_the_reporter_sends_changes_and_pings_only_while_the_job_moves(
    listener: tuple[socket.socket, str],
) -> None:
    """On a real socket, driven by a test clock: status changes once each; no ping when stuck."""
    receiver, address = listener
    clock = [0.0]
    heartbeat = Heartbeat(clock=lambda: clock[0])
    reporter = SystemdReporter(Notifier(address), heartbeat, interval=1.0, limit=5.0)
    reporter.tick(0.0, lambda: "idle; next collect 02:30")
    reporter.tick(0.5, lambda: "idle; next collect 02:30")
    assert _received(receiver) == ["STATUS=idle; next collect 02:30", "WATCHDOG=1"]
    heartbeat.begin("collect", "collecting")
    heartbeat("collecting sessions", 1, 2)
    reporter.tick(1.0, lambda: "unused while busy")
    assert _received(receiver) == ["STATUS=collecting 1/2 sessions", "WATCHDOG=1"]
    for now in (2.0, 3.0, 4.0, 5.0):
        reporter.tick(now, lambda: "")
    assert _received(receiver) == ["WATCHDOG=1"] * 4
    for now in (6.0, 7.0, 8.0):  # no progress since 0.0 and the limit is 5 s
        reporter.tick(now, lambda: "")
    stuck = _received(receiver)
    assert "WATCHDOG=1" not in stuck and len(stuck) == 1
    assert stuck[0].startswith("STATUS=stuck: collecting 1/2 sessions")
    clock[0] = 8.5
    heartbeat("collecting sessions", 2, 2)  # it moves again
    reporter.tick(9.0, lambda: "")
    assert _received(receiver) == ["STATUS=collecting 2/2 sessions", "WATCHDOG=1"]
    heartbeat.end()
    reporter.tick(9.5, lambda: "idle")
    assert _received(receiver) == ["STATUS=idle"]
