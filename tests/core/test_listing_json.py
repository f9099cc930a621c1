"""The ``sources list --json`` document, field by field and in its order (docs/json.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from dreamd.readers import FileVersion
from dreamd.render import dump_json, selection_json
from dreamd.selection import Decision
from dreamd.sessioninfo import SessionInfo

FIELDS = [
    "tool",
    "id",
    "path",
    "locator",
    "project",
    "first_message_at",
    "last_message_at",
    "messages",
    "user_messages",
    "revision",
    "file_version",
    "partial",
    "damaged_lines",
    "notes",
    "status",
    "reason",
    "selected",
]


def listed(*decisions: Decision) -> list[dict[str, object]]:
    document: list[dict[str, object]] = json.loads(dump_json(selection_json(decisions)))
    return document


def test_a_damaged_session_of_a_shared_file_is_written_whole() -> None:
    info = SessionInfo(
        "aider",
        "chat-2",
        "/work/app/.aider.chat.history.md",
        "# aider chat started at 2026-03-01",
        FileVersion(64, 99, 4096, 1_772_000_000_123_456_789, "rows-7"),
        datetime(2026, 3, 1, 10, 0, tzinfo=UTC),
        project="/work/app",
        first_message_at=datetime(2026, 3, 1, 9, 0, 0, 250_999, tzinfo=UTC),
        last_message_at=datetime(2026, 3, 1, 9, 59, 59, tzinfo=UTC),
        messages=8,
        user_messages=4,
        revision="ab" * 16,
        damaged_lines=(3, 17),
        notes=("unknown project",),
    )
    (row,) = listed(Decision(info, "partial", "damaged lines 3, 17", selected=True))
    assert list(row) == FIELDS
    assert row == {
        "tool": "aider",
        "id": "chat-2",
        "path": "/work/app/.aider.chat.history.md",
        "locator": "# aider chat started at 2026-03-01",
        "project": "/work/app",
        "first_message_at": "2026-03-01T09:00:00.250Z",
        "last_message_at": "2026-03-01T09:59:59.000Z",
        "messages": 8,
        "user_messages": 4,
        "revision": "ab" * 16,
        "file_version": {
            "device": 64,
            "inode": 99,
            "size": 4096,
            "mtime_ns": 1_772_000_000_123_456_789,
            "marker": "rows-7",
        },
        "partial": True,
        "damaged_lines": [3, 17],
        "notes": ["unknown project"],
        "status": "partial",
        "reason": "damaged lines 3, 17",
        "selected": True,
    }


def test_an_unreadable_session_writes_nulls_where_nothing_is_known() -> None:
    info = SessionInfo(
        "codex", "rollout-1", "/home/u/.codex/sessions/r.jsonl", "", None, None,
        unresolved="permission denied",
    )  # fmt: skip
    (row,) = listed(Decision(info, "unresolved", "permission denied"))
    assert list(row) == FIELDS
    assert {key: row[key] for key in ("locator", "project", "first_message_at")} == dict.fromkeys(
        ("locator", "project", "first_message_at")
    )
    assert (row["file_version"], row["revision"], row["partial"], row["selected"]) == (
        None,
        None,
        False,
        False,
    )
    assert (row["damaged_lines"], row["notes"], row["messages"]) == ([], [], 0)


def test_the_array_keeps_the_decisions_order() -> None:
    def info(sid: str) -> SessionInfo:
        return SessionInfo("claude-code", sid, f"/p/{sid}.jsonl", "", None, None)

    rows = listed(*(Decision(info(sid), "eligible", "new") for sid in ("c", "a", "b")))
    assert [row["id"] for row in rows] == ["c", "a", "b"]
