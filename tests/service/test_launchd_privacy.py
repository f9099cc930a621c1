"""The launchd agent runs at low priority, and its Aider scan keeps out of the folders macOS
guards with a privacy prompt (``~/Desktop``, ``~/Documents``, ``~/Downloads``) unless the user
configured them."""

from __future__ import annotations

import plistlib
from pathlib import Path

import pytest

from dreamd.config import load_settings, parse_config, resolve_readers, under_launchd
from dreamd.readers import SessionRef
from dreamd.readers.aider import HISTORY_NAME as HISTORY
from dreamd.readers.aider import (
    PRIVACY_FOLDERS,
    READER,
    AiderReader,
    PrivacyFence,
    configured_reader,
    privacy_fence,
)
from dreamd.service.servicefiles import LABEL, render_plist

HOME = Path("/Users/ann")
GUARDED = frozenset(HOME / name for name in PRIVACY_FOLDERS)


def test_the_plist_runs_the_agent_niced_with_low_priority_io(tmp_path: Path) -> None:
    """Nice 10 and LowPriorityIO, as the systemd unit; and it tells dreamd it is the agent."""
    document = plistlib.loads(render_plist(Path("/opt/dreamd/bin/dreamd"), tmp_path / "home"))
    assert document["Nice"] == 10
    assert document["LowPriorityIO"] is True
    assert document["ProcessType"] == "Background"
    environment = document["EnvironmentVariables"]
    assert under_launchd(environment)


def test_under_launchd_is_the_plists_variable_or_launchds_own_label() -> None:
    """The plist's DREAMD_SERVICE, or the label launchd puts in XPC_SERVICE_NAME; a terminal: no."""
    assert under_launchd({"DREAMD_SERVICE": "launchd"})
    assert under_launchd({"XPC_SERVICE_NAME": LABEL})
    assert not under_launchd({"XPC_SERVICE_NAME": "0"})  # what Terminal.app sets
    assert not under_launchd({})


@pytest.mark.parametrize(
    ("platform", "launchd", "configured", "skipped"),
    [
        ("darwin", True, None, GUARDED),
        ("darwin", False, None, frozenset()),  # a terminal: the user is there to answer
        ("linux", True, None, frozenset()),  # no such prompts
        ("darwin", True, [HOME], GUARDED),  # "~" configured: still not its guarded folders
        ("darwin", True, [HOME, HOME / "Documents"], GUARDED - {HOME / "Documents"}),
        ("darwin", True, [HOME / "Documents" / "code"], GUARDED),
    ],
)
def test_privacy_fence(
    platform: str, launchd: bool, configured: list[Path] | None, skipped: frozenset[Path]
) -> None:
    """A pure function of platform, launchd and the configured roots."""
    fence = privacy_fence(platform, launchd, configured, HOME)
    assert fence.skipped == skipped


def test_projects_in_a_guarded_folder_are_not_looked_at_unless_configured() -> None:
    """Project folders other tools reported are stat'ed only outside the fence."""
    fence = privacy_fence("darwin", True, [HOME / "Documents" / "code"], HOME)
    assert fence.keeps_out(HOME / "Documents" / "thesis")
    assert fence.keeps_out(HOME / "Downloads")
    assert not fence.keeps_out(HOME / "Documents" / "code" / "app")
    assert not fence.keeps_out(HOME / "src" / "app")
    assert not PrivacyFence().keeps_out(HOME / "Documents")
    # "~" configured lets in nothing of a guarded folder; the folder itself configured does.
    assert privacy_fence("darwin", True, [HOME], HOME).keeps_out(HOME / "Desktop" / "x")
    opened = privacy_fence("darwin", True, [HOME, HOME / "Desktop"], HOME)
    assert not opened.keeps_out(HOME / "Desktop" / "x")


def _history(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / HISTORY
    path.write_text(
        "\n# aider chat started at 2025-03-09 10:00:00\n\n#### Rename the flag.\n\nRenamed.\n",
        encoding="utf-8",
    )
    return path


def _walked(reader: AiderReader, root: Path) -> set[str]:
    return {str(ref.path) for ref in reader.discover(root) if isinstance(ref, SessionRef)}


def test_the_walk_skips_guarded_folders_by_any_path(tmp_path: Path) -> None:
    """Real folders: nothing under ~/Documents or ~/Downloads, even through a symlink to them;
    a configured folder inside one is walked as its own root."""
    home = tmp_path / "home"
    outside = _history(home / "src" / "app")
    in_documents = _history(home / "Documents" / "thesis")
    in_downloads = _history(home / "Downloads" / "repo")
    (home / "src" / "docs").symlink_to(home / "Documents")
    code = _history(home / "Documents" / "code")
    everything = {str(outside), str(in_documents), str(in_downloads), str(code)}
    assert _walked(READER, home) >= everything  # a terminal walks everything
    fenced = configured_reader("darwin", True, None, home)
    assert _walked(fenced, home) == {str(outside)}
    chosen = configured_reader("darwin", True, [home, home / "Documents" / "code"], home)
    assert _walked(chosen, home) == {str(outside)}
    assert _walked(chosen, home / "Documents" / "code") == {str(code)}
    projects = [str(home / "Documents" / "thesis"), str(home / "Documents" / "code")]
    assert chosen.project_roots(projects) == (code,)


def test_settings_give_the_service_the_fenced_reader(tmp_path: Path) -> None:
    """``resolve_readers``: fenced under launchd on macOS, the plain reader elsewhere."""
    config = parse_config('[sources.aider]\nroots = ["~", "~/Downloads"]\n')
    home = tmp_path / "home"
    agent = resolve_readers(config, {"DREAMD_SERVICE": "launchd"}, home, "darwin")["aider"]
    assert isinstance(agent, AiderReader)
    assert agent.fence.skipped == {home / "Desktop", home / "Documents"}
    assert resolve_readers(config, {}, home, "darwin")["aider"] is READER
    assert resolve_readers(config, {"DREAMD_SERVICE": "launchd"}, home, "linux")["aider"] is READER
    assert load_settings(home=home, env={}).readers["aider"] is READER
