"""One odd folder never stops the others, and nothing outside a folder is read or written
(issue 15, items 3, 5 and 6)."""

from __future__ import annotations

import gc
import json
import os
from datetime import date
from pathlib import Path

import pytest

from dreamd.dream import folderrun
from dreamd.dream.gardener import run_dream
from dreamd.dream.model import DreamRequest
from tests.dream.factories import NOW
from tests.dream.test_dream_cli import run, topic, tree, write

TODAY = date.today().isoformat()


def folder_with_work(path: Path, repo: Path | None = None) -> Path:
    """A memory folder with one stale memory to trash and an index to rebuild."""
    if repo is not None:
        write(repo / "src" / "app.py", "x = 1\n")
    topic(path / "project_gone.md", "project", "gone", "Only in `src/gone.py`.")
    topic(path / "project_kept.md", "project", "kept", "Lives in `src/app.py`.")
    write(path / "MEMORY.md", "# Memory\n\n- [G](project_gone.md) -- g\n")
    return path


def repo_folder(root: Path) -> Path:
    return folder_with_work(root / ".claude" / "memory", repo=root)


def snapshot(path: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file under ``path`` (what "nothing changed" means)."""
    return {
        str(p.relative_to(path)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(path.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def dream(home: Path, *folders: Path) -> tuple[int, dict[str, dict[str, object]], str]:
    args = [arg for folder in folders for arg in ("--root", str(folder))]
    result = run(home, "dream", "--json", *args)
    document = json.loads(result.stdout)
    return result.returncode, {d["path"]: d for d in document["directories"]}, result.stderr


class TestOneFolderAtATime:
    def test_a_self_link_and_a_prev_directory_do_not_stop_the_others(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """Each odd folder is reported; the sound one after them is dreamed all the same."""
        loop = folder_with_work(tmp_path / "a-loop")
        (loop / "self.md").symlink_to("self.md")
        prev = folder_with_work(tmp_path / "b-prev")
        (prev / ".MEMORY.md.prev").mkdir()
        sound = repo_folder(tmp_path / "c-repo")
        code, folders, stderr = dream(isolated_home, loop, prev, sound)
        assert code == 1  # a refused folder makes the run exit 1
        assert any("self.md: a symbolic link" in f for f in folders[str(loop)]["findings"])
        refused = str(folders[str(prev)]["refused"])
        assert refused.startswith(".MEMORY.md.prev is a directory")
        assert "\n" not in refused and str(prev) in stderr
        assert folders[str(sound)]["refused"] is None
        assert not (sound / "project_gone.md").exists()  # the sound folder was dreamed

    def test_a_failure_inside_one_folder_is_that_folder_s(
        self, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An unexpected error in one folder is reported for it; the run goes on."""
        broken = folder_with_work(tmp_path / "broken")
        sound = folder_with_work(tmp_path / "sound")
        real = folderrun.load_folder

        def load(path: Path, repo: Path | None):  # type: ignore[no-untyped-def]
            if path == broken:
                raise RuntimeError("disk on fire\nsecond line")
            return real(path, repo)

        monkeypatch.setattr(folderrun, "load_folder", load)
        request = DreamRequest("dry-run", NOW, 17408, only=(broken, sound))
        report = run_dream(request, env={}, home=tmp_path, state_dir=tmp_path / "s", sessions=[])
        by_path = {d.path: d for d in report.directories}
        assert by_path[str(broken)].refused == "could not dream this folder: disk on fire"
        assert by_path[str(sound)].refused is None and by_path[str(sound)].index.rebuilt

    def test_the_cycle_collector_is_paused_over_a_dream_run_and_back_on_after(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Off while each folder is inventoried (one that fails too) and while the report
        is built; on again once the run is recorded."""
        from dreamd.dream import run as dreamrun
        from dreamd.statedb import open_state

        broken = folder_with_work(tmp_path / "a-broken")
        sound = folder_with_work(tmp_path / "b-sound")
        real_load, real_json = folderrun.load_folder, dreamrun.to_json
        seen: list[bool] = []

        def load(path: Path, repo: Path | None):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())
            if path == broken:
                raise RuntimeError("disk on fire")
            return real_load(path, repo)

        def to_json(report):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())
            return real_json(report)

        monkeypatch.setattr(folderrun, "load_folder", load)
        monkeypatch.setattr(dreamrun, "to_json", to_json)
        request = DreamRequest("dry-run", NOW, 17408, only=(broken, sound))
        state = open_state(tmp_path / "state" / "state.db")
        assert gc.isenabled()
        outcome = dreamrun.dream_job(
            request, state=state, state_dir=tmp_path / "s", env={}, home=tmp_path
        )
        assert gc.isenabled()
        assert len(seen) == 3 and not any(seen)
        assert [d.refused is None for d in outcome.report.directories] == [False, True]
        assert state.runs("dream", limit=1)[0].outcome == "refused"  # recorded all the same

    @pytest.mark.parametrize("cwd", ["/", "~", "/" + "x" * 5000, "/no/such/dir"])
    def test_a_session_cwd_that_is_no_repository(self, tmp_path: Path, cwd: str) -> None:
        """``cwd`` `/`, the home directory, 5,000 characters, a missing path: no repository."""
        home = tmp_path / "home"
        project = home / ".claude" / "projects" / "-odd"
        folder_with_work(project / "memory")
        transcript = project / "session.jsonl"
        write(transcript, "{}\n")
        where = str(home) if cwd == "~" else cwd
        request = DreamRequest("dry-run", NOW, 17408)
        report = run_dream(
            request, env={}, home=home, state_dir=tmp_path / "s",
            sessions=[(str(transcript), where, None)],
        )  # fmt: skip
        (folder,) = report.directories
        assert folder.repo is None and folder.refused is None

    def test_a_root_that_does_not_exist_is_one_clear_line(self, isolated_home: Path) -> None:
        """``--root /nonexistent``: exit 1 and one line, never an internal error."""
        result = run(isolated_home, "dream", "--root", "/nonexistent")
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == ["Error: --root /nonexistent: no such folder"]


class TestNothingOutsideTheFolder:
    """Issue 15 item 5: a link anywhere on the way is refused; nothing outside changes."""

    @pytest.mark.parametrize("link", [".trash", f".trash/{TODAY}"])
    def test_a_symlinked_trash_is_refused(
        self, isolated_home: Path, tmp_path: Path, link: str
    ) -> None:
        """``.trash`` or ``.trash/<date>`` pointing outside: nothing moves, one-line reason."""
        memory = repo_folder(tmp_path / "repo")
        outside = tmp_path / "outside"
        outside.mkdir()
        target = memory / link
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(outside, target_is_directory=True)
        before, outside_before = tree(memory), snapshot(outside)
        code, folders, _ = dream(isolated_home, memory)
        assert code == 1
        assert str(folders[str(memory)]["refused"]).startswith(f"{link} is a symbolic link")
        assert tree(memory) == before and snapshot(outside) == outside_before

    @pytest.mark.parametrize("name", ["MEMORY.md", ".MEMORY.md.prev", "MEMORY-ARCHIVE.md"])
    @pytest.mark.parametrize("kind", ["symlink", "hardlink"])
    def test_index_files_that_are_links_leave_the_folder_alone(
        self, isolated_home: Path, tmp_path: Path, name: str, kind: str
    ) -> None:
        """A link among the files the dream writes: the folder is refused, never read
        through the link, the file outside untouched (issue 15, items 5 and 6)."""
        memory = repo_folder(tmp_path / "repo")
        outside = tmp_path / "outside"
        secret = write(outside / "private.md", "# Someone else's notes\n- secret line\n")
        (memory / name).unlink(missing_ok=True)
        if kind == "symlink":
            (memory / name).symlink_to(secret)
        else:
            os.link(secret, memory / name)
        outside_before = snapshot(outside)
        code, folders, _ = dream(isolated_home, memory)
        assert code == 1
        refused = str(folders[str(memory)]["refused"])
        assert refused.startswith(f"{name} is a ") and "left alone" in refused
        assert snapshot(outside) == outside_before
        assert (memory / "project_gone.md").exists()
        assert not (memory / ".trash").exists()
        data = isolated_home / ".local" / "share" / "dreamd"
        for path in data.rglob("*"):
            if path.is_file():
                assert b"secret line" not in path.read_bytes()

    @pytest.mark.parametrize("kind", ["symlink", "hardlink"])
    def test_topic_files_that_are_links_are_not_memories(
        self, isolated_home: Path, tmp_path: Path, kind: str
    ) -> None:
        """A linked topic file is reported and left alone; the rest of the folder is dreamed."""
        memory = repo_folder(tmp_path / "repo")
        outside = tmp_path / "outside"
        stale = write(
            outside / "foreign.md",
            "---\nname: f\ndescription: f\ntype: project\n---\nOnly `src/none.py`.\n",
        )
        os.utime(stale, (1_000_000, 1_000_000))
        if kind == "symlink":
            (memory / "project_linked.md").symlink_to(stale)
        else:
            os.link(stale, memory / "project_linked.md")
        outside_before = snapshot(outside)
        code, folders, _ = dream(isolated_home, memory)
        assert code == 0
        folder = folders[str(memory)]
        assert any(f.startswith("project_linked.md: a ") for f in folder["findings"])
        assert "project_linked.md" not in [f["file"] for f in folder["files"]]
        assert (memory / "project_linked.md").exists() or (
            memory / "project_linked.md"
        ).is_symlink()
        assert not (memory / "project_gone.md").exists()  # the folder's own work was done
        assert snapshot(outside) == outside_before
        assert "foreign.md" not in (memory / "MEMORY.md").read_text()


def test_undo_never_follows_a_trash_made_a_link_since(isolated_home: Path, tmp_path: Path) -> None:
    """`.trash/<date>` replaced by a link after the run: undo refuses, reads nothing outside."""
    memory = repo_folder(tmp_path / "repo")
    document = json.loads(run(isolated_home, "dream", "--json", "--root", str(memory)).stdout)
    day = memory / ".trash" / TODAY
    outside = tmp_path / "outside"
    day.rename(outside)
    day.symlink_to(outside, target_is_directory=True)
    before, outside_before = tree(memory), snapshot(outside)
    result = run(isolated_home, "undo", str(document["run_id"]))
    assert result.returncode == 1
    assert "is a symbolic link" in result.stderr
    assert tree(memory) == before and snapshot(outside) == outside_before
