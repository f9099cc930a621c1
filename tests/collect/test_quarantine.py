"""A plan that cannot be saved or replayed is quarantined; the run goes on (issue 15 item 2).

In-process with a real catalog, state DB and transcript files (an extractor
that puts text the plan encoding rejects into one session's items: what a
reader would hand on if it let a lone surrogate through), and end to end with
`dreamd collect` and `dreamd status` over a plan file damaged after a crash.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from dreamd.catalog import Catalog
from dreamd.collect.collector import CollectRequest, CollectResult, collect
from dreamd.collect.cursorstate import Window
from dreamd.readers import READERS, Conversation
from dreamd.selection import SelectionPolicy
from dreamd.statedb import StateDB, open_state
from dreamd.stores import MemoryItem, Quote
from dreamd.stores.memory import MemoryStore
from tests.collect.test_collect_cli import PROMPTS, collect as collect_cli, data, session, sql_keys
from tests.process import run_dreamd

CHAT = PROMPTS[1:]  # no rule of its own
BAD = "00000000-2222-4333-8444-555555555555"  # sorts ahead of the healthy ones
HEALTHY = ["11111111-2222-4333-8444-555555555555", "22222222-2222-4333-8444-555555555555"]
#: A lone high surrogate: what a JavaScript program writes when it cuts a string in an emoji.
SURROGATE = "\ud83d"


def rules(conversation: Conversation, window: Window, _missing: Sequence[str]) -> list[MemoryItem]:
    """One item per user prompt that states a rule; a prompt saying BROKEN gets a surrogate."""
    source = f"source:{conversation.tool}:box:{conversation.session_id}"
    items = []
    for message in window.messages:
        if message.role != "user" or not message.text.startswith("Always"):
            continue
        body = message.text + (SURROGATE if "BROKEN" in message.text else "")
        items.append(
            MemoryItem(
                type="feedback", category="Rule", name=message.text[:40], description="a rule",
                body=body, confidence=0.9, source=source, collected=date(2026, 12, 2),
                quotes=(Quote(f"{source.removeprefix('source:')}:{message.id}", message.text),),
            )
        )  # fmt: skip
    return items


def run_once(home: Path, state: StateDB, plans: Path, store: MemoryStore) -> CollectResult:
    catalog = Catalog(state, {"claude-code": READERS["claude-code"].default_roots({}, home)})
    request = CollectRequest(
        machine="box", now=datetime.now(UTC), run_id="r", policy=SelectionPolicy()
    )
    return collect(
        request,
        state=state,
        catalog=catalog,
        plans_dir=plans,
        extract=rules,
        filter_item=lambda item: (item, 0),
        stores_for=lambda conversation: {"mem": store},
    )


def test_an_unsaveable_plan_is_quarantined_and_the_sessions_behind_it_are_collected(
    isolated_home: Path, tmp_path: Path
) -> None:
    session(isolated_home, ["Always keep it BROKEN, from now on.", *CHAT], sid=BAD)
    for sid in HEALTHY:
        session(isolated_home, ["Always run the linter first.", *CHAT], sid=sid)
    state, store = open_state(tmp_path / "state.db"), MemoryStore()
    first = run_once(isolated_home, state, tmp_path / "plans", store)
    assert first.resolved == [f"claude-code:{sid}" for sid in HEALTHY]
    (blocked,) = first.blocked
    assert blocked.startswith(f"claude-code:{BAD}: unresolved: quarantined plan ")
    (plan,) = state.quarantined_plans()
    assert (plan.session, plan.stage) == (f"claude-code:{BAD}", "save")
    assert "surrogates not allowed" in plan.reason
    assert len(store.items) == 2 and not any(SURROGATE in i.body for i in store.items.values())
    # The next run does not spend its budget on the same text again; a new session is taken.
    session(isolated_home, ["Always write the tests first.", *CHAT], sid="3" * 8 + BAD[8:])
    second = run_once(isolated_home, state, tmp_path / "plans", store)
    assert second.selection is not None
    assert [d.session.session_id for d in second.selection.selected] == ["3" * 8 + BAD[8:]]
    held = {d.session.session_id: d for d in second.selection.decisions}[BAD]
    assert held.status == "held" and plan.plan_id in held.reason
    assert len(store.items) == 3
    # Once the session changes it is tried again, and collected.
    session(isolated_home, ["Always keep it working, from now on.", *CHAT], sid=BAD)
    third = run_once(isolated_home, state, tmp_path / "plans", store)
    assert third.resolved == [f"claude-code:{BAD}"] and len(store.items) == 4


def test_a_plan_that_cannot_be_replayed_is_quarantined_and_shown_by_status(
    isolated_home: Path,
) -> None:
    """Killed after the intent, the plan file damaged: the rerun sets it aside with its
    reason, collects the healthy sessions, and the next run analyses the window again."""
    session(isolated_home, PROMPTS, sid=BAD)
    killed = collect_cli(isolated_home, DREAMD_TEST_CRASH_AT="3")  # intent saved, nothing written
    assert killed.returncode == -9
    (plan_file,) = (data(isolated_home) / "plans").glob("*.json")
    plan_file.write_text('{"plan_id": "truncated')
    for sid in HEALTHY:
        session(isolated_home, PROMPTS, sid=sid)
    result = collect_cli(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["cursor"]["resolved"] == [f"claude-code:{sid}" for sid in HEALTHY]
    (quarantined,) = report["quarantined"]
    assert quarantined["plan_id"] == plan_file.stem and quarantined["stage"] == "replay"
    assert any(b.startswith(f"claude-code:{BAD}: unresolved:") for b in report["backlog"]["blocked"])
    status = run_dreamd(isolated_home, "status")
    assert f"quarantined plans: 1\n  claude-code:{BAD} (plan {plan_file.stem}" in status.stdout
    assert "could not be replayed" in status.stdout and "DecodeError" in status.stdout
    document = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert [q["plan_id"] for q in document["quarantined_plans"]] == [plan_file.stem]
    assert document["pending_plans"] == []
    again = json.loads(collect_cli(isolated_home, "--json").stdout)
    assert again["selected"] == [f"claude-code:{BAD}"]
    assert again["cursor"]["resolved"] == [f"claude-code:{BAD}"]
    assert len(sql_keys(isolated_home)) == len(set(sql_keys(isolated_home))) == 9


def test_a_lone_surrogate_in_a_transcript_never_jams_the_collector(isolated_home: Path) -> None:
    """Whether the reader repairs the text or the plan is quarantined, the healthy sessions
    are collected and nothing ends in an internal error."""
    path = session(isolated_home, PROMPTS, sid=BAD)
    text = path.read_text().replace("Always run the linter", "Always run the linter \\ud83d")
    stamp = path.stat().st_mtime
    path.write_text(text)
    os.utime(path, (stamp, stamp))
    for sid in HEALTHY:
        session(isolated_home, PROMPTS, sid=sid)
    for _ in range(2):
        result = collect_cli(isolated_home, "--json")
        assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    sessions = cursor["collectorV2"]["sources"]["claude-code"]["sessions"]
    assert all(sessions[sid]["status"] == "resolved" for sid in HEALTHY)
    if sessions[BAD]["status"] != "resolved":
        status = run_dreamd(isolated_home, "status").stdout
        assert f"claude-code:{BAD} (plan " in status and "could not be saved" in status
        assert report["selected"] == []
