"""The match step compares new finds with the memories the target stores already hold for the
project, so a restated rule updates its memory instead of adding a second one."""

from __future__ import annotations

import json
from pathlib import Path

from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.openai_backend import OpenAIBackend
from dreamd.stores import KnownMemory
from tests.collect.llm.answers import remembering, window
from tests.collect.llm.fakeclis import environment, install, received
from tests.collect.llm.fakeserver import Answer, FakeLLM, Received
from tests.collect.test_collect_cli import PROMPTS, inbox, session
from tests.process import run_dreamd

RULE = "From now on, always run the linter before committing."
STORED = KnownMemory(
    name="Lint before committing",
    type="feedback",
    category="",
    description="run ruff first",
    body="Run ruff before every commit.",
    source=None,
    pending=False,
)


def extractor(server: FakeLLM) -> LlmExtractor:
    backend = OpenAIBackend(
        model="m", base_url=f"{server.url}/v1", api_key=None, timeout=5, max_retries=0
    )
    return LlmExtractor(backend, max_output_tokens=256)


def matching(name: str) -> object:
    """``remembering``, but the match step says every candidate is about ``name``."""

    def respond(request: Received) -> Answer:
        answer = remembering(request)
        assert isinstance(answer, Answer)
        if request.stage == "topics_match":
            matches = json.loads(answer.content)["matches"]
            return Answer(json.dumps({"matches": [{**m, "existing": name} for m in matches]}))
        return answer

    return respond


def test_the_match_step_is_shown_the_projects_stored_memories(server: FakeLLM) -> None:
    """With stored memories known, the first window's candidates are matched against them."""
    model = extractor(server)
    model.know("source:claude-code:box:s-1", [STORED])
    model.topics(window(RULE, "Noted."))
    assert server.stages() == ["topics_scan", "topics_match", "topics_update"]
    match = next(r for r in server.received if r.stage == "topics_match")
    assert "Lint before committing" in match.user and "run ruff first" in match.user


def test_a_restated_rule_takes_the_stored_memorys_name_and_type(server: FakeLLM) -> None:
    """Matched to a memory of another session: the item is planted under that memory's name."""
    server.respond = matching(STORED.name)  # type: ignore[assignment]
    model = extractor(server)
    model.know("source:claude-code:box:s-1", [STORED])
    [item] = model.topics(window(RULE, "Noted."))
    assert (item.name, item.type, item.category) == (STORED.name, "feedback", "Rule")
    update = next(r for r in server.received if r.stage == "topics_update")
    assert "Run ruff before every commit." in update.user  # the update step saw its body


def test_this_sessions_own_stored_items_are_not_shown_twice(server: FakeLLM) -> None:
    """A stored item of the same session is left to the write plan's own matching."""
    model = extractor(server)
    own = KnownMemory("x", "feedback", "Rule", "d", "b", "source:claude-code:box:s-1", True)
    model.know("source:claude-code:box:s-1", [own])
    model.topics(window(RULE, "Noted."))
    assert "topics_match" not in server.stages()


def test_collect_then_dream_merges_a_restated_rule_into_the_stored_memory(
    isolated_home: Path, tmp_path: Path
) -> None:
    """End to end: the agent's own memory is matched, the find is planted under its name, and
    the dream's validate gate merges it into that memory: still one memory file."""
    session(isolated_home, PROMPTS)
    folder = isolated_home / ".claude" / "projects" / "-work-app" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [Lint before committing](feedback_lint.md)\n")
    (folder / "feedback_lint.md").write_text(
        "---\nname: Lint before committing\ndescription: run the linter first\n"
        "type: feedback\n---\nRun the linter before committing.\n"
    )
    bin_dir = install(tmp_path / "bin", "claude")
    env = environment(bin_dir, tmp_path / "record.jsonl")
    config = tmp_path / "dreamd.toml"
    config.write_text(
        '[collect]\nextractor = "command"\nmax_tokens_per_run = 100000\n'
        'stores = ["claude-memory"]\n[extractors.command]\npreset = "claude"\n'
    )
    paths = {"PATH": env["PATH"], "FAKE_CLI_RECORD": env["FAKE_CLI_RECORD"]}
    extra = {"FAKE_CLI_RULE": PROMPTS[0], "FAKE_CLI_MATCH": "Lint before committing"}
    done = run_dreamd(isolated_home, "collect", "--config", str(config), **paths, **extra)
    assert done.returncode == 0, done.stderr
    [planted] = inbox(isolated_home)
    assert "name: Lint before committing" in (folder / ".inbox" / planted).read_text()
    prompts = [str(run["stdin"]) for run in received(tmp_path / "record.jsonl")]
    assert any("## Existing items" in p and "Lint before committing" in p for p in prompts)
    dreamed = run_dreamd(isolated_home, "dream", "--config", str(config), "--json", **paths)
    assert dreamed.returncode == 0, dreamed.stderr
    topic_files = sorted(p.name for p in folder.glob("*.md") if p.name != "MEMORY.md")
    assert topic_files == ["feedback_lint.md"] and inbox(isolated_home) == []
    assert PROMPTS[0] in (folder / "feedback_lint.md").read_text()  # the restatement, merged
