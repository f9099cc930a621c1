"""systemd service notification (``sd_notify``) without a dependency.

Under ``Type=notify`` systemd passes ``NOTIFY_SOCKET``: a datagram socket, either a filesystem
path or, when it starts with ``@``, a Linux abstract socket. dreamd sends ``READY=1`` after its
start-up work, ``STATUS=`` lines as its jobs progress, ``WATCHDOG=1`` at half of ``WATCHDOG_USEC``
while they do (``dreamd.service.heartbeat`` decides), and ``STOPPING=1`` on the way out.

Invariants:

- Without ``NOTIFY_SOCKET`` (a terminal, launchd, tests) every method is a no-op.
- Notification never breaks or stalls the service: a send waits at most ``send_timeout`` for
  room in the socket's queue; an error (timeout included) is logged once
  (``service.notify.failed``) and reported as ``False``, never raised.
- A message is ``KEY=value`` lines; a value never carries a line break (it would start a field).
- Safe to call from several threads (the scheduler's and the main loop).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Mapping

from dreamd.logs import get_logger

__all__ = ["Notifier", "notify_address", "watchdog_interval"]

_log = get_logger("dreamd.service.notify")


def notify_address(value: str) -> str | bytes | None:
    """The ``sendto`` address for a ``NOTIFY_SOCKET`` value; ``None`` when it is not one."""
    if value.startswith("@") and len(value) > 1:
        return b"\0" + value[1:].encode()  # abstract namespace: a leading NUL byte
    if value.startswith("/"):
        return value
    return None


def watchdog_interval(env: Mapping[str, str], pid: int | None = None) -> float | None:
    """Seconds between ``WATCHDOG=1`` pings (half of ``WATCHDOG_USEC``), or ``None``.

    ``None`` when systemd asks for no watchdog, or asks it of another process
    (``WATCHDOG_PID`` set to a PID that is not ``pid``, by default this process).
    """
    owner = env.get("WATCHDOG_PID", "").strip()
    if owner and owner != str(os.getpid() if pid is None else pid):
        return None
    try:
        microseconds = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return microseconds / 2_000_000 if microseconds > 0 else None


def _field(key: str, value: str) -> str:
    return f"{key}={' '.join(value.splitlines())}"


class Notifier:
    """Sends notifications to one ``NOTIFY_SOCKET`` address (or nowhere)."""

    def __init__(self, address: str | bytes | None, *, send_timeout: float = 2.0) -> None:
        self.address = address
        self.send_timeout = send_timeout
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._failed = False

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, send_timeout: float = 2.0) -> Notifier:
        """The notifier systemd asked for in ``env``; a no-op one without ``NOTIFY_SOCKET``."""
        return cls(notify_address(env.get("NOTIFY_SOCKET", "")), send_timeout=send_timeout)

    @property
    def enabled(self) -> bool:
        """Whether there is a socket to notify."""
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` fields as one datagram; ``True`` when it was sent."""
        if self.address is None:
            return False
        data = "\n".join(fields).encode("utf-8")
        with self._lock:
            try:
                if self._socket is None:
                    self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                    # A full queue (systemd busy) must not hang the watchdog thread.
                    self._socket.settimeout(self.send_timeout)
                self._socket.sendto(data, self.address)
            except OSError as error:
                self._report(error)
                return False
        return True

    def _report(self, error: OSError) -> None:
        if self._failed:
            return
        self._failed = True
        _log.warning("service.notify.failed", socket=repr(self.address), error=str(error))

    def ready(self, status: str | None = None) -> bool:
        """Start-up is done (``READY=1``), with an optional status line."""
        return self.send("READY=1", *(() if status is None else (_field("STATUS", status),)))

    def watchdog(self) -> bool:
        """Still alive (``WATCHDOG=1``)."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        """Shutting down (``STOPPING=1``)."""
        return self.send("STOPPING=1", *(() if status is None else (_field("STATUS", status),)))

    def status(self, text: str) -> bool:
        """A one-line status that ``systemctl status`` shows."""
        return self.send(_field("STATUS", text))

    def close(self) -> None:
        """Close the socket (sending again opens a new one)."""
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None
