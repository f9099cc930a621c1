"""Updating the matched item (seed 002 phase 4), through the real CLI and real stores.

"New or restored messages update the same matched item; a new operation key
is no reason to create a new entity": the same statement found by a later
window, or by a later run over a grown session, updates the item planted for
the session while the validate gate has not taken it; once the gate accepted
it, a new inbox item is planted and the gate merges it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import PROMPTS, collect, data, inbox, kill_run, session
from tests.process import run_dreamd

UV = PROMPTS[2]  # "We decided to use uv instead of pip because it is much faster."
#: 120 messages, four windows of 30: the uv decision in window 1 and again in window 2,
#: a rule in window 3, nothing in window 4.
REPEATED = [f"Please look at issue number {i} in the tracker." for i in range(60)]
REPEATED[3] = UV
REPEATED[20] = UV
REPEATED[31] = "Never push directly to main, always open a pull request."


def folder(home: Path) -> Path:
    return home / ".claude" / "projects" / "-work-app" / "memory"


def quotes_in(text: str) -> int:
    return len(re.findall(r"^  - message: ", text, flags=re.MULTILINE))


def rows(home: Path) -> list[tuple[str, str, list[object], str]]:
    """(op_key, name, quotes, status) of every SQL row, in insertion order."""
    with sqlite3.connect(data(home) / "memory.db") as connection:
        found = connection.execute(
            "SELECT op_key, name, quotes, status FROM memory_item ORDER BY id"
        )
        return [(key, name, json.loads(quotes), status) for key, name, quotes, status in found]


def update_keys(home: Path) -> list[str]:
    with sqlite3.connect(data(home) / "memory.db") as connection:
        return sorted(key for (key,) in connection.execute("SELECT op_key FROM memory_item_op"))


def uv_file(home: Path) -> str:
    (name,) = [n for n in inbox(home) if "uv" in n]
    return (folder(home) / ".inbox" / name).read_text()


def test_two_windows_with_the_same_statement_make_one_item(isolated_home: Path) -> None:
    """Window 2 restates window 1's decision: one item per store, holding both quotes."""
    session(isolated_home, REPEATED)
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["windows"] == 4
    assert report["planted"]["total"] == 4 and report["planted"]["updated"]["total"] == 2
    assert len(inbox(isolated_home)) == 2
    assert quotes_in(uv_file(isolated_home)) == 2
    (uv,) = [row for row in rows(isolated_home) if "uv" in row[1]]
    assert len(uv[2]) == 2 and len(rows(isolated_home)) == 2
    assert len(update_keys(isolated_home)) == 1


def test_a_grown_session_restating_an_item_updates_it(isolated_home: Path) -> None:
    """A later run over the grown session updates the item; nothing new is handed off."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    before_files, before_rows = inbox(isolated_home), rows(isolated_home)
    assert quotes_in(uv_file(isolated_home)) == 1
    session(isolated_home, [*PROMPTS, UV])
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["windows"] == 1 and report["handoff"] == 0
    assert report["planted"]["total"] == 0 and report["planted"]["updated"]["topics"] == 2
    assert inbox(isolated_home) == before_files
    assert [row[0] for row in rows(isolated_home)] == [row[0] for row in before_rows]
    assert quotes_in(uv_file(isolated_home)) == 2
    assert [len(row[2]) for row in rows(isolated_home) if "uv" in row[1]] == [2]
    text = run_dreamd(isolated_home, "collect").stdout
    assert "Planted: topics 0 (new 0, updated 0)" in text
    again = json.loads(collect(isolated_home, "--json").stdout)
    assert again["planted"]["updated"]["total"] == 0  # resolved: nothing is updated twice


def test_after_the_gate_accepted_it_a_restatement_is_a_new_inbox_item(
    isolated_home: Path,
) -> None:
    """The gate's item is never rewritten: the restatement goes to the inbox, the gate merges."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    dream = run_dreamd(isolated_home, "dream", "--root", str(folder(isolated_home)))
    assert dream.returncode == 0, dream.stderr
    accepted = {p.name: p.read_bytes() for p in folder(isolated_home).glob("*_*.md")}
    assert inbox(isolated_home) == [] and len(accepted) == 3
    session(isolated_home, [*PROMPTS, UV])
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["planted"]["total"] == 2 and report["planted"]["updated"]["total"] == 0
    assert {p.name: p.read_bytes() for p in folder(isolated_home).glob("*_*.md")} == accepted
    assert quotes_in(uv_file(isolated_home)) == 1
    merged = run_dreamd(isolated_home, "dream", "--json", "--root", str(folder(isolated_home)))
    assert merged.returncode == 0, merged.stderr
    assert inbox(isolated_home) == []
    (uv,) = [p for p in folder(isolated_home).glob("*_*.md") if "uv" in p.name]
    assert quotes_in(uv.read_text()) == 2


def masked(text: str) -> str:
    """A file's text with its collection day masked (a module fixture may run on another day)."""
    return re.sub(r"collected: \S+", "collected: -", text)


def snapshot(home: Path) -> tuple[list[str], list[str], list[str]]:
    """Inbox files, SQL rows (keys, names, quotes, status) and applied update keys."""
    files = sorted(masked((folder(home) / ".inbox" / n).read_text()) for n in inbox(home))
    return files, sorted(map(repr, rows(home))), update_keys(home)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, ...]:
    home = tmp_path_factory.mktemp("uninterrupted") / "home"
    home.mkdir()
    session(home, REPEATED)
    assert collect(home).returncode == 0
    return snapshot(home)


def assert_finished_like(home: Path, expected: tuple[object, ...]) -> None:
    assert snapshot(home) == expected
    cursor = json.loads(run_dreamd(home, "cursor", "export").stdout)
    entry = next(iter(cursor["collectorV2"]["sources"]["claude-code"]["sessions"].values()))
    assert entry["status"] == "resolved" and entry["intent"] is None


@pytest.mark.parametrize("crash_at", range(1, 24))
def test_killed_at_any_step_around_an_update_a_rerun_equals_the_uninterrupted_run(
    isolated_home: Path, crash_at: int, uninterrupted: tuple[object, ...]
) -> None:
    """SIGKILL at each of the 23 steps (plan saves, each store write or update, checkpoints,
    completion), then a clean rerun: the same items, quotes and update keys as without it."""
    session(isolated_home, REPEATED)
    killed = collect(isolated_home, DREAMD_TEST_CRASH_AT=str(crash_at))
    assert killed.returncode == -9, "the crash point was never reached"
    rerun = collect(isolated_home)
    assert rerun.returncode == 0, rerun.stderr
    assert_finished_like(isolated_home, uninterrupted)


@pytest.fixture(scope="module")
def io_calls(tmp_path_factory: pytest.TempPathFactory) -> int:
    home = tmp_path_factory.mktemp("count") / "home"
    home.mkdir()
    session(home, REPEATED)
    result = kill_run(home, 0)
    assert result.returncode == 0, result.stderr
    return int(result.stderr.strip().rsplit("io-calls ", 1)[1])


@pytest.mark.parametrize("share", [i / 12 for i in range(12)])
def test_killed_mid_io_around_an_update_a_rerun_equals_the_uninterrupted_run(
    isolated_home: Path, share: float, io_calls: int, uninterrupted: tuple[object, ...]
) -> None:
    """SIGKILL at 12 points spread over every state-changing I/O call, then a clean rerun."""
    session(isolated_home, REPEATED)
    assert kill_run(isolated_home, 1 + int(share * (io_calls - 1))).returncode == -9
    rerun = collect(isolated_home)
    assert rerun.returncode == 0, rerun.stderr
    assert_finished_like(isolated_home, uninterrupted)
