"""OpenCode-schema SQLite databases (``opencode.db``, ``mimocode.db``), read-only.

Current OpenCode versions store sessions in tables ``session``, ``message``
and ``part``, each with a JSON ``data`` column; MiMoCode is a fork with the
same tables and one more column, ``message.agent_id``, and two tables
(``external_import``, ``claude_import``) recording the sessions it copied in
from Claude Code, Codex or OpenCode, which are not its own
(``_imported_sessions``). Newer OpenCode builds may add ``session_message``;
a session whose messages are only there is refused, not read as empty
(``_refuse_successor_rows``).

Invariants: a database is never written, nor anything beside it; one is
refused while a rollback journal shows a write in progress
(``open_database``), and one lacking a table or column this reader needs is
not an OpenCode database (``table_columns``). Discovery lists a database's
sessions with one query (``list_sessions``); a session's cache marker is its
update time plus its message count and newest message update, so one
session's entry changes only when that session changes. Rows whose JSON is
garbage are skipped.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from ._io import connect_sqlite_readonly, describe_os_error
from ._opencode_records import Record, Session, UnreadableSession, is_child_session, nonempty_text
from ._parse import JsonError, decode_json, parse_timestamp

__all__ = [
    "Listed",
    "column",
    "failure_reason",
    "list_sessions",
    "open_database",
    "read_session",
    "table_columns",
]

#: Tables in which MiMoCode records sessions imported from other tools.
_IMPORT_TABLES = ("external_import", "claude_import")

#: Where newer OpenCode builds may keep a session's messages instead.
_SUCCESSOR_TABLE = "session_message"

#: Columns a database needs for this reader to make sense of it.
_REQUIRED_COLUMNS = {
    "session": frozenset({"id", "directory"}),
    "message": frozenset({"id", "session_id", "data"}),
    "part": frozenset({"id", "message_id", "data"}),
}


class Listed(msgspec.Struct, frozen=True):
    """One session row as discovery sees it."""

    id: str
    marker: str
    updated_at: datetime | None


def failure_reason(error: Exception) -> str:
    """The ``Unresolved`` reason for a failure: ours, SQLite's or the OS's."""
    if isinstance(error, OSError):
        return describe_os_error(error)
    if isinstance(error, sqlite3.Error):
        return f"sqlite: {str(error) or type(error).__name__}"
    return str(error)


def _write_in_progress(path: Path) -> bool:
    """A rollback journal beside the file: a writer holds it, pages may be half written."""
    return path.with_name(path.name + "-journal").exists()


def open_database(path: Path) -> sqlite3.Connection:
    """A read-only connection to an OpenCode-schema database, never writing beside it.

    Refused while a rollback journal shows a write in progress
    (``UnreadableSession``) and, by ``connect_sqlite_readonly``, when a
    ``-wal`` lies there without its ``-shm`` (``SideFileRefused``, a
    ``sqlite3.Error``). Bad UTF-8 in a row is decoded with U+FFFD instead of
    failing it. Raises ``UnreadableSession``, ``sqlite3.Error``, ``OSError``.
    """
    if _write_in_progress(path):
        raise UnreadableSession(
            "database is locked: a write is in progress (rollback journal present)"
        )
    return connect_sqlite_readonly(path)


def table_columns(connection: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """Column names per table; ``UnreadableSession`` when a table this reader needs is missing."""
    columns: dict[str, frozenset[str]] = {}
    for table in (*_REQUIRED_COLUMNS, *_IMPORT_TABLES, _SUCCESSOR_TABLE):
        rows = connection.execute(f"PRAGMA table_info({table})").fetchall()
        columns[table] = frozenset(str(row[1]) for row in rows)
    for table, needed in _REQUIRED_COLUMNS.items():
        if not columns[table]:
            raise UnreadableSession(f"not an OpenCode database: no table {table}")
        missing = sorted(needed - columns[table])
        if missing:
            lacks = ", ".join(missing)
            raise UnreadableSession(f"not an OpenCode database: table {table} lacks {lacks}")
    return columns


def column(columns: frozenset[str], *names: str) -> str:
    """The first of ``names`` the table has, else ``NULL``."""
    return next((name for name in names if name in columns), "NULL")


# -- Discovery: one query per database -------------------------------------------------------------


def list_sessions(database: Path) -> list[Listed]:
    """Top-level, non-imported sessions with their cache markers: one query."""
    with closing(open_database(database)) as connection:
        columns = table_columns(connection)
        imported = _imported_sessions(connection, columns)
        rows = connection.execute(_listing_sql(columns)).fetchall()
    listed: list[Listed] = []
    for sid, updated, parent, title, count, last in rows:
        if isinstance(sid, bytes):  # stored as a BLOB: no text id to look the session up by
            raise UnreadableSession(f"damaged session table: an id is {len(sid)} bytes, not text")
        if not isinstance(sid, str) or not sid or sid in imported:
            continue
        if is_child_session(parent, title):
            continue
        marker = f"{updated}:{count or 0}:{last}"
        stamp = parse_timestamp(updated) or parse_timestamp(last)
        listed.append(Listed(sid, marker, stamp))
    return listed


def _listing_sql(columns: dict[str, frozenset[str]]) -> str:
    """The discovery query, using only columns this database has."""
    session, message = columns["session"], columns["message"]
    updated = _qualified(session, "s", "time_updated", "time_created")
    parent = _qualified(session, "s", "parent_id")
    title = _qualified(session, "s", "title")
    message_updated = column(message, "time_updated", "time_created")
    return (
        f"SELECT s.id, {updated}, {parent}, {title}, agg.n, agg.last FROM session AS s "
        f"LEFT JOIN (SELECT session_id, count(*) AS n, max({message_updated}) AS last "
        "FROM message GROUP BY session_id) AS agg ON agg.session_id = s.id"
    )


def _qualified(columns: frozenset[str], alias: str, *names: str) -> str:
    """``alias.column`` for the first of ``names`` the table has, else ``NULL``."""
    name = column(columns, *names)
    return name if name == "NULL" else f"{alias}.{name}"


def _imported_sessions(
    connection: sqlite3.Connection, columns: dict[str, frozenset[str]]
) -> set[str]:
    """MiMoCode: sessions copied in from Claude Code, Codex or OpenCode.

    They are the other tool's sessions, read by that tool's own reader.
    """
    imported: set[str] = set()
    for table in _IMPORT_TABLES:
        if "session_id" in columns[table]:
            rows = connection.execute(f"SELECT session_id FROM {table}").fetchall()
            imported.update(row[0] for row in rows if isinstance(row[0], str))
    return imported


# -- Reading one session ---------------------------------------------------------------------------


def read_session(database: Path, sid: str) -> tuple[Session, list[Record]]:
    """The session row and its message records from the database."""
    with closing(open_database(database)) as connection:
        columns = table_columns(connection)
        session = _session_row(connection, columns, sid)
        records = _message_rows(connection, columns, sid)
    return session, records


def _session_row(
    connection: sqlite3.Connection, columns: dict[str, frozenset[str]], sid: str
) -> Session:
    """The session's directory, title and pending revert."""
    session = columns["session"]
    title, revert = column(session, "title"), column(session, "revert")
    row = connection.execute(
        f"SELECT directory, {title}, {revert} FROM session WHERE id = ?", (sid,)
    ).fetchone()
    if row is None:
        raise UnreadableSession("session no longer in the database")
    directory, name, raw_revert = row
    return Session(nonempty_text(directory), nonempty_text(name), _decode_optional(raw_revert))


def _decode_optional(raw: Any) -> Any:
    """A JSON column that may be NULL or garbage: its value, or None."""
    if not isinstance(raw, str | bytes) or not raw:
        return None
    try:
        return decode_json(raw)
    except JsonError:
        return None


def _message_rows(
    connection: sqlite3.Connection, columns: dict[str, frozenset[str]], sid: str
) -> list[Record]:
    """The session's messages with their parts; rows whose JSON is garbage are skipped."""
    message = columns["message"]
    created, agent = column(message, "time_created"), column(message, "agent_id")
    rows = connection.execute(
        f"SELECT id, {created}, {agent}, data FROM message WHERE session_id = ?", (sid,)
    ).fetchall()
    records: dict[str, Record] = {}
    for mid, created_at, agent_id, data in rows:
        info = _decode_optional(data)
        if isinstance(mid, str) and mid and isinstance(info, dict):
            records[mid] = Record(mid, info, created=created_at, agent_id=agent_id)
    if rows and not records:
        raise UnreadableSession(f"none of the {len(rows)} message rows holds a JSON object")
    if not rows:
        _refuse_successor_rows(connection, columns, sid)
    _attach_parts(connection, sid, records)
    return list(records.values())


def _refuse_successor_rows(
    connection: sqlite3.Connection, columns: dict[str, frozenset[str]], sid: str
) -> None:
    """No message rows, but ``session_message`` rows: a format this reader does not read.

    OpenCode's event-sourced builds add ``session_message``; the builds seen
    so far still write ``message``/``part`` too. Should one stop doing so, the
    session is reported instead of being read as empty.
    """
    if "session_id" not in columns[_SUCCESSOR_TABLE]:
        return
    row = connection.execute(
        f"SELECT count(*) FROM {_SUCCESSOR_TABLE} WHERE session_id = ?", (sid,)
    ).fetchone()
    if row and row[0]:
        raise UnreadableSession(f"messages are only in {_SUCCESSOR_TABLE}, a format not read yet")


def _attach_parts(connection: sqlite3.Connection, sid: str, records: dict[str, Record]) -> None:
    """Add each part row, in id order, to its message."""
    rows = connection.execute(
        "SELECT p.message_id, p.id, p.data FROM part AS p JOIN message AS m "
        "ON m.id = p.message_id WHERE m.session_id = ? ORDER BY p.message_id, p.id",
        (sid,),
    )
    for mid, pid, data in rows:
        part = _decode_optional(data)
        record = records.get(mid) if isinstance(mid, str) else None
        if record is not None and isinstance(part, dict):
            part.setdefault("id", pid)
            record.parts.append(part)
