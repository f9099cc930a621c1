"""Trash moves, atomic writes, the journal and undo: nothing deleted, everything restorable."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from dreamd.dream.execute import CrashPoint, Executor, inside, undo_run
from dreamd.errors import Refused

TODAY = date(2026, 11, 30)


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder`` with its bytes (None for folders)."""
    return {
        str(path.relative_to(folder)): (path.read_bytes() if path.is_file() else None)
        for path in sorted(folder.rglob("*"))
    }


def random_folder(folder: Path, rng: random.Random, files: int = 12) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(files):
        path = folder / f"{rng.choice(['project', 'feedback', 'user'])}_{index}.md"
        path.write_bytes(rng.randbytes(rng.randint(0, 400)))
        paths.append(path)
    (folder / "MEMORY.md").write_text(
        "# Memory\n" + "".join(f"- [{p.stem}]({p.name})\n" for p in paths)
    )
    return paths


def executor(folder: Path, run_dir: Path) -> Executor:
    return Executor(folder, run_dir, TODAY, CrashPoint())


def test_trash_moves_into_the_dated_folder(tmp_path: Path) -> None:
    """A trashed memory is renamed into .trash/<date>/, bytes intact."""
    folder = tmp_path / "mem"
    (folder).mkdir()
    (folder / "old.md").write_text("stale")
    target = executor(folder, tmp_path / "run").trash(folder / "old.md")
    assert target == folder / ".trash" / "2026-11-30" / "old.md"
    assert target.read_text() == "stale" and not (folder / "old.md").exists()


def test_same_name_twice_in_one_day_is_not_overwritten(tmp_path: Path) -> None:
    """A second file of the same name trashed the same day gets a numbered name."""
    folder = tmp_path / "mem"
    folder.mkdir()
    run = executor(folder, tmp_path / "run")
    (folder / "a.md").write_text("first")
    run.trash(folder / "a.md")
    (folder / "a.md").write_text("second")
    second = run.trash(folder / "a.md")
    assert second.name == "a.1.md"
    assert (folder / ".trash" / "2026-11-30" / "a.md").read_text() == "first"


def test_write_is_skipped_when_unchanged(tmp_path: Path) -> None:
    """Writing the bytes a file already holds changes nothing and records nothing."""
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("same")
    assert executor(folder, tmp_path / "run").write(folder / "MEMORY.md", b"same") is False
    assert not (tmp_path / "run" / "journal.jsonl").exists()


@pytest.mark.parametrize("name", ["../escape.md", "../../etc/passwd", "sub/../../x.md"])
def test_writes_cannot_leave_the_folder(tmp_path: Path, name: str) -> None:
    """A target resolving outside the memory folder is refused."""
    folder = tmp_path / "mem"
    folder.mkdir()
    with pytest.raises(Refused, match="outside the memory folder"):
        executor(folder, tmp_path / "run").write(folder / name, b"x")
    assert not (tmp_path / "escape.md").exists()


def test_symlinked_target_outside_is_refused(tmp_path: Path) -> None:
    """A symlink inside the folder pointing out of it cannot be used to write outside."""
    folder = tmp_path / "mem"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    (folder / "link").symlink_to(tmp_path / "outside")
    with pytest.raises(Refused):
        inside(folder, folder / "link" / "x.md")


@pytest.mark.parametrize("seed", range(25))
def test_undo_restores_a_random_folder_byte_for_byte(tmp_path: Path, seed: int) -> None:
    """After random trash moves and rewrites, undo gives back the exact folder."""
    rng = random.Random(seed)
    folder = tmp_path / "mem"
    paths = random_folder(folder, rng)
    before = snapshot(folder)
    run = executor(folder, tmp_path / "run")
    for path in rng.sample(paths, rng.randint(0, len(paths))):
        if rng.random() < 0.5:
            run.trash(path)
        else:
            run.write(path, rng.randbytes(rng.randint(0, 300)))
    run.write(folder / "MEMORY.md", b"# rebuilt\n")
    run.write(folder / "MEMORY-ARCHIVE.md", b"# archive\n")
    assert snapshot(folder) != before
    undo_run(tmp_path / "run")
    assert snapshot(folder) == before


def test_undo_refuses_when_a_file_changed_since(tmp_path: Path) -> None:
    """If the user edited a rewritten file after the run, undo names it and changes nothing."""
    folder = tmp_path / "mem"
    random_folder(folder, random.Random(1), files=3)
    run = executor(folder, tmp_path / "run")
    run.trash(folder / sorted(p.name for p in folder.glob("*_0.md"))[0])
    run.write(folder / "MEMORY.md", b"new index")
    (folder / "MEMORY.md").write_text("edited by the user")
    after = snapshot(folder)
    with pytest.raises(Refused, match=r"MEMORY\.md changed since the run"):
        undo_run(tmp_path / "run")
    assert snapshot(folder) == after


def test_undo_refuses_when_the_original_place_is_taken(tmp_path: Path) -> None:
    """A new file where a trashed one used to be blocks undo rather than being overwritten."""
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "a.md").write_text("old")
    executor(folder, tmp_path / "run").trash(folder / "a.md")
    (folder / "a.md").write_text("new work")
    with pytest.raises(Refused, match=r"a\.md exists again"):
        undo_run(tmp_path / "run")
    assert (folder / "a.md").read_text() == "new work"


def test_undo_twice_is_refused(tmp_path: Path) -> None:
    """A run can be undone once."""
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "a.md").write_text("x")
    executor(folder, tmp_path / "run").trash(folder / "a.md")
    undo_run(tmp_path / "run")
    with pytest.raises(Refused, match="already undone"):
        undo_run(tmp_path / "run")


CRASH_SCRIPT = """
import sys
from datetime import date
from pathlib import Path
from dreamd.dream.execute import CrashPoint, Executor
folder, run_dir = Path(sys.argv[1]), Path(sys.argv[2])
run = Executor(folder, run_dir, date(2026, 11, 30), CrashPoint())
for name in sorted(p.name for p in folder.glob("project_*.md")):
    run.trash(folder / name)
run.write(folder / ".MEMORY.md.prev", (folder / "MEMORY.md").read_bytes())
run.write(folder / "MEMORY.md", b"# rebuilt index\\n")
"""


@pytest.mark.parametrize("crash_at", range(1, 12))
def test_a_kill_at_any_step_leaves_files_whole_and_undoable(tmp_path: Path, crash_at: int) -> None:
    """SIGKILL before any journaled step: each memory in place or in the trash, index old or new."""
    folder = tmp_path / "mem"
    paths = random_folder(folder, random.Random(crash_at), files=6)
    before = snapshot(folder)
    env = {**os.environ, "DREAMD_TEST_CRASH_AT": str(crash_at)}
    result = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, str(folder), str(tmp_path / "run")],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode in (0, -9), result.stderr
    trash = folder / ".trash" / "2026-11-30"
    for path in paths:
        in_place = path.exists() and path.read_bytes() == before[path.name]
        in_trash = (trash / path.name).exists() and (trash / path.name).read_bytes() == before[
            path.name
        ]
        assert in_place != in_trash, path.name
    assert (folder / "MEMORY.md").read_bytes() in (before["MEMORY.md"], b"# rebuilt index\n")
    assert not list(folder.glob(".*.tmp"))
    undo_run(tmp_path / "run")
    assert snapshot(folder) == before
