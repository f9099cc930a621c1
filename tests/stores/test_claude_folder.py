"""Which Claude Code memory folder a session belongs in: the key, the repository, the settings."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from dreamd.stores.claude_folder import (
    MAX_KEY_CHARS,
    SettingsSources,
    auto_memory_enabled,
    locate_memory_folder,
    memory_directory_setting,
    path_hash,
    project_key,
)

NO_SETTINGS = SettingsSources(policy={}, local={}, project={}, user={})


def sources(**layers: dict[str, object]) -> SettingsSources:
    """Settings with the given layers set (policy, local, project, user)."""
    empty: dict[str, object] = {}
    return SettingsSources(
        policy=layers.get("policy", empty),
        local=layers.get("local", empty),
        project=layers.get("project", empty),
        user=layers.get("user", empty),
    )


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("/home/dev/app", "-home-dev-app"),
        ("/home/dev/my_repo.v2", "-home-dev-my-repo-v2"),
        ("/Users/me/Open Source/x", "-Users-me-Open-Source-x"),
        ("/home/me/.agents", "-home-me--agents"),
        ("C:\\Users\\aldoh\\Documents\\NewTrading", "C--Users-aldoh-Documents-NewTrading"),
        ("/tmp/Проект", "-tmp-------"),
        ("/tmp/😀x", "-tmp---x"),
    ],
)
def test_every_character_but_ascii_letters_and_digits_becomes_a_dash(path: str, key: str) -> None:
    """Claude Code's key: one ``-`` per UTF-16 code unit that is not ``[A-Za-z0-9]``."""
    assert project_key(path) == key


def test_the_hash_is_the_32_bit_string_hash() -> None:
    """``h * 31 + unit`` wrapped to 32 bits (the values Java's String.hashCode gives too)."""
    assert path_hash("hello") == 99162322
    assert path_hash("polygenelubricants") == -(2**31)


def test_a_long_key_is_cut_and_given_the_hash_in_base_36() -> None:
    """Past 200 characters: the first 200, ``-``, and the base-36 hash of the original path."""
    path = "/home/dev/" + "deeply-nested-folder/" * 12 + "app"
    key = project_key(path)
    assert key == project_key(path.replace("/", "-"))[:MAX_KEY_CHARS] + "-b8aajq"
    assert len(key) == MAX_KEY_CHARS + 7


def test_auto_memory_is_on_unless_a_setting_turns_it_off() -> None:
    """No setting: on; ``autoMemoryEnabled: false`` in user settings: off."""
    assert auto_memory_enabled(NO_SETTINGS, {})
    assert not auto_memory_enabled(sources(user={"autoMemoryEnabled": False}), {})


def test_the_nearest_setting_wins() -> None:
    """Local settings beat project settings, which beat user settings; policy beats them all."""
    assert auto_memory_enabled(
        sources(local={"autoMemoryEnabled": True}, project={"autoMemoryEnabled": False}), {}
    )
    assert not auto_memory_enabled(
        sources(project={"autoMemoryEnabled": False}, user={"autoMemoryEnabled": True}), {}
    )
    assert not auto_memory_enabled(
        sources(policy={"autoMemoryEnabled": False}, local={"autoMemoryEnabled": True}), {}
    )


def test_the_environment_variable_turns_auto_memory_off() -> None:
    """``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` wins over the settings."""
    on = sources(user={"autoMemoryEnabled": True})
    assert not auto_memory_enabled(on, {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"})


def test_a_memory_directory_comes_from_trusted_settings_only(tmp_path: Path) -> None:
    """``autoMemoryDirectory`` in user or local settings counts; in the shared project file not."""
    home = tmp_path / "home"
    assert memory_directory_setting(sources(user={"autoMemoryDirectory": "~/mem"}), home) == (
        home / "mem"
    )
    assert memory_directory_setting(sources(local={"autoMemoryDirectory": "/srv/m"}), home) == (
        Path("/srv/m")
    )
    assert memory_directory_setting(sources(project={"autoMemoryDirectory": "/srv/m"}), home) is (
        None
    )


@pytest.mark.parametrize("value", ["~", "~/", "~/..", "relative/dir", "/", "//server/share"])
def test_a_dangerous_memory_directory_is_ignored(tmp_path: Path, value: str) -> None:
    """Home itself, its parent, relative paths, the root and network shares name no folder."""
    assert memory_directory_setting(sources(user={"autoMemoryDirectory": value}), tmp_path) is None


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real repository with a commit and a subfolder ``pkg``."""
    root = tmp_path / "src" / "app"
    (root / "pkg").mkdir(parents=True)
    git("init", "-q", cwd=root)
    (root / "pkg" / "m.py").write_text("x = 1\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    return root


def locate(
    project: Path,
    claude: Path,
    home: Path,
    *,
    known: Mapping[str, Path] | None = None,
    managed: Path | None = None,
) -> Path | None:
    """The folder ``locate_memory_folder`` gives (None: auto memory off)."""
    where = locate_memory_folder(
        str(project), claude=claude, env={}, home=home, known=known or {}, managed=managed
    )
    return where.folder


def test_a_subfolder_session_uses_the_repository_roots_folder(
    repo: Path, isolated_home: Path
) -> None:
    """A session started in ``<repo>/pkg`` shares the memory of ``<repo>``."""
    claude = isolated_home / ".claude"
    expected = claude / "projects" / project_key(str(repo)) / "memory"
    assert locate(repo / "pkg", claude, isolated_home) == expected


def test_a_linked_worktree_session_uses_the_main_worktrees_folder(
    repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """A session in a ``git worktree add`` checkout shares the main worktree's memory."""
    linked = tmp_path / "wt" / "feature"
    git("worktree", "add", "-q", str(linked), cwd=repo)
    claude = isolated_home / ".claude"
    expected = claude / "projects" / project_key(str(repo.resolve())) / "memory"
    assert locate(linked / "pkg", claude, isolated_home) == expected


def test_a_folder_outside_git_uses_its_own_folder(tmp_path: Path, isolated_home: Path) -> None:
    """Outside a repository the working directory is the project."""
    plain = tmp_path / "notes"
    plain.mkdir()
    claude = isolated_home / ".claude"
    assert locate(plain, claude, isolated_home) == claude / "projects" / project_key(str(plain)) / (
        "memory"
    )


def test_a_vanished_directory_falls_back_to_itself_and_says_so(isolated_home: Path) -> None:
    """A working directory that no longer exists keys its own folder, with a note."""
    where = locate_memory_folder(
        "/gone/away/app", claude=isolated_home / ".claude", env={}, home=isolated_home
    )
    assert where.folder == isolated_home / ".claude" / "projects" / "-gone-away-app" / "memory"
    assert where.note is not None and "no longer exists" in where.note


def test_a_transcript_folder_that_recorded_the_root_names_the_folder(
    repo: Path, isolated_home: Path
) -> None:
    """Claude Code's own folder for the root path wins over the computed key."""
    claude = isolated_home / ".claude"
    recorded = claude / "projects" / "as-claude-named-it"
    found = locate(repo / "pkg", claude, isolated_home, known={str(repo): recorded})
    assert found == recorded / "memory"


def test_user_settings_turning_auto_memory_off_give_no_folder(
    repo: Path, isolated_home: Path
) -> None:
    """``autoMemoryEnabled: false`` in ``~/.claude/settings.json``: nowhere to plant."""
    claude = isolated_home / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    assert locate(repo, claude, isolated_home) is None


def test_project_settings_in_the_working_directory_turn_it_off(
    repo: Path, isolated_home: Path
) -> None:
    """``<cwd>/.claude/settings.json`` is read where the session started."""
    (repo / "pkg" / ".claude").mkdir()
    (repo / "pkg" / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    assert locate(repo / "pkg", isolated_home / ".claude", isolated_home) is None
    assert locate(repo, isolated_home / ".claude", isolated_home) is not None


def test_a_custom_directory_in_local_settings_is_the_folder(
    repo: Path, isolated_home: Path
) -> None:
    """``autoMemoryDirectory`` in ``.claude/settings.local.json`` names the whole folder."""
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text('{"autoMemoryDirectory": "~/mem/app"}')
    assert locate(repo, isolated_home / ".claude", isolated_home) == isolated_home / "mem" / "app"


def test_a_broken_settings_file_counts_as_absent(repo: Path, isolated_home: Path) -> None:
    """Invalid JSON is ignored, as Claude Code ignores it: auto memory stays on."""
    claude = isolated_home / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text('{"autoMemoryEnabled": false,,')
    assert locate(repo, claude, isolated_home) is not None


def test_managed_settings_win(repo: Path, tmp_path: Path, isolated_home: Path) -> None:
    """An administrator's managed settings turn auto memory off over a user's ``true``."""
    claude = isolated_home / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text('{"autoMemoryEnabled": true}')
    managed = tmp_path / "managed-settings.json"
    managed.write_text('{"autoMemoryEnabled": false}')
    assert locate(repo, claude, isolated_home, managed=managed) is None
