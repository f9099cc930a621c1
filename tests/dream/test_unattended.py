"""Scheduled dreams never make large or first-time changes unattended (issue 12, item 9)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamd.config import load_settings
from dreamd.dream.model import DreamRequest
from dreamd.dream.report import FolderReport
from dreamd.jobs import JobContext, dream_request, run_dream
from dreamd.statedb import open_state
from tests.dream.test_dream_cli import run, topic, tree, write
from tests.process import run_dreamd


def stale_folder(root: Path, stale: int) -> Path:
    """A repository whose memory folder holds ``stale`` fully stale project memories."""
    write(root / "src" / "app.py", "def load_config():\n    return {}\n")
    memory = root / ".claude" / "memory"
    lines = ["# Memory", ""]
    for k in range(stale):
        name = f"project_gone_{k}.md"
        topic(memory / name, "project", f"gone {k}", f"Lives in `src/gone_{k}.py` only.")
        lines.append(f"- [Gone {k}]({name}) -- gone {k}")
    topic(memory / "project_live.md", "project", "live", "Config: `src/app.py`.")
    lines.append("- [Live](project_live.md) -- live")
    write(memory / "MEMORY.md", "\n".join(lines) + "\n")
    return memory


def scheduled(home: Path, memory: Path, config: str = "") -> FolderReport:
    """One scheduled dream, started as the service starts it."""
    if config:
        write(home / ".config" / "dreamd" / "config.toml", config)
    settings = load_settings(None)
    context = JobContext(settings, open_state(settings.state_db), os.environ, home)
    request = dream_request(
        settings, os.environ, now=datetime.now(UTC), roots=(memory,), scheduled=True
    )
    (folder,) = run_dream(context, request).report.directories
    return folder


def test_the_first_scheduled_dream_of_a_folder_only_proposes(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A folder dreamd never dreamed gets a pending proposal; nothing in it changes."""
    memory = stale_folder(tmp_path / "repo", stale=1)
    before = tree(memory)
    folder = scheduled(isolated_home, memory)
    assert folder.pending is not None and "first dream" in folder.pending
    assert tree(memory) == before
    assert list((isolated_home / ".local" / "share" / "dreamd" / "pending").glob("*.md"))


def test_status_says_what_waits_and_how_to_apply_it(isolated_home: Path, tmp_path: Path) -> None:
    """`dreamd status` names the folder, why it waits and the command that applies it."""
    memory = stale_folder(tmp_path / "repo", stale=1)
    scheduled(isolated_home, memory)
    text = run_dreamd(isolated_home, "status").stdout
    assert f"a dream proposal for {memory} (first dream of this folder" in text
    assert f"dreamd dream --apply-pending --root {memory}" in text
    document = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    (waiting,) = document["pending_proposals"]
    assert waiting["apply"] == f"dreamd dream --apply-pending --root {memory}"


def test_after_a_reviewed_dream_small_changes_apply_unattended(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Once dreamed, a scheduled run within the move limit applies as a live run."""
    memory = stale_folder(tmp_path / "repo", stale=1)
    assert run(isolated_home, "dream", "--root", str(memory)).returncode == 0
    topic(memory / "project_gone_x.md", "project", "gone x", "In `src/gone_x.py`.")
    folder = scheduled(isolated_home, memory)
    assert folder.pending is None and folder.refused is None
    assert not (memory / "project_gone_x.md").exists()


def test_more_moves_than_allowed_wait_for_review(isolated_home: Path, tmp_path: Path) -> None:
    """Four trash moves exceed the default of three: the run proposes, applies nothing."""
    memory = stale_folder(tmp_path / "repo", stale=0)
    assert run(isolated_home, "dream", "--root", str(memory)).returncode == 0
    for k in range(4):
        topic(memory / f"project_old_{k}.md", "project", f"old {k}", f"In `src/old_{k}.py`.")
    before = tree(memory)
    folder = scheduled(isolated_home, memory)
    assert folder.pending is not None
    assert "4 moves" in folder.pending and "dream.max_unattended_moves = 3" in folder.pending
    assert tree(memory) == before


def test_the_limit_is_configurable(isolated_home: Path, tmp_path: Path) -> None:
    """``dream.max_unattended_moves = 0`` holds even a single move for review."""
    memory = stale_folder(tmp_path / "repo", stale=0)
    assert run(isolated_home, "dream", "--root", str(memory)).returncode == 0
    topic(memory / "project_old.md", "project", "old", "In `src/old.py`.")
    folder = scheduled(isolated_home, memory, "[dream]\nmax_unattended_moves = 0\n")
    assert folder.pending is not None and "= 0" in folder.pending


def test_a_dream_by_hand_applies_and_ends_with_the_undo_command(
    isolated_home: Path, tmp_path: Path
) -> None:
    """By hand, even the first dream with many moves applies, and says how to undo it."""
    memory = stale_folder(tmp_path / "repo", stale=5)
    result = run(isolated_home, "dream", "--root", str(memory))
    assert result.returncode == 0, result.stderr
    assert not list(memory.glob("project_gone_*.md"))
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("Undo this run: dreamd undo ")
    run_id = last.rsplit(" ", 1)[1]
    assert run(isolated_home, "undo", run_id).returncode == 0
    assert len(list(memory.glob("project_gone_*.md"))) == 5


def test_the_service_starts_its_dreams_as_scheduled(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service's nightly dream carries the scheduled flag (so nothing big runs unasked)."""
    from dreamd.dream.report import RunReport
    from dreamd.dream.run import DreamOutcome
    from dreamd.service import runner

    seen: list[bool] = []

    def fake_run_dream(context: object, request: DreamRequest) -> DreamOutcome:
        seen.append(request.scheduled)
        return DreamOutcome(RunReport(request.run_id, "no-op", ()), 0)

    monkeypatch.setattr(runner, "run_dream", fake_run_dream)
    settings = load_settings(None)
    state = open_state(settings.state_db)
    service = runner.Service(settings, state, env=os.environ, home=isolated_home)
    service._run_dream()
    assert seen == [True]
