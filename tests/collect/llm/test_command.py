"""The ``command`` extractor against a real executable: a small agent CLI the test writes."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.backend import BackendRefused
from dreamd.collect.llm.command import CommandBackend, read_answer, without_persistence
from dreamd.collect.signals import StopCollecting
from tests.collect.llm.answers import window
from tests.collect.test_collect_cli import PROMPTS, session
from tests.process import run_dreamd

#: The fake CLI: reads the prompt, records what it saw, answers "nothing found" as told.
CLI = """#!{python}
import json, os, subprocess, sys, time, uuid
from pathlib import Path

prompt = sys.stdin.read()
mode = os.environ.get("FAKE_CLI_MODE", "plain")
record = {{"argv": sys.argv, "cwd": os.getcwd(), "prompt": prompt}}
if mode == "sleep":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    record["child"] = child.pid
with open(os.environ["FAKE_CLI_RECORD"], "a") as out:
    out.write(json.dumps(record) + "\\n")
if mode == "sleep":
    time.sleep(120)
if mode == "fail":
    token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
    sys.stderr.write("not logged in; GITHUB_TOKEN=" + token + "\\n")
    sys.exit(3)
schema = json.loads(prompt.rsplit("and nothing else:\\n", 1)[1])
answer = json.dumps({{next(iter(schema["properties"])): []}})
if mode == "persist":  # a CLI that saves its run as a session anyway, like an agent would
    folder = Path(os.environ["HOME"], ".claude", "projects", os.getcwd().replace("/", "-"))
    folder.mkdir(parents=True, exist_ok=True)
    sid = str(uuid.uuid4())
    lines = []
    for i in range(3):
        for role in ("user", "assistant"):
            lines.append(json.dumps({{
                "type": role, "uuid": f"{{role}}{{i}}", "sessionId": sid, "cwd": os.getcwd(),
                "isSidechain": False, "timestamp": "2026-01-01T00:0{{i}}:00.000Z",
                "message": {{"role": role, "content": "From now on always extract " + role}},
            }}))
    path = folder / f"{{sid}}.jsonl"
    path.write_text("\\n".join(lines) + "\\n")
    os.utime(path, (time.time() - 7200, time.time() - 7200))
if mode in ("envelope", "error"):
    answer = json.dumps({{"type": "result", "is_error": mode == "error", "result": answer,
                          "usage": {{"input_tokens": 11, "cache_read_input_tokens": 5,
                                     "output_tokens": 7}}}})
print(answer)
"""


@pytest.fixture
def cli(tmp_path: Path) -> Path:
    """The fake CLI, installed as ``claude`` in a bin folder of its own."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "claude"
    program.write_text(CLI.format(python=sys.executable))
    program.chmod(0o755)
    return program


def records(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "cli-record.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def backend(cli: Path, tmp_path: Path, mode: str, timeout: float = 30.0) -> CommandBackend:
    env = {
        **os.environ,
        "FAKE_CLI_MODE": mode,
        "FAKE_CLI_RECORD": str(tmp_path / "cli-record.jsonl"),
    }
    return CommandBackend([str(cli), "-p", "--output-format", "json"], timeout=timeout, env=env)


def test_the_cli_reads_the_prompt_and_answers_on_stdout(cli: Path, tmp_path: Path) -> None:
    """Prompt with rules and schema on stdin; the plain JSON answer is read; tokens estimated."""
    model = LlmExtractor(backend(cli, tmp_path, "plain"))
    assert model.people(window("Ask the team about it.", "Sure.")) == []
    [seen] = records(tmp_path)
    prompt = str(seen["prompt"])
    assert "Most Recent Messages" in prompt and '"people"' in prompt and "Quotes" in prompt
    assert model.tokens_used > len(prompt) // 4


def test_it_runs_in_a_marked_temporary_folder_without_persistence(
    cli: Path, tmp_path: Path
) -> None:
    """The CLI's folder carries the own-run marker and is gone after; persistence is off."""
    LlmExtractor(backend(cli, tmp_path, "plain")).people(window("Fix it.", "Done."))
    [seen] = records(tmp_path)
    folder = Path(str(seen["cwd"]))
    assert folder.name.startswith("dreamd-extract-") and not folder.exists()
    assert seen["argv"][1:3] == ["--no-session-persistence", "-p"]  # type: ignore[index]


def test_a_result_envelope_gives_the_answer_and_the_usage(cli: Path, tmp_path: Path) -> None:
    """``{"result": ..., "usage": ...}``: the answer inside, tokens as the CLI reported them."""
    model = LlmExtractor(backend(cli, tmp_path, "envelope"))
    assert model.people(window("Fix it.", "Done.")) == []
    assert model.tokens_used == 11 + 5 + 7


def test_a_cli_reporting_an_error_stops_the_run(cli: Path, tmp_path: Path) -> None:
    """An envelope with ``is_error``: the run stops, it does not count as an empty answer."""
    with pytest.raises(StopCollecting, match="reported an error"):
        LlmExtractor(backend(cli, tmp_path, "error")).people(window("Fix it.", "Done."))


def test_a_failing_cli_stops_the_run_and_its_stderr_is_redacted(cli: Path, tmp_path: Path) -> None:
    """A non-zero exit stops the run; a credential on its stderr is not repeated."""
    with pytest.raises(StopCollecting, match="status 3") as caught:
        LlmExtractor(backend(cli, tmp_path, "fail")).people(window("Fix it.", "Done."))
    assert "Ab1Cd2" not in str(caught.value) and "REDACTED" in str(caught.value)


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_a_hanging_cli_is_killed_with_everything_it_started(cli: Path, tmp_path: Path) -> None:
    """At the timeout the whole process group is killed and the run stops."""
    with pytest.raises(StopCollecting, match="no answer within"):
        LlmExtractor(backend(cli, tmp_path, "sleep", timeout=2)).people(window("Fix.", "Ok."))
    [seen] = records(tmp_path)
    child = int(str(seen["child"]))
    for _ in range(100):  # the kernel reaps asynchronously; poll instead of sleeping blind
        if _gone(child):
            break
        time.sleep(0.05)
    assert _gone(child)


def test_a_missing_program_is_refused_before_any_run(tmp_path: Path) -> None:
    """A command line naming no program is a configuration problem, said at once."""
    with pytest.raises(BackendRefused, match="no program"):
        CommandBackend([str(tmp_path / "nope")], timeout=5, env=os.environ)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["claude", "-p"], ["claude", "--no-session-persistence", "-p"]),
        (["/usr/bin/claude", "-p", "--no-session-persistence"],
         ["/usr/bin/claude", "-p", "--no-session-persistence"]),
        (["codex", "exec", "-"], ["codex", "exec", "--ephemeral", "-"]),
        (["codex", "login"], ["codex", "login"]),
        (["my-agent", "--json"], ["my-agent", "--json"]),
    ],
)  # fmt: skip
def test_persistence_is_turned_off_where_dreamd_knows_how(
    argv: list[str], expected: list[str]
) -> None:
    """Claude Code and Codex get their switch once; other programs are left as configured."""
    assert without_persistence(argv) == expected


def test_structured_output_in_an_envelope_wins() -> None:
    """A CLI that enforced the schema itself puts the object in ``structured_output``."""
    reply = read_answer('{"result": "ok", "structured_output": {"facts": []}}', "prompt")
    assert json.loads(reply.text) == {"facts": []}
    plain = read_answer('{"facts": []}', "x" * 40)
    assert (plain.text, plain.input_tokens) == ('{"facts": []}', 10)


def test_a_collect_run_never_collects_the_clis_own_session(
    cli: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """`dreamd collect` with the command extractor; the CLI's saved run is skipped next time."""
    session(isolated_home, PROMPTS)
    config = tmp_path / "dreamd.toml"
    config.write_text(
        f'machine = "box"\n[collect]\nextractor = "command"\n'
        f'[extractors.command]\nargv = [{json.dumps(str(cli))}, "-p"]\n'
    )
    env = {"FAKE_CLI_MODE": "persist", "FAKE_CLI_RECORD": str(tmp_path / "cli-record.jsonl")}
    first = run_dreamd(isolated_home, "collect", "--json", "--config", str(config), **env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["selected"] == [
        "claude-code:11111111-2222-4333-8444-555555555555"
    ]
    saved = list((isolated_home / ".claude" / "projects").glob("*dreamd-extract-*/*.jsonl"))
    assert saved  # the CLI did leave sessions behind
    second = json.loads(
        run_dreamd(isolated_home, "collect", "--json", "--config", str(config), **env).stdout
    )
    assert second["selected"] == []
    assert len(second["cursor"]["skipped_trivial"]) == len(saved)
