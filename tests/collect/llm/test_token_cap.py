"""`dreamd collect` with the openai extractor against the loopback server, end to end.

The per-run token cap stops a run between windows and the next run resumes where
it stopped; a window without a valid answer stays pending and is retried; a
missing key is a configuration error before anything runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from dreamd.collect.cursorstate import Window
from dreamd.collect.extraction import ExtractionRun, cap_reached
from dreamd.collect.pipeline import Window as ExtractWindow
from dreamd.collect.report import report_text
from dreamd.collect.signals import WindowPending
from dreamd.stores import MemoryItem
from tests.collect.llm.fakeserver import Answer, FakeLLM, Received, messages_in
from tests.collect.test_collect_cli import SID, inbox, session, sql_keys
from tests.collect.test_cursor import conversation
from tests.process import run_dreamd

KEY_ENV = "DREAMD_TEST_FAKE_LLM_KEY"
KEY = "loopback-key-0123456789"
#: 40 prompts and 40 answers: windows of 30, 30 and 20 messages, one rule in each.
PROMPTS = [
    f"From now on, always run check number {i} before a release." if i in (0, 15, 30)
    else f"Next step {i}, please."
    for i in range(40)
]  # fmt: skip


def write_config(folder: Path, server: FakeLLM, *, cap: int, key_env: str = KEY_ENV) -> Path:
    path = folder / "dreamd.toml"
    path.write_text(
        'machine = "box"\n'
        f'[collect]\nextractor = "openai"\nmax_tokens_per_run = {cap}\n'
        f'[extractors.openai]\nbase_url = "{server.url}/v1"\nmodel = "fake-model"\n'
        f'api_key_env = "{key_env}"\ntimeout_seconds = 10\nmax_retries = 0\n'
    )
    return path


def collect(home: Path, config: Path) -> dict[str, Any]:
    result = run_dreamd(home, "collect", "--json", "--config", str(config), **{KEY_ENV: KEY})
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def first_ids(requests: list[Received]) -> list[str]:
    """The first message id of every scan request: which window each one analysed."""
    return [messages_in(r.user)[0][0] for r in requests if r.stage == "topics_scan"]


def test_the_cap_stops_between_windows_and_the_next_run_resumes(
    isolated_home: Path, tmp_path: Path, server: FakeLLM
) -> None:
    """Cap 300, 360 tokens a window: one window per run, three runs, each rule planted once."""
    session(isolated_home, PROMPTS)
    config = write_config(tmp_path, server, cap=300)
    key = f"claude-code:{SID}"
    reports = [collect(isolated_home, config) for _ in range(3)]
    for report in reports[:2]:
        assert report["stopped"] == "token cap reached: 360 of 300 tokens used this run"
        assert report["cursor"]["partial"] == [key] and report["cursor"]["resolved"] == []
        assert report["windows"] == 1 and report["tokens_by_session"] == {key: 360}
    assert "Stopped early: token cap reached" in report_text(reports[0])
    assert reports[2]["stopped"] is None and reports[2]["cursor"]["resolved"] == [key]
    assert reports[2]["tokens_by_session"] == {key: 480}  # its window and the events scan
    scans = first_ids(server.received)
    assert len(scans) == 3 and len(set(scans)) == 3  # no window was analysed twice
    keys = sql_keys(isolated_home)
    assert len(keys) == 3 == len(set(keys)) == len(inbox(isolated_home))
    assert [r["planted"]["total"] for r in reports] == [2, 2, 2]  # one item, two stores
    assert collect(isolated_home, config)["selected"] == []
    assert all(request.headers["authorization"] == f"Bearer {KEY}" for request in server.received)


def test_without_a_cap_one_run_does_the_session(
    isolated_home: Path, tmp_path: Path, server: FakeLLM
) -> None:
    """Cap 0: every window and the events scan in one run; tokens reported for the session."""
    session(isolated_home, PROMPTS)
    report = collect(isolated_home, write_config(tmp_path, server, cap=0))
    assert report["windows"] == 3 and report["stopped"] is None
    assert report["planted"]["total"] == 6  # three items in two stores
    assert report["tokens"] == sum(sum((100, 20)) for _ in server.received)
    text = report_text(report)
    assert f"Tokens: {report['tokens']} (claude-code:{SID} {report['tokens']})" in text
    assert "Stopped early" not in text


def test_an_invalid_window_stays_pending_and_the_next_run_retries_it(
    isolated_home: Path, tmp_path: Path, server: FakeLLM
) -> None:
    """Two bad answers for the first window: it is reported, not planted; the rest goes on."""
    session(isolated_home, PROMPTS)
    config = write_config(tmp_path, server, cap=0)
    server.script = [Answer("not json"), Answer("still not json")]
    first = collect(isolated_home, config)
    key = f"claude-code:{SID}"
    [blocked] = first["backlog"]["blocked"]
    assert blocked.startswith(f"{key}: 30 messages left pending: topics_scan: no valid answer")
    assert first["cursor"]["partial"] == [key] and first["planted"]["total"] == 4
    second = collect(isolated_home, config)
    assert second["windows"] == 1 and second["planted"]["total"] == 2
    assert second["cursor"]["resolved"] == [key]
    assert len(set(sql_keys(isolated_home))) == 3


def test_a_missing_key_is_named_before_anything_runs(
    isolated_home: Path, tmp_path: Path, server: FakeLLM
) -> None:
    """The key's variable is unset: exit 1 naming the setting; no request, no run recorded."""
    session(isolated_home, PROMPTS)
    config = write_config(tmp_path, server, cap=0, key_env="DREAMD_TEST_UNSET_KEY")
    result = run_dreamd(isolated_home, "collect", "--config", str(config))
    assert result.returncode == 1
    assert "extractors.openai.api_key_env" in result.stderr
    assert "DREAMD_TEST_UNSET_KEY is not set" in result.stderr
    assert server.received == [] and sql_keys(isolated_home) == []


class Failing:
    """An extractor whose events stage never gets a valid answer."""

    name = "failing"
    tokens_used = 7

    def topics(self, window: ExtractWindow) -> list[MemoryItem]:
        return []

    def people(self, window: ExtractWindow) -> list[MemoryItem]:
        return []

    def events(self, session_windows: Sequence[ExtractWindow]) -> list[MemoryItem]:
        raise WindowPending("events: no valid answer after one retry (not JSON)")

    def facts(self, window: ExtractWindow, missing: Sequence[str]) -> list[MemoryItem]:
        return []


def test_the_cap_rule() -> None:
    """No cap at 0; otherwise no new window once the tokens spent reach the cap."""
    assert not cap_reached(10**9, 0)
    assert not cap_reached(99, 100) and cap_reached(100, 100) and cap_reached(101, 100)


def test_a_failed_events_scan_is_reported_not_raised() -> None:
    """The session's windows stand; the skipped events scan is said in the report."""
    run = ExtractionRun(Failing(), machine="box", collected=date(2026, 1, 1))
    talk = conversation(["hello there", "hi"])
    assert run.session(talk, [Window(talk.messages, "")]) == []
    assert run.pending == [
        "claude-code:s1: events scan skipped: events: no valid answer after one retry (not JSON)"
    ]
    assert run.tokens_by_session == {}  # it spent nothing (its count never moved)
