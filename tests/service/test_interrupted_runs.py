"""A run killed by SIGKILL is closed as ``interrupted``, never left "running" (issue 15 item 14).

A real ``dreamd collect`` kills itself with SIGKILL at its first crash point
(after its run row is written); ``status`` shows it interrupted at once, and
the next run closes it in the state database. A run whose process is alive is
left alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from dreamd.statedb import open_state
from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.process import run_dreamd


def environment(home: Path, **extra: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_", "CLAUDE_"))}
    return {**kept, "HOME": str(home), **extra}


def killed_collect(home: Path) -> int:
    """Run `dreamd collect` until it SIGKILLs itself; its pid."""
    process = subprocess.Popen(
        [sys.executable, "-m", "dreamd", "collect"],
        env=environment(home, DREAMD_TEST_CRASH_AT="1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert process.wait(timeout=300) == -9
    return process.pid


def last_collect(home: Path) -> dict[str, object]:
    document = json.loads(run_dreamd(home, "status", "--json").stdout)
    run: dict[str, object] = document["jobs"]["collect"]["last_run"]
    return run


def test_a_run_killed_by_sigkill_is_closed_as_interrupted(isolated_home: Path) -> None:
    session(isolated_home, PROMPTS)
    pid = killed_collect(isolated_home)
    state = open_state(data(isolated_home) / "state.db")
    (row,) = state.runs("collect")
    assert row.pid == pid and row.finished_at is None and row.outcome is None
    # status reads only: it shows the dead run as interrupted without writing.
    assert last_collect(isolated_home)["outcome"] == "interrupted"
    text = run_dreamd(isolated_home, "status").stdout
    (line,) = [line for line in text.splitlines() if line.strip().startswith("collect ran ")]
    assert ": interrupted;" in line
    assert state.runs("collect")[0].finished_at is None
    # The next run closes it for good.
    assert run_dreamd(isolated_home, "collect").returncode == 0
    killed = state.run(row.run_id)
    assert killed is not None and killed.outcome == "interrupted"
    assert killed.finished_at is not None
    assert f"process {pid} ended without recording a finish" in str(killed.summary)
    assert last_collect(isolated_home)["outcome"] == "ok"


def test_a_run_whose_process_lives_is_not_closed(isolated_home: Path) -> None:
    """An unfinished run of a live process (a dream still going) stays running."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        state = open_state(data(isolated_home) / "state.db")
        state.start_run("live-run", "dream", "apply", datetime.now(UTC), pid=sleeper.pid)
        session(isolated_home, PROMPTS)
        assert run_dreamd(isolated_home, "collect").returncode == 0
        live = state.run("live-run")
        assert live is not None and live.outcome is None and live.finished_at is None
        document = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
        assert document["jobs"]["dream"]["last_run"]["outcome"] == "running"
    finally:
        sleeper.kill()
        sleeper.wait()
    document = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert document["jobs"]["dream"]["last_run"]["outcome"] == "interrupted"
