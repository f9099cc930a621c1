"""`--apply-pending` writes what a live run writes, or refuses naming why (issue 12, 1 and 2)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest

from dreamd.dream.pending import folder_snapshot, snapshot_changes
from tests.dream.test_dream_cli import OLD, run, topic, tree, write

DATA = Path(".local") / "share" / "dreamd"
HOOK = "a long hook that says what this feedback memory is about, in more words than needed"


def pending_dir(home: Path) -> Path:
    return home / DATA / "pending"


def over_budget_folder(root: Path, count: int = 12) -> Path:
    """A plain index of old feedback memories whose hooks overflow a small byte budget."""
    memory = root / "memory"
    lines = ["# Memory", ""]
    for k in range(count):
        name = f"feedback_rule_{k:02d}.md"
        topic(memory / name, "feedback", f"rule {k}", f"Rule number {k}: {HOOK}.", mtime=OLD + k)
        lines.append(f"- [Rule {k}]({name}) — {HOOK} {k}")
    write(memory / "MEMORY.md", "\n".join(lines) + "\n")
    return memory


SMALL_BUDGET = {"DREAMD_INDEX_BUDGET_BYTES": "1024"}


def dream(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run(home, "dream", *args, **{**SMALL_BUDGET, **env})


class TestTheProposalCarriesEveryWrite:
    def test_archive_moves_survive_the_round_trip(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """Entries the budget moved to the archive end up in MEMORY-ARCHIVE.md, not in neither."""
        memory = over_budget_folder(tmp_path / "a")
        twin = over_budget_folder(tmp_path / "b")
        dry = dream(isolated_home, "--dry-run", "--json", "--root", str(memory))
        archived = json.loads(dry.stdout)["directories"][0]["index"]["changes"]["archived"]
        assert archived, "the small budget must move entries to the archive"
        applied = dream(isolated_home, "--apply-pending", "--json", "--root", str(memory))
        assert applied.returncode == 0, applied.stdout + applied.stderr
        archive = (memory / "MEMORY-ARCHIVE.md").read_text()
        for change in archived:
            assert f"({change['file']})" in archive
        live = dream(isolated_home, "--json", "--root", str(twin))
        assert live.returncode == 0, live.stderr
        assert tree(memory) == tree(twin)  # same folder as a live run

    def test_the_sidecar_holds_the_archive_bytes_and_the_snapshot(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """The proposal's sidecar carries the archive byte for byte and the folder's hashes."""
        memory = over_budget_folder(tmp_path)
        dream(isolated_home, "--dry-run", "--root", str(memory))
        (sidecar,) = pending_dir(isolated_home).glob("*.json")
        document = msgspec.json.decode(sidecar.read_bytes())
        assert [w["name"] for w in document["writes"]] == ["MEMORY-ARCHIVE.md"]
        assert set(document["snapshot"]) == {p.name for p in memory.glob("*.md")}
        text = sidecar.with_suffix(".md").read_text()
        assert "### Topic-file change: MEMORY-ARCHIVE.md" in text
        assert text.count("```") == 2  # still exactly one fence: the index

    def test_an_older_sidecar_without_the_archive_is_refused(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """A proposal made before proposals carried the archive is not applied half."""
        memory = over_budget_folder(tmp_path)
        dream(isolated_home, "--dry-run", "--root", str(memory))
        (sidecar,) = pending_dir(isolated_home).glob("*.json")
        old = msgspec.json.decode(sidecar.read_bytes())
        sidecar.write_bytes(msgspec.json.encode({"folder": old["folder"], "trash": []}))
        before = tree(memory)
        result = dream(isolated_home, "--apply-pending", "--root", str(memory))
        assert result.returncode == 1
        assert "older dreamd" in result.stderr
        assert tree(memory) == before

    def test_an_index_that_would_break_the_invariant_is_refused(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """A proposal whose index drops a memory the folder keeps is refused, nothing written."""
        memory = over_budget_folder(tmp_path, count=3)
        (memory / "MEMORY.md").write_text("# Memory\n")  # every entry missing: orphans
        os.utime(memory / "MEMORY.md", (OLD, OLD))
        dream(isolated_home, "--dry-run", "--root", str(memory))
        (proposal,) = pending_dir(isolated_home).glob("*.md")
        lines = proposal.read_text().splitlines(keepends=True)
        assert any("(feedback_rule_00.md)" in line for line in lines)
        proposal.write_text("".join(x for x in lines if "(feedback_rule_00.md)" not in x))
        before = tree(memory)
        result = dream(isolated_home, "--apply-pending", "--root", str(memory))
        assert result.returncode == 1
        assert "would break the index invariant" in result.stderr
        assert "feedback_rule_00.md" in result.stderr
        assert tree(memory) == before


class TestTheFolderChangedUnderneath:
    def test_a_memory_created_after_the_dry_run_is_named(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """A memory written after the dry run would be left out of the index: refused."""
        memory = over_budget_folder(tmp_path)
        dream(isolated_home, "--dry-run", "--root", str(memory))
        topic(memory / "feedback_new.md", "feedback", "new", "A new lesson.", mtime=OLD)
        before = tree(memory)
        result = dream(isolated_home, "--apply-pending", "--root", str(memory))
        assert result.returncode == 1
        assert "feedback_new.md was created after the dry run" in result.stderr
        assert tree(memory) == before
        assert list(pending_dir(isolated_home).glob("*.md")), "the proposal is kept"

    def test_a_topic_file_edited_after_the_dry_run_is_named(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """An edited memory is neither moved nor dropped from the index: the apply refuses."""
        memory = over_budget_folder(tmp_path)
        dream(isolated_home, "--dry-run", "--root", str(memory))
        edited = memory / "feedback_rule_03.md"
        edited.write_text(edited.read_text() + "\nOne more line.\n")
        os.utime(edited, (OLD, OLD))
        result = dream(isolated_home, "--apply-pending", "--root", str(memory))
        assert result.returncode == 1
        assert "feedback_rule_03.md changed after the dry run" in result.stderr


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-03-25T10:00:00+00:00",
        "GIT_COMMITTER_DATE": "2026-03-25T10:00:00+00:00",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


@pytest.fixture
def git_memory(tmp_path: Path) -> Path:
    """An over-budget memory folder committed in its own git repository."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "notes"
    memory = over_budget_folder(root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memories")
    return memory


class TestGitMode:
    def test_a_dirty_tree_is_refused(self, isolated_home: Path, git_memory: Path) -> None:
        """Seed 001: the apply refuses on a dirty tree, as a live run does, and writes nothing."""
        dream(isolated_home, "--dry-run", "--root", str(git_memory))
        (git_memory.parent / "scratch.txt").write_text("uncommitted\n")
        (git_memory / "draft.txt").write_text("uncommitted\n")
        before = tree(git_memory)
        result = dream(isolated_home, "--apply-pending", "--root", str(git_memory))
        assert result.returncode == 1
        assert "is not clean" in result.stderr and "draft.txt" in result.stderr
        assert tree(git_memory) == before

    def test_each_logical_unit_is_committed(self, isolated_home: Path, git_memory: Path) -> None:
        """Applied in a git root, the rebuild is a commit; the tree is clean afterwards."""
        root = git_memory.parent
        dream(isolated_home, "--dry-run", "--root", str(git_memory))
        result = dream(isolated_home, "--apply-pending", "--json", "--root", str(git_memory))
        assert result.returncode == 0, result.stdout + result.stderr
        (folder,) = json.loads(result.stdout)["directories"]
        assert folder["commits"]
        assert "dream: rebuild MEMORY.md" in git(root, "log", "--format=%s")
        assert git(root, "status", "--porcelain") == ""


def _sidecar(tmp_path: Path, **extra: object) -> Path:
    """A stored proposal written by ``write_pending``, its sidecar then edited by ``extra``."""
    from datetime import UTC, datetime

    from dreamd.dream.model import Decision
    from dreamd.dream.pending import write_pending

    folder = tmp_path / "memory"
    folder.mkdir()
    decision = Decision(
        "a.md", "project", "FULLY_STALE", "trash", "dup", of="b.md", missing_refs=("x.py",)
    )
    target = write_pending(
        tmp_path / "state",
        folder,
        new_index="# Memory\n",
        old_index=None,
        trash=[("a.md", "0" * 64, "dup")],
        run_id="r1",
        now=datetime(2026, 12, 1, tzinfo=UTC),
        decisions=[decision],
    )
    sidecar = target.with_suffix(".json")
    raw = json.loads(sidecar.read_text())
    for key, value in extra.items():
        if value is None:
            raw.pop(key)
        else:
            raw[key] = value
    sidecar.write_text(json.dumps(raw))
    return target


def test_a_proposal_keeps_the_dry_runs_decisions_for_the_files_it_trashes(
    tmp_path: Path,
) -> None:
    from dreamd.dream.model import Decision
    from dreamd.dream.pending import load_pending

    loaded = load_pending(_sidecar(tmp_path))
    assert loaded.decisions == (
        Decision(
            "a.md", "project", "FULLY_STALE", "trash", "dup", of="b.md", missing_refs=("x.py",)
        ),
    )


def test_a_proposal_from_before_the_decisions_were_kept_still_loads(tmp_path: Path) -> None:
    """An older dreamd's sidecar (no ``decisions``) is applied as before: no file list."""
    from dreamd.dream.pending import load_pending

    loaded = load_pending(_sidecar(tmp_path, decisions=None))
    assert loaded.decisions == () and loaded.trash == (("a.md", "0" * 64),)


def test_a_damaged_decision_makes_the_proposal_damaged_not_a_crash(tmp_path: Path) -> None:
    """A decision that does not read back (an unknown action) marks the proposal damaged
    (version 0, never applied) and names the sidecar."""
    from dreamd.dream.pending import pending_files

    _sidecar(tmp_path, decisions=[{"file": "a.md", "action": "explode"}])
    (damaged,) = pending_files(tmp_path / "state")
    assert damaged.version == 0 and "damaged sidecar" in damaged.reason


class TestTheSnapshotOfWhatTheRunRead:
    def test_files_read_by_the_run_are_not_hashed_again(self, tmp_path: Path) -> None:
        """Hashes the run already has are taken as given; the other ``*.md`` files are read."""
        (tmp_path / "a.md").write_text("a")
        (tmp_path / "MEMORY.md").write_text("# Memory\n")
        (tmp_path / ".MEMORY.md.prev").write_text("old")
        snapshot = folder_snapshot(tmp_path, {"a.md": "sha-of-a-as-read"})
        index_sha = hashlib.sha256(b"# Memory\n").hexdigest()
        assert snapshot == {"MEMORY.md": index_sha, "a.md": "sha-of-a-as-read"}

    def test_a_file_changed_after_the_run_read_it_counts_as_changed(self, tmp_path: Path) -> None:
        """A memory edited between the run's read and the proposal is named by the apply."""
        (tmp_path / "a.md").write_text("as read")
        read = {"a.md": hashlib.sha256(b"as read").hexdigest()}
        (tmp_path / "a.md").write_text("edited since")
        proposed = folder_snapshot(tmp_path, read)
        assert snapshot_changes(proposed, folder_snapshot(tmp_path)) == [
            "a.md changed after the dry run"
        ]
