"""Projects kept out of collection: ``collect.exclude_projects`` and ``.dreamd-ignore`` files."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamd.config import parse_config
from dreamd.errors import ConfigError
from dreamd.privacy import IGNORE_FILE, ProjectExclusion, ignore_file, pattern_match
from dreamd.selection import SelectionPolicy, select
from dreamd.sessioninfo import SessionInfo

HOME = Path("/home/dev")
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("project", "pattern"),
    [
        ("/home/dev/clients/acme", "~/clients/*"),
        ("/home/dev/clients/acme/api", "~/clients/*"),
        ("/home/dev/secret", "/home/dev/secret"),
        ("/home/dev/secret/deep/er", "/home/dev/secret/"),
        ("/srv/x/payroll-2026", "*payroll*"),
    ],
)
def test_a_pattern_excludes_its_projects_and_everything_inside(project: str, pattern: str) -> None:
    """A glob on the project path, or on a folder above it, excludes the project."""
    assert pattern_match(project, [pattern], HOME) == pattern


@pytest.mark.parametrize(
    ("project", "pattern"),
    [
        ("/home/dev/clientsX", "~/clients"),
        ("/home/dev/app", "~/clients/*"),
        ("/home/dev", "~/clients/*"),
    ],
)
def test_a_pattern_leaves_other_projects_alone(project: str, pattern: str) -> None:
    """A neighbour with a longer name, a sibling or a parent is not excluded."""
    assert pattern_match(project, [pattern], HOME) is None


def git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, capture_output=True)


def ignored_main_with_worktree(tmp_path: Path) -> Path:
    """A repository ``main`` holding a ``.dreamd-ignore``, with a linked worktree ``wt``."""
    main = tmp_path / "main"
    git_init(main)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=main, check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "wt")], cwd=main, check=True)
    (main / IGNORE_FILE).touch()
    return main


def test_an_ignore_file_in_the_project_excludes_it(tmp_path: Path) -> None:
    """``<project>/.dreamd-ignore`` is found, outside git too."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / IGNORE_FILE).touch()
    assert ignore_file(tmp_path / "p") == tmp_path / "p" / IGNORE_FILE


def test_an_ignore_file_up_to_the_repository_root_counts(tmp_path: Path) -> None:
    """A session in a subfolder is excluded by the file at the repository's root."""
    git_init(tmp_path / "repo")
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    (tmp_path / "repo" / IGNORE_FILE).touch()
    assert ignore_file(tmp_path / "repo" / "a" / "b") == tmp_path / "repo" / IGNORE_FILE


def test_an_ignore_file_above_the_repository_does_not_count(tmp_path: Path) -> None:
    """The search stops at the repository root: a file in its parent folder is not the repo's."""
    (tmp_path / IGNORE_FILE).touch()
    git_init(tmp_path / "repo")
    assert ignore_file(tmp_path / "repo") is None


def test_outside_git_only_the_project_folder_counts(tmp_path: Path) -> None:
    """Without a repository, a file in a parent folder is not looked at."""
    (tmp_path / IGNORE_FILE).touch()
    (tmp_path / "p").mkdir()
    assert ignore_file(tmp_path / "p") is None


def test_a_linked_worktree_honours_the_main_worktrees_file(tmp_path: Path) -> None:
    """An untracked ``.dreamd-ignore`` in the main worktree keeps its linked worktrees out."""
    main = ignored_main_with_worktree(tmp_path)
    assert ignore_file(tmp_path / "wt") == main.resolve() / IGNORE_FILE


def test_the_exclusion_honours_the_main_worktree_and_asks_each_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``ProjectExclusion`` (one run's answers): a linked worktree is kept out by the
    main worktree's file, and projects under common parents ask each folder for ``.git`` once."""
    import dreamd.privacy

    main = ignored_main_with_worktree(tmp_path)
    for name in ("a", "b", "c"):
        (tmp_path / "plain" / name).mkdir(parents=True)
    asked: list[str] = []
    real = dreamd.privacy.holds_git

    def counted(folder: str) -> bool:
        asked.append(folder)
        return real(folder)

    monkeypatch.setattr(dreamd.privacy, "holds_git", counted)
    exclusion = ProjectExclusion([], HOME)
    reason = exclusion(str(tmp_path / "wt" / "src"))
    assert reason is not None and str(main.resolve() / IGNORE_FILE) in reason
    assert [exclusion(str(tmp_path / "plain" / name)) for name in ("a", "b", "c")] == [None] * 3
    assert len(asked) == len(set(asked))


def test_the_reason_names_the_pattern_or_the_file(tmp_path: Path) -> None:
    """The exclusion says which control excluded the project."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / IGNORE_FILE).touch()
    exclusion = ProjectExclusion(["/srv/*"], HOME)
    assert exclusion("/srv/app") == "excluded: collect.exclude_projects matches '/srv/*'"
    reason = exclusion(str(tmp_path / "p"))
    assert reason is not None and IGNORE_FILE in reason
    assert exclusion(str(tmp_path)) is None


def info(project: str | None, sid: str = "s1") -> SessionInfo:
    """A finished, eligible session of ``project``."""
    return SessionInfo(
        "claude-code", sid, f"/t/{sid}.jsonl", "", None, NOW - timedelta(hours=2),
        project=project, last_message_at=NOW - timedelta(hours=2), messages=8,
        user_messages=4, revision="r1",
    )  # fmt: skip


def test_selection_lists_an_excluded_session_and_never_takes_it() -> None:
    """Status ``excluded`` with the reason, not selected, while the next session is taken."""
    policy = SelectionPolicy(excluded=ProjectExclusion(["/srv/*"], HOME))
    selection = select(
        [info("/srv/app", "s1"), info("/home/dev/app", "s2")], {}, now=NOW, policy=policy
    )
    by_id = {d.session.session_id: d for d in selection.decisions}
    assert by_id["s1"].status == "excluded" and not by_id["s1"].selected
    assert "collect.exclude_projects" in by_id["s1"].reason
    assert [d.session.session_id for d in selection.selected] == ["s2"]


def test_an_empty_pattern_is_a_configuration_error() -> None:
    """``collect.exclude_projects = [""]`` names the key."""
    with pytest.raises(ConfigError, match=r"collect\.exclude_projects\[0\]"):
        parse_config('[collect]\nexclude_projects = [""]\n')
