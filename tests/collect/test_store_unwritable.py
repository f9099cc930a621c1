"""One memory store that cannot be written keeps its windows pending; the rest goes on
(issue 15 item 4), end to end with `dreamd collect`.

The stores are broken the way a root run cannot bypass: a file where the
memory folder should be, a directory where the held-items file should be.
Permission bits are tried too where they bind (not as root).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import PROMPTS, collect, session, sql_keys
from tests.process import run_dreamd

APP = "00000000-2222-4333-8444-555555555555"  # sorts first
OTHER = "11111111-2222-4333-8444-555555555555"


def two_projects(home: Path) -> None:
    """One session in /work/app's transcript folder, one in /work/other's."""
    session(home, PROMPTS, sid=APP)
    path = session(home, PROMPTS, sid=OTHER, project="/work/other")
    folder = home / ".claude" / "projects" / "-work-other"
    folder.mkdir(parents=True, exist_ok=True)
    os.replace(path, folder / path.name)  # keeps the mtime: not live


def memory(home: Path, project: str) -> Path:
    return home / ".claude" / "projects" / project / "memory"


def inbox(home: Path, project: str) -> list[str]:
    return sorted(p.name for p in (memory(home, project) / ".inbox").glob("*.md"))


def resolved(home: Path) -> dict[str, str]:
    cursor = json.loads(run_dreamd(home, "cursor", "export").stdout)
    sessions = cursor["collectorV2"]["sources"]["claude-code"]["sessions"]
    return {sid: entry["status"] for sid, entry in sessions.items()}


def test_a_file_where_the_memory_folder_should_be(isolated_home: Path) -> None:
    """The app's memory folder is a file: its window stays pending for claude-memory with
    the reason, its SQL rows are written, the other project is collected whole; once the
    folder can be written the window is finished from its plan, nothing planted twice."""
    two_projects(isolated_home)
    memory(isolated_home, "-work-app").parent.mkdir(parents=True, exist_ok=True)
    memory(isolated_home, "-work-app").write_text("not a folder")
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["cursor"]["resolved"] == [f"claude-code:{OTHER}"]
    (pending,) = report["pending_stores"]
    assert (pending["session"], pending["store"]) == (f"claude-code:{APP}", "claude-memory")
    assert "not a directory" in pending["reason"]
    assert any(
        b.startswith(f"claude-code:{APP}: unresolved: window pending for claude-memory")
        for b in report["backlog"]["blocked"]
    )
    assert len(inbox(isolated_home, "-work-other")) == 3 and len(sql_keys(isolated_home)) == 6
    text = collect(isolated_home)  # the replay meets the same file: still pending, said so
    assert text.returncode == 0, text.stderr
    assert f"Store pending: claude-memory for claude-code:{APP}: " in text.stdout
    assert resolved(isolated_home) == {APP: "partial", OTHER: "resolved"}
    memory(isolated_home, "-work-app").unlink()
    fixed = json.loads(collect(isolated_home, "--json").stdout)
    assert fixed["cursor"]["resolved"] == [f"claude-code:{APP}"] and fixed["pending_stores"] == []
    assert len(inbox(isolated_home, "-work-app")) == 3
    keys = sql_keys(isolated_home)
    assert len(keys) == len(set(keys)) == 6


def test_a_shared_store_that_cannot_be_written(isolated_home: Path) -> None:
    """memory-md's held-items file is a directory: every session's window waits for that
    store alone; the memory folder and the SQL store get every item."""
    notes = isolated_home / "notes"
    (notes / "MEMORY.inbox.md").mkdir(parents=True)
    config = isolated_home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[collect]\nstores = ["claude-memory", "sql", "memory-md"]\n'
        f'[stores.memory-md]\npath = "{notes / "MEMORY.md"}"\n'
    )
    two_projects(isolated_home)
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert {(p["session"], p["store"]) for p in report["pending_stores"]} == {
        (f"claude-code:{APP}", "memory-md"),
        (f"claude-code:{OTHER}", "memory-md"),
    }
    assert len(inbox(isolated_home, "-work-app")) == len(inbox(isolated_home, "-work-other")) == 3
    assert len(sql_keys(isolated_home)) == 6
    (notes / "MEMORY.inbox.md").rmdir()
    fixed = json.loads(collect(isolated_home, "--json").stdout)
    assert sorted(fixed["cursor"]["resolved"]) == [f"claude-code:{APP}", f"claude-code:{OTHER}"]
    held = (notes / "MEMORY.inbox.md").read_text()
    assert held.count("dreamd:op") == 6
    assert len(sql_keys(isolated_home)) == 6


@pytest.mark.skipif(os.geteuid() == 0, reason="permission bits do not stop root")
def test_a_memory_folder_that_is_not_writable(isolated_home: Path) -> None:
    """Mode 0500 on the memory folder: pending for claude-memory, the rest goes on."""
    two_projects(isolated_home)
    folder = memory(isolated_home, "-work-app")
    folder.mkdir(parents=True)
    folder.chmod(0o500)
    try:
        report = json.loads(collect(isolated_home, "--json").stdout)
        assert [p["store"] for p in report["pending_stores"]] == ["claude-memory"]
        assert report["cursor"]["resolved"] == [f"claude-code:{OTHER}"]
    finally:
        folder.chmod(0o700)
        shutil.rmtree(folder)
