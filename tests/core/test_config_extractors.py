"""Configuration of the LLM extractors and the per-run token cap: defaults and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamd.collect.llm.factory import build_backend
from dreamd.config import parse_config
from dreamd.errors import ConfigError


def test_defaults_need_no_extractor_table() -> None:
    """The heuristic needs nothing; no cap; the key variables are the SDKs' usual ones."""
    config = parse_config("")
    assert config.collect.max_tokens_per_run == 0
    assert config.extractors.openai.api_key_env == "OPENAI_API_KEY"
    assert config.extractors.anthropic.api_key_env == "ANTHROPIC_API_KEY"
    assert config.extractors.command.argv == []


def test_a_full_openai_table_parses() -> None:
    """Every documented key of an OpenAI-compatible server (here: Ollama, no key)."""
    config = parse_config(
        '[collect]\nextractor = "openai"\nmax_tokens_per_run = 200000\n'
        '[extractors.openai]\nbase_url = "http://127.0.0.1:11434/v1"\nmodel = "qwen3"\n'
        'api_key_env = ""\ntimeout_seconds = 90\nmax_retries = 1\nmax_output_tokens = 2048\n'
        "temperature = 0.0\n"
    )
    table = config.extractors.openai
    assert (table.model, table.api_key_env, table.timeout_seconds) == ("qwen3", "", 90.0)
    assert table.temperature == 0.0 and config.collect.max_tokens_per_run == 200000


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ('[collect]\nextractor = "openai"', "extractors.openai.model", "needs a model"),
        ('[collect]\nextractor = "anthropic"\n[extractors.anthropic]\nmodel = " "',
         "extractors.anthropic.model", "needs a model"),
        ('[collect]\nextractor = "command"', "extractors.command.argv", "needs a command line"),
        ('[collect]\nextractor = "command"\n[extractors.command]\nargv = [""]',
         "extractors.command.argv", "needs a command line"),
        ("[collect]\nmax_tokens_per_run = -1", "collect.max_tokens_per_run", "at least 0"),
        ("[extractors.openai]\ntimeout_seconds = 0", "extractors.openai.timeout_seconds",
         "above 0"),
        ("[extractors.anthropic]\nmax_output_tokens = 0",
         "extractors.anthropic.max_output_tokens", "at least 1"),
        ("[extractors.openai]\nmax_retries = -2", "extractors.openai.max_retries", "at least 0"),
        ('[extractors.openai]\napi_key_env = "sk-proj-abc123def456"',
         "extractors.openai.api_key_env", "must name an environment variable"),
        ("[extractors.openai]\nkey = 'x'", "extractors.openai.key", "unknown key"),
        ("[extractors.gemini]\nmodel = 'x'", "extractors.gemini", "unknown key"),
        ("[extractors.command]\nargv = 'claude -p'", "extractors.command.argv", "expected array"),
    ],
)  # fmt: skip
def test_errors_name_the_key(text: str, key: str, problem: str) -> None:
    """A missing setting of the chosen extractor, or a bad value, names its dotted key."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, Path("/etc/dreamd.toml"))
    assert caught.value.key == key
    assert problem in caught.value.problem


def test_an_unset_key_variable_is_named_without_its_value() -> None:
    """The variable is named; a key pasted in its place is not echoed back."""
    config = parse_config('[collect]\nextractor = "openai"\n[extractors.openai]\nmodel = "m"')
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set") as caught:
        build_backend(config, {}, None)
    assert caught.value.key == "extractors.openai.api_key_env"
    pasted = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    config = parse_config(
        f'[collect]\nextractor = "anthropic"\n[extractors.anthropic]\nmodel = "m"\n'
        f'api_key_env = "{pasted}"'
    )
    with pytest.raises(ConfigError) as caught:
        build_backend(config, {}, None)
    assert pasted not in str(caught.value)


def test_a_server_without_a_key_needs_no_variable() -> None:
    """``api_key_env = ""``: the backend is made with no key in the environment."""
    config = parse_config(
        '[collect]\nextractor = "openai"\n[extractors.openai]\nmodel = "m"\napi_key_env = ""\n'
        'base_url = "http://127.0.0.1:9/v1"'
    )
    backend = build_backend(config, {}, None)
    assert backend.name == "openai"
    backend.close()


def test_a_command_that_is_not_installed_is_a_config_error(tmp_path: Path) -> None:
    """``argv`` naming no program is reported, naming the key, before a run."""
    config = parse_config(
        f'[collect]\nextractor = "command"\n[extractors.command]\nargv = ["{tmp_path}/none"]'
    )
    with pytest.raises(ConfigError, match="no program") as caught:
        build_backend(config, {"PATH": "/usr/bin"}, None)
    assert caught.value.key == "extractors.command.argv"
