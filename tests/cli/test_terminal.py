"""On a terminal, tables and status fit its width; piped, nothing is clipped (issue 14).

The real ``dreamd`` program runs on a pseudo-terminal of 80 columns (the
``pty`` module, the window size set as a terminal emulator sets it).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from tests.collect.test_collect_cli import PROMPTS, session
from tests.process import run_dreamd

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG_PROJECT = "/work/a-project-with-a-rather-long-name/and/a/deeper/folder/than/most/people/use"


def on_terminal(home: Path, *args: str, columns: int = 80, **env: str) -> str:
    """``dreamd ARGS`` with stdout on a pseudo-terminal ``columns`` wide; what it printed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_"))}
    environment.pop("COLUMNS", None)
    environment.pop("NO_COLOR", None)
    environment.update({"HOME": str(home), "TERM": "xterm", **env})
    process = subprocess.Popen(
        [sys.executable, "-m", "dreamd", *args],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=environment,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the program closed its end
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def widths(text: str) -> list[int]:
    return [len(ANSI.sub("", line)) for line in text.splitlines()]


def test_sources_list_and_status_fit_80_columns_and_pipes_are_not_clipped(
    isolated_home: Path,
) -> None:
    session(isolated_home, PROMPTS, project=LONG_PROJECT)
    assert run_dreamd(isolated_home, "collect").returncode == 0
    session(
        isolated_home, PROMPTS, sid="22222222-2222-4333-8444-555555555555", project=LONG_PROJECT
    )

    listed = on_terminal(isolated_home, "sources", "list")
    assert "PROJECT" in listed and "\x1b[" in listed  # bold headers on a terminal
    assert max(widths(listed)) <= 80, listed
    status = on_terminal(isolated_home, "status")
    assert "collect ran" in status
    assert max(widths(status)) <= 80, status

    plain = on_terminal(isolated_home, "sources", "list", NO_COLOR="1")
    assert "\x1b[" not in plain  # https://no-color.org

    piped = run_dreamd(isolated_home, "sources", "list").stdout
    assert "\x1b[" not in piped
    # Piped: every project path and session id whole, on one line with its row.
    rows = [line for line in piped.splitlines() if "22222222-2222-4333-8444-555555555555" in line]
    assert len(rows) == 1 and LONG_PROJECT in rows[0]
    assert max(widths(piped)) > 80
    piped_status = run_dreamd(isolated_home, "status").stdout
    assert any(len(line) > 80 for line in piped_status.splitlines())  # full width, not wrapped


def test_the_progress_line_is_cleared_when_done() -> None:
    """The last ``\\r…`` line is erased, so what follows starts on a clean line."""
    import io

    from dreamd.render import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = Progress("reading sessions", stream)
    progress(3, 3)
    progress.done()
    assert stream.getvalue() == "\rreading sessions: 3/3\r\x1b[K"
    silent = io.StringIO()
    Progress("reading sessions", silent)(3, 3)
    assert silent.getvalue() == ""
