"""OpenCode and its SQLite fork MiMoCode: sessions from ``opencode.db`` / ``mimocode.db``.

OpenCode keeps its data under ``$XDG_DATA_HOME/opencode`` (``~/.local/share``
on every platform). Current versions store sessions in the SQLite database
``opencode.db`` (tables ``session``, ``message``, ``part``, each with a JSON
``data`` column); older versions kept a JSON tree ``storage/session/<project>/
<session>.json``, ``storage/message/<session>/<message>.json`` and
``storage/part/<message>/<part>.json``. MiMoCode is a fork with the same
tables in ``mimocode.db`` and one more column, ``message.agent_id``.

Format rules, one function each:

- a session with a parent is a subagent's session, not one of its own
  (``_is_child_session``); MiMoCode's imported copies of other tools' sessions
  are not its own either (``_imported_sessions``);
- a MiMoCode message whose ``agent_id`` is neither empty nor ``main`` is a
  subagent turn (``_is_subagent_turn``);
- only ``text`` parts are prose, minus ``synthetic`` and ``ignored`` ones
  (``_prose``); reasoning, tool, step, file, patch, snapshot, agent,
  subtask, retry, checkpoint and compaction parts are dropped;
- an assistant message that is a compaction summary is dropped
  (``_is_compaction_summary``);
- messages after a pending ``/undo`` point are hidden (``_apply_revert``);
- reminders stored unflagged in user text by old versions are cut
  (``_strip_reminders``);
- MiMoCode's own dream/distill sessions are marked automated (``_is_automated``).

Discovery lists a database's sessions with one query; a session's cache
marker is its update time plus its message count and newest message update,
so one session's entry changes only when that session changes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ._common import load_json, unresolved
from ._io import (
    SourceChanged,
    connect_sqlite_readonly,
    describe_os_error,
    read_bytes,
    stat_version,
    unlistable_reason,
    walk_files,
)
from ._model import Conversation, FileVersion, Message, Role, SessionRef, Unresolved
from ._parse import JsonError, decode_json, parse_timestamp, strip_tagged_blocks
from ._text import is_valid_text

__all__ = [
    "MIMOCODE_READER",
    "OPENCODE_READER",
    "OpenCodeReader",
    "UnreadableSession",
    "column",
    "db_override",
    "failure_reason",
    "open_database",
    "table_columns",
]

_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}

#: Tags of injected blocks that older versions saved in user text unflagged.
_REMINDER_TAGS = ("system-reminder",)

#: Session titles MiMoCode gives the sessions it starts by itself.
_MIMO_AUTOMATED_TITLES = frozenset({"Auto Dream", "Auto Distill"})

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


class UnreadableSession(Exception):
    """A session or database that cannot be read; the message is the ``Unresolved`` reason.

    Public, with ``open_database``, ``table_columns``, ``column``,
    ``db_override`` and ``failure_reason``: other read-only users of these
    databases (the dream's trajectory check) share the reader's refusals.
    """


# -- Where the tools keep their data ---------------------------------------------------------------


def _xdg_data_home(env: Mapping[str, str], home: Path) -> Path:
    """``$XDG_DATA_HOME``, else ``~/.local/share`` (OpenCode uses it on every OS)."""
    value = env.get("XDG_DATA_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    return home / ".local" / "share"


def db_override(value: str | None, data: Path) -> Path | None:
    """A ``*_DB`` variable: absolute path, name under the data dir, or ``:memory:``."""
    if not value or value == ":memory:":
        return None
    path = Path(value)
    return path if path.is_absolute() else data / path


def _opencode_roots(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """OpenCode's data dir and, when ``OPENCODE_DB`` moves it, its database."""
    override = env.get("OPENCODE_DATA_DIR", "")
    if override and Path(override).is_absolute():
        data = Path(override)
    else:
        data = _xdg_data_home(env, home) / "opencode"
    return _with_db(data, db_override(env.get("OPENCODE_DB"), data), "opencode")


def _mimocode_roots(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """MiMoCode's data dir (``$MIMOCODE_HOME/data`` or XDG) and ``MIMOCODE_DB``."""
    mimo_home = env.get("MIMOCODE_HOME", "")
    if mimo_home and Path(mimo_home).is_absolute():
        data = Path(mimo_home) / "data"
    else:
        data = _xdg_data_home(env, home) / "mimocode"
    return _with_db(data, db_override(env.get("MIMOCODE_DB"), data), "mimocode")


def _with_db(data: Path, database: Path | None, app: str) -> tuple[Path, ...]:
    """The database first when it is not one a scan of ``data`` finds anyway."""
    if database is None or (database.parent == data and _is_app_db(database.name, app)):
        return (data,)
    return (database, data)


def _is_app_db(name: str, app: str) -> bool:
    """``<app>.db`` or a release channel's ``<app>-<channel>.db``."""
    return name == f"{app}.db" or (name.startswith(f"{app}-") and name.endswith(".db"))


# -- Cleaning: from raw records to human and assistant prose ---------------------------------------


@dataclass(slots=True)
class _Record:
    """One stored message with its parts, before cleaning."""

    id: str
    info: dict[str, Any]
    parts: list[dict[str, Any]] = field(default_factory=list)
    created: Any = None
    agent_id: Any = None


@dataclass(frozen=True, slots=True)
class _Session:
    """What a session record says about the session as a whole."""

    directory: str | None
    title: str | None
    revert: Any


def _text(value: Any) -> str | None:
    """``value`` when it is a non-empty string."""
    return value if isinstance(value, str) and value else None


def _created_ms(record: _Record) -> float:
    """The message's creation time in epoch milliseconds (0 when unknown)."""
    time = record.info.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    for value in (created, record.created):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return 0.0


def _order(records: Iterable[_Record]) -> list[_Record]:
    """Messages in the tool's own order: creation time, then id."""
    return sorted(records, key=lambda record: (_created_ms(record), record.id))


def _apply_revert(records: list[_Record], revert: Any) -> list[_Record]:
    """Hide what a pending ``/undo`` took back.

    OpenCode marks the undo point in ``session.revert`` and deletes the tail
    only when the next prompt is sent; until then the tail is not part of the
    conversation. With a ``partID`` the anchor message keeps its earlier parts.
    """
    if not isinstance(revert, dict):
        return records
    anchor = _text(revert.get("messageID"))
    index = next((i for i, r in enumerate(records) if r.id == anchor), None)
    if index is None:
        return records
    kept = records[:index]
    part_id = _text(revert.get("partID"))
    if part_id is not None:
        target = records[index]
        cut = next((i for i, p in enumerate(target.parts) if p.get("id") == part_id), None)
        if cut is not None:
            kept.append(replace(target, parts=target.parts[:cut]))
    return kept


def _is_subagent_turn(agent_id: Any) -> bool:
    """MiMoCode: a non-empty ``agent_id`` other than ``main`` is a subagent's turn."""
    return isinstance(agent_id, str) and agent_id not in ("", "main")


def _is_compaction_summary(info: dict[str, Any]) -> bool:
    """An assistant message that summarises the history after a compaction."""
    return info.get("summary") is True or "compaction" in (info.get("mode"), info.get("agent"))


def _prose(part: dict[str, Any]) -> str | None:
    """The text of a prose part: a ``text`` part neither synthetic nor ignored."""
    if part.get("type") != "text" or part.get("synthetic") is True or part.get("ignored") is True:
        return None
    text = part.get("text")
    return text.strip() if isinstance(text, str) and text.strip() else None


def _strip_reminders(text: str) -> str:
    """Cut reminder blocks that older versions stored unflagged in user text."""
    return strip_tagged_blocks(text, _REMINDER_TAGS).strip()


def _to_message(record: _Record) -> Message | None:
    """The cleaned message of one record, or None when nothing human is left."""
    role = _ROLES.get(str(record.info.get("role")))
    if role is None or _is_subagent_turn(record.agent_id):
        return None
    if role == "assistant" and _is_compaction_summary(record.info):
        return None
    text = "\n\n".join(t for t in map(_prose, record.parts) if t is not None)
    if role == "user":
        text = _strip_reminders(text)
    if not text.strip():
        return None
    time = record.info.get("time")
    stamp = parse_timestamp(time.get("created") if isinstance(time, dict) else None)
    if stamp is None:
        stamp = parse_timestamp(record.created)
    return Message.build(record.id, role, text, stamp)


def _messages(records: Iterable[_Record], revert: Any) -> tuple[Message, ...]:
    """Every cleaned message of a session, in order, each id once."""
    seen: set[str] = set()
    out: list[Message] = []
    for record in _apply_revert(_order(records), revert):
        message = _to_message(record)
        if message is not None and message.id not in seen:
            seen.add(message.id)
            out.append(message)
    return tuple(out)


def _project(session: _Session, records: Iterable[_Record]) -> str | None:
    """The session's directory; for records without one, an assistant's ``path.cwd``."""
    if session.directory:
        return session.directory
    for record in records:
        path = record.info.get("path")
        cwd = _text(path.get("cwd")) if isinstance(path, dict) else None
        if cwd is not None:
            return cwd
    return None


def _is_child_session(parent: Any, title: Any) -> bool:
    """A subagent's session: it has a parent, or the title a task child gets.

    Some 1.18 builds lost ``parent_id``; the ``(@agent subagent)`` title
    suffix still tells a task's child session apart.
    """
    if isinstance(parent, str) and parent:
        return True
    return isinstance(title, str) and title.rstrip().endswith(" subagent)") and "(@" in title


# -- The reader ------------------------------------------------------------------------------------


@dataclass(slots=True)
class OpenCodeReader:
    """Reads one OpenCode-schema tool: its SQLite databases and legacy JSON tree."""

    tool: str
    app: str
    roots: Callable[[Mapping[str, str], Path], tuple[Path, ...]]
    legacy_tree: bool = False
    automated_titles: frozenset[str] = frozenset()

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """The tool's data directory and any database its env vars point at."""
        return self.roots(env, home)

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Sessions of every database under ``root`` (or ``root`` itself), then the JSON tree."""
        seen: set[str] = set()
        databases = self._list_databases(root)
        if isinstance(databases, str):
            yield Unresolved(self.tool, root, databases)
            return
        for database in databases:
            yield from self._discover_db(database, seen)
        if self.legacy_tree and root.is_dir():
            yield from self._discover_tree(_storage_dir(root), seen)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one session (a database row or a JSON file)."""
        try:
            session, records = self._read_db(ref) if ref.locator else _read_tree(ref)
        except (UnreadableSession, sqlite3.Error, OSError) as error:
            return unresolved(ref, failure_reason(error))
        return Conversation(
            ref=ref,
            project=_project(session, records),
            messages=_messages(records, session.revert),
            automated=self._is_automated(session),
        )

    def _is_automated(self, session: _Session) -> bool:
        """MiMoCode starts its memory dream and distill passes by itself."""
        return session.title in self.automated_titles

    # -- databases ---------------------------------------------------------

    def databases(self, root: Path) -> list[Path]:
        """``root`` when it is a file, else the tool's databases inside it (none if unlistable)."""
        found = self._list_databases(root)
        return [] if isinstance(found, str) else found

    def _list_databases(self, root: Path) -> list[Path] | str:
        """``databases``, or why the data directory cannot be listed (a missing one is empty).

        A database whose name is not valid UTF-8 is left out: no path of it
        could be shown or stored.
        """
        if root.is_file():
            return [root]
        try:
            names = sorted(
                entry.name
                for entry in root.iterdir()
                if _is_app_db(entry.name, self.app) and is_valid_text(entry.name)
            )
        except FileNotFoundError:
            return []
        except OSError as error:
            return unlistable_reason(error) if root.is_dir() else []
        names.sort(key=lambda name: name != f"{self.app}.db")
        return [root / name for name in names]

    def _discover_db(self, database: Path, seen: set[str]) -> Iterator[SessionRef | Unresolved]:
        """One ``SessionRef`` per top-level session of one database."""
        version: FileVersion | None = None
        try:
            version = stat_version(database)
            rows = _list_sessions(database)
        except (UnreadableSession, sqlite3.Error, OSError) as error:
            yield Unresolved(self.tool, database, failure_reason(error), file_version=version)
            return
        for row in rows:
            if row.id in seen:
                continue
            seen.add(row.id)
            yield SessionRef(
                self.tool,
                row.id,
                str(database),
                version.with_marker(row.marker),
                locator=row.id,
                updated_at=row.updated_at,
            )

    def _read_db(self, ref: SessionRef) -> tuple[_Session, list[_Record]]:
        """The session row and its message records from the database."""
        with closing(open_database(ref.path)) as connection:
            columns = table_columns(connection)
            session = _session_row(connection, columns, ref.locator)
            records = _message_rows(connection, columns, ref.locator)
        return session, records

    # -- legacy JSON tree --------------------------------------------------

    def _discover_tree(self, storage: Path, seen: set[str]) -> Iterator[SessionRef | Unresolved]:
        """One ``SessionRef`` per top-level session file ``session/<project>/<id>.json``."""
        found = walk_files(
            storage / "session",
            lambda n: n.endswith(".json"),
            max_depth=2,
            report_unlistable=True,
        )
        for entry in found:
            fallback = entry.path.stem
            if entry.version is None:
                sid = None if entry.unlisted else fallback
                yield Unresolved(self.tool, entry.path, entry.error or "cannot stat", sid)
                continue
            try:
                info = _json_object(entry.path, "session file")
            except UnreadableSession as bad:
                yield Unresolved(self.tool, entry.path, str(bad), fallback, entry.version)
                continue
            if _is_child_session(info.get("parentID"), info.get("title")):
                continue
            sid = _text(info.get("id")) or fallback
            if sid in seen:
                continue
            seen.add(sid)
            yield _tree_ref(self.tool, sid, entry.path, entry.version, info, storage)


OPENCODE_READER = OpenCodeReader("opencode", "opencode", _opencode_roots, legacy_tree=True)
MIMOCODE_READER = OpenCodeReader(
    "mimocode", "mimocode", _mimocode_roots, automated_titles=_MIMO_AUTOMATED_TITLES
)


# -- SQLite access ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Listed:
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


def _list_sessions(database: Path) -> list[_Listed]:
    """Top-level, non-imported sessions with their cache markers: one query."""
    with closing(open_database(database)) as connection:
        columns = table_columns(connection)
        imported = _imported_sessions(connection, columns)
        rows = connection.execute(_listing_sql(columns)).fetchall()
    listed: list[_Listed] = []
    for sid, updated, parent, title, count, last in rows:
        if isinstance(sid, bytes):  # stored as a BLOB: no text id to look the session up by
            raise UnreadableSession(f"damaged session table: an id is {len(sid)} bytes, not text")
        if not isinstance(sid, str) or not sid or sid in imported:
            continue
        if _is_child_session(parent, title):
            continue
        marker = f"{updated}:{count or 0}:{last}"
        stamp = parse_timestamp(updated) or parse_timestamp(last)
        listed.append(_Listed(sid, marker, stamp))
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


def _session_row(
    connection: sqlite3.Connection, columns: dict[str, frozenset[str]], sid: str
) -> _Session:
    """The session's directory, title and pending revert."""
    session = columns["session"]
    title, revert = column(session, "title"), column(session, "revert")
    row = connection.execute(
        f"SELECT directory, {title}, {revert} FROM session WHERE id = ?", (sid,)
    ).fetchone()
    if row is None:
        raise UnreadableSession("session no longer in the database")
    directory, name, raw_revert = row
    return _Session(_text(directory), _text(name), _decode_optional(raw_revert))


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
) -> list[_Record]:
    """The session's messages with their parts; rows whose JSON is garbage are skipped."""
    message = columns["message"]
    created, agent = column(message, "time_created"), column(message, "agent_id")
    rows = connection.execute(
        f"SELECT id, {created}, {agent}, data FROM message WHERE session_id = ?", (sid,)
    ).fetchall()
    records: dict[str, _Record] = {}
    for mid, created_at, agent_id, data in rows:
        info = _decode_optional(data)
        if isinstance(mid, str) and mid and isinstance(info, dict):
            records[mid] = _Record(mid, info, created=created_at, agent_id=agent_id)
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


def _attach_parts(connection: sqlite3.Connection, sid: str, records: dict[str, _Record]) -> None:
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


# -- Legacy JSON tree ------------------------------------------------------------------------------


def _storage_dir(root: Path) -> Path:
    """``root/storage``, or ``root`` itself when it is the storage directory."""
    if (root / "session").is_dir() and not (root / "storage").is_dir():
        return root
    return root / "storage"


def _json_object(path: Path, what: str) -> dict[str, Any]:
    """One JSON object file, read-only; ``UnreadableSession`` naming ``what`` when it is not one."""
    try:
        data, _version = read_bytes(path)
    except SourceChanged:
        raise UnreadableSession(f"{what} {path.name} changed while it was read") from None
    except OSError as error:
        raise UnreadableSession(f"{what} {path.name}: {describe_os_error(error)}") from None
    try:
        value = decode_json(data)
    except JsonError as error:
        raise UnreadableSession(f"{what} {path.name} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise UnreadableSession(f"{what} {path.name} is not a JSON object")
    return value


def _tree_ref(
    tool: str, sid: str, path: Path, version: FileVersion, info: dict[str, Any], storage: Path
) -> SessionRef:
    """A JSON-tree session with a marker over its session and message files."""
    time = info.get("time")
    updated = time.get("updated") if isinstance(time, dict) else None
    count, size, newest = 0, 0, 0
    for found in walk_files(storage / "message" / sid, lambda n: n.endswith(".json"), max_depth=1):
        count += 1
        if found.version is not None:
            size += found.version.size
            newest = max(newest, found.version.mtime_ns)
    marker = f"{updated}:{count}:{size}:{newest}"
    stamped = version.with_marker(marker)
    return SessionRef(tool, sid, str(path), stamped, updated_at=parse_timestamp(updated))


def _read_tree(ref: SessionRef) -> tuple[_Session, list[_Record]]:
    """The session file and every message and part file of a JSON-tree session."""
    info = load_json(ref)
    if isinstance(info, Unresolved):
        raise UnreadableSession(info.reason)
    if not isinstance(info, dict):
        raise UnreadableSession("session file is not a JSON object")
    storage = ref.path.parent.parent.parent
    session = _Session(_text(info.get("directory")), _text(info.get("title")), info.get("revert"))
    records: list[_Record] = []
    for path in _json_files(storage / "message" / ref.session_id):
        message = _json_object(path, "message file")
        mid = _text(message.get("id")) or path.stem
        parts = [_json_object(p, "part file") for p in _json_files(storage / "part" / mid)]
        parts.sort(key=lambda part: str(part.get("id", "")))
        records.append(_Record(mid, message, parts))
    return session, records


def _json_files(directory: Path) -> list[Path]:
    """The ``*.json`` files of one directory by name; an unstat-able one raises."""
    paths: list[Path] = []
    for found in walk_files(directory, lambda n: n.endswith(".json"), max_depth=1):
        if found.version is None:
            raise UnreadableSession(f"{found.path.name}: {found.error or 'cannot stat'}")
        paths.append(found.path)
    return paths
