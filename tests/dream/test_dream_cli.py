"""`dreamd dream` and `dreamd undo` end to end: real folders, real git, real processes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED_FIXTURES
from tests.process import run_dreamd

DAY = 86400
OLD = time.time() - 90 * DAY


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_dreamd(home, *args, **env)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def write(path: Path, text: str, *, mtime: float = OLD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


def topic(path: Path, kind: str, description: str, body: str, *, mtime: float = OLD) -> Path:
    front = f"---\nname: {path.stem}\ndescription: {description}\ntype: {kind}\n---\n\n"
    return write(path, front + body, mtime=mtime)


@pytest.fixture
def repo_memory(isolated_home: Path, tmp_path: Path) -> Path:
    """A repository with code and a `.claude/memory/` folder holding every kind of memory."""
    repo = tmp_path / "repo"
    write(repo / "src" / "app.py", "def load_config():\n    return {}\n")
    memory = repo / ".claude" / "memory"
    topic(
        memory / "project_gone.md",
        "project",
        "old loader notes",
        "The loader lives in `src/old_loader.py` and calls `parse_legacy()`.",
    )
    topic(
        memory / "project_live.md",
        "project",
        "config loading",
        "Config is read by `load_config()` in `src/app.py`.",
    )
    topic(
        memory / "user_prefs.md",
        "user",
        "editor preferences",
        "User edits with vim; see `src/removed.py` for the old keymap.",
    )
    topic(
        memory / "feedback_gone.md",
        "feedback",
        "lesson from old code",
        "Lesson from `src/deleted.py`: small functions.",
    )
    body = "deploy pipeline staging database migration rollback checklist production release"
    topic(memory / "project_deploy_checklist.md", "project", "deploy checklist", body, mtime=OLD)
    topic(
        memory / "project_deploy_checklist_v2.md",
        "project",
        "deploy checklist",
        body + " window",
        mtime=OLD + DAY,
    )
    write(memory / "MEMORY.md", "# Repo Memory\n\n- [Gone](project_gone.md) -- old loader\n")
    return memory


def decisions(document: dict[str, object]) -> dict[str, dict[str, object]]:
    (folder,) = document["directories"]  # type: ignore[misc]
    return {f["file"]: f for f in folder["files"]}


def test_dry_run_changes_nothing_and_writes_a_proposal(
    repo_memory: Path, isolated_home: Path
) -> None:
    """--dry-run leaves the folder byte-identical and stores one pending proposal."""
    before = tree(repo_memory)
    result = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(repo_memory))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["mode"] == "dry-run"
    assert tree(repo_memory) == before
    pending = list((isolated_home / ".local" / "share" / "dreamd" / "pending").glob("*.md"))
    assert len(pending) == 1
    assert pending[0].read_text().count("```") == 2 or "````" in pending[0].read_text()


def test_live_run_trashes_only_what_the_rules_allow(repo_memory: Path, isolated_home: Path) -> None:
    """Fully stale project memory and the older duplicate go to the trash; guarded ones stay."""
    result = run(isolated_home, "dream", "--json", "--root", str(repo_memory))
    assert result.returncode == 0, result.stderr
    files = decisions(json.loads(result.stdout))
    assert files["project_gone.md"]["action"] == "trash"
    assert files["project_gone.md"]["classification"] == "FULLY_STALE"
    assert files["project_live.md"]["classification"] == "FRESH"
    assert files["user_prefs.md"]["action"] == "keep" or files["user_prefs.md"]["action"] == "flag"
    assert files["user_prefs.md"]["kept_reason"] == "prune-guard: type:user is never auto-pruned"
    assert "lesson" in str(files["feedback_gone.md"]["kept_reason"])
    assert files["project_deploy_checklist.md"]["action"] == "trash"
    assert files["project_deploy_checklist.md"]["of"] == "project_deploy_checklist_v2.md"
    trash = repo_memory / ".trash"
    (day,) = trash.iterdir()
    assert sorted(p.name for p in day.iterdir()) == [
        "project_deploy_checklist.md",
        "project_gone.md",
    ]
    index = (repo_memory / "MEMORY.md").read_text()
    assert "project_gone.md" not in index and "project_live.md" in index
    assert (repo_memory / ".MEMORY.md.prev").read_text().startswith("# Repo Memory")


def test_second_run_is_a_no_op(repo_memory: Path, isolated_home: Path) -> None:
    """Right after a live run, another run changes nothing and says so."""
    assert run(isolated_home, "dream", "--root", str(repo_memory)).returncode == 0
    after_first = tree(repo_memory)
    second = run(isolated_home, "dream", "--json", "--root", str(repo_memory))
    assert json.loads(second.stdout)["mode"] == "no-op"
    assert tree(repo_memory) == after_first


def test_undo_restores_the_folder_byte_for_byte(repo_memory: Path, isolated_home: Path) -> None:
    """`dreamd undo RUN_ID` puts back every moved and rewritten file."""
    before = tree(repo_memory)
    document = json.loads(run(isolated_home, "dream", "--json", "--root", str(repo_memory)).stdout)
    assert tree(repo_memory) != before
    result = run(isolated_home, "undo", document["run_id"])
    assert result.returncode == 0, result.stderr
    assert tree(repo_memory) == before


def test_undo_refuses_after_a_later_edit(repo_memory: Path, isolated_home: Path) -> None:
    """If the rebuilt index was edited since, undo exits 1 naming it and changes nothing."""
    document = json.loads(run(isolated_home, "dream", "--json", "--root", str(repo_memory)).stdout)
    (repo_memory / "MEMORY.md").write_text("my own edit\n")
    after_edit = tree(repo_memory)
    result = run(isolated_home, "undo", document["run_id"])
    assert result.returncode == 1
    assert "MEMORY.md changed since the run" in result.stderr
    assert tree(repo_memory) == after_edit


def test_consult_log_keeps_a_recently_looked_up_memory(
    repo_memory: Path, isolated_home: Path
) -> None:
    """A fully stale memory looked up within 14 days is kept and flagged."""
    log = repo_memory.parent / "logs" / "memory-consult.jsonl"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - DAY))
    write(
        log,
        json.dumps({"ts": stamp, "session": "s", "tool": "open_nodes", "names": ["project_gone"]})
        + "\n",
    )
    files = decisions(
        json.loads(run(isolated_home, "dream", "--json", "--root", str(repo_memory)).stdout)
    )
    assert files["project_gone.md"]["action"] == "flag"
    assert "consult-gate" in str(files["project_gone.md"]["kept_reason"])


def test_every_run_is_recorded(repo_memory: Path, isolated_home: Path) -> None:
    """Dry-run, apply and no-op runs each leave a completion record in the state DB."""
    for args in (("--dry-run",), (), ()):
        run(isolated_home, "dream", *args, "--root", str(repo_memory))
    database = isolated_home / ".local" / "share" / "dreamd" / "state.db"
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT mode, outcome, finished_at IS NOT NULL FROM job_run"
            " WHERE job='dream' ORDER BY started_at"
        ).fetchall()
    assert rows == [("dry-run", "ok", 1), ("apply", "ok", 1), ("no-op", "ok", 1)]


class TestApplyPending:
    def test_missing_proposal_is_refused(self, isolated_home: Path) -> None:
        """No pending proposal: exit 1 with the seed's one-line reason."""
        result = run(isolated_home, "dream", "--apply-pending")
        assert result.returncode == 1
        assert "no pending dream to apply" in result.stdout + result.stderr

    def test_changed_index_refuses_and_keeps_the_proposal(
        self, repo_memory: Path, isolated_home: Path
    ) -> None:
        """An index edited after the dry run is not clobbered; the proposal stays."""
        run(isolated_home, "dream", "--dry-run", "--root", str(repo_memory))
        time.sleep(0.05)
        (repo_memory / "MEMORY.md").write_text("# edited after the dry run\n")
        result = run(isolated_home, "dream", "--apply-pending")
        assert result.returncode == 1
        assert "MEMORY.md changed after the dry run" in result.stderr
        assert (repo_memory / "MEMORY.md").read_text() == "# edited after the dry run\n"
        assert list((isolated_home / ".local" / "share" / "dreamd" / "pending").glob("*.md"))

    def test_proposal_is_applied_then_deleted(self, repo_memory: Path, isolated_home: Path) -> None:
        """A fresh proposal is applied: its index written, its trash moves made, then removed."""
        run(isolated_home, "dream", "--dry-run", "--root", str(repo_memory))
        result = run(isolated_home, "dream", "--apply-pending", "--json")
        assert result.returncode == 0, result.stdout + result.stderr
        assert not (repo_memory / "project_gone.md").exists()
        assert "project_gone.md" not in (repo_memory / "MEMORY.md").read_text()
        assert not list((isolated_home / ".local" / "share" / "dreamd" / "pending").glob("*.md"))


def test_dry_run_and_apply_pending_together_is_a_usage_error(isolated_home: Path) -> None:
    """The two flags exclude each other (exit 2)."""
    assert run(isolated_home, "dream", "--dry-run", "--apply-pending").returncode == 2


def test_no_memory_folders_says_so(isolated_home: Path) -> None:
    """A machine without memory folders reports it and exits 0."""
    result = run(isolated_home, "dream")
    assert result.returncode == 0
    assert "No memory directories found" in result.stdout


# ------------------------------------------------------------------- crashes


@pytest.mark.parametrize("crash_at", [1, 2, 3, 4, 5, 6, 7, 8])
def test_sigkill_at_any_step_keeps_memories_whole(
    repo_memory: Path, isolated_home: Path, crash_at: int
) -> None:
    """Killed before any journaled step: each memory in place or in the trash, index old or new."""
    before = tree(repo_memory)
    expected = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(repo_memory))
    assert expected.returncode == 0
    result = run(
        isolated_home, "dream", "--root", str(repo_memory), DREAMD_TEST_CRASH_AT=str(crash_at)
    )
    assert result.returncode in (0, -9)
    for name, data in before.items():
        if "/" in name or name in ("MEMORY.md",):
            continue
        here = repo_memory / name
        trashed = (
            list((repo_memory / ".trash").glob(f"*/{name}"))
            if (repo_memory / ".trash").exists()
            else []
        )
        assert here.exists() != bool(trashed), name
        assert (here.read_bytes() if here.exists() else trashed[0].read_bytes()) == data
    index = (repo_memory / "MEMORY.md").read_bytes()
    assert index == before["MEMORY.md"] or b"project_live.md" in index
    assert not list(repo_memory.glob(".*.tmp"))


# ------------------------------------------------------------------- git mode


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def git_memory(repo_memory: Path) -> Path:
    repo = repo_memory.parent.parent
    git(repo, "init", "-q")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@x", "add", "-A")
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@x",
        "commit",
        "-qm",
        "init",
        "--date=2026-03-25T10:00:00",
    )
    return repo_memory


def test_git_dirty_tree_is_refused_untouched(git_memory: Path, isolated_home: Path) -> None:
    """An uncommitted change in a git-managed memory folder: exit 1, nothing touched."""
    write(git_memory / "project_new.md", "---\ntype: project\n---\nwip\n")
    before = tree(git_memory)
    result = run(isolated_home, "dream", "--root", str(git_memory))
    assert result.returncode == 1
    assert "not clean" in result.stdout
    assert tree(git_memory) == before


def test_git_mode_commits_each_unit_and_never_pushes(git_memory: Path, isolated_home: Path) -> None:
    """Trash moves and the index rebuild are separate commits with plain messages."""
    repo = git_memory.parent.parent
    result = run(isolated_home, "dream", "--json", "--root", str(git_memory))
    assert result.returncode == 0, result.stdout + result.stderr
    subjects = git(repo, "log", "--format=%s").splitlines()
    assert subjects[-1] == "init"
    assert any(s.startswith("dream: move") for s in subjects)
    assert "dream: rebuild MEMORY.md" in subjects
    assert git(repo, "status", "--porcelain", "--", str(git_memory)) == ""
    assert git(repo, "remote") == ""


def test_git_mode_dates_relative_words_from_blame(git_memory: Path, isolated_home: Path) -> None:
    """'yesterday' on a line committed 2026-03-25 becomes 2026-03-24."""
    repo = git_memory.parent.parent
    topic(
        git_memory / "project_note.md",
        "project",
        "a decision",
        "Yesterday we decided to keep `src/app.py` small.",
    )
    git(repo, "add", "-A")
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@x",
            "commit",
            "-qm",
            "note",
        ],
        check=True,
        env={
            **os.environ,
            "GIT_COMMITTER_DATE": "2026-03-25T10:00:00",
            "GIT_AUTHOR_DATE": "2026-03-25T10:00:00",
        },
    )
    assert run(isolated_home, "dream", "--root", str(git_memory)).returncode == 0
    assert "2026-03-24 we decided" in (git_memory / "project_note.md").read_text()
    assert "dream: turn relative dates into absolute dates" in git(repo, "log", "--format=%s")


# ------------------------------------------------------------------- real folders


def real_folders() -> list[Path]:
    root = SHARED_FIXTURES / "memory"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@pytest.mark.parametrize("source", real_folders(), ids=lambda p: p.name[:40])
def test_real_memory_folders_survive_dry_run_live_run_and_undo(
    source: Path, isolated_home: Path
) -> None:
    """Every shared folder: dry run, live run, invariant, no user line lost, undo byte for byte."""
    folder = isolated_home / ".claude" / "projects" / source.name / "memory"
    shutil.copytree(source, folder)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    before = tree(folder)
    dry = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(folder))
    assert dry.returncode == 0, dry.stderr
    assert tree(folder) == before
    live = run(isolated_home, "dream", "--json", "--root", str(folder))
    assert live.returncode == 0, live.stderr
    document = json.loads(live.stdout)
    (report,) = document["directories"]
    assert report["index"]["invariant_ok"]
    index = report["index"]
    assert index["bytes"] <= index["budget"] or index["warnings"]
    new_text = (folder / "MEMORY.md").read_text() + (
        (folder / "MEMORY-ARCHIVE.md").read_text()
        if (folder / "MEMORY-ARCHIVE.md").exists()
        else ""
    )
    trashed = {f["file"] for f in report["files"] if f["action"] == "trash"}
    names = {p.name for p in folder.glob("*.md")} - {"MEMORY.md", "MEMORY-ARCHIVE.md"}
    for name in names:
        assert new_text.count(f"]({name})") + new_text.count(f"](./{name})") >= 1, name
    for line in before.get("MEMORY.md", b"").decode().splitlines():
        stripped = line.strip()
        if not stripped or "](" in stripped:
            continue  # link lines may be reshaped, shortened or archived
        assert stripped in new_text, f"user line lost: {stripped!r}"
    assert not trashed & names
    undo = run(isolated_home, "undo", document["run_id"])
    assert undo.returncode == 0, undo.stderr
    assert tree(folder) == before


def test_encoded_project_folder_is_checked_against_its_transcripts_repo(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A ~/.claude/projects/<encoded>/memory folder uses the cwd its transcripts record."""
    repo = tmp_path / "work" / "app"
    write(repo / "src" / "app.py", "def main():\n    pass\n")
    encoded = isolated_home / ".claude" / "projects" / "-somewhere-unrelated"
    session = {
        "type": "user",
        "sessionId": "s1",
        "cwd": str(repo),
        "uuid": "u1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    write(encoded / "s1.jsonl", json.dumps(session) + "\n")
    memory = encoded / "memory"
    topic(memory / "project_gone.md", "project", "gone", "See `src/removed.py`.")
    topic(memory / "project_here.md", "project", "here", "See `src/app.py`.")
    result = run(isolated_home, "dream", "--json", "--root", str(memory))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["directories"][0]["repo"] == str(repo)
    files = decisions(document)
    assert files["project_gone.md"]["classification"] == "FULLY_STALE"
    assert files["project_here.md"]["classification"] == "FRESH"
