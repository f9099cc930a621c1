"""OpenCode and MiMoCode readers: SQLite databases, the legacy JSON tree, and their pitfalls.

Synthetic stores are built here from Python dicts with the real column layout
(``session``/``message``/``part`` with JSON ``data`` columns, MiMoCode's extra
``message.agent_id``). The shared real fixtures are read in separate tests,
always from a copy in ``tmp_path``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers import Conversation, SessionRef, Unresolved
from readers.opencode import MIMOCODE_READER, OPENCODE_READER, OpenCodeReader
from tests.readers.layout_opencode import lay_out

T0 = 1_785_420_000_000  # epoch milliseconds, as OpenCode stores them

_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
    slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
    revert TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, {agent}
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT NOT NULL, seq INTEGER NOT NULL,
    type TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL,
    seq INTEGER NOT NULL);
"""


# ---------------------------------------------------------------------------
# Building synthetic stores
# ---------------------------------------------------------------------------


class Store:
    """A synthetic OpenCode-schema database, written through a normal connection."""

    def __init__(self, path: Path, *, mimo: bool = False, wal: bool = False) -> None:
        self.path = path
        self.mimo = mimo
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(path)) as connection:
            if wal:
                connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(
                _SCHEMA.format(agent="agent_id TEXT NOT NULL DEFAULT 'main'," if mimo else "")
            )
            connection.execute(
                "INSERT INTO project VALUES ('prj', '/work/repo', ?, ?, '[]')", (T0, T0)
            )
            connection.commit()
        self._clock = T0

    def tick(self) -> int:
        """A fresh, later time in epoch milliseconds."""
        self._clock += 1000
        return self._clock

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        """Run one statement and commit it."""
        with closing(sqlite3.connect(self.path)) as connection:
            connection.execute(sql, params)
            connection.commit()

    def session(
        self,
        sid: str,
        directory: str = "/work/repo",
        *,
        parent: str | None = None,
        title: str = "Some work",
        revert: dict[str, Any] | None = None,
    ) -> None:
        """Add one session row."""
        stamp = self.tick()
        self.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "revert, time_created, time_updated) "
            "VALUES (?, 'prj', ?, 'slug', ?, ?, '1.16.0', ?, ?, ?)",
            (sid, parent, directory, title, json.dumps(revert) if revert else None, stamp, stamp),
        )

    def message(
        self,
        sid: str,
        mid: str,
        role: str,
        parts: list[dict[str, Any]],
        *,
        agent_id: str | None = None,
        **info: Any,
    ) -> int:
        """Add one message with its parts; the session's update time moves too."""
        created = self.tick()
        data = {"role": role, "time": {"created": created}, **info}
        if role == "assistant":
            data.setdefault("path", {"cwd": "/work/repo", "root": "/work/repo"})
            if isinstance(data["time"], dict):
                data["time"]["completed"] = created + 500
        columns = "id, session_id, time_created, time_updated, data"
        values: tuple[Any, ...] = (mid, sid, created, created + 500, json.dumps(data))
        if self.mimo:
            columns += ", agent_id"
            values += (agent_id if agent_id is not None else "main",)
        placeholders = ", ".join("?" * len(values))
        self.execute(f"INSERT INTO message ({columns}) VALUES ({placeholders})", values)
        for index, part in enumerate(parts):
            pid = f"prt_{mid}_{index:03d}"
            self.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (pid, mid, sid, created + index, created + index, json.dumps(part)),
            )
        self.execute("UPDATE session SET time_updated = ? WHERE id = ?", (created + 500, sid))
        return created


def text(value: str, **extra: Any) -> dict[str, Any]:
    """A ``text`` part."""
    return {"type": "text", "text": value, **extra}


def tool(name: str, command: str, output: str) -> dict[str, Any]:
    """A completed ``tool`` part with its input and output."""
    return {
        "type": "tool",
        "tool": name,
        "callID": f"call_{name}",
        "state": {
            "status": "completed",
            "input": {"command": command},
            "output": output,
            "metadata": {"exit": 0},
            "title": command,
            "time": {"start": T0, "end": T0 + 1},
        },
    }


REASONING = "I should look at the failing test before touching the parser."
TOOL_INPUT = "pytest -x tests/test_parser.py --no-header"
TOOL_OUTPUT = "FAILED tests/test_parser.py::test_roundtrip - AssertionError: 3 != 4"
SYNTHETIC = "Called the Read tool with the following input: {filePath: src/parser.py}"
IGNORED = "This text part was excluded from replay by the user."
REMINDER = "<system-reminder>Plan mode is active. Do not edit files.</system-reminder>"
SUMMARY = "Summary of the conversation so far: the parser drops the last token."
ABORTED = "Command failed with exit code 1."


def build_rich_session(store: Store, sid: str = "ses_rich") -> list[tuple[str, str, str]]:
    """One session holding every kind of part; returns the expected ``(id, role, text)``."""
    store.session(sid)
    store.message(
        sid,
        "msg_001",
        "user",
        [
            text("Why does the parser drop the last token?"),
            text(SYNTHETIC, synthetic=True),
            {"type": "file", "mime": "text/plain", "filename": "parser.py", "url": "file:///p"},
            text(IGNORED, ignored=True),
            {"type": "agent", "name": "explore"},
        ],
        agent="build",
        model={"providerID": "p", "modelID": "m"},
    )
    store.message(
        sid,
        "msg_002",
        "assistant",
        [
            {"type": "step-start", "snapshot": "abc"},
            {"type": "reasoning", "text": REASONING, "time": {"start": T0}},
            tool("bash", TOOL_INPUT, TOOL_OUTPUT),
            {"type": "step-finish", "reason": "tool-calls", "cost": 0, "tokens": {"input": 1}},
            {"type": "patch", "hash": "deadbeef", "files": ["src/parser.py"]},
            {"type": "snapshot", "snapshot": "abc"},
        ],
        mode="build",
        agent="build",
        finish="tool-calls",
    )
    store.message(
        sid,
        "msg_003",
        "assistant",
        [
            {"type": "step-start"},
            text("The loop stops one short:"),
            {"type": "retry", "attempt": 1, "error": {"name": "APIError"}},
            text("it uses `< len - 1`."),
            {"type": "step-finish", "reason": "stop", "cost": 0, "tokens": {"input": 1}},
        ],
        mode="build",
        agent="build",
        finish="stop",
    )
    store.message(
        sid,
        "msg_004",
        "assistant",
        [text(ABORTED, synthetic=True), {"type": "reasoning", "text": "half a thought"}],
        error={"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}},
    )
    store.message(sid, "msg_005", "user", [text(f"{REMINDER}\nPlease fix it then.")])
    store.message(sid, "msg_006", "user", [{"type": "compaction", "auto": True}])
    store.message(
        sid,
        "msg_007",
        "assistant",
        [text(SUMMARY)],
        summary=True,
        mode="compaction",
        agent="compaction",
    )
    store.message(sid, "msg_008", "user", [text("Continue if you have next steps", synthetic=True)])
    store.message(
        sid,
        "msg_009",
        "user",
        [{"type": "subtask", "prompt": "look around", "description": "d", "agent": "explore"}],
    )
    store.message(sid, "msg_010", "assistant", [text("Fixed: the bound is now `< len`.")])
    return [
        ("msg_001", "user", "Why does the parser drop the last token?"),
        ("msg_003", "assistant", "The loop stops one short:\n\nit uses `< len - 1`."),
        ("msg_005", "user", "Please fix it then."),
        ("msg_010", "assistant", "Fixed: the bound is now `< len`."),
    ]


DROPPED = (REASONING, TOOL_INPUT, TOOL_OUTPUT, SYNTHETIC, IGNORED, SUMMARY, ABORTED, "Plan mode")


def data_dir(home: Path, app: str = "opencode") -> Path:
    """The tool's default data directory under ``home``."""
    return home / ".local" / "share" / app


def discover(reader: OpenCodeReader, root: Path) -> list[SessionRef | Unresolved]:
    """Everything discovery yields under ``root``."""
    return list(reader.discover(root))


def refs(reader: OpenCodeReader, root: Path) -> dict[str, SessionRef]:
    """The discovered sessions under ``root`` by id; fails on any ``Unresolved``."""
    found = discover(reader, root)
    assert all(isinstance(item, SessionRef) for item in found), found
    return {item.session_id: item for item in found if isinstance(item, SessionRef)}


def conversation(reader: OpenCodeReader, ref: SessionRef) -> Conversation:
    """A read that must succeed."""
    result = reader.read(ref)
    assert isinstance(result, Conversation), result
    return result


def triples(result: Conversation) -> list[tuple[str, str, str]]:
    """``(id, role, text)`` of every message."""
    return [(m.id, m.role, m.text) for m in result.messages]


def names(folder: Path) -> list[str]:
    """The names of the entries of a folder, sorted."""
    return sorted(entry.name for entry in folder.iterdir())


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------
# Default roots
# ---------------------------------------------------------------------------


def test_opencode_default_root_is_xdg_data_home(tmp_path: Path) -> None:
    """OpenCode's root is ~/.local/share/opencode, or $XDG_DATA_HOME/opencode when set."""
    home = tmp_path / "h"
    assert OPENCODE_READER.default_roots({}, home) == (data_dir(home),)
    xdg = tmp_path / "xdg"
    assert OPENCODE_READER.default_roots({"XDG_DATA_HOME": str(xdg)}, home) == (xdg / "opencode",)
    assert OPENCODE_READER.default_roots({"XDG_DATA_HOME": "relative"}, home) == (data_dir(home),)


def test_opencode_db_variable_adds_the_database_it_names(tmp_path: Path) -> None:
    """OPENCODE_DB adds an absolute file, a file under the data dir, or nothing for :memory:."""
    home, elsewhere = tmp_path / "h", tmp_path / "other.db"
    assert OPENCODE_READER.default_roots({"OPENCODE_DB": str(elsewhere)}, home) == (
        elsewhere,
        data_dir(home),
    )
    assert OPENCODE_READER.default_roots({"OPENCODE_DB": "custom.db"}, home) == (
        data_dir(home) / "custom.db",
        data_dir(home),
    )
    assert OPENCODE_READER.default_roots({"OPENCODE_DB": ":memory:"}, home) == (data_dir(home),)
    assert OPENCODE_READER.default_roots({"OPENCODE_DB": "opencode.db"}, home) == (data_dir(home),)


def test_opencode_data_dir_variable_replaces_the_data_dir(tmp_path: Path) -> None:
    """OPENCODE_DATA_DIR names the exact data directory."""
    exact = tmp_path / "oc-data"
    assert OPENCODE_READER.default_roots({"OPENCODE_DATA_DIR": str(exact)}, tmp_path) == (exact,)


def test_mimocode_roots_honour_home_and_db_variables(tmp_path: Path) -> None:
    """MiMoCode: ~/.local/share/mimocode, $MIMOCODE_HOME/data, and MIMOCODE_DB."""
    home = tmp_path / "h"
    assert MIMOCODE_READER.default_roots({}, home) == (data_dir(home, "mimocode"),)
    mimo_home = tmp_path / "mimo"
    env = {"MIMOCODE_HOME": str(mimo_home)}
    assert MIMOCODE_READER.default_roots(env, home) == (mimo_home / "data",)
    assert MIMOCODE_READER.default_roots({"MIMOCODE_HOME": "rel"}, home) == (
        data_dir(home, "mimocode"),
    )
    full = tmp_path / "db" / "x.db"
    assert MIMOCODE_READER.default_roots({"MIMOCODE_DB": str(full)}, home) == (
        full,
        data_dir(home, "mimocode"),
    )
    assert MIMOCODE_READER.default_roots({**env, "MIMOCODE_DB": "x.db"}, home) == (
        mimo_home / "data" / "x.db",
        mimo_home / "data",
    )
    assert MIMOCODE_READER.default_roots({"MIMOCODE_DB": ":memory:"}, home) == (
        data_dir(home, "mimocode"),
    )


# ---------------------------------------------------------------------------
# SQLite: discovery
# ---------------------------------------------------------------------------


def test_discovery_lists_top_level_sessions_with_id_locator_and_update_time(
    isolated_home: Path,
) -> None:
    """Each top-level session is one ref: locator = id, updated_at = its time_updated."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_a")
    store.message("ses_a", "msg_1", "user", [text("hello")])
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    ref = found["ses_a"]
    assert ref.locator == "ses_a" and ref.path == store.path
    assert ref.updated_at == datetime.fromtimestamp((store._clock + 500) / 1000, tz=UTC)
    assert ref.key == "opencode:ses_a"


def test_child_sessions_are_not_sessions_of_their_own(isolated_home: Path) -> None:
    """A session with a parent (or a task child's title) is a subagent's, not listed."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_parent")
    store.session("ses_child", parent="ses_parent", title="Explore the repo (@explore subagent)")
    store.session("ses_orphan", title="Look for tests (@general subagent)")
    store.message("ses_child", "msg_c", "user", [text("child prompt")])
    assert set(refs(OPENCODE_READER, data_dir(isolated_home))) == {"ses_parent"}


def test_marker_changes_only_for_the_session_that_changed(isolated_home: Path) -> None:
    """Appending to one session changes its marker and no other session's."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    for sid in ("ses_a", "ses_b"):
        store.session(sid)
        store.message(sid, f"msg_{sid}", "user", [text("start")])
    before = refs(OPENCODE_READER, data_dir(isolated_home))
    store.message("ses_a", "msg_more", "assistant", [text("more")])
    after = refs(OPENCODE_READER, data_dir(isolated_home))
    assert after["ses_a"].file_version.marker != before["ses_a"].file_version.marker
    assert after["ses_b"].file_version.marker == before["ses_b"].file_version.marker


def test_channel_databases_are_found_and_duplicates_listed_once(isolated_home: Path) -> None:
    """opencode-<channel>.db is scanned too; a session in two databases appears once."""
    main = Store(data_dir(isolated_home) / "opencode.db")
    dev = Store(data_dir(isolated_home) / "opencode-dev.db")
    main.session("ses_same")
    dev.session("ses_same")
    dev.session("ses_dev")
    (data_dir(isolated_home) / "opencode.db.bak").write_bytes(b"x")
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    assert set(found) == {"ses_same", "ses_dev"}
    assert found["ses_same"].path == main.path


def test_a_database_file_can_be_the_root(tmp_path: Path) -> None:
    """A root that is a file (OPENCODE_DB elsewhere) is read as the database."""
    store = Store(tmp_path / "anywhere" / "custom.db")
    store.session("ses_x")
    store.message("ses_x", "msg_1", "user", [text("hi there")])
    (ref,) = refs(OPENCODE_READER, store.path).values()
    assert triples(conversation(OPENCODE_READER, ref)) == [("msg_1", "user", "hi there")]


def test_missing_root_yields_nothing(tmp_path: Path) -> None:
    """A data directory that does not exist holds no sessions."""
    assert discover(OPENCODE_READER, tmp_path / "nope") == []


# ---------------------------------------------------------------------------
# SQLite: cleaning
# ---------------------------------------------------------------------------


def test_only_human_and_assistant_prose_is_kept(isolated_home: Path) -> None:
    """Text parts survive; reasoning, tools, steps, files, synthetic, ignored, summaries do not."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    expected = build_rich_session(store)
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_rich"]
    result = conversation(OPENCODE_READER, ref)
    assert triples(result) == expected
    assert result.project == "/work/repo"
    assert result.automated is False
    for message in result.messages:
        assert message.timestamp is not None and message.timestamp.tzinfo is UTC
        for dropped in DROPPED:
            assert dropped not in message.text


def test_rereading_gives_the_same_ids_and_revision(isolated_home: Path) -> None:
    """Two reads of an unchanged session agree; appending keeps earlier messages as they were."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    build_rich_session(store)
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_rich"]
    first, second = conversation(OPENCODE_READER, ref), conversation(OPENCODE_READER, ref)
    assert first.revision == second.revision
    store.message("ses_rich", "msg_011", "user", [text("Thanks, ship it.")])
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_rich"]
    grown = conversation(OPENCODE_READER, ref)
    assert grown.messages[: len(first.messages)] == first.messages
    assert grown.messages[-1].id == "msg_011"


def test_pending_undo_hides_the_reverted_tail(isolated_home: Path) -> None:
    """Messages from session.revert's messageID on are hidden; a partID keeps earlier parts."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_undo", revert={"messageID": "msg_3"})
    store.message("ses_undo", "msg_1", "user", [text("first")])
    store.message("ses_undo", "msg_2", "assistant", [text("answer")])
    store.message("ses_undo", "msg_3", "user", [text("undone prompt")])
    store.message("ses_undo", "msg_4", "assistant", [text("undone answer")])
    store.session("ses_part", revert={"messageID": "msg_p2", "partID": "prt_msg_p2_001"})
    store.message("ses_part", "msg_p1", "user", [text("question")])
    store.message("ses_part", "msg_p2", "assistant", [text("kept half"), text("cut half")])
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    assert [m.text for m in conversation(OPENCODE_READER, found["ses_undo"]).messages] == [
        "first",
        "answer",
    ]
    assert [m.text for m in conversation(OPENCODE_READER, found["ses_part"]).messages] == [
        "question",
        "kept half",
    ]


def test_project_falls_back_to_an_assistant_cwd(isolated_home: Path) -> None:
    """With no session directory, the recorded assistant path.cwd is the project."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_nodir", directory="")
    store.message("ses_nodir", "msg_1", "user", [text("hi")])
    store.message("ses_nodir", "msg_2", "assistant", [text("yo")], path={"cwd": "/src/app"})
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_nodir"]
    assert conversation(OPENCODE_READER, ref).project == "/src/app"


def test_wrong_shapes_in_rows_do_not_raise(isolated_home: Path) -> None:
    """Rows whose JSON has lists, strings and nulls where objects belong are skipped, not fatal."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_odd", revert=None)
    store.message(
        "ses_odd",
        "msg_ok",
        "user",
        [text("fine"), {"type": "text", "text": 123}, {"type": ["text"]}],
    )
    store.message("ses_odd", "msg_time", "assistant", [text("odd time")], time=[1, 2])
    store.execute(
        "INSERT INTO message VALUES ('msg_list', 'ses_odd', 1, 1, '[\"a\"]'),"
        "('msg_junk', 'ses_odd', 2, 2, '{not json'), ('msg_null', 'ses_odd', 3, 3, 'null')"
    )
    store.execute(
        "INSERT INTO part VALUES ('prt_x', 'msg_ok', 'ses_odd', 1, 1, '\"just a string\"')"
    )
    store.execute("INSERT INTO part VALUES ('prt_y', 'msg_gone', 'ses_odd', 1, 1, '{}')")
    store.execute("UPDATE session SET revert = '[1, 2]' WHERE id = 'ses_odd'")
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_odd"]
    result = conversation(OPENCODE_READER, ref)
    assert [m.text for m in result.messages] == ["fine", "odd time"]
    assert result.messages[1].timestamp is not None


def test_a_session_whose_rows_are_all_garbage_is_unresolved(isolated_home: Path) -> None:
    """Message rows that exist but hold no JSON object make the session unresolved."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_bad")
    store.execute("INSERT INTO message VALUES ('m1', 'ses_bad', 1, 1, ?)", (b"\x00\x01garbage",))
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_bad"]
    result = OPENCODE_READER.read(ref)
    assert isinstance(result, Unresolved) and "message rows" in result.reason


def test_a_session_gone_since_discovery_is_unresolved(isolated_home: Path) -> None:
    """Reading a session deleted after discovery gives a reason, not an empty conversation."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_gone")
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_gone"]
    store.execute("DELETE FROM session WHERE id = 'ses_gone'")
    result = OPENCODE_READER.read(ref)
    assert isinstance(result, Unresolved) and "no longer" in result.reason


def test_messages_only_in_session_message_are_reported(isolated_home: Path) -> None:
    """Messages found only in the newer session_message table are reported, not read as empty."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_new")
    store.session("ses_empty")
    store.execute("INSERT INTO session_message VALUES ('msg_1', 'ses_new', 'user', 1, 1, '{}', 0)")
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    result = OPENCODE_READER.read(found["ses_new"])
    assert isinstance(result, Unresolved) and "session_message" in result.reason
    assert conversation(OPENCODE_READER, found["ses_empty"]).messages == ()


def test_invalid_utf8_in_a_row_is_replaced_not_fatal(isolated_home: Path) -> None:
    """A text column with bytes that are not UTF-8 is decoded with replacement characters."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_bytes")
    store.message("ses_bytes", "msg_1", "user", [text("before")])
    raw = b'{"type":"text","text":"caf\xe9 au lait"}'
    store.execute(
        "INSERT INTO part VALUES ('prt_z', 'msg_1', 'ses_bytes', 9, 9, CAST(? AS TEXT))", (raw,)
    )
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_bytes"]
    assert conversation(OPENCODE_READER, ref).messages[0].text == "before\n\ncaf\ufffd au lait"


# ---------------------------------------------------------------------------
# SQLite: read-only access and broken databases
# ---------------------------------------------------------------------------


def test_wal_database_without_side_files_stays_untouched(tmp_path: Path) -> None:
    """A WAL-mode database with no -wal/-shm is read without creating or changing any file."""
    store = Store(tmp_path / "copy" / "opencode.db", wal=True)
    build_rich_session(store)
    for suffix in ("-wal", "-shm"):
        assert not store.path.with_name(store.path.name + suffix).exists()
    before = digest(store.path)
    for ref in refs(OPENCODE_READER, store.path.parent).values():
        conversation(OPENCODE_READER, ref)
    assert names(store.path.parent) == ["opencode.db"]
    assert digest(store.path) == before


def test_not_a_database_is_unresolved(isolated_home: Path) -> None:
    """A file that is not SQLite is reported with a reason during discovery."""
    path = data_dir(isolated_home) / "opencode.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database " * 100)
    (item,) = discover(OPENCODE_READER, path.parent)
    assert isinstance(item, Unresolved) and "not a database" in item.reason


@pytest.mark.parametrize("content", [b"", None])
def test_database_without_opencode_tables_is_unresolved(
    isolated_home: Path, content: bytes | None
) -> None:
    """An empty file or a database of another program is unresolved, naming the missing table."""
    path = data_dir(isolated_home) / "opencode.db"
    path.parent.mkdir(parents=True)
    if content is None:
        with closing(sqlite3.connect(path)) as connection:
            connection.execute("CREATE TABLE sessions (id TEXT)")
    else:
        path.write_bytes(content)
    (item,) = discover(OPENCODE_READER, path.parent)
    assert isinstance(item, Unresolved) and "no table session" in item.reason


def test_database_missing_a_required_column_is_unresolved(isolated_home: Path) -> None:
    """A session table without a directory column is reported, not guessed at."""
    path = data_dir(isolated_home) / "opencode.db"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript(
            "CREATE TABLE session (id TEXT); CREATE TABLE message (id, session_id, data);"
            "CREATE TABLE part (id, message_id, data);"
        )
    (item,) = discover(OPENCODE_READER, path.parent)
    assert isinstance(item, Unresolved) and "lacks directory" in item.reason


@pytest.fixture
def writer_holding_lock(isolated_home: Path) -> Iterator[Store]:
    """A rollback-journal database whose writer is mid-transaction under an exclusive lock."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_locked")
    store.message("ses_locked", "msg_1", "user", [text("hello")])
    with closing(sqlite3.connect(store.path, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("UPDATE session SET title = 'changing' WHERE id = 'ses_locked'")
        yield store
        writer.execute("ROLLBACK")


def test_locked_database_is_unresolved_at_discovery(writer_holding_lock: Store) -> None:
    """Discovery reports a database another connection holds exclusively."""
    (item,) = discover(OPENCODE_READER, writer_holding_lock.path.parent)
    assert isinstance(item, Unresolved) and "locked" in item.reason


def test_locked_database_is_unresolved_at_read(isolated_home: Path) -> None:
    """A read while a writer holds the database exclusively gives a reason, not an exception."""
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_locked")
    ref = refs(OPENCODE_READER, store.path.parent)["ses_locked"]
    with closing(sqlite3.connect(store.path, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("UPDATE session SET title = 'changing'")
        result = OPENCODE_READER.read(ref)
        writer.execute("ROLLBACK")
    assert isinstance(result, Unresolved) and "locked" in result.reason


@pytest.mark.slow
def test_locked_wal_database_is_unresolved(isolated_home: Path) -> None:
    """A WAL database held in exclusive locking mode is reported as locked."""
    store = Store(data_dir(isolated_home) / "opencode.db", wal=True)
    store.session("ses_w")
    ref = refs(OPENCODE_READER, store.path.parent)["ses_w"]
    with closing(sqlite3.connect(store.path, isolation_level=None)) as writer:
        writer.execute("PRAGMA locking_mode=EXCLUSIVE")
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("UPDATE session SET title = 'mine'")
        writer.execute("COMMIT")
        result = OPENCODE_READER.read(ref)
    assert isinstance(result, Unresolved) and "locked" in result.reason


def test_unreadable_database_is_unresolved(isolated_home: Path) -> None:
    """A database the user may not read is reported during discovery."""
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_a")
    store.path.chmod(0)
    try:
        (item,) = discover(OPENCODE_READER, store.path.parent)
    finally:
        store.path.chmod(0o644)
    assert isinstance(item, Unresolved)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(blob=st.binary(max_size=2048))
def test_random_bytes_as_a_database_give_unresolved(tmp_path: Path, blob: bytes) -> None:
    """Whatever bytes sit where the database belongs, discovery reports and never raises."""
    folder = tmp_path / f"db-{hashlib.sha1(blob).hexdigest()}"
    folder.mkdir(exist_ok=True)
    (folder / "opencode.db").write_bytes(blob)
    for item in discover(OPENCODE_READER, folder):
        assert isinstance(item, Unresolved)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(blob=st.binary(max_size=512))
def test_random_bytes_in_a_part_row_never_raise(tmp_path: Path, blob: bytes) -> None:
    """Random bytes in a part's data column give a conversation or a reason."""
    store = Store(tmp_path / f"p-{hashlib.sha1(blob).hexdigest()}" / "opencode.db")
    store.session("ses_r")
    store.message("ses_r", "msg_1", "user", [text("hello")])
    store.execute("INSERT INTO part VALUES ('prt_r', 'msg_1', 'ses_r', 9, 9, ?)", (blob,))
    ref = refs(OPENCODE_READER, store.path.parent)["ses_r"]
    assert isinstance(OPENCODE_READER.read(ref), Conversation | Unresolved)


# ---------------------------------------------------------------------------
# MiMoCode
# ---------------------------------------------------------------------------


def test_mimocode_drops_subagent_turns_by_agent_id(isolated_home: Path) -> None:
    """Messages with a non-empty agent_id other than main are a subagent's and dropped."""
    store = Store(data_dir(isolated_home, "mimocode") / "mimocode.db", mimo=True)
    store.session("ses_m")
    store.message("ses_m", "msg_1", "user", [text("plan the change")])
    store.message("ses_m", "msg_2", "user", [text("subagent brief")], agent_id="explore-1")
    store.message("ses_m", "msg_3", "assistant", [text("subagent report")], agent_id="explore-1")
    store.message("ses_m", "msg_4", "assistant", [text("here is the plan")], agent_id="")
    ref = refs(MIMOCODE_READER, store.path.parent)["ses_m"]
    assert triples(conversation(MIMOCODE_READER, ref)) == [
        ("msg_1", "user", "plan the change"),
        ("msg_4", "assistant", "here is the plan"),
    ]


def test_mimocode_reads_the_same_cleaning_rules(isolated_home: Path) -> None:
    """A MiMoCode session with every part kind is cleaned like an OpenCode one."""
    store = Store(data_dir(isolated_home, "mimocode") / "mimocode.db", mimo=True)
    expected = build_rich_session(store)
    store.message("ses_rich", "msg_ck", "user", [{"type": "checkpoint", "checkpointNumber": 1}])
    ref = refs(MIMOCODE_READER, store.path.parent)["ses_rich"]
    assert triples(conversation(MIMOCODE_READER, ref)) == expected


def test_mimocode_background_sessions_are_automated_or_hidden(isolated_home: Path) -> None:
    """Auto Dream runs are marked automated; checkpoint-writer children are not listed."""
    store = Store(data_dir(isolated_home, "mimocode") / "mimocode.db", mimo=True)
    store.session("ses_work")
    store.session("ses_dream", title="Auto Dream")
    store.session("ses_ckpt", parent="ses_work", title="checkpoint-writer: memory")
    store.message("ses_dream", "msg_1", "user", [text("Run one automatic dream pass.")])
    found = refs(MIMOCODE_READER, store.path.parent)
    assert set(found) == {"ses_work", "ses_dream"}
    assert conversation(MIMOCODE_READER, found["ses_dream"]).automated is True
    assert conversation(MIMOCODE_READER, found["ses_work"]).automated is False


def test_mimocode_imported_sessions_are_left_to_their_own_tools(isolated_home: Path) -> None:
    """Sessions MiMoCode imported from Claude Code, Codex or OpenCode are not listed again."""
    store = Store(data_dir(isolated_home, "mimocode") / "mimocode.db", mimo=True)
    for sid in ("ses_own", "ses_from_cc", "ses_from_claude"):
        store.session(sid)
    store.execute(
        "CREATE TABLE external_import (source TEXT, source_key TEXT, session_id TEXT, "
        "source_path TEXT, source_mtime INTEGER, time_imported INTEGER, message_ids TEXT)"
    )
    store.execute("INSERT INTO external_import VALUES ('cc', 'k', 'ses_from_cc', '/p', 1, 1, '[]')")
    store.execute("CREATE TABLE claude_import (session_id TEXT)")
    store.execute("INSERT INTO claude_import VALUES ('ses_from_claude')")
    assert set(refs(MIMOCODE_READER, store.path.parent)) == {"ses_own"}


def test_mimocode_ignores_opencode_databases(isolated_home: Path) -> None:
    """The MiMoCode reader scans mimocode*.db only, and OpenCode's reader opencode*.db only."""
    folder = data_dir(isolated_home, "mimocode")
    Store(folder / "opencode.db").session("ses_oc")
    Store(folder / "mimocode-beta.db", mimo=True).session("ses_mimo")
    assert set(refs(MIMOCODE_READER, folder)) == {"ses_mimo"}
    assert set(refs(OPENCODE_READER, folder)) == {"ses_oc"}


# ---------------------------------------------------------------------------
# Legacy JSON tree
# ---------------------------------------------------------------------------


class Tree:
    """A synthetic legacy storage tree: session/<project>/<id>.json, message/, part/."""

    def __init__(self, storage: Path) -> None:
        self.storage = storage
        (storage / "session").mkdir(parents=True, exist_ok=True)
        (storage / "migration").write_text("2")

    def write(self, relative: str, value: Any) -> Path:
        """Write one JSON file (or raw bytes) under the storage root."""
        path = self.storage / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
        return path

    def session(self, sid: str, directory: str = "/tmp/repo", **extra: Any) -> Path:
        """Add one session file under project ``proj_1``."""
        record: dict[str, Any] = {"id": sid, "projectID": "proj_1", "directory": directory}
        record["time"] = {"created": T0, "updated": T0 + 9000}
        return self.write(f"session/proj_1/{sid}.json", {**record, **extra})

    def message(
        self, sid: str, mid: str, role: str, created: int, parts: list[dict[str, Any]], **info: Any
    ) -> None:
        """Add one message file and its part files (file names need not match ids)."""
        record = {"id": mid, "sessionID": sid, "role": role, "time": {"created": created}, **info}
        self.write(f"message/{sid}/m{created}.json", record)
        for index, part in enumerate(parts):
            self.write(f"part/{mid}/{index:03d}.json", {"id": f"prt_{index:03d}", **part})


def build_tree(home: Path) -> Tree:
    """A tree with a plain session, an aborted turn, and a child session."""
    tree = Tree(data_dir(home) / "storage")
    tree.session("ses_t1", summary={"additions": 0})
    tree.message("ses_t1", "m_u1", "user", T0 + 1000, [text("Step 1")], summary={"title": "Step 1"})
    tree.message(
        "ses_t1",
        "m_a1",
        "assistant",
        T0 + 2000,
        [
            tool("bash", TOOL_INPUT, TOOL_OUTPUT),
            text(ABORTED, synthetic=True),
            {"type": "reasoning", "text": REASONING},
            {"type": "compaction", "auto": True},
        ],
        error={"name": "MessageAbortedError", "data": {"message": "aborted"}},
    )
    tree.message("ses_t1", "m_u2", "user", T0 + 3000, [text("Step 2")])
    tree.message("ses_t1", "m_a2", "assistant", T0 + 4000, [text("Ok")])
    tree.session("ses_kid", parentID="ses_t1")
    tree.message("ses_kid", "m_k", "user", T0 + 5000, [text("child work")])
    return tree


def test_tree_sessions_are_read_in_creation_order(isolated_home: Path) -> None:
    """The JSON tree gives messages by creation time, with only prose kept."""
    build_tree(isolated_home)
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    assert set(found) == {"ses_t1"}
    ref = found["ses_t1"]
    assert ref.locator == "" and ref.updated_at == datetime.fromtimestamp((T0 + 9000) / 1000, UTC)
    result = conversation(OPENCODE_READER, ref)
    assert triples(result) == [
        ("m_u1", "user", "Step 1"),
        ("m_u2", "user", "Step 2"),
        ("m_a2", "assistant", "Ok"),
    ]
    assert result.project == "/tmp/repo"


def test_tree_marker_follows_its_message_files(isolated_home: Path) -> None:
    """A new message file changes the tree session's marker."""
    tree = build_tree(isolated_home)
    before = refs(OPENCODE_READER, data_dir(isolated_home))["ses_t1"].file_version.marker
    tree.message("ses_t1", "m_u3", "user", T0 + 6000, [text("Step 3")])
    after = refs(OPENCODE_READER, data_dir(isolated_home))["ses_t1"].file_version.marker
    assert before != after


def test_tree_sessions_already_in_the_database_are_listed_once(isolated_home: Path) -> None:
    """After OpenCode migrated the tree into opencode.db, each session is read from the database."""
    build_tree(isolated_home)
    store = Store(data_dir(isolated_home) / "opencode.db")
    store.session("ses_t1")
    store.session("ses_db_only")
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    assert set(found) == {"ses_t1", "ses_db_only"}
    assert found["ses_t1"].path == store.path


def test_the_storage_directory_itself_can_be_the_root(isolated_home: Path) -> None:
    """A root pointing at storage/ finds the same sessions."""
    tree = build_tree(isolated_home)
    assert set(refs(OPENCODE_READER, tree.storage)) == {"ses_t1"}


def test_mimocode_has_no_json_tree(isolated_home: Path) -> None:
    """The MiMoCode reader does not read OpenCode's legacy JSON tree."""
    tree = Tree(data_dir(isolated_home, "mimocode") / "storage")
    tree.session("ses_x")
    assert discover(MIMOCODE_READER, data_dir(isolated_home, "mimocode")) == []


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "not JSON"), (b"{torn", "not JSON"), (b"[1, 2]", "not a JSON object")],
)
def test_bad_session_files_are_unresolved_at_discovery(
    isolated_home: Path, content: bytes, reason: str
) -> None:
    """Empty, torn or wrongly shaped session files are reported with the file's id."""
    tree = Tree(data_dir(isolated_home) / "storage")
    tree.write("session/proj_1/ses_bad.json", content)
    (item,) = discover(OPENCODE_READER, data_dir(isolated_home))
    assert isinstance(item, Unresolved) and reason in item.reason
    assert item.session_id == "ses_bad"


def test_session_file_in_a_symlink_loop_is_unresolved(isolated_home: Path) -> None:
    """A session file that is a symlink loop is reported, not skipped."""
    tree = Tree(data_dir(isolated_home) / "storage")
    loop = tree.storage / "session" / "proj_1" / "ses_loop.json"
    loop.parent.mkdir(parents=True)
    loop.symlink_to(loop)
    (item,) = discover(OPENCODE_READER, data_dir(isolated_home))
    assert isinstance(item, Unresolved) and item.reason == "symlink loop"


@pytest.mark.parametrize(
    ("relative", "content"),
    [
        ("message/ses_t1/m_torn.json", b'{"id": "m_x", "role": "us'),
        ("part/m_u2/999.json", b"\xff\xfe garbage"),
        ("part/m_u2/998.json", b'"a string, not an object"'),
    ],
)
def test_bad_message_or_part_files_make_the_read_unresolved(
    isolated_home: Path, relative: str, content: bytes
) -> None:
    """A torn or wrongly shaped message or part file gives a reason naming the file."""
    tree = build_tree(isolated_home)
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_t1"]
    tree.write(relative, content)
    result = OPENCODE_READER.read(ref)
    assert isinstance(result, Unresolved) and Path(relative).name in result.reason


def test_tree_session_file_replaced_after_discovery_is_unresolved(isolated_home: Path) -> None:
    """A session file replaced since discovery is reported rather than read as something else."""
    tree = build_tree(isolated_home)
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_t1"]
    path = tree.storage / "session" / "proj_1" / "ses_t1.json"
    replacement = path.with_suffix(".new")
    replacement.write_bytes(path.read_bytes())
    replacement.replace(path)
    assert isinstance(OPENCODE_READER.read(ref), Unresolved)


def test_tree_message_ids_may_repeat_without_breaking_the_read(isolated_home: Path) -> None:
    """Two message files with one id give one message."""
    tree = build_tree(isolated_home)
    tree.write(
        "message/ses_t1/copy.json",
        {"id": "m_u2", "role": "user", "time": {"created": T0 + 3000}},
    )
    ref = refs(OPENCODE_READER, data_dir(isolated_home))["ses_t1"]
    ids = [m.id for m in conversation(OPENCODE_READER, ref).messages]
    assert ids.count("m_u2") == 1


# ---------------------------------------------------------------------------
# The shared real fixtures
# ---------------------------------------------------------------------------


def _immutable(path: Path) -> sqlite3.Connection:
    """An oracle connection to a copy of a fixture database."""
    return sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True)


def _raw_parts(database: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """``(role, message id, part)`` of every part, straight from the tables."""
    with closing(_immutable(database)) as connection:
        rows = connection.execute(
            "SELECT m.data, m.id, p.data FROM part AS p JOIN message AS m ON m.id = p.message_id"
        ).fetchall()
    return [(json.loads(m)["role"], mid, json.loads(p)) for m, mid, p in rows]


@pytest.mark.fixtures
def test_lay_out_places_every_fixture_where_discovery_finds_it(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The layout's keys are exactly what discovery finds under the default roots."""
    keys = lay_out(shared_transcripts, isolated_home)
    found: set[str] = set()
    for reader in (OPENCODE_READER, MIMOCODE_READER):
        for root in reader.default_roots({}, isolated_home):
            for item in reader.discover(root):
                assert isinstance(item, SessionRef), item
                found.add(item.key)
    assert sorted(found) == sorted(keys)
    assert len(keys) == 4


@pytest.mark.fixtures
def test_real_database_keeps_prompts_and_prose_only(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The real OpenCode DB: every typed prompt and answer once; no reasoning or tool text."""
    lay_out(shared_transcripts, isolated_home)
    database = data_dir(isolated_home) / "opencode.db"
    parts = _raw_parts(database)
    prompts = [p["text"] for role, _, p in parts if role == "user" and p.get("type") == "text"]
    answers = [p["text"] for role, _, p in parts if role == "assistant" and p.get("type") == "text"]
    hidden = [p["text"] for _, _, p in parts if p.get("type") == "reasoning"]
    for _, _, p in parts:
        if p.get("type") == "tool":
            hidden.append(p["state"]["output"])
            hidden.extend(str(value) for value in p["state"]["input"].values())
    # Short strings (a file path, "Done.") may rightly be quoted in prose.
    hidden = [secret.strip() for secret in hidden if len(secret.strip()) > 40]
    assert len(hidden) > 20
    (ref,) = (r for r in refs(OPENCODE_READER, data_dir(isolated_home)).values() if r.locator)
    result = conversation(OPENCODE_READER, ref)
    texts = [m.text for m in result.messages]
    assert [m.text for m in result.messages if m.role == "user"] == prompts
    assert sorted(m.text for m in result.messages if m.role == "assistant") == sorted(answers)
    assert len(texts) == len(set(texts))
    for secret in hidden:
        assert all(secret not in t for t in texts)
    assert result.project == "/workspace"
    assert len(prompts) == 8 and result.user_messages == 8


@pytest.mark.fixtures
def test_real_database_is_not_touched(shared_transcripts: Path, tmp_path: Path) -> None:
    """Reading a copy of the real WAL-mode DB creates no -wal/-shm and leaves its bytes alone."""
    folder = tmp_path / "copy"
    folder.mkdir()
    target = folder / "opencode.db"
    target.write_bytes(
        (shared_transcripts / "opencode" / "stunningmemory_opencode.db").read_bytes()
    )
    before = digest(target)
    for ref in refs(OPENCODE_READER, folder).values():
        conversation(OPENCODE_READER, ref)
    assert names(folder) == ["opencode.db"]
    assert digest(target) == before


@pytest.mark.fixtures
def test_real_database_read_as_mimocode_matches_opencode(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The fork reader, on the same tables without agent_id, gives the same conversation."""
    lay_out(shared_transcripts, isolated_home)
    (oc,) = (r for r in refs(OPENCODE_READER, data_dir(isolated_home)).values() if r.locator)
    (mimo,) = refs(MIMOCODE_READER, data_dir(isolated_home, "mimocode")).values()
    assert (
        conversation(MIMOCODE_READER, mimo).revision == conversation(OPENCODE_READER, oc).revision
    )


@pytest.mark.fixtures
def test_real_json_tree_drops_the_aborted_synthetic_turn(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The legacy tree fixture: typed prompts stay, the aborted turn's synthetic text goes."""
    lay_out(shared_transcripts, isolated_home)
    storage = data_dir(isolated_home) / "storage"
    raw = [json.loads(p.read_text()) for p in sorted((storage / "part").rglob("*.json"))]
    synthetic = [p["text"] for p in raw if p.get("synthetic")]
    outputs = [p["state"]["output"] for p in raw if p.get("type") == "tool"]
    found = refs(OPENCODE_READER, data_dir(isolated_home))
    large = conversation(OPENCODE_READER, found["s_stage0_large"])
    small = conversation(OPENCODE_READER, found["s_stage0_small"])
    assert triples(large) == [
        ("m_user_large_1", "user", "Step 1"),
        ("m_user_large_2", "user", "Step 2"),
        ("m_assistant_large_2", "assistant", "Ok"),
    ]
    assert triples(small) == [
        ("m_user_small", "user", "Hello"),
        ("m_assistant_small", "assistant", "Found 2 files."),
    ]
    assert (large.project, small.project) == ("/tmp/large", "/tmp/repo")
    for message in (*large.messages, *small.messages):
        assert all(s not in message.text for s in (*synthetic, *outputs))
