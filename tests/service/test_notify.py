"""systemd notification over real AF_UNIX datagram sockets, path and abstract."""

from __future__ import annotations

import io
import json
import secrets
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamd.logs import configure_logging
from dreamd.service.notify import Notifier, notify_address, watchdog_interval


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    yield stream
    configure_logging("warning", stream=io.StringIO())


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: a socket path must fit in 108 bytes."""
    with tempfile.TemporaryDirectory(prefix="dn-", dir="/tmp") as folder:
        yield Path(folder)


def receiver(address: str | bytes) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    listener.settimeout(10)  # a guard against hanging, not a timing assertion
    return listener


def test_without_notify_socket_everything_is_a_no_op() -> None:
    """Outside systemd nothing is sent and nothing fails."""
    notifier = Notifier.from_env({})
    assert not notifier.enabled
    assert (notifier.ready("up"), notifier.watchdog(), notifier.stopping()) == (False,) * 3
    assert notifier.status("idle") is False


def test_messages_reach_a_path_socket(short_dir: Path) -> None:
    """READY (with status), WATCHDOG, STATUS and STOPPING arrive as systemd expects them."""
    path = short_dir / "notify"
    with receiver(str(path)) as listener:
        notifier = Notifier.from_env({"NOTIFY_SOCKET": str(path)})
        assert notifier.ready(status="watching 3 folders")
        assert listener.recv(4096) == b"READY=1\nSTATUS=watching 3 folders"
        assert notifier.watchdog()
        assert listener.recv(4096) == b"WATCHDOG=1"
        assert notifier.status("collecting\nwindow 2")
        assert listener.recv(4096) == b"STATUS=collecting window 2"
        assert notifier.stopping()
        assert listener.recv(4096) == b"STOPPING=1"
        notifier.close()


def test_messages_reach_an_abstract_socket() -> None:
    """`@name` is the Linux abstract namespace: the datagram reaches the listener there."""
    name = f"dreamd-test-{secrets.token_hex(6)}"
    with receiver(b"\0" + name.encode()) as listener:
        notifier = Notifier.from_env({"NOTIFY_SOCKET": f"@{name}"})
        assert notifier.ready()
        assert listener.recv(4096) == b"READY=1"
        notifier.close()


def test_send_errors_are_logged_once_and_never_raised(
    short_dir: Path, log_stream: io.StringIO
) -> None:
    """A socket that is gone costs one warning, however often the service pings."""
    notifier = Notifier.from_env({"NOTIFY_SOCKET": str(short_dir / "gone")})
    results = [notifier.ready(), notifier.watchdog(), notifier.watchdog(), notifier.stopping()]
    assert results == [False] * 4
    events = [json.loads(line) for line in log_stream.getvalue().splitlines()]
    failures = [event for event in events if event["event"] == "service.notify.failed"]
    assert len(failures) == 1
    assert failures[0]["level"] == "warning"


def test_a_socket_that_appears_later_is_reached(short_dir: Path, log_stream: io.StringIO) -> None:
    """A failed send does not disable the notifier: the next one goes through."""
    path = short_dir / "late"
    notifier = Notifier.from_env({"NOTIFY_SOCKET": str(path)})
    assert not notifier.watchdog()
    with receiver(str(path)) as listener:
        assert notifier.watchdog()
        assert listener.recv(4096) == b"WATCHDOG=1"
    notifier.close()


def test_pings_from_several_threads_all_arrive(short_dir: Path) -> None:
    """The scheduler's thread and the main loop may notify at once; no datagram is lost."""
    path = short_dir / "threads"
    with receiver(str(path)) as listener:
        received: list[bytes] = []

        def read() -> None:
            for _ in range(100):
                received.append(listener.recv(64))

        reader = threading.Thread(target=read)
        reader.start()
        notifier = Notifier.from_env({"NOTIFY_SOCKET": str(path)}, send_timeout=10)
        senders = [
            threading.Thread(target=lambda: [notifier.watchdog() for _ in range(25)])
            for _ in range(4)
        ]
        for thread in senders:
            thread.start()
        for thread in [*senders, reader]:
            thread.join()
        assert received == [b"WATCHDOG=1"] * 100
        notifier.close()


def test_a_listener_that_never_reads_does_not_stall_the_service(
    short_dir: Path, log_stream: io.StringIO
) -> None:
    """Once the socket's queue is full, sends give up after the timeout: False, one warning."""
    path = short_dir / "full"
    with receiver(str(path)):
        notifier = Notifier.from_env({"NOTIFY_SOCKET": str(path)}, send_timeout=0.01)
        results = [notifier.watchdog() for _ in range(300)]  # far beyond net.unix.max_dgram_qlen
        assert results[0] is True
        assert results[-1] is False
        failures = [line for line in log_stream.getvalue().splitlines() if "notify.failed" in line]
        assert len(failures) == 1
        notifier.close()


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("/run/user/1000/systemd/notify", "/run/user/1000/systemd/notify"),
        ("@/org/freedesktop/systemd1/notify/1", b"\0/org/freedesktop/systemd1/notify/1"),
        ("", None),
        ("@", None),
        ("relative/socket", None),
        ("vsock:2:1234", None),
    ],
)
def test_notify_address(value: str, address: str | bytes | None) -> None:
    """Paths and abstract names are addresses; anything else disables notification."""
    assert notify_address(value) == address


@pytest.mark.parametrize(
    ("env", "interval"),
    [
        ({"WATCHDOG_USEC": "120000000"}, 60.0),
        ({"WATCHDOG_USEC": "120000000", "WATCHDOG_PID": "4242"}, 60.0),
        ({"WATCHDOG_USEC": "120000000", "WATCHDOG_PID": "4243"}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
        ({}, None),
    ],
)
def test_watchdog_interval(env: dict[str, str], interval: float | None) -> None:
    """Half of WATCHDOG_USEC, and only when the watchdog is meant for this process."""
    assert watchdog_interval(env, pid=4242) == interval


def test_watchdog_interval_defaults_to_this_process() -> None:
    """Without an explicit pid, WATCHDOG_PID is compared with our own."""
    import os

    env = {"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    assert watchdog_interval(env) == 5.0
