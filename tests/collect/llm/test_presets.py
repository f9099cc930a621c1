"""The ``command`` presets against fake ``claude``, ``codex`` and ``gemini`` executables."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamd.collect.llm import LlmExtractor, build_extractor
from dreamd.collect.llm.presets import GEMINI_INSTRUCTION, preset_argv
from dreamd.collect.signals import StopCollecting
from dreamd.config import parse_config
from dreamd.errors import ConfigError
from tests.collect.llm.answers import window
from tests.collect.llm.fakeclis import environment, install, received


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A folder holding the three fake CLIs."""
    return install(tmp_path / "bin", "claude", "codex", "gemini")


def extractor(
    bin_dir: Path, tmp_path: Path, preset: str, extra: str = "", **env: str
) -> LlmExtractor:
    config = parse_config(
        f'[collect]\nextractor = "command"\n[extractors.command]\npreset = "{preset}"\n{extra}'
    )
    return build_extractor(config, environment(bin_dir, tmp_path / "record.jsonl", **env))


def test_the_claude_preset_asks_for_one_json_answer_without_tools_or_session(
    bin_dir: Path, tmp_path: Path
) -> None:
    """``claude -p --output-format json`` with no session saved, no tools, no MCP, one turn."""
    extractor(bin_dir, tmp_path, "claude").people(window("Ask the team.", "Sure."))
    [run] = received(tmp_path / "record.jsonl")
    assert run["argv"] == [
        "-p", "--output-format", "json", "--no-session-persistence",
        "--tools", "", "--strict-mcp-config", "--max-turns", "1",
    ]  # fmt: skip
    assert "Most Recent Messages" in str(run["stdin"])


def test_the_claude_result_object_gives_answer_and_usage(bin_dir: Path, tmp_path: Path) -> None:
    """The answer is ``result``; tokens are input, cache and output as Claude reported them."""
    model = extractor(bin_dir, tmp_path, "claude")
    assert model.people(window("Ask the team.", "Sure.")) == []
    assert model.tokens_used == 30 + 2 + 8 + 5


def test_the_codex_preset_runs_exec_ephemeral_read_only_from_stdin(
    bin_dir: Path, tmp_path: Path
) -> None:
    """``codex exec --json --ephemeral --sandbox read-only -``: the prompt comes on stdin."""
    extractor(bin_dir, tmp_path, "codex").people(window("Ask the team.", "Sure."))
    [run] = received(tmp_path / "record.jsonl")
    assert run["argv"] == [
        "exec", "--json", "--ephemeral", "--skip-git-repo-check",
        "--sandbox", "read-only", "--color", "never", "-",
    ]  # fmt: skip
    assert "Most Recent Messages" in str(run["stdin"])


def test_the_codex_events_give_the_last_agent_message_and_usage(
    bin_dir: Path, tmp_path: Path
) -> None:
    """The answer is the ``agent_message`` item; tokens from ``turn.completed``."""
    model = extractor(bin_dir, tmp_path, "codex")
    assert model.people(window("Ask the team.", "Sure.")) == []
    assert model.tokens_used == 40 + 6


def test_the_gemini_preset_is_headless_json_without_extensions(
    bin_dir: Path, tmp_path: Path
) -> None:
    """``gemini --output-format json --extensions none -p <instruction>``, prompt on stdin."""
    extractor(bin_dir, tmp_path, "gemini").people(window("Ask the team.", "Sure."))
    [run] = received(tmp_path / "record.jsonl")
    assert run["argv"] == ["--output-format", "json", "--extensions", "none", "-p",
                           GEMINI_INSTRUCTION]  # fmt: skip
    assert "Most Recent Messages" in str(run["stdin"])


def test_the_gemini_object_gives_response_and_usage(bin_dir: Path, tmp_path: Path) -> None:
    """The answer is ``response``; tokens are prompt, candidates and thoughts per model."""
    model = extractor(bin_dir, tmp_path, "gemini")
    assert model.people(window("Ask the team.", "Sure.")) == []
    assert model.tokens_used == 50 + 4 + 3


@pytest.mark.parametrize("preset", ["claude", "codex", "gemini"])
def test_a_failure_the_cli_reports_stops_the_run(
    bin_dir: Path, tmp_path: Path, preset: str
) -> None:
    """``is_error``, ``turn.failed`` or ``error``: the run stops; it is never an empty answer."""
    model = extractor(bin_dir, tmp_path, preset, FAKE_CLI_MODE="error")
    with pytest.raises(StopCollecting, match="reported an error"):
        model.people(window("Ask the team.", "Sure."))


@pytest.mark.parametrize("preset", ["claude", "codex", "gemini"])
def test_a_preset_runs_in_a_marked_folder(bin_dir: Path, tmp_path: Path, preset: str) -> None:
    """Every preset's run starts in dreamd's own-run folder, so its traces are never collected."""
    extractor(bin_dir, tmp_path, preset).people(window("Ask the team.", "Sure."))
    [run] = received(tmp_path / "record.jsonl")
    assert Path(str(run["cwd"])).name.startswith("dreamd-extract-")


def test_a_rule_comes_back_through_a_preset(bin_dir: Path, tmp_path: Path) -> None:
    """Scan and update through ``claude``: one Rule with a verified quote."""
    rule = "Always run the linter before committing."
    model = extractor(bin_dir, tmp_path, "claude", FAKE_CLI_RULE=rule)
    [item] = model.topics(window(rule, "Noted."))
    assert item.category == "Rule" and item.quotes[0].text == rule


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("claude", ["claude", "--model", "haiku", "-p"]),
        ("codex", ["codex", "exec", "--model", "gpt-5-mini", "--json"]),
        ("gemini", ["gemini", "--model", "flash", "--output-format"]),
    ],
)
def test_a_model_is_passed_where_each_cli_takes_it(preset: str, expected: list[str]) -> None:
    """``model`` adds ``--model`` after the program (after ``exec`` for Codex)."""
    model = {"claude": "haiku", "codex": "gpt-5-mini", "gemini": "flash"}[preset]
    assert preset_argv(preset, model)[: len(expected)] == expected  # type: ignore[arg-type]


def test_a_preset_whose_cli_is_not_installed_names_the_setting(tmp_path: Path) -> None:
    """No ``gemini`` on PATH: a configuration error naming ``extractors.command.preset``."""
    empty = install(tmp_path / "empty")
    config = parse_config(
        '[collect]\nextractor = "command"\n[extractors.command]\npreset = "gemini"\n'
    )
    with pytest.raises(ConfigError, match=r"extractors\.command\.preset.*no program 'gemini'"):
        build_extractor(config, environment(empty, tmp_path / "record.jsonl"))


def test_a_preset_and_a_command_line_together_are_refused() -> None:
    """One or the other: both set is a configuration error."""
    with pytest.raises(ConfigError, match="preset or argv, not both"):
        parse_config('[extractors.command]\npreset = "claude"\nargv = ["claude", "-p"]\n')
