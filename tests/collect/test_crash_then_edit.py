"""A crash after a window's intent, then an edit of that window (issue 15 item 0, seed 002).

`dreamd collect` is SIGKILLed at every crash point of a two-window session
(``DREAMD_TEST_CRASH_AT``) and at I/O calls spread over the run (the
``killer``); then the person edits a message of the first window ("We
decided to use PostgreSQL" becomes SQLite, and a rule is added), and the
next run must not replay the stale plan: the edited text is analysed, the
added rule collected, nothing planted twice, and what the old text planted
before the kill is the only trace of it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import SID, collect, data, kill_run, session
from tests.process import run_dreamd

pytestmark = pytest.mark.slow

PROMPTS = [f"Please look at issue number {i} in the tracker." for i in range(30)]
PROMPTS[3] = "Always run the linter before committing, from now on."
PROMPTS[8] = "We decided to use PostgreSQL because it handles concurrent writes."
PROMPTS[20] = "Never push directly to main, always open a pull request."
EDITED = list(PROMPTS)
EDITED[8] = (
    "We decided to use SQLite because it needs no server. "
    "Never run the migrations by hand, always use the deploy script."
)
STALE = "project_decided_use_postgresql.md"
#: Crash points of the run: per window, before and after the plan is saved, before each of
#: its store writes (two items in two stores, then one), after them and after the checkpoint;
#: then before the session completes.
CRASH_POINTS = 8 + 6 + 1


def inbox_files(home: Path) -> list[str]:
    folder = home / ".claude" / "projects" / "-work-app" / "memory" / ".inbox"
    return sorted(p.name for p in folder.glob("*.md")) if folder.is_dir() else []


def sql_names(home: Path) -> list[str]:
    database = data(home) / "memory.db"
    if not database.exists():
        return []
    with sqlite3.connect(database) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master WHERE name = 'memory_item'")
        if tables.fetchone() is None:  # killed between creating the file and its tables
            return []
        return sorted(row[0] for row in connection.execute("SELECT name FROM memory_item"))


def stores(home: Path) -> tuple[list[str], list[str]]:
    return inbox_files(home), sql_names(home)


@pytest.fixture(scope="module")
def edited_only(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    """What an uninterrupted run over the edited session plants."""
    home = tmp_path_factory.mktemp("edited") / "home"
    home.mkdir()
    session(home, EDITED)
    assert collect(home).returncode == 0
    files, names = stores(home)
    assert "project_decided_use_sqlite.md" in files and STALE not in files
    assert any("migrations" in name for name in names)
    return files, names


@pytest.fixture(scope="module")
def io_calls(tmp_path_factory: pytest.TempPathFactory) -> int:
    home = tmp_path_factory.mktemp("count") / "home"
    home.mkdir()
    session(home, PROMPTS)
    result = kill_run(home, 0)
    assert result.returncode == 0, result.stderr
    return int(result.stderr.strip().rsplit("io-calls ", 1)[1])


def assert_edit_collected_once(home: Path, expected: tuple[list[str], list[str]]) -> None:
    """After the rerun: the edited session's items exactly once each, plus the stale item only
    where the killed run had already written it, and the session resolved at its new text."""
    after_kill = stores(home)
    session(home, EDITED)
    rerun = collect(home, "--json")
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    files, names = stores(home)
    stale_file = STALE in after_kill[0]
    stale_row = "We decided to use PostgreSQL" in after_kill[1]
    assert files == sorted([*expected[0], *([STALE] if stale_file else [])])
    assert names == sorted([*expected[1], *(["We decided to use PostgreSQL"] if stale_row else [])])
    assert report["cursor"]["resolved"] == [f"claude-code:{SID}"]
    cursor = json.loads(run_dreamd(home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["status"] == "resolved" and entry["intent"] is None
    assert len(entry["acked"]) == len(EDITED) * 2


@pytest.mark.parametrize("crash_at", range(1, CRASH_POINTS + 1))
def test_killed_at_any_crash_point_then_edited_the_stale_plan_is_never_replayed(
    isolated_home: Path, crash_at: int, edited_only: tuple[list[str], list[str]]
) -> None:
    session(isolated_home, PROMPTS)
    killed = collect(isolated_home, DREAMD_TEST_CRASH_AT=str(crash_at))
    assert killed.returncode == -9, "the crash point was never reached"
    assert_edit_collected_once(isolated_home, edited_only)


@pytest.mark.parametrize("share", [i / 8 for i in range(8)])
def test_killed_mid_io_then_edited_the_stale_plan_is_never_replayed(
    isolated_home: Path, share: float, io_calls: int, edited_only: tuple[list[str], list[str]]
) -> None:
    session(isolated_home, PROMPTS)
    assert kill_run(isolated_home, 1 + int(share * (io_calls - 1))).returncode == -9
    assert_edit_collected_once(isolated_home, edited_only)


def test_the_report_names_the_plan_it_did_not_reuse(isolated_home: Path) -> None:
    """Killed after the first write of the first window: the rerun says the plan was stale,
    and the cursor keeps the plan's id as provenance."""
    session(isolated_home, PROMPTS)
    assert collect(isolated_home, DREAMD_TEST_CRASH_AT="4").returncode == -9
    session(isolated_home, EDITED)
    report = json.loads(collect(isolated_home, "--json").stdout)
    (entry,) = report["cursor"]["reconciled"]
    assert entry.startswith(f"claude-code:{SID}: plan ") and "not reused" in entry
    assert "(1 of 4 writes had been made)" in entry
    text = run_dreamd(isolated_home, "cursor", "export").stdout
    sessions = json.loads(text)["collectorV2"]["sources"]["claude-code"]["sessions"]
    assert sessions[SID]["reconciled"] == [entry.split("plan ")[1].split()[0]]
