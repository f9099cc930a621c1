"""Git-managed memory roots (seed 001), against real git repositories made in tmp_path."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from dreamd.dream import gitmode
from dreamd.dream.gitmode import (
    READ_ONLY_LAYERS,
    Conversion,
    ReadOnlyLayer,
    absolutize_relative_dates,
    changed_paths,
    commit,
    head,
    is_read_only,
    is_work_tree,
    line_dates,
    read_only_changes,
    status_clean,
)
from tests.conftest import SHARED_FIXTURES

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_IDENTITY_ENV = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "EMAIL",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
)


@pytest.fixture(autouse=True)
def plain_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No system config and no identity from the environment: each repo sets its own."""
    for name in _IDENTITY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(root: Path, *args: str, when: str | None = None) -> str:
    """Run git as a user would (with a test identity); ``when`` dates the commit."""
    env = dict(os.environ)
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    identity = ["-c", "user.name=Tester", "-c", "user.email=tester@example.com"]
    done = subprocess.run(
        ["git", "-C", str(root), *identity, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def commit_all(root: Path, message: str, when: str = "2026-03-25T10:00:00+00:00") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, when=when)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A memory repository with one commit: layers, an index and two topic files."""
    root = tmp_path / "memory-root"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "AGENTS.md", "# World rules\n")
    write(root, "CLAUDE.md", "# Claude rules\n")
    write(root, "auto-memory/MEMORY.md", "- [A](a.md) — a\n- [B](b.md) — b\n")
    write(root, "auto-memory/a.md", "Yesterday we decided X.\n")
    write(root, "auto-memory/b.md", "Old note.\n")
    commit_all(root, "start")
    yield root


def files_in(root: Path, sha: str) -> list[str]:
    return sorted(git(root, "show", "--name-only", "--no-renames", "--format=", sha).split())


class TestGate:
    def test_work_tree_root_from_a_subfolder(self, repo: Path) -> None:
        """A folder inside a work tree gives the tree's root."""
        assert is_work_tree(repo / "auto-memory") == repo.resolve()
        assert is_work_tree(repo / "auto-memory" / "a.md") == repo.resolve()

    def test_not_a_work_tree(self, tmp_path: Path) -> None:
        """A plain folder, or one that does not exist, is not a work tree."""
        plain = tmp_path / "plain"
        plain.mkdir()
        assert is_work_tree(plain) is None
        assert is_work_tree(tmp_path / "absent") is None

    def test_clean_tree(self, repo: Path) -> None:
        """Right after a commit the tree is clean."""
        assert status_clean(repo) == (True, [])

    @pytest.mark.parametrize(
        ("change", "expected"),
        [
            ("untracked", "?? auto-memory/new.md"),
            ("modified", " M auto-memory/a.md"),
            ("staged", "M  auto-memory/a.md"),
            ("deleted", " D auto-memory/b.md"),
        ],
    )
    def test_dirty_trees(self, repo: Path, change: str, expected: str) -> None:
        """Untracked, modified, staged and deleted files each make the tree dirty."""
        if change == "untracked":
            write(repo, "auto-memory/new.md", "x\n")
        elif change == "deleted":
            (repo / "auto-memory/b.md").unlink()
        else:
            write(repo, "auto-memory/a.md", "changed\n")
            if change == "staged":
                git(repo, "add", "auto-memory/a.md")
        assert status_clean(repo) == (False, [expected])

    def test_untracked_files_in_new_folders_are_listed_one_by_one(self, repo: Path) -> None:
        """Each untracked file is named, not just its folder."""
        write(repo, "notes/x.md", "x\n")
        write(repo, "notes/y.md", "y\n")
        assert status_clean(repo)[1] == ["?? notes/x.md", "?? notes/y.md"]

    def test_ignored_files_do_not_count(self, repo: Path) -> None:
        """What the repository ignores does not make it dirty."""
        write(repo, ".gitignore", ".trash/\n")
        commit_all(repo, "ignore trash")
        write(repo, ".trash/2026-03-25/b.md", "x\n")
        assert status_clean(repo) == (True, [])

    def test_status_within_a_folder(self, repo: Path) -> None:
        """Limited to a folder, changes elsewhere do not count."""
        write(repo, "projects/p.md", "x\n")
        assert status_clean(repo, within=repo / "auto-memory") == (True, [])
        assert not status_clean(repo)[0]

    def test_head(self, repo: Path, tmp_path: Path) -> None:
        """HEAD's sha, or None in a repository with no commit."""
        assert head(repo) == git(repo, "rev-parse", "HEAD").strip()
        empty = tmp_path / "empty"
        empty.mkdir()
        git(empty, "init", "-q")
        assert head(empty) is None


class TestReadOnlyLayers:
    def test_default_layers(self) -> None:
        """AGENTS.md, CLAUDE.md and GEMINI.md are read-only wherever they are, in any case."""
        assert READ_ONLY_LAYERS == ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
        assert is_read_only("AGENTS.md")
        assert is_read_only("projects/x/CLAUDE.md")
        assert is_read_only("claude.md")
        assert not is_read_only("auto-memory/MEMORY.md")

    def test_configured_layers(self) -> None:
        """Extra names match anywhere; extra paths with a slash match from the root."""
        extra = ("POLICY.md", "specs/*")
        assert is_read_only("notes/POLICY.md", extra)
        assert is_read_only("specs/design.md", extra)
        assert not is_read_only("notes/specs/design.md", extra)


class TestBlameDates:
    def test_committed_lines_have_their_commit_day(self, repo: Path) -> None:
        """Each committed line is dated by its commit, in the commit's time zone."""
        write(repo, "auto-memory/a.md", "Yesterday we decided X.\nToday we shipped.\n")
        commit_all(repo, "second line", when="2026-04-02T23:30:00-05:00")
        assert line_dates(repo, repo / "auto-memory/a.md") == {
            1: date(2026, 3, 25),
            2: date(2026, 4, 2),
        }

    def test_uncommitted_lines_have_no_date(self, repo: Path) -> None:
        """A line changed in the work tree has no commit, hence no date."""
        write(repo, "auto-memory/a.md", "Yesterday we decided X.\nAnd today Y.\n")
        assert line_dates(repo, repo / "auto-memory/a.md") == {1: date(2026, 3, 25)}

    def test_untracked_file_has_no_dates(self, repo: Path) -> None:
        """A file git does not know gives an empty mapping, not an error."""
        path = write(repo, "auto-memory/new.md", "today\n")
        assert line_dates(repo, path) == {}

    def test_committer_or_author_clock(self, repo: Path) -> None:
        """By default the committer's day; the author's on request."""
        write(repo, "auto-memory/c.md", "x\n")
        git(repo, "add", "-A")
        env = dict(os.environ)
        env.update(
            GIT_AUTHOR_DATE="2026-03-01T12:00:00+00:00",
            GIT_COMMITTER_DATE="2026-03-05T12:00:00+00:00",
        )
        subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@e",
                "commit",
                "-qm",
                "c",
            ],
            env=env,
            check=True,
        )
        path = repo / "auto-memory/c.md"
        assert line_dates(repo, path) == {1: date(2026, 3, 5)}
        assert line_dates(repo, path, clock="author") == {1: date(2026, 3, 1)}


class TestAbsolutize:
    def test_yesterday_on_a_line_committed_on_the_25th(self) -> None:
        """'yesterday' on a line committed 2026-03-25 becomes 2026-03-24."""
        text, converted, undatable = absolutize_relative_dates(
            "Yesterday we decided X.\n", {1: date(2026, 3, 25)}
        )
        assert text == "2026-03-24 we decided X.\n"
        assert converted == [Conversion(1, "Yesterday", "2026-03-24")]
        assert undatable == []

    def test_german_and_counted_days(self) -> None:
        """German words and 'N days ago' convert with their own offsets."""
        text, converted, _ = absolutize_relative_dates(
            "gestern X, heute Y\nvor 3 Tagen Z; 2 days ago W; übermorgen V\n",
            {1: date(2026, 3, 1), 2: date(2026, 3, 10)},
        )
        assert text == "2026-02-28 X, 2026-03-01 Y\n2026-03-07 Z; 2026-03-08 W; 2026-03-12 V\n"
        assert len(converted) == 5

    def test_undatable_words_are_left_and_flagged(self) -> None:
        """No commit date, not one day, or a general rule: left as written and reported."""
        source = "Fixed today.\nDecided last week.\nIf it fails, retry tomorrow.\n"
        text, converted, undatable = absolutize_relative_dates(source, {2: date(2026, 3, 25)})
        text2, converted2, _ = absolutize_relative_dates(source, {1: date(2026, 3, 25)})
        assert text == source and converted == []
        assert [(f.line, f.text) for f in undatable] == [
            (1, "today"),
            (2, "last week"),
            (3, "tomorrow"),
        ]
        assert "no commit date" in undatable[0].message
        assert "single day" in undatable[1].message
        assert "general rule" in undatable[2].message
        assert text2.startswith("Fixed 2026-03-25.\n") and len(converted2) == 1

    def test_everything_else_is_kept(self) -> None:
        """Code, CRLF endings and other text are untouched."""
        source = "`--since=yesterday` yesterday\r\n```\ntoday\n```\n"
        text, _, _ = absolutize_relative_dates(source, dict.fromkeys(range(1, 5), date(2026, 1, 2)))
        assert text == "`--since=yesterday` 2026-01-01\r\n```\ntoday\n```\n"

    def test_end_to_end_with_blame(self, repo: Path) -> None:
        """Blame dates drive the conversion of a real file."""
        path = repo / "auto-memory/a.md"
        text, _, _ = absolutize_relative_dates(path.read_text(), line_dates(repo, path))
        assert text == "2026-03-24 we decided X.\n"


class TestCommit:
    def test_one_commit_per_logical_unit(self, repo: Path) -> None:
        """Trash moves, date conversions and the index rebuild land in three commits."""
        start = head(repo)
        assert start is not None
        memory = repo / "auto-memory"
        trash = memory / ".trash/2026-03-25"
        trash.mkdir(parents=True)
        (memory / "b.md").rename(trash / "b.md")
        moved = commit(
            repo, [memory / "b.md", trash / "b.md"], "dream: move stale memories to trash"
        )
        write(repo, "auto-memory/a.md", "2026-03-24 we decided X.\n")
        dated = commit(repo, [memory / "a.md"], "dream: turn relative dates into absolute ones")
        write(repo, "auto-memory/MEMORY.md", "- [A](a.md) — a\n")
        rebuilt = commit(repo, [memory / "MEMORY.md"], "dream: rebuild the index")
        assert moved and dated and rebuilt
        assert files_in(repo, moved) == ["auto-memory/.trash/2026-03-25/b.md", "auto-memory/b.md"]
        assert files_in(repo, dated) == ["auto-memory/a.md"]
        assert files_in(repo, rebuilt) == ["auto-memory/MEMORY.md"]
        assert git(repo, "log", "--format=%s", f"{start}..HEAD").splitlines() == [
            "dream: rebuild the index",
            "dream: turn relative dates into absolute ones",
            "dream: move stale memories to trash",
        ]
        assert status_clean(repo) == (True, [])

    def test_only_the_given_paths_are_committed(self, repo: Path) -> None:
        """Other changes, staged or not, stay out of the commit and stay as they were."""
        write(repo, "auto-memory/a.md", "new a\n")
        write(repo, "auto-memory/b.md", "new b\n")
        git(repo, "add", "auto-memory/b.md")
        sha = commit(repo, [repo / "auto-memory/a.md"], "dream: a")
        assert sha is not None and files_in(repo, sha) == ["auto-memory/a.md"]
        assert status_clean(repo)[1] == ["M  auto-memory/b.md"]

    def test_nothing_changed_is_no_commit(self, repo: Path) -> None:
        """With nothing to commit, no commit is made and None is returned."""
        before = head(repo)
        assert commit(repo, [repo / "auto-memory"], "dream: nothing") is None
        assert head(repo) == before

    def test_explicit_read_only_layer_is_refused(self, repo: Path) -> None:
        """Naming a read-only layer refuses before anything is staged."""
        write(repo, "CLAUDE.md", "rewritten\n")
        with pytest.raises(ReadOnlyLayer, match=r"CLAUDE\.md"):
            commit(repo, [repo / "CLAUDE.md"], "dream: no")
        assert status_clean(repo)[1] == [" M CLAUDE.md"]

    def test_read_only_layers_never_enter_a_folder_commit(self, repo: Path) -> None:
        """Committing the whole root leaves changed AGENTS.md/CLAUDE.md out of the diff."""
        start = head(repo)
        assert start is not None
        write(repo, "AGENTS.md", "rewritten\n")
        write(repo, "projects/CLAUDE.md", "nested layer\n")
        write(repo, "auto-memory/a.md", "2026-03-24 we decided X.\n")
        sha = commit(repo, [repo], "dream: consolidate")
        assert sha is not None and files_in(repo, sha) == ["auto-memory/a.md"]
        assert read_only_changes(repo, start) == []
        assert changed_paths(repo, start) == ["auto-memory/a.md"]
        assert sorted(status_clean(repo)[1]) == [" M AGENTS.md", "?? projects/CLAUDE.md"]

    def test_configured_read_only_layers(self, repo: Path) -> None:
        """Configured layers are protected like the defaults."""
        write(repo, "notes/POLICY.md", "x\n")
        write(repo, "notes/other.md", "y\n")
        sha = commit(repo, [repo / "notes"], "dream: notes", read_only=("POLICY.md",))
        assert sha is not None and files_in(repo, sha) == ["notes/other.md"]
        with pytest.raises(ReadOnlyLayer):
            commit(repo, [repo / "notes/POLICY.md"], "dream: no", read_only=("POLICY.md",))

    def test_read_only_changes_finds_a_violation(self, repo: Path) -> None:
        """The checklist query reports a read-only layer someone committed since the start."""
        start = head(repo)
        assert start is not None
        write(repo, "CLAUDE.md", "edited by hand\n")
        commit_all(repo, "manual edit")
        assert read_only_changes(repo, start) == ["CLAUDE.md"]

    def test_fallback_identity_without_config(self, repo: Path) -> None:
        """A repository with no identity commits as dreamd <dreamd@localhost>."""
        write(repo, "auto-memory/a.md", "x\n")
        sha = commit(repo, [repo / "auto-memory/a.md"], "dream: x")
        assert sha is not None
        assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", sha).strip() == (
            "dreamd <dreamd@localhost>|dreamd <dreamd@localhost>"
        )

    def test_configured_identity_is_used(self, repo: Path) -> None:
        """A repository's own user.name/user.email author the commit."""
        git(repo, "config", "user.name", "Owner")
        git(repo, "config", "user.email", "owner@example.com")
        write(repo, "auto-memory/a.md", "x\n")
        sha = commit(repo, [repo / "auto-memory/a.md"], "dream: x")
        assert sha is not None
        assert git(repo, "log", "-1", "--format=%an <%ae>", sha).strip() == (
            "Owner <owner@example.com>"
        )

    def test_plain_message_and_no_push(self, repo: Path, tmp_path: Path) -> None:
        """The message is kept as given and a configured remote receives nothing."""
        remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", str(remote))
        git(repo, "remote", "add", "origin", str(remote))
        write(repo, "auto-memory/a.md", "x\n")
        sha = commit(repo, [repo / "auto-memory/a.md"], "dream: rebuild the index")
        assert sha is not None
        assert git(repo, "log", "-1", "--format=%B", sha).strip() == "dream: rebuild the index"
        assert git(remote, "rev-parse", "--all").strip() == ""

    def test_ignored_trash_is_not_forced(self, repo: Path) -> None:
        """An ignored trash folder stays out; the removal from the folder is committed."""
        write(repo, ".gitignore", ".trash/\n")
        commit_all(repo, "ignore trash")
        trash = repo / "auto-memory/.trash/2026-03-25"
        trash.mkdir(parents=True)
        (repo / "auto-memory/b.md").rename(trash / "b.md")
        sha = commit(repo, [repo / "auto-memory/b.md", trash / "b.md"], "dream: trash")
        assert sha is not None and files_in(repo, sha) == ["auto-memory/b.md"]

    def test_names_with_glob_characters_are_literal(self, repo: Path) -> None:
        """A file called '*.md' is that file, not every Markdown file."""
        write(repo, "auto-memory/*.md", "star\n")
        write(repo, "auto-memory/a.md", "changed\n")
        sha = commit(repo, [repo / "auto-memory/*.md"], "dream: star")
        assert sha is not None and files_in(repo, sha) == ["auto-memory/*.md"]

    def test_paths_outside_the_root_are_refused(self, repo: Path, tmp_path: Path) -> None:
        """A path outside the work tree is an error, not a silent no-op."""
        with pytest.raises(gitmode.GitError, match="outside"):
            commit(repo, [tmp_path / "elsewhere.md"], "dream: no")


def test_real_folder_in_a_git_root(tmp_path: Path) -> None:
    """A real memory folder committed to git: dates come from blame, the layer stays out."""
    source = SHARED_FIXTURES / "memory" / "Aleslammer__deathwatch_foundryvtt__claude-memory"
    if not source.is_dir():
        pytest.skip(f"shared memory fixtures not found at {source}")
    root = tmp_path / "repo"
    shutil.copytree(source, root / ".claude" / "memory")
    write(root, "CLAUDE.md", "# Rules\n")
    git(root, "init", "-q")
    commit_all(root, "import", when="2026-05-15T09:00:00+00:00")
    start = head(root)
    assert start is not None and status_clean(root) == (True, [])
    changed = []
    for path in sorted((root / ".claude" / "memory").glob("*.md")):
        text, converted, _ = absolutize_relative_dates(path.read_text(), line_dates(root, path))
        if converted:
            path.write_text(text)
            changed.append(path)
    write(root, "CLAUDE.md", "# Rules, edited meanwhile\n")
    sha = commit(root, [root], "dream: turn relative dates into absolute ones")
    assert read_only_changes(root, start) == []
    if sha is not None:
        assert files_in(root, sha) == sorted(p.relative_to(root).as_posix() for p in changed)
