"""The repository a working directory belongs to, as Claude Code keys it: real git, real files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from dreamd.gitroot import RootCache, canonical_git_root, find_git_root


def git(*args: str, cwd: Path) -> None:
    """Run git quietly, failing the test on an error."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real repository with one commit and a subfolder."""
    root = tmp_path / "repo"
    (root / "src" / "deep").mkdir(parents=True)
    git("init", "-q", cwd=root)
    (root / "src" / "deep" / "a.txt").write_text("a\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    return root


def test_a_subfolder_belongs_to_its_repository(repo: Path) -> None:
    """From a folder deep inside a repository the root is the folder holding ``.git``."""
    assert find_git_root(repo / "src" / "deep") == repo
    assert canonical_git_root(repo / "src" / "deep") == repo


def test_a_folder_outside_git_has_no_root(tmp_path: Path) -> None:
    """Outside any repository there is no root."""
    (tmp_path / "plain").mkdir()
    assert canonical_git_root(tmp_path / "plain") is None


def test_a_linked_worktree_belongs_to_the_main_worktree(repo: Path, tmp_path: Path) -> None:
    """``git worktree add``: the worktree's own root is found, the canonical root is the main."""
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", str(linked), cwd=repo)
    assert find_git_root(linked / "src") == linked
    assert canonical_git_root(linked / "src" / "deep") == repo.resolve()


def test_a_worktree_of_a_bare_repository_is_keyed_by_the_bare_repository(
    repo: Path, tmp_path: Path
) -> None:
    """A bare repository has no main worktree: its own folder is the identity."""
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(repo), str(bare), cwd=tmp_path)
    linked = tmp_path / "from-bare"
    git("worktree", "add", "-q", str(linked), cwd=bare)
    assert canonical_git_root(linked) == bare.resolve()


def test_a_gitdir_file_without_a_back_link_stands_for_itself(repo: Path, tmp_path: Path) -> None:
    """A ``.git`` file pointing into another repository's worktrees, unclaimed, borrows nothing."""
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", str(linked), cwd=repo)
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    (impostor / ".git").write_text((linked / ".git").read_text())
    assert canonical_git_root(impostor) == impostor


def test_an_unreadable_pointer_leaves_the_worktree_root(tmp_path: Path) -> None:
    """A ``.git`` file that names no git folder leaves the folder holding it."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nowhere/at/all\n")
    assert canonical_git_root(broken) == broken


def test_the_cache_answers_again_only_after_its_time(tmp_path: Path) -> None:
    """Within ``seconds`` a directory is looked up once; after it, again."""
    asked: list[Path] = []
    clock = [0.0]

    def lookup(path: Path) -> Path | None:
        asked.append(path)
        return None

    cache = RootCache(lookup, seconds=10, clock=lambda: clock[0])
    cache(tmp_path)
    cache(tmp_path)
    clock[0] = 11.0
    cache(tmp_path)
    assert asked == [tmp_path, tmp_path]
