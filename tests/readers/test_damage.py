"""Damaged input is reported, never silently empty (issue 15, item 10).

A session may still be read from what can be read, but then it is ``partial``
with the damaged line numbers, and selection never treats it as resolved.
Sources that cannot be read at all (a damaged message list, a folder that
cannot be listed, a directory under a transcript's name) are ``Unresolved``
with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dreamd.readers import READERS, Conversation, FileVersion, SessionRef, Unresolved
from dreamd.selection import CursorEntry, damaged_timestamp, select
from dreamd.sessioninfo import SessionInfo, summarize
from dreamd.statedb import open_state
from tests.process import run_dreamd
from tests.readers.test_valid_text import CODEX_SID, SOURCES, encode

STAMP = "2026-03-01T10:00:{:02d}.000Z"
GARBAGE = b'{"type": "user", "uuid": "torn'


def discovered(home: Path, tool: str) -> list[SessionRef | Unresolved]:
    reader = READERS[tool]
    return [item for root in reader.default_roots({}, home) for item in reader.discover(root)]


def read_all(home: Path, tool: str) -> list[Conversation | Unresolved]:
    reader = READERS[tool]
    return [
        reader.read(item) if isinstance(item, SessionRef) else item
        for item in discovered(home, tool)
    ]


def only(home: Path, tool: str) -> Conversation | Unresolved:
    results = read_all(home, tool)
    assert len(results) == 1, results
    return results[0]


def claude_turns(count: int) -> list[Any]:
    """``count`` prompt/reply pairs, chained by ``parentUuid``."""
    records: list[Any] = []
    parent = None
    for n in range(count):
        for role, uuid in (("user", f"u{n}"), ("assistant", f"a{n}")):
            record: dict[str, Any] = {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": "s1",
                "cwd": "/w",
                "isSidechain": False,
                "timestamp": STAMP.format(len(records)),
            }
            if role == "user":
                record["message"] = {"role": "user", "content": f"prompt number {n}"}
            else:
                content = [{"type": "text", "text": f"reply number {n}"}]
                record["message"] = {"id": f"m{n}", "role": "assistant", "content": content}
            records.append(record)
            parent = uuid
    return records


def with_garbage(records: list[Any], *line_numbers: int) -> bytes:
    """JSON Lines with a torn record written in place of the given 1-based lines."""
    lines = [json.dumps(record).encode() for record in records]
    for number in line_numbers:
        lines[number - 1] = GARBAGE
    return b"".join(line + b"\n" for line in lines)


def claude_file(home: Path, data: bytes, name: str = "s1") -> Path:
    path = home / ".claude" / "projects" / "-w" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ partial reads


def test_a_damaged_line_in_the_middle_makes_the_session_partial(isolated_home: Path) -> None:
    """One torn line among good ones: the rest is read, and the line is named."""
    claude_file(isolated_home, with_garbage(claude_turns(3), 3))
    result = only(isolated_home, "claude-code")
    assert isinstance(result, Conversation)
    assert result.partial and result.damaged_lines == (3,)
    assert [m.text for m in result.messages] == [
        "prompt number 0",
        "reply number 0",
        "reply number 1",
        "prompt number 2",
        "reply number 2",
    ]


def test_an_undamaged_session_is_not_partial(isolated_home: Path) -> None:
    """A clean file has no damaged lines."""
    claude_file(isolated_home, with_garbage(claude_turns(2)))
    result = only(isolated_home, "claude-code")
    assert isinstance(result, Conversation) and not result.partial


def test_a_torn_last_line_is_a_writer_at_work_not_damage(isolated_home: Path) -> None:
    """An unterminated last line is left out without marking the session partial."""
    claude_file(isolated_home, with_garbage(claude_turns(2)) + GARBAGE)
    result = only(isolated_home, "claude-code")
    assert isinstance(result, Conversation) and not result.partial


def test_nul_padding_is_not_damage(isolated_home: Path) -> None:
    """Lines of NULs left by a crash are padding, not damaged records."""
    claude_file(isolated_home, b"\x00" * 64 + b"\n" + with_garbage(claude_turns(2)) + b"\x00" * 9)
    result = only(isolated_home, "claude-code")
    assert isinstance(result, Conversation) and not result.partial
    assert len(result.messages) == 4


def test_mostly_garbage_is_still_unresolved(isolated_home: Path) -> None:
    """More bad lines than good ones is not a transcript."""
    claude_file(isolated_home, with_garbage(claude_turns(2), 1, 2, 3))
    assert isinstance(only(isolated_home, "claude-code"), Unresolved)


@pytest.mark.parametrize("tool", ["codex", "pi"])
def test_jsonl_readers_name_their_damaged_lines(isolated_home: Path, tool: str) -> None:
    """Codex and Pi report the damaged line numbers as well."""
    build, place = SOURCES[tool]
    records = build(cwd="/w")
    records.insert(2, {"placeholder": True})
    path = isolated_home / place
    path.parent.mkdir(parents=True)
    path.write_bytes(with_garbage(records, 3))
    result = only(isolated_home, tool)
    assert isinstance(result, Conversation), result
    assert result.damaged_lines == (3,)


def test_gemini_jsonl_names_its_damaged_lines(isolated_home: Path) -> None:
    """A Gemini JSON Lines session with a torn line in the middle is partial."""
    header = {"sessionId": "g1", "projectHash": "h", "startTime": STAMP.format(0)}
    user = {"id": "m1", "type": "user", "timestamp": STAMP.format(1), "content": "hello there"}
    reply = {"id": "m2", "type": "gemini", "timestamp": STAMP.format(2), "content": "hi"}
    path = isolated_home / ".gemini/tmp/h/chats/session-2026-03-01T10-00-g1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(with_garbage([header, user, {"x": 1}, reply], 3))
    result = only(isolated_home, "gemini")
    assert isinstance(result, Conversation), result
    assert (result.damaged_lines, len(result.messages)) == ((3,), 2)


# ---------------------------------------------------------------------- Pi chain


def pi_chain(count: int) -> list[Any]:
    records: list[Any] = [
        {"type": "session", "version": 3, "id": "p1", "timestamp": STAMP.format(0), "cwd": "/w"}
    ]
    parent = None
    for n in range(count):
        role = "user" if n % 2 == 0 else "assistant"
        content = f"turn {n}" if role == "user" else [{"type": "text", "text": f"turn {n}"}]
        entry_id = f"e000000{n}"
        records.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": STAMP.format(n + 1),
                "message": {"role": role, "content": content},
            }
        )
        parent = entry_id
    return records


def test_pi_keeps_the_chain_before_a_damaged_parent(isolated_home: Path) -> None:
    """A damaged line in the parent chain no longer cuts off everything before it."""
    _build, place = SOURCES["pi"]
    path = isolated_home / place
    path.parent.mkdir(parents=True)
    path.write_bytes(with_garbage(pi_chain(6), 4))  # entry e0000002 is lost
    result = only(isolated_home, "pi")
    assert isinstance(result, Conversation)
    assert [m.text for m in result.messages] == ["turn 0", "turn 1", "turn 3", "turn 4", "turn 5"]
    assert result.damaged_lines == (4,)


# ------------------------------------------------------------------------- Codex


def test_codex_bom_before_line_one_keeps_the_session_meta(isolated_home: Path) -> None:
    """A byte-order mark before the first record is not damage: meta and project stay."""
    build, place = SOURCES["codex"]
    path = isolated_home / place
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xef\xbb\xbf" + encode(build(cwd="/work/app")))
    result = only(isolated_home, "codex")
    assert isinstance(result, Conversation)
    assert (result.project, result.partial, len(result.messages)) == ("/work/app", False, 2)


@pytest.mark.parametrize("prefix", [b"\xef\xbb\xbf", b"\x00", b"\x00" * 40])
def test_codex_forked_rollout_with_a_bom_still_has_its_messages(
    isolated_home: Path, shared_transcripts: Path, prefix: bytes
) -> None:
    """The real forked rollout whose line 1 is its own meta keeps its 5 messages."""
    data = (shared_transcripts / "codex" / "agentsessions_codex_small.jsonl").read_bytes()
    _build, place = SOURCES["codex"]
    path = isolated_home / place
    path.parent.mkdir(parents=True)
    path.write_bytes(prefix + data)
    result = only(isolated_home, "codex")
    assert isinstance(result, Conversation)
    assert len(result.messages) == 5 and not result.automated


# ------------------------------------------------------------------------ Gemini


@pytest.mark.parametrize("value", ["nope", {"m1": {}}, 3])
def test_gemini_messages_not_a_list_is_unresolved(isolated_home: Path, value: Any) -> None:
    """A legacy session whose ``messages`` is not a list is reported with the reason."""
    document = {"sessionId": "g1", "projectHash": "h", "messages": value}
    path = isolated_home / ".gemini/tmp/h/chats/session-2026-03-01T10-00-g1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    result = only(isolated_home, "gemini")
    assert isinstance(result, Unresolved)
    assert "not a list" in result.reason


# ------------------------------------------------------------------------ Cursor


def cursor_db(home: Path, items: dict[str, Any]) -> Path:
    path = home / ".config/Cursor/User/workspaceStorage/ws1/state.vscdb"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE, value BLOB)")
        for key, value in items.items():
            connection.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, json.dumps(value)))
        connection.commit()
    return path


COMPOSER = {
    "composerId": "c1",
    "conversation": [
        {"type": 1, "bubbleId": "b1", "text": "add a page"},
        {"type": 2, "bubbleId": "b2", "text": "done"},
    ],
}


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("composer.composerData", {"allComposers": "garbage"}, "allComposers is not a list"),
        ("composer.composerData", {"allComposers": [COMPOSER, 7]}, "1 of the 2 entries"),
        (
            "workbench.panel.aichat.view.aichat.chatdata",
            {"tabs": {"t": 1}},
            "tabs is not a list",
        ),
        (
            "composer.composerData",
            {"allComposers": [{"composerId": "c2", "conversation": "x"}]},
            "conversation is not a list",
        ),
    ],
)
def test_a_damaged_cursor_conversation_list_is_reported(
    isolated_home: Path, key: str, value: Any, reason: str
) -> None:
    """Conversations of a damaged ``state.vscdb`` list never vanish unsaid."""
    cursor_db(isolated_home, {key: value})
    reasons = [r.reason for r in read_all(isolated_home, "cursor") if isinstance(r, Unresolved)]
    assert any(reason in text for text in reasons), reasons


def test_a_damaged_bubble_makes_the_cursor_conversation_partial(isolated_home: Path) -> None:
    """A bubble that is not an object is counted as damage, at its position."""
    composer = {**COMPOSER, "conversation": [*COMPOSER["conversation"], "torn"]}
    cursor_db(isolated_home, {"composer.composerData": {"allComposers": [composer]}})
    result = only(isolated_home, "cursor")
    assert isinstance(result, Conversation)
    assert (len(result.messages), result.damaged_lines) == (2, (3,))


def test_a_truncated_cursor_database_is_reported(
    isolated_home: Path, shared_transcripts: Path
) -> None:
    """The real workspace database cut short is unresolved with SQLite's reason."""
    target = isolated_home / ".config/Cursor/User/workspaceStorage/ws1/state.vscdb"
    target.parent.mkdir(parents=True)
    data = (shared_transcripts / "cursor" / "slevin48_state.vscdb").read_bytes()
    target.write_bytes(data[: len(data) // 2])
    results = read_all(isolated_home, "cursor")
    assert results and all(isinstance(r, Unresolved) for r in results)


# --------------------------------------------------------- folders and non-files

#: tool -> a transcript path under HOME whose folder is the tool's project folder.
PLACES = {
    "claude-code": ".claude/projects/-w/s1.jsonl",
    "codex": f".codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{CODEX_SID}.jsonl",
    "pi": ".pi/agent/sessions/--w--/2026-03-01T10-00-00-000Z_p1.jsonl",
    "gemini": ".gemini/tmp/h/chats/session-2026-03-01T10-00-g1.jsonl",
    "cursor": ".cursor/projects/w/agent-transcripts/c1.jsonl",
}


@pytest.mark.parametrize("tool", sorted(PLACES))
def test_a_directory_named_like_a_transcript_is_reported(isolated_home: Path, tool: str) -> None:
    """A folder under a transcript's name is unresolved, not silently skipped."""
    (isolated_home / PLACES[tool]).mkdir(parents=True)
    result = only(isolated_home, tool)
    assert isinstance(result, Unresolved)
    assert result.reason == "a directory, not a file"


PROBE = """
import json, os, sys
from pathlib import Path
from dreamd.readers import READERS, SessionRef
readers = {tool: READERS[tool] for tool in sys.argv[2:]}  # imported before dropping privileges
if os.geteuid() == 0:  # root reads any folder: look as nobody
    os.setgid(65534); os.setuid(65534)
home = Path(sys.argv[1])
out = []
for tool, reader in readers.items():
    for root in reader.default_roots({}, home):
        for item in reader.discover(root):
            result = reader.read(item) if isinstance(item, SessionRef) else item
            out.append([tool, type(result).__name__, getattr(result, "reason", "")])
print(json.dumps(out))
"""


@pytest.fixture
def shared_home() -> Iterator[Path]:
    """A HOME outside pytest's private temp dir, so that another user can enter it."""
    home = Path(tempfile.mkdtemp(prefix="dreamd-damage-"))
    home.chmod(0o755)
    try:
        yield home
    finally:
        for path in [home, *home.rglob("*")]:
            path.chmod(stat.S_IRWXU)
        shutil.rmtree(home)


@pytest.mark.skipif(not hasattr(os, "setuid"), reason="needs POSIX permissions")
@pytest.mark.parametrize("tool", sorted(PLACES))
def test_a_project_folder_with_mode_000_is_reported(shared_home: Path, tool: str) -> None:
    """A folder that cannot be listed is unresolved with the reason, not an empty source."""
    target = shared_home / PLACES[tool]
    target.parent.mkdir(parents=True)
    target.write_text("{}\n")
    for folder in [shared_home, *shared_home.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    target.parent.chmod(0)
    command = [sys.executable, "-c", PROBE, str(shared_home), tool]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(done.stdout)
    assert [tool, "Unresolved", "cannot list folder: permission denied"] in outcomes


# -------------------------------------------------------------------- selection

NOW = datetime(2026, 3, 2, tzinfo=UTC)
OLD = NOW - timedelta(days=1)


def info(**changes: Any) -> SessionInfo:
    base = SessionInfo(
        tool="claude-code",
        session_id="s1",
        path="/t/s1.jsonl",
        locator="",
        file_version=FileVersion(1, 2, 3, int(OLD.timestamp() * 1e9)),
        activity_at=OLD,
        last_message_at=OLD,
        messages=10,
        user_messages=4,
        revision="r1",
        human_replies=3,
    )
    return base._replace(**changes)


def test_selection_lists_a_damaged_session_as_partial_with_its_lines() -> None:
    """Status ``partial``, the damaged lines in the reason, and still selected."""
    decision = select([info(damaged_lines=(3, 7))], {}, now=NOW).decisions[0]
    assert decision.status == "partial" and decision.selected
    assert "damaged lines 3, 7" in decision.reason


def test_a_partial_session_is_never_resolved_even_if_the_cursor_says_so() -> None:
    """A cursor entry resolved at this revision does not make a damaged session resolved."""
    cursor = {"claude-code:s1": CursorEntry("resolved", "r1")}
    decision = select([info(damaged_lines=(3,))], cursor, now=NOW).decisions[0]
    assert decision.status == "partial"


def test_a_trivial_damaged_session_is_still_trivial() -> None:
    """Damage does not make a two-message session worth collecting."""
    decision = select([info(damaged_lines=(3,), messages=2)], {}, now=NOW).decisions[0]
    assert decision.status == "trivial"


def test_the_collector_can_read_the_partial_flag_from_the_session() -> None:
    """``SessionInfo.partial`` is what the collector honours."""
    assert info(damaged_lines=(3,)).partial and not info().partial


def test_the_session_cache_keeps_damaged_lines_and_notes(tmp_path: Path) -> None:
    """A cached partial session keeps its damage and notes across a reload."""
    state = open_state(tmp_path / "state.db")
    saved = info(damaged_lines=(3, 7), notes=("project unknown: x",))
    state.save_sessions([saved], now=NOW)
    loaded = next(iter(state.load_session_cache().values()))
    assert (loaded.damaged_lines, loaded.notes) == ((3, 7), ("project unknown: x",))


def test_summarize_carries_the_damage_of_a_conversation(isolated_home: Path) -> None:
    """A partial conversation's summary is partial too."""
    claude_file(isolated_home, with_garbage(claude_turns(3), 3))
    result = only(isolated_home, "claude-code")
    assert isinstance(result, Conversation)
    assert summarize(result).damaged_lines == (3,)


def test_sources_list_json_shows_a_partial_session(isolated_home: Path) -> None:
    """``sources list --json``: status partial, the lines in reason and in damaged_lines."""
    path = claude_file(isolated_home, with_garbage(claude_turns(3), 3))
    os.utime(path, (OLD.timestamp(), OLD.timestamp()))
    done = run_dreamd(isolated_home, "sources", "list", "--json")
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)
    assert (entry["status"], entry["partial"], entry["damaged_lines"]) == ("partial", True, [3])
    assert "damaged line 3" in entry["reason"]


# ------------------------------------------------------------ damaged timestamps


def test_a_last_message_far_in_the_future_does_not_make_a_session_live() -> None:
    """A last message a year ahead of the clock: the old file time decides, not live."""
    decision = select([info(last_message_at=NOW + timedelta(days=365))], {}, now=NOW).decisions[0]
    assert decision.status == "eligible"


def test_a_future_last_message_is_reported_as_a_damaged_timestamp() -> None:
    """The reason says the timestamp is damaged."""
    decision = select([info(last_message_at=NOW + timedelta(days=2))], {}, now=NOW).decisions[0]
    assert "damaged timestamp" in decision.reason


def test_a_future_last_message_with_a_fresh_file_is_still_live() -> None:
    """The file's own time still guards a session being written."""
    future = info(last_message_at=NOW + timedelta(days=2), activity_at=NOW - timedelta(minutes=5))
    decision = select([future], {}, now=NOW).decisions[0]
    assert decision.status == "live"


def test_a_last_message_within_a_day_ahead_is_trusted() -> None:
    """A clock a few hours off is not damage: the session is live and nothing is noted."""
    decision = select([info(last_message_at=NOW + timedelta(hours=3))], {}, now=NOW).decisions[0]
    assert decision.status == "live" and "damaged" not in decision.reason


def test_damaged_timestamp_is_pure_in_now() -> None:
    """The same session is damaged at one clock and fine at a later one."""
    stamped = info(last_message_at=NOW + timedelta(days=2))
    assert damaged_timestamp(stamped, NOW) is not None
    assert damaged_timestamp(stamped, NOW + timedelta(days=2)) is None


def test_upgrading_the_state_database_reads_every_session_again(tmp_path: Path) -> None:
    """Migration 0004 adds the damage columns and empties the cache: nothing stale stays."""
    from sqlalchemy import text as sql

    from dreamd.migrations.runner import upgrade
    from dreamd.statedb import create_state_engine

    path = tmp_path / "state.db"
    engine = create_state_engine(path)
    upgrade(engine, "0003")
    with engine.begin() as connection:
        connection.execute(
            sql(
                "INSERT INTO session_cache (tool, path, locator, session_id, device, inode, size,"
                " mtime_ns, marker, messages, user_messages, machine_opening, human_replies,"
                " read_at) VALUES ('pi', '/p', '', 's', 1, 2, 3, 4, '', 5, 2, 0, 1, 0)"
            )
        )
    engine.dispose()
    state = open_state(path)
    assert state.load_session_cache() == {}
    state.save_sessions([info(damaged_lines=(4,))], now=NOW)
    assert next(iter(state.load_session_cache().values())).damaged_lines == (4,)


def test_sources_show_text_names_the_damage_and_the_notes(isolated_home: Path) -> None:
    """The text form of ``sources show`` says the session is partial, and why."""
    records = claude_turns(3)
    records[0]["cwd"] = "relative/dir"
    path = claude_file(isolated_home, with_garbage(records, 3))
    os.utime(path, (OLD.timestamp(), OLD.timestamp()))
    done = run_dreamd(isolated_home, "sources", "show", "claude-code:s1")
    assert done.returncode == 0, done.stderr
    assert "damaged:  lines 3 could not be read (partial)" in done.stdout
    assert "note:     project unknown" in done.stdout
