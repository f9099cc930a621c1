"""The dream in a git-managed memory root, end to end (seed 001; issue 12, 6, 10, 13, 15, 16)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dreamd.dream.runinventory import layers_changed, read_only_bytes
from tests.dream.test_dream_cli import OLD, run, topic, tree, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
BODY = "deploy pipeline staging database migration rollback checklist production release"


def git(root: Path, *args: str, when: str = "2026-03-25T10:00:00+00:00") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    ).stdout


def commit(root: Path, message: str, when: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, when=when)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty git repository that holds a memory hierarchy (seed 001)."""
    path = tmp_path / "hierarchy"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def dream_json(home: Path, folder: Path, *args: str) -> dict[str, object]:
    result = run(home, "dream", "--json", "--root", str(folder), *args)
    assert result.returncode == 0, result.stdout + result.stderr
    document: dict[str, object] = json.loads(result.stdout)
    return document


def test_the_later_committed_memory_is_the_newer(isolated_home: Path, root: Path) -> None:
    """Seed 001: commit history, not mtime, says which duplicate is newer (issue 12, 6)."""
    memory = root / "memory"
    topic(memory / "project_deploy_checklist.md", "project", "deploy checklist", BODY, mtime=OLD)
    write(memory / "MEMORY.md", "# Memory\n\n- [D](project_deploy_checklist.md) -- d\n")
    commit(root, "first", "2026-03-01T10:00:00+00:00")
    later = memory / "project_deploy_checklist_v2.md"
    topic(later, "project", "deploy checklist", BODY + " window", mtime=OLD - 86400 * 30)
    commit(root, "second", "2026-03-20T10:00:00+00:00")
    assert later.stat().st_mtime < (memory / "project_deploy_checklist.md").stat().st_mtime
    (folder,) = dream_json(isolated_home, memory)["directories"]  # type: ignore[misc]
    trashed = [f["file"] for f in folder["files"] if f["action"] == "trash"]
    assert trashed == ["project_deploy_checklist.md"]  # the earlier commit goes
    assert later.exists()


def test_relative_dates_in_memory_md_are_made_absolute(isolated_home: Path, root: Path) -> None:
    """A relative date inside MEMORY.md is converted from its line's commit day (item 10)."""
    memory = root / "memory"
    topic(memory / "project_a.md", "project", "a", "Alpha.")
    write(memory / "MEMORY.md", "# Memory\n\n- [A](project_a.md) -- decided yesterday\n")
    commit(root, "memories", "2026-03-25T10:00:00+00:00")
    (folder,) = dream_json(isolated_home, memory)["directories"]  # type: ignore[misc]
    assert "- [A](project_a.md) -- decided 2026-03-24" in (memory / "MEMORY.md").read_text()
    findings = "\n".join(folder["findings"])
    assert "MEMORY.md:3: relative date 'yesterday' made absolute: 2026-03-24" in findings
    assert "write the absolute date" not in findings  # done, not listed as still to do
    assert git(root, "status", "--porcelain") == ""


def test_relative_dates_in_memory_md_are_found_outside_git(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Outside git the index's relative dates are reported, with their line (item 10)."""
    memory = tmp_path / "memory"
    topic(memory / "project_a.md", "project", "a", "Alpha.")
    write(memory / "MEMORY.md", "# Memory\n\n- [A](project_a.md) -- decided yesterday\n")
    (folder,) = dream_json(isolated_home, memory, "--dry-run")["directories"]  # type: ignore[misc]
    assert any(
        f.startswith("MEMORY.md:3: relative date 'yesterday': write the absolute date")
        for f in folder["findings"]
    )


def test_converted_topic_dates_are_not_listed_as_to_do(isolated_home: Path, root: Path) -> None:
    """Git mode reports what it converted as done; only what it could not date is to do."""
    memory = root / "memory"
    topic(memory / "project_log.md", "project", "log", "Shipped yesterday. Next week: more.")
    write(memory / "MEMORY.md", "# Memory\n\n- [Log](project_log.md) -- log\n")
    commit(root, "memories", "2026-03-25T10:00:00+00:00")
    (folder,) = dream_json(isolated_home, memory)["directories"]  # type: ignore[misc]
    findings = [f for f in folder["findings"] if f.startswith("project_log.md:")]
    assert "project_log.md:7: relative date 'yesterday' made absolute: 2026-03-24" in findings
    assert not any("'yesterday':" in f for f in findings)
    assert any("'Next week'" in f and "left as written" in f for f in findings)
    assert "Shipped 2026-03-24." in (memory / "project_log.md").read_text()


def test_the_inventory_gate_is_recorded(isolated_home: Path, root: Path) -> None:
    """Seed 001 Phase 0: root, starting HEAD, layer table and notes list, before any change."""
    memory = root / ".claude" / "memory"
    write(root / "src" / "app.py", "x = 1\n")
    topic(memory / "project_gone.md", "project", "gone", "Only in `src/gone.py`.")
    write(memory / "CLAUDE.md", "# World rules\n")
    write(memory / "MEMORY.md", "# Memory\n\n- [G](project_gone.md) -- g\n")
    write(root / "notes" / "ghq.md", "notes\n")
    commit(root, "memories", "2026-03-25T10:00:00+00:00")
    head = git(root, "rev-parse", "HEAD").strip()
    document = dream_json(isolated_home, memory)
    runs = isolated_home / ".local" / "share" / "dreamd" / "runs" / str(document["run_id"])
    (inventory,) = runs.glob("*/inventory.md")
    text = inventory.read_text()
    assert f"- memory root: {root.resolve()}" in text
    assert f"- HEAD at start: {head}" in text
    assert "| CLAUDE.md | always-loaded instructions (world rules) | excluded: read-only |" in text
    assert "| project_gone.md | topic file, recalled when relevant | target |" in text
    assert "- notes/ghq.md" in text


def test_a_changed_read_only_layer_is_caught(root: Path) -> None:
    """The end-of-run check names a read-only layer whose bytes changed (seed 001 checklist)."""
    memory = root / "memory"
    write(memory / "AGENTS.md", "rules\n")
    before = read_only_bytes(memory)
    assert layers_changed(before, memory, None) == []
    (memory / "AGENTS.md").write_text("rules, edited\n")
    assert layers_changed(before, memory, None) == ["AGENTS.md"]


def test_undo_in_git_mode_commits_the_restoration(isolated_home: Path, root: Path) -> None:
    """After undo the tree is clean and as before the run, so the next dream is not refused."""
    memory = root / ".claude" / "memory"
    write(root / "src" / "app.py", "x = 1\n")
    topic(memory / "project_gone.md", "project", "gone", "Only in `src/gone.py`.")
    write(memory / "MEMORY.md", "# Memory\n\n- [G](project_gone.md) -- g\n")
    commit(root, "memories", "2026-03-25T10:00:00+00:00")
    before = tree(memory)
    document = dream_json(isolated_home, memory)
    assert tree(memory) != before
    assert run(isolated_home, "undo", str(document["run_id"])).returncode == 0
    assert git(root, "status", "--porcelain") == ""
    assert tree(memory) == before
    assert "dream: undo run" in git(root, "log", "-1", "--format=%s")
    again = run(isolated_home, "dream", "--json", "--dry-run", "--root", str(memory))
    assert "is not clean" not in again.stdout + again.stderr


def test_undo_restores_the_index_mtime(isolated_home: Path, tmp_path: Path) -> None:
    """MEMORY.md comes back with its old mtime too (seed 004 compares it with proposals)."""
    memory = tmp_path / "memory"
    topic(memory / "project_a.md", "project", "a", "Alpha.")
    write(memory / "MEMORY.md", "# Memory\n")
    mtime = (memory / "MEMORY.md").stat().st_mtime_ns
    document = dream_json(isolated_home, memory)
    assert (memory / "MEMORY.md").read_text() != "# Memory\n"
    assert run(isolated_home, "undo", str(document["run_id"])).returncode == 0
    assert (memory / "MEMORY.md").stat().st_mtime_ns == mtime
