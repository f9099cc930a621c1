"""``dreamd setup``: what it detects, what it writes, and that a collect then uses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dreamd.collect.llm.detect import api_keys, local_servers, offers
from dreamd.collect.llm.setup import SETUP_TOKEN_CAP, updated_config
from dreamd.config import parse_config
from tests.collect.llm.fakeclis import install, received
from tests.collect.llm.fakeserver import FakeLLM
from tests.collect.test_collect_cli import PROMPTS, inbox, session
from tests.process import run_dreamd

RULE = PROMPTS[0]  # "Always run the linter before committing, from now on."


def config_file(home: Path) -> Path:
    return home / ".config" / "dreamd" / "config.toml"


def only_path(folder: Path) -> str:
    return f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_setup_yes_with_claude_on_path_writes_a_config_the_next_collect_uses(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Acceptance: ``setup --yes`` picks the fake ``claude``; ``collect`` calls it and plants."""
    folder = install(tmp_path / "bin", "claude")
    record = tmp_path / "record.jsonl"
    env = {"PATH": only_path(folder), "FAKE_CLI_RECORD": str(record), "FAKE_CLI_RULE": RULE}
    done = run_dreamd(isolated_home, "setup", "--yes", "--port", str(free_port()), **env)
    assert done.returncode == 0, done.stderr
    assert "claude CLI" in done.stdout and f"{SETUP_TOKEN_CAP}" in done.stdout
    config = parse_config(config_file(isolated_home).read_text())
    assert config.collect.extractor == "command"
    assert config.extractors.command.preset == "claude"
    assert config.collect.max_tokens_per_run == SETUP_TOKEN_CAP
    session(isolated_home, PROMPTS)
    collected = run_dreamd(isolated_home, "collect", "--json", **env)
    assert collected.returncode == 0, collected.stderr
    report = json.loads(collected.stdout)
    assert report["planted"]["topics"] >= 1 and report["tokens"] > 0
    assert {run["program"] for run in received(record)} == {"claude"}
    [planted] = inbox(isolated_home)
    assert planted.startswith("feedback_")


def test_setup_yes_keeps_an_existing_files_other_keys_and_comments(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Only the extractor's keys change; a comment and an unrelated table stay byte for byte."""
    path = config_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text('# my laptop\nmachine = "laptop"\n\n[dream]\nmode = "propose"  # review\n')
    folder = install(tmp_path / "bin", "codex")
    done = run_dreamd(
        isolated_home, "setup", "--yes", "--port", str(free_port()), PATH=only_path(folder)
    )
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    assert text.startswith(
        '# my laptop\nmachine = "laptop"\n\n[dream]\nmode = "propose"  # review\n'
    )
    config = parse_config(text)
    assert (config.machine, config.dream.mode) == ("laptop", "propose")
    assert config.extractors.command.preset == "codex"


def test_setup_asks_before_updating_an_existing_file(isolated_home: Path, tmp_path: Path) -> None:
    """Interactive: answering no to the update leaves the file untouched."""
    path = config_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text('machine = "laptop"\n')
    folder = install(tmp_path / "bin", "gemini")
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_"))},
        "HOME": str(isolated_home),
        "PATH": only_path(folder),
    }
    done = subprocess.run(
        [sys.executable, "-m", "dreamd", "setup", "--port", str(free_port())],
        input="1\n5000\nn\n", capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Update" in done.stdout and "Nothing written" in done.stdout
    assert path.read_text() == 'machine = "laptop"\n'


def test_setup_with_nothing_available_writes_nothing(isolated_home: Path, tmp_path: Path) -> None:
    """No CLI, server or key: the heuristic stays and no file appears."""
    empty = install(tmp_path / "bin")
    done = run_dreamd(
        isolated_home, "setup", "--yes", "--port", str(free_port()), PATH=only_path(empty)
    )
    assert done.returncode == 0 and "heuristic stays" in done.stdout
    assert not config_file(isolated_home).exists()


def test_a_local_server_is_found_with_its_model_and_context() -> None:
    """``/v1/models`` answers on the port: its first model; llama.cpp's ``/props`` context."""
    with FakeLLM() as server:
        server.models, server.context = ["qwen2.5-coder-7b", "other"], 16384
        port = int(server.url.rsplit(":", 1)[1])
        [offer] = local_servers({port: "llamacpp"})
    assert offer.extractor == "openai"
    assert offer.table == {
        "base_url": f"http://127.0.0.1:{port}/v1", "model": "qwen2.5-coder-7b",
        "api_key_env": "", "server": "llamacpp", "context_tokens": 16384,
    }  # fmt: skip
    assert local_servers({free_port(): "ollama"}) == []


def test_an_api_key_is_offered_by_its_variable_and_never_written() -> None:
    """The file names the variable; the key's value is nowhere in it."""
    secret = "sk-proj-" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6"
    [offer] = api_keys({"OPENAI_API_KEY": secret})
    text = updated_config(None, offer, 1000)
    assert 'api_key_env = "OPENAI_API_KEY"' in text and secret not in text
    assert parse_config(text).collect.extractor == "openai"


def test_a_signed_in_cli_is_preferred_to_a_server_and_a_key(tmp_path: Path) -> None:
    """Order of preference: CLI, local server, API key."""
    folder = install(tmp_path / "bin", "gemini")
    with FakeLLM() as server:
        port = int(server.url.rsplit(":", 1)[1])
        found = offers({"PATH": only_path(folder), "ANTHROPIC_API_KEY": "x"}, {port: "ollama"})
    assert [offer.kind for offer in found] == ["cli", "local", "api-key"]


def test_a_preset_replaces_a_command_line_in_the_file() -> None:
    """``preset`` and ``argv`` exclude each other: the old ``argv`` goes, the rest stays."""
    from dreamd.collect.llm.detect import Offer

    text = updated_config(
        '[extractors.command]\nargv = ["my-agent"]\ntimeout_seconds = 60.0\n',
        Offer("cli", "claude", "command", {"preset": "claude"}),
        500,
    )
    command = parse_config(text).extractors.command
    assert (command.preset, command.argv, command.timeout_seconds) == ("claude", [], 60.0)


@pytest.mark.parametrize("cap", [0, 1234])
def test_the_cap_written_is_the_one_chosen(cap: int) -> None:
    """``collect.max_tokens_per_run`` is what the user chose (0: no cap)."""
    from dreamd.collect.llm.detect import Offer

    text = updated_config(None, Offer("cli", "claude", "command", {"preset": "claude"}), cap)
    assert parse_config(text).collect.max_tokens_per_run == cap


def test_the_documented_extractor_examples_load() -> None:
    """Every TOML example of the collector page's "Extractors" section is a valid configuration."""
    page = (Path(__file__).parents[3] / "docs" / "collector.md").read_text()
    section = page.split("\n## Extractors\n", 1)[1].split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```toml\n")[1:]]
    assert len(blocks) >= 3
    for block in blocks:
        parse_config(block)
