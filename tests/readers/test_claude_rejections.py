"""Claude Code: the person's words inside a rejected tool call are their message (issue 15, 12d).

When the person rejects a tool use and types a reason, Claude Code stores the
reason inside an ``is_error`` tool result, after "the user said:". That text
is the person's; the rest of the tool result is the program's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.readers.test_claude_code import (
    assistant,
    read,
    read_records,
    text,
    texts,
    tool_use,
    user,
)

PREAMBLE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file)."
)
REASON = "Hold. I want to keep it simple - no connection pooling for now."


def rejection(uuid: str, content: Any, minute: int = 2) -> dict[str, Any]:
    """A user record carrying an ``is_error`` tool result."""
    result = {"type": "tool_result", "tool_use_id": "t1", "content": content, "is_error": True}
    return user(uuid, [result], minute, toolUseResult=f"Error: {PREAMBLE}")


def session(*records: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        user("u1", "refactor the database module", 0),
        assistant("a1", "m1", [text("Adding a pool."), tool_use("t1", "edit db.py")], 1),
        *records,
        assistant("a2", "m2", [text("Understood, no pool.")], 3),
    ]


def test_the_reason_typed_when_rejecting_is_a_user_message(isolated_home: Path) -> None:
    """The words after "the user said:" are the person's message."""
    reason = rejection("r1", f"{PREAMBLE} To tell you how to proceed, the user said:\n{REASON}")
    conversation = read_records(isolated_home, session(reason))
    assert texts(conversation, "user") == ["refactor the database module", REASON]


def test_the_rest_of_the_rejected_result_is_dropped(isolated_home: Path) -> None:
    """The program's preamble never reaches a message."""
    reason = rejection("r1", f"{PREAMBLE} To tell you how to proceed, the user said:\n{REASON}")
    conversation = read_records(isolated_home, session(reason))
    assert not any("doesn't want to proceed" in m.text for m in conversation.messages)


def test_the_reason_is_read_from_text_blocks_too(isolated_home: Path) -> None:
    """A tool result whose content is a list of text blocks gives the reason as well."""
    blocks = [{"type": "text", "text": f"{PREAMBLE} To tell you how to proceed, the user said:"}]
    blocks.append({"type": "text", "text": REASON})
    conversation = read_records(isolated_home, session(rejection("r1", blocks)))
    assert texts(conversation, "user")[-1] == REASON


def test_the_reason_message_is_the_records_and_in_place(isolated_home: Path) -> None:
    """The reason is a user message with the record's uuid, between the turns it sits in."""
    reason = rejection("r1", f"{PREAMBLE} To tell you how to proceed, the user said:\n{REASON}")
    conversation = read_records(isolated_home, session(reason))
    assert [(m.id, m.role) for m in conversation.messages] == [
        ("u1", "user"),
        ("m1", "assistant"),
        ("r1", "user"),
        ("m2", "assistant"),
    ]


def test_a_rejection_without_a_reason_is_no_message(isolated_home: Path) -> None:
    """A plain rejection holds nothing the person typed."""
    conversation = read_records(isolated_home, session(rejection("r1", PREAMBLE)))
    assert texts(conversation, "user") == ["refactor the database module"]


def test_another_error_mentioning_the_user_is_not_a_message(isolated_home: Path) -> None:
    """Only a rejection's result holds the person's words; a tool's own error does not."""
    failed = rejection("r1", "grep: pattern not found; the user said: nothing")
    conversation = read_records(isolated_home, session(failed))
    assert texts(conversation, "user") == ["refactor the database module"]


def test_the_peer_rejection_fixture_keeps_both_reasons(shared_transcripts: Path) -> None:
    """Both typed reasons of the real-shaped fixture are the person's messages, in order."""
    path = shared_transcripts / "claude-code" / "agenthistory_rejection.jsonl"
    assert texts(read(path), "user") == [
        "Help me refactor the database module",
        REASON,
        "Now run the tests",
        "Will this technique work in GitHub CI? I want to understand before running locally.",
    ]
