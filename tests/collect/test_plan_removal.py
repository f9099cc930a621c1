"""Issue 15 item 7: write plans do not pile up in the data folder.

A window's plan is removed as soon as its checkpoint is saved (seed 002
never replays a checkpointed plan); plans no open window names (left by a
crash between the checkpoint and the removal, or by ``dreamd mcp``'s
remember) are removed by the next ``dreamd collect`` once older than
``PLAN_RETENTION``; the plan of an open window is always kept.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from dreamd.collect.plan import PLAN_RETENTION, sweep_plans
from tests.collect.test_collect_cli import PROMPTS, collect, data, session, sql_keys


def test_a_checkpointed_windows_plan_is_removed(isolated_home: Path) -> None:
    session(isolated_home, PROMPTS)
    result = collect(isolated_home)
    assert result.returncode == 0, result.stderr
    assert sql_keys(isolated_home)  # something was planted, through a plan
    assert list((data(isolated_home) / "plans").glob("*.json")) == []


def test_old_orphan_plans_are_swept_by_the_next_collect(isolated_home: Path) -> None:
    plans = data(isolated_home) / "plans"
    plans.mkdir(parents=True)
    old, recent = plans / "0123456789abcdef01234567.json", plans / "fedcba9876543210fedcba98.json"
    for path in (old, recent):
        path.write_text("{}")
    past = time.time() - PLAN_RETENTION - 3600
    os.utime(old, (past, past))
    assert collect(isolated_home).returncode == 0
    assert sorted(p.name for p in plans.iterdir()) == [recent.name]


def test_the_plan_of_an_open_window_is_kept_however_old(tmp_path: Path) -> None:
    folder = tmp_path / "plans"
    folder.mkdir()
    names = ["a" * 24, "b" * 24, "c" * 24]
    past = time.time() - 2 * PLAN_RETENTION
    for name in names:
        path = folder / f"{name}.json"
        path.write_text("{}")
        os.utime(path, (past, past))
    (folder / "notes.txt").write_text("not a plan")
    assert sweep_plans(folder, [names[1]], now=time.time()) == 2
    assert sorted(p.name for p in folder.iterdir()) == [f"{names[1]}.json", "notes.txt"]
    assert sweep_plans(tmp_path / "missing", [], now=time.time()) == 0
