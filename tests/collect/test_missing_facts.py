"""The facts stage runs only with a missing-facts list, kept beside the cursor (seed 002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamd.collect.missingfacts import (
    MissingFacts,
    fact_item_name,
    facts_for,
    load_missing_facts,
    save_missing_facts,
    still_missing,
)
from dreamd.errors import StateError
from tests.collect.llm.fakeclis import environment, install, received
from tests.collect.test_collect_cli import data, session
from tests.process import run_dreamd

LISTED = MissingFacts(
    projects={"/work/app": ("deploy target",), "/elsewhere": ("ci system",)},
    people={"the user": ("time zone",), "Ana": ("e-mail address",)},
)


def test_a_session_is_asked_for_its_projects_facts_and_every_persons() -> None:
    """Labels say whose fact it is; another project's facts are not asked."""
    assert facts_for(LISTED, "/work/app") == [
        "deploy target (this project)",
        "e-mail address (Ana)",
        "time zone (the user)",
    ]
    assert facts_for(LISTED, None) == ["e-mail address (Ana)", "time zone (the user)"]


def test_a_fact_a_store_holds_is_no_longer_asked() -> None:
    """Found once (an item of the facts stage's name is held), it leaves the questions."""
    wanted = ["time zone (the user)", "deploy target (this project)"]
    held = {fact_item_name("time zone (the user)"), "rule-something-abc123"}
    assert still_missing(wanted, held) == ["deploy target (this project)"]


def test_the_list_round_trips_and_a_missing_file_is_no_list(tmp_path: Path) -> None:
    """Saved atomically as JSON and read back; no file means an empty list."""
    path = tmp_path / "missing-facts.json"
    assert load_missing_facts(path).empty
    save_missing_facts(path, LISTED)
    assert load_missing_facts(path) == LISTED


def test_a_damaged_list_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """Not the expected shape: a StateError with the path, never a silent empty list."""
    path = tmp_path / "missing-facts.json"
    path.write_text('{"people": {"the user": "time zone"}}')
    with pytest.raises(StateError, match=r"missing-facts\.json: people"):
        load_missing_facts(path)


def test_facts_add_and_list_keep_the_list_beside_the_state(isolated_home: Path) -> None:
    """``dreamd facts add`` writes ``<data dir>/missing-facts.json``; ``list`` shows it."""
    added = run_dreamd(isolated_home, "facts", "add", "time zone")
    assert added.returncode == 0, added.stderr
    assert "time zone (the user)" in added.stdout
    run_dreamd(isolated_home, "facts", "add", "deploy target", "--project", "/work/app")
    listed = json.loads(run_dreamd(isolated_home, "facts", "list").stdout)
    assert listed["people"] == {"the user": ["time zone"]}
    assert listed["projects"] == {"/work/app": ["deploy target"]}
    assert Path(listed["path"]) == data(isolated_home) / "missing-facts.json"
    run_dreamd(isolated_home, "facts", "remove", "time zone")
    assert json.loads(run_dreamd(isolated_home, "facts", "list").stdout)["people"] == {}


PROMPTS = [
    "Please set the release script up; my time zone is Europe/Berlin so schedule it at 9.",
    "Also make the output quieter.",
    "Thanks, ship it.",
]


def collect(home: Path, tmp_path: Path, **env: str) -> dict[str, object]:
    config = tmp_path / "dreamd.toml"
    config.write_text(
        '[collect]\nextractor = "command"\nmax_tokens_per_run = 100000\n'
        '[extractors.command]\npreset = "claude"\n'
    )
    paths = environment(install(tmp_path / "bin", "claude"), tmp_path / "record.jsonl")
    done = run_dreamd(
        home, "collect", "--json", "--config", str(config),
        PATH=paths["PATH"], FAKE_CLI_RECORD=paths["FAKE_CLI_RECORD"], **env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def facts_requests(tmp_path: Path) -> list[str]:
    return [
        str(run["stdin"])
        for run in received(tmp_path / "record.jsonl")
        if '"facts"' in str(run["stdin"]).rsplit("and nothing else:", 1)[-1]
    ]


def test_without_a_list_the_facts_stage_never_runs(isolated_home: Path, tmp_path: Path) -> None:
    """Seed 002: no missing-facts list, no facts request at all."""
    session(isolated_home, PROMPTS)
    collect(isolated_home, tmp_path)
    assert received(tmp_path / "record.jsonl") and facts_requests(tmp_path) == []


def test_a_listed_fact_the_user_states_is_planted_and_not_asked_again(
    isolated_home: Path, tmp_path: Path
) -> None:
    """With "time zone" listed: the request lists it, the fact is planted, and the next
    session of the project is not asked for it again."""
    run_dreamd(isolated_home, "facts", "add", "time zone")
    session(isolated_home, PROMPTS)
    fact = "time zone (the user)=Europe/Berlin"
    first = collect(isolated_home, tmp_path, FAKE_CLI_FACT=fact)
    assert first["planted"]["facts"] >= 1  # type: ignore[index]
    [asked, *_] = facts_requests(tmp_path)
    assert "time zone (the user)" in asked.split("## Missing facts", 1)[1]
    (tmp_path / "record.jsonl").unlink()
    session(
        isolated_home,
        [*PROMPTS, "One more thing: keep it short."],
        sid="22222222-2222-4333-8444-555555555555",
    )
    collect(isolated_home, tmp_path, FAKE_CLI_FACT=fact)
    assert received(tmp_path / "record.jsonl") and facts_requests(tmp_path) == []
