"""Run ``dreamd ARGS`` and SIGKILL it just before its N-th state-changing I/O call.

``python -m tests.collect.killer N ARGS...``: a profile hook counts the C-level
calls through which dreamd changes disk or database state (file writes,
fsync, link, rename, SQL execute and commit…), so a crash can land anywhere,
including in the middle of a store write. ``N = 0`` runs to the end and
prints the number of such calls on stderr.
"""

from __future__ import annotations

import atexit
import os
import runpy
import signal
import sys
from types import FrameType
from typing import Any

IO_CALLS = frozenset(
    {"write", "fsync", "link", "rename", "replace", "unlink", "mkdir", "execute", "commit"}
)


class Killer:
    def __init__(self, kill_at: int) -> None:
        self.kill_at = kill_at
        self.calls = 0

    def __call__(self, _frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") in IO_CALLS:
            self.calls += 1
            if self.calls == self.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    killer = Killer(int(sys.argv[1]))
    if killer.kill_at == 0:
        atexit.register(lambda: print(f"io-calls {killer.calls}", file=sys.stderr))
    sys.argv = ["dreamd", *sys.argv[2:]]
    sys.setprofile(killer)
    runpy.run_module("dreamd", run_name="__main__")


if __name__ == "__main__":
    main()
