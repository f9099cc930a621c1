"""`dreamd collect` plants into the memory folder Claude Code itself reads (issue 11 item 3).

Real repositories (``git init``, ``git worktree add``), real settings files and
a real ``dreamd collect`` subprocess on a test HOME.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from dreamd.stores.claude_folder import project_key
from tests.process import run_dreamd

PROMPTS = [
    "Always run the linter before committing, from now on.",
    "Fix the flaky test in the parser please.",
    "We decided to use uv instead of pip because it is much faster.",
    "ok thanks",
]


def transcript(home: Path, cwd: Path, sid: str, prompts: list[str] = PROMPTS) -> Path:
    """A finished Claude Code session started in ``cwd``, in the folder Claude Code names."""
    folder = home / ".claude" / "projects" / project_key(str(cwd))
    folder.mkdir(parents=True, exist_ok=True)
    start = time.time() - 7200
    lines = []
    for index, prompt in enumerate(prompts):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(start + index * 60))
        base = {"sessionId": sid, "cwd": str(cwd), "isSidechain": False, "timestamp": stamp}
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": f"u{index}",
                "message": {"role": "user", "content": prompt},
            }
        )
        reply = {
            "id": f"m{index}",
            "role": "assistant",
            "content": [{"type": "text", "text": "Ok."}],
        }
        lines.append({**base, "type": "assistant", "uuid": f"a{index}", "message": reply})
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (start + 3600, start + 3600))
    return path


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(isolated_home: Path) -> Path:
    """A real repository under HOME with a commit and a subfolder ``pkg``."""
    root = isolated_home / "src" / "app"
    (root / "pkg").mkdir(parents=True)
    git("init", "-q", cwd=root)
    (root / "pkg" / "m.py").write_text("x = 1\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    return root


def inbox_of(folder: Path) -> list[str]:
    """The collected items waiting in a memory folder's inbox."""
    return sorted(p.name for p in (folder / ".inbox").glob("*.md"))


def main_memory(home: Path, repo: Path) -> Path:
    return home / ".claude" / "projects" / project_key(str(repo)) / "memory"


def collect(home: Path) -> dict[str, object]:
    result = run_dreamd(home, "collect", "--json")
    assert result.returncode == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_a_session_in_a_subfolder_plants_into_the_repository_roots_folder(
    isolated_home: Path, repo: Path
) -> None:
    """Started in ``<repo>/pkg``: the items wait in ``<key of repo>/memory/.inbox``."""
    transcript(isolated_home, repo / "pkg", "aaaaaaaa-0000-4000-8000-000000000001")
    collect(isolated_home)
    assert len(inbox_of(main_memory(isolated_home, repo))) == 2
    assert not (
        isolated_home / ".claude/projects" / project_key(str(repo / "pkg")) / "memory"
    ).exists()


def test_a_session_in_a_linked_worktree_plants_into_the_main_worktrees_folder(
    isolated_home: Path, repo: Path
) -> None:
    """Started in a ``git worktree add`` checkout: the main worktree's memory gets the items."""
    linked = isolated_home / "src" / "app-feature"
    git("worktree", "add", "-q", str(linked), cwd=repo)
    transcript(isolated_home, linked, "aaaaaaaa-0000-4000-8000-000000000002")
    collect(isolated_home)
    assert len(inbox_of(main_memory(isolated_home, repo.resolve()))) == 2
    assert not (isolated_home / ".claude/projects" / project_key(str(linked)) / "memory").exists()


def test_auto_memory_turned_off_plants_no_claude_memory_items(
    isolated_home: Path, repo: Path
) -> None:
    """``autoMemoryEnabled: false``: no Claude Code memory folder gets items; SQL still does."""
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    transcript(isolated_home, repo, "aaaaaaaa-0000-4000-8000-000000000003")
    report = collect(isolated_home)
    assert list((isolated_home / ".claude").rglob(".inbox")) == []
    assert report["planted"]["total"] == 2  # type: ignore[index]


def test_a_custom_memory_directory_receives_the_items_and_the_dream_gates_them(
    isolated_home: Path, repo: Path
) -> None:
    """``autoMemoryDirectory`` in user settings: items go there and the dream accepts them there."""
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "settings.json").write_text(
        '{"autoMemoryDirectory": "~/synced/memory"}'
    )
    transcript(isolated_home, repo, "aaaaaaaa-0000-4000-8000-000000000004")
    collect(isolated_home)
    custom = isolated_home / "synced" / "memory"
    assert len(inbox_of(custom)) == 2
    assert not main_memory(isolated_home, repo).exists()
    dream = run_dreamd(isolated_home, "dream", "--json")
    assert dream.returncode == 0, dream.stderr
    assert inbox_of(custom) == []
    links = [line for line in (custom / "MEMORY.md").read_text().splitlines() if "](" in line]
    assert len(links) == 2
    assert all(
        re.fullmatch(r"- \[[^]]+\]\((feedback|project)_[a-z_]+\.md\) — \S.*", x) for x in links
    )


def test_a_vanished_working_directory_plants_into_its_own_folder_and_says_so(
    isolated_home: Path,
) -> None:
    """No folder left to ask git about: its own key is used and a warning line names it."""
    gone = isolated_home / "src" / "deleted-app"
    transcript(isolated_home, gone, "aaaaaaaa-0000-4000-8000-000000000005")
    result = run_dreamd(isolated_home, "collect", "--json")
    assert result.returncode == 0, result.stderr
    folder = isolated_home / ".claude" / "projects" / project_key(str(gone)) / "memory"
    assert len(inbox_of(folder)) == 2
    events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    (warning,) = [e for e in events if e["event"] == "store.claude_memory.assumed"]
    assert warning["project"] == str(gone) and "no longer exists" in warning["note"]
