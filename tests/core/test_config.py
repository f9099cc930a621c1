"""Configuration: defaults, environment, and errors that name the bad key."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamd.config import load_settings, parse_config
from dreamd.errors import ConfigError
from dreamd.readers import READERS


def test_empty_file_gives_documented_defaults() -> None:
    """Every key is optional and defaults to the documented value."""
    config = parse_config("")
    # unset: the extractor's budget decides (dreamd.collect.budget; tested in test_budget)
    assert (config.collect.budget_sessions, config.collect.budget_messages) == (None, None)
    assert config.collect.time_budget_seconds is None and config.service.collect_on_quiet is None
    assert (config.collect.window_messages, config.collect.live_guard_minutes) == (30, 30)
    assert config.collect.schedule == "30 2 * * *"
    assert config.dream.schedule == "30 3 * * *"
    assert config.dream.index_budget_bytes == 17408
    assert config.collect.stores == ["claude-memory", "sql"]


def test_documented_example_parses() -> None:
    """The full example of docs/configuration.md (its first TOML block) is valid."""
    page = (Path(__file__).parents[2] / "docs" / "configuration.md").read_text()
    block = page.split("```toml\n", 1)[1].split("```", 1)[0]
    config = parse_config(block)
    assert config.machine == "laptop"
    assert config.service.watch is True and config.mcp.allow_remember is False


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[collect]\nbudget_sessions = 'three'", "collect.budget_sessions", "expected int"),
        ("[collect]\nbudget = 3", "collect.budget", "unknown key"),
        ("[collect]\nwindow_messages = 50", "collect.window_messages", "between 20 and 40"),
        ("[collect]\nbudget_sessions = 0", "collect.budget_sessions", "at least 1"),
        ("[collect]\nextractor = 'gpt'", "collect.extractor", "not an allowed value"),
        ("[sources.claude-code]\nenabled = 'yes'", "sources.claude-code.enabled", "expected bool"),
        ("[sources.vim]\nenabled = true", "sources.vim", "unknown tool"),
        ("[sources.pi]\nroot = 'a'\nroots = ['b']", "sources.pi", "not both"),
        ("[dream]\nroots = [1]", "dream.roots[0]", "expected str"),
        ("machine = 3", "machine", "expected str"),
        ("colect = 1", "colect", "unknown key"),
    ],
)
def test_errors_name_the_key(text: str, key: str, problem: str) -> None:
    """A bad value is reported with its dotted key and what is wrong."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, Path("/etc/dreamd.toml"))
    assert caught.value.key == key
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"/etc/dreamd.toml: {key}: ")


def test_invalid_toml_names_line() -> None:
    """A syntax error names the file and the line."""
    with pytest.raises(ConfigError, match=r"cfg.toml: not valid TOML: .*line 2"):
        parse_config("[collect]\nbudget_sessions = = 3\n", Path("cfg.toml"))


def test_named_missing_file_is_an_error(tmp_path: Path) -> None:
    """A config file named explicitly must exist; the default one need not."""
    with pytest.raises(ConfigError, match="file not found"):
        load_settings(tmp_path / "missing.toml")
    assert load_settings().config.collect.budget_sessions is None


def test_dreamd_config_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DREAMD_CONFIG points at the file to use."""
    path = tmp_path / "c.toml"
    path.write_text("machine = 'box'\n[collect]\nbudget_sessions = 7\n")
    monkeypatch.setenv("DREAMD_CONFIG", str(path))
    settings = load_settings()
    assert (settings.machine, settings.config.collect.budget_sessions) == ("box", 7)
    assert settings.config_path == path


def test_xdg_locations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    """Config comes from XDG_CONFIG_HOME and state goes to XDG_DATA_HOME."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "cfg" / "dreamd").mkdir(parents=True)
    (tmp_path / "cfg" / "dreamd" / "config.toml").write_text("machine = 'xdg'\n")
    settings = load_settings()
    assert settings.machine == "xdg"
    assert settings.state_db == tmp_path / "data" / "dreamd" / "state.db"


def test_source_roots_configured_disabled_and_defaulted(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A configured root replaces the default, '~' means HOME, a disabled source has none."""
    path = tmp_path / "c.toml"
    path.write_text(
        "[sources.claude-code]\nroot = '~/elsewhere'\n"
        "[sources.codex]\nenabled = false\n"
        "[sources.pi]\nroots = ['/a', '/b']\n"
    )
    roots = load_settings(path, home=isolated_home).source_roots
    assert roots["claude-code"] == (isolated_home / "elsewhere",)
    assert "codex" not in roots
    assert roots["pi"] == (Path("/a"), Path("/b"))
    assert set(roots) == set(READERS) - {"codex"}
