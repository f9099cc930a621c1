"""Write ``sample_item(0..N-1)`` through an adapter in a child process, optionally dying.

``python -m tests.stores.writer KIND TARGET N KILL_AT [GO_FILE]``

- ``KILL_AT > 0``: SIGKILL this process just before its KILL_AT-th I/O call
  (a state-changing file system or database driver call, counted by a
  profile hook), so a crash lands at a reproducible point inside a write.
  psycopg 3 talks to PostgreSQL from Python, not through C calls: there each
  round trip to the server (``Connection.wait``) counts as one I/O call.
- ``KILL_AT = 0``: run to the end and print the number of I/O calls made.
- ``GO_FILE``: create ``GO_FILE.<pid>`` once imported, then wait until
  ``GO_FILE`` exists, so that several writers start writing together.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from tests.stores.factories import open_store, sample_item

#: C-level calls through which an adapter changes disk or database state (reads are left
#: out so that random crash points land on the steps of a write, not on look-ups).
IO_CALLS = frozenset(
    {"write", "fsync", "link", "rename", "unlink", "mkdir", "flock", "execute", "commit"}
)


def op_key(index: int) -> str:
    """The operation key of item ``index`` (stable across runs, as in a write plan)."""
    return f"window-{index // 4}:store:op-{index}"


def _is_io(frame: FrameType, event: str, arg: Any) -> bool:
    """Whether this profile event is a state-changing call (or a round trip to a server)."""
    if event == "c_call":
        return getattr(arg, "__name__", "") in IO_CALLS
    return (
        event == "call"
        and frame.f_code.co_name == "wait"
        and frame.f_globals.get("__name__") == "psycopg.connection"
    )


class _Killer:
    def __init__(self, kill_at: int) -> None:
        self.kill_at = kill_at
        self.calls = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if _is_io(frame, event, arg):
            self.calls += 1
            if self.calls == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)


def _wait_for(go: Path) -> None:
    Path(f"{go}.{os.getpid()}").touch()
    deadline = time.monotonic() + 60
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.005)


def main(argv: list[str]) -> int:
    """Write the items; print the I/O call count, then one receipt location per line."""
    kind, target, count, kill_at = argv[0], argv[1], int(argv[2]), int(argv[3])
    store = open_store(kind, target)
    if len(argv) > 4:
        _wait_for(Path(argv[4]))
    killer = _Killer(kill_at)
    sys.setprofile(killer)
    receipts = []
    for index in range(count):
        receipt = store.write(op_key(index), sample_item(index))
        if not store.verify(receipt, op_key(index)):
            raise SystemExit(f"receipt for {op_key(index)} does not verify")
        receipts.append(receipt)
    sys.setprofile(None)
    print(killer.calls)
    for receipt in receipts:
        print(receipt.location, receipt.digest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
