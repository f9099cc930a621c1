"""Seed 000 STEPs 7 and 9: the plugin hint runs where `claude` is, declined promotions stay so."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.dream.test_dream_cli import run, topic, write

LISTING = [
    {"id": "helper@market", "autoInstalled": True, "requiredBy": []},
    {"id": "needed@market", "autoInstalled": True, "requiredBy": ["main@market"]},
    {"id": "main@market", "autoInstalled": False},
]


def fake_claude(folder: Path, listing: object, *, exit_code: int = 0) -> dict[str, str]:
    """A `claude` program on PATH that answers `claude plugin list --json` and logs its calls."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "claude"
    calls = folder / "calls.log"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{calls}"\n'
        f"cat <<'EOF'\n{json.dumps(listing)}\nEOF\n"
        f"exit {exit_code}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def one_folder(root: Path) -> Path:
    memory = root / "memory"
    topic(memory / "project_a.md", "project", "a", "Alpha.")
    write(memory / "MEMORY.md", "# Memory\n\n- [A](project_a.md) -- a\n")
    return memory


def test_step_7_runs_claude_and_suggests_prune_once_a_week(
    isolated_home: Path, tmp_path: Path
) -> None:
    """With `claude` present the orphaned plugins are listed, once a week; nothing is removed."""
    env = fake_claude(tmp_path / "bin", LISTING)
    memory = one_folder(tmp_path)
    first = run(isolated_home, "dream", "--dry-run", "--root", str(memory), **env).stdout
    assert "1 orphaned auto-installed Claude Code plugin(s): helper@market" in first
    assert "claude plugin prune" in first
    assert (tmp_path / "bin" / "calls.log").read_text().splitlines() == ["plugin list --json"]
    second = run(isolated_home, "dream", "--dry-run", "--root", str(memory), **env).stdout
    assert "at most once a week" in second
    assert "helper@market" not in second


def test_step_7_says_in_one_line_why_it_was_skipped(isolated_home: Path, tmp_path: Path) -> None:
    """Absent `claude`, or one that fails: one skip line each, never silence."""
    memory = one_folder(tmp_path)
    (tmp_path / "empty").mkdir()
    absent = run(
        isolated_home, "dream", "--dry-run", "--root", str(memory), PATH=str(tmp_path / "empty")
    )
    assert "claude program not found: orphaned-plugin check skipped" in absent.stdout
    env = fake_claude(tmp_path / "bin", {}, exit_code=3)
    failed = run(isolated_home, "dream", "--dry-run", "--root", str(memory), **env)
    assert "claude plugin list failed" in failed.stdout


def test_a_declined_promotion_is_not_proposed_again(isolated_home: Path, tmp_path: Path) -> None:
    """`promotion: declined` in front matter stops STEP 9 from proposing that memory."""
    projects = isolated_home / ".claude" / "projects"
    for name in ("-a", "-b"):
        write(projects / name / "memory" / "MEMORY.md", "# M\n\n- deploy key rotation notes\n")
    memory = tmp_path / "memory"
    topic(memory / "project_deploy_key_rotation.md", "project", "rotation", "Rotate keys.")
    write(memory / "MEMORY.md", "# M\n\n- [R](project_deploy_key_rotation.md) -- r\n")
    args = ("dream", "--dry-run", "--json", "--root", str(memory))
    found = json.loads(run(isolated_home, *args).stdout)["promotion_candidates"]
    assert [c["file"] for c in found] == ["project_deploy_key_rotation.md"]
    path = memory / "project_deploy_key_rotation.md"
    path.write_text(path.read_text().replace("type: project", "type: project\npromotion: declined"))
    again = json.loads(run(isolated_home, *args).stdout)["promotion_candidates"]
    assert again == []


def test_declined_marks_are_read_from_the_folders_own_files_only(tmp_path: Path) -> None:
    """Only the folder's own ``*.md`` files count: a symbolic or hard link to a declined
    memory elsewhere, a file of another suffix and a subfolder's file do not; nor does the
    mark in a memory's body."""
    from dreamd.dream.folder.inventory import load_folder
    from dreamd.dream.folder.promotion import declined_in

    declined = "---\nname: x\npromotion: declined\n---\nBody\n"
    memory, elsewhere = tmp_path / "memory", tmp_path / "elsewhere"
    write(memory / "project_own.md", declined)
    write(memory / "project_kept.md", "---\nname: y\n---\npromotion: declined later\n")
    write(memory / "notes.txt", declined)
    write(memory / "sub" / "project_deep.md", declined)
    write(elsewhere / "outside.md", declined)
    (memory / "project_symlink.md").symlink_to(elsewhere / "outside.md")
    os.link(elsewhere / "outside.md", memory / "project_hardlink.md")
    found = declined_in(load_folder(memory, None).files)
    assert found == {(memory / "project_own.md").resolve()}


def test_a_topic_in_one_other_index_is_no_candidate(tmp_path: Path) -> None:
    """Two other projects' indexes must name the topic; one is not enough, the own never counts."""
    from types import SimpleNamespace

    from dreamd.dream.folder.promotion import candidates

    claude = tmp_path / ".claude"
    for name in ("-own", "-a", "-b"):
        write(claude / "projects" / name / "memory" / "MEMORY.md", "- deploy key rotation\n")
    own = claude / "projects" / "-own" / "memory"
    decision = SimpleNamespace(action="keep", file="project_deploy_key_rotation.md")
    report = SimpleNamespace(path=str(own), files=[decision])
    assert [c["projects"] for c in candidates(claude, [report])] == [
        [str((claude / "projects" / n / "memory").resolve()) for n in ("-a", "-b")]
    ]
    (claude / "projects" / "-b" / "memory" / "MEMORY.md").unlink()
    assert candidates(claude, [report]) == []
