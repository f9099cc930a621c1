"""Claude Code rewinds: the branch holding the latest leaf is the conversation (issue 15, 12c).

A person who rewinds and types again leaves the old prompt and its answer in
the file as a second child of an earlier record. Only forks where two or
more branches start with a typed prompt are rewinds; parallel tool calls and
progress records fork too and are kept. Broken chains (a missing parent, a
second root, a loop) fall back to file order and lose nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.readers.test_claude_code import (
    ABANDONED,
    _main_fixtures,
    _raw_records,
    a_turn,
    assistant,
    read,
    read_records,
    system,
    text,
    texts,
    tool_result,
    tool_use,
    user,
    write_session,
)


def linked(records: list[dict[str, Any]], parents: dict[str, str | None]) -> list[dict[str, Any]]:
    """``records`` with the ``parentUuid`` each uuid is given (others keep theirs)."""
    return [r | {"parentUuid": parents[r["uuid"]]} if r["uuid"] in parents else r for r in records]


def chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record the child of the one before it."""
    previous: str | None = None
    out = []
    for record in records:
        out.append(record | {"parentUuid": previous})
        previous = record["uuid"]
    return out


def rewound() -> list[dict[str, Any]]:
    """u1 a1, then u2 a2 (abandoned), then u3 a3 typed again from a1."""
    first = chain([*a_turn(1), *a_turn(2)])
    again = linked(a_turn(3), {"u3": "a1", "a3": "u3"})
    return [*first, *again]


# ------------------------------------------------------------------ the rule


def test_a_rewound_prompt_and_its_answer_are_not_the_conversation(isolated_home: Path) -> None:
    """The replaced prompt and the reply to it are dropped; the new branch stays."""
    conversation = read_records(isolated_home, rewound())
    assert texts(conversation) == [
        "prompt number 1",
        "reply number 1",
        "prompt number 3",
        "reply number 3",
    ]


def test_the_branch_of_the_latest_leaf_wins(isolated_home: Path) -> None:
    """Whichever branch holds the last conversation record in file order is kept."""
    records = rewound()
    back = linked([user("u4", "back on the old branch", 9)], {"u4": "a2"})
    conversation = read_records(isolated_home, [*records, *back])
    assert "prompt number 2" in texts(conversation)
    assert "prompt number 3" not in texts(conversation)


def test_parallel_tool_calls_are_not_a_rewind(isolated_home: Path) -> None:
    """One reply with two tool results as children: every message stays."""
    records = [
        user("u1", "run both checks", 1),
        assistant("a1", "m1", [text("Running both."), tool_use("t1", "ruff")], 2),
        assistant("a1b", "m1", [tool_use("t2", "mypy")], 2),
        user("r1", [tool_result("t1", "ok")], 3, toolUseResult={"stdout": "ok"}),
        user("r2", [tool_result("t2", "ok")], 3, toolUseResult={"stdout": "ok"}),
        assistant("a2", "m2", [text("Both pass.")], 4),
    ]
    parents = {"u1": None, "a1": "u1", "a1b": "a1", "r1": "a1", "r2": "a1b", "a2": "r1"}
    conversation = read_records(isolated_home, linked(records, parents))
    assert texts(conversation) == ["run both checks", "Running both.", "Both pass."]


def test_a_prompt_beside_a_tool_result_is_not_a_rewind(isolated_home: Path) -> None:
    """One typed child and one tool-result child of the same record: both kept."""
    records = [
        user("u1", "start", 1),
        assistant("a1", "m1", [text("Working."), tool_use("t1", "ls")], 2),
        user("r1", [tool_result("t1", "x")], 3, toolUseResult={"stdout": "x"}),
        user("u2", "and also check the docs", 3),
        assistant("a2", "m2", [text("Checked.")], 4),
    ]
    parents = {"u1": None, "a1": "u1", "r1": "a1", "u2": "a1", "a2": "u2"}
    conversation = read_records(isolated_home, linked(records, parents))
    assert texts(conversation, "user") == ["start", "and also check the docs"]


def test_the_walk_goes_through_progress_and_system_records(isolated_home: Path) -> None:
    """A fork reached only through progress and system records is still found."""
    progress = {"type": "progress", "uuid": "p1", "isSidechain": False, "data": {"x": 1}}
    note = system("s1", "turn_duration", 2)
    records = [*a_turn(1), progress, note, *a_turn(2), *a_turn(3)]
    parents = {"u1": None, "a1": "u1", "p1": "a1", "s1": "p1", "u2": "s1", "a2": "u2"}
    parents |= {"u3": "s1", "a3": "u3"}
    conversation = read_records(isolated_home, linked(records, parents))
    assert texts(conversation, "user") == ["prompt number 1", "prompt number 3"]


def test_a_rewound_prompt_below_a_system_record_is_found(isolated_home: Path) -> None:
    """The old prompt hung below the turn's system record, the new one from the reply."""
    note = system("s1", "turn_duration", 2)
    records = [*a_turn(1), note, *a_turn(2), *a_turn(3)]
    parents = {"u1": None, "a1": "u1", "s1": "a1", "u2": "s1", "a2": "u2"}
    parents |= {"u3": "a1", "a3": "u3"}
    conversation = read_records(isolated_home, linked(records, parents))
    assert texts(conversation, "user") == ["prompt number 1", "prompt number 3"]


def test_the_walk_crosses_a_compaction_boundary(isolated_home: Path) -> None:
    """A rewind before a ``compact_boundary`` is found through ``logicalParentUuid``."""
    boundary = system("cb", "compact_boundary", 5, logicalParentUuid="a3")
    summary = user("cs", "This session is being continued...", 5, isCompactSummary=True)
    records = [*rewound(), boundary, summary, *a_turn(6)]
    parents = {"cb": None, "cs": "cb", "u6": "cs", "a6": "u6"}
    conversation = read_records(isolated_home, linked(records, parents))
    assert "prompt number 2" not in texts(conversation)
    assert texts(conversation, "user") == ["prompt number 1", "prompt number 3", "prompt number 6"]


def test_a_missing_parent_falls_back_to_file_order(isolated_home: Path) -> None:
    """A chain broken by a parent not in the file keeps everything before it."""
    records = chain([*a_turn(1), *a_turn(2)])
    records = linked(records, {"u2": "gone"})
    assert len(read_records(isolated_home, records).messages) == 4


def test_a_second_root_falls_back_to_file_order(isolated_home: Path) -> None:
    """A resumed session's second root keeps the first part of the file."""
    records = [*chain(a_turn(1)), *chain(a_turn(2))]
    assert len(read_records(isolated_home, records).messages) == 4


def test_a_loop_in_the_links_loses_nothing(isolated_home: Path) -> None:
    """Parents that point in a circle are walked once, in file order."""
    records = linked([*a_turn(1), *a_turn(2)], {"u1": "a2", "a1": "u1", "u2": "a1", "a2": "u2"})
    assert len(read_records(isolated_home, records).messages) == 4


def test_sidechain_records_never_decide_the_leaf(isolated_home: Path) -> None:
    """A subagent's record written last does not make its branch the live one."""
    side = linked([user("x1", "subagent task", 9, isSidechain=True)], {"x1": "a2"})
    conversation = read_records(isolated_home, [*rewound(), *side])
    assert texts(conversation, "user") == ["prompt number 1", "prompt number 3"]


# --------------------------------------------------------- the shared fixtures


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "claudecodelog_dag_compact_after_rewind.jsonl",
            ["Start", "Ready", "Second attempt", "Second answer", "Keep going", "Kept going"],
        ),
        (
            "claudecodelog_dag_compact_after_rewind_preserved.jsonl",
            ["Start", "Ready", "Second attempt", "Second answer", "Keep going", "Kept going"],
        ),
    ],
)
def test_peer_rewind_fixtures_keep_the_live_branch(
    shared_transcripts: Path, name: str, expected: list[str]
) -> None:
    """The peer pins the live branch b2u..p1a: the first attempt is gone, compaction too."""
    conversation = read(shared_transcripts / "claude-code" / name)
    assert texts(conversation) == [*expected, "After compaction", "Final answer"]


def test_peer_fork_fixture_keeps_the_mergesort_branch(shared_transcripts: Path) -> None:
    """The QuickSort attempt was rewound; MergeSort is the conversation."""
    path = shared_transcripts / "claude-code" / "agenthistory_forked_session.jsonl"
    prompts = texts(read(path), "user")
    assert prompts == [
        "Help me implement a sorting algorithm",
        "Actually, let's try MergeSort instead - I need stable sorting",
        "Can you add type hints?",
    ]


def _unlinked(path: Path) -> bytes:
    """The fixture with every parent link removed: what file order alone gives."""
    lines = []
    for record in _raw_records(path):
        lines.append(json.dumps(record | {"parentUuid": None, "logicalParentUuid": None}))
    return "\n".join(lines).encode() + b"\n"


def test_no_real_session_loses_a_message_it_should_keep(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Every real fixture keeps all the messages file order gives, abandoned branches aside.

    The oracle reads the fixture with its abandoned records (as the peers'
    tests name them) and every parent link removed; the real file must give
    the very same messages, broken chains and second roots included.
    """
    checked = 0
    for path in _main_fixtures(shared_transcripts):
        expected = [
            (m.id, m.text) for m in read(write_session(isolated_home, _unlinked(path))).messages
        ]
        actual = [(m.id, m.text) for m in read(path).messages]
        assert actual == expected, path.name
        checked += 1
    assert checked >= 20 and set(ABANDONED) <= {p.name for p in _main_fixtures(shared_transcripts)}


def test_records_of_damaged_shapes_never_break_the_walk(isolated_home: Path) -> None:
    """A ``type`` or ``origin.kind`` that is a list is no conversation record, and no error."""
    odd = [
        {"type": ["user"], "uuid": "x1", "parentUuid": "a1", "isSidechain": False},
        user("x2", "a prompt with a damaged origin", 3, origin={"kind": ["peer"]}),
    ]
    records = [*chain(a_turn(1)), *linked(odd, {"x2": "x1"})]
    assert texts(read_records(isolated_home, records), "user") == [
        "prompt number 1",
        "a prompt with a damaged origin",
    ]
