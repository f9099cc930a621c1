"""OpenCode and its SQLite fork MiMoCode: sessions from ``opencode.db`` / ``mimocode.db``.

OpenCode keeps its data under ``$XDG_DATA_HOME/opencode`` (``~/.local/share``
on every platform). Current versions store sessions in the SQLite database
``opencode.db`` (tables ``session``, ``message``, ``part``, each with a JSON
``data`` column); older versions kept a JSON tree ``storage/session/<project>/
<session>.json``, ``storage/message/<session>/<message>.json`` and
``storage/part/<message>/<part>.json``. MiMoCode is a fork with the same
tables in ``mimocode.db`` and one more column, ``message.agent_id``.

Here: where the tools keep their data, discovery, and the reader objects.
The databases are read by ``dreamd.readers._opencode_db``, the JSON tree by
``dreamd.readers._opencode_tree``, and both give records that
``dreamd.readers._opencode_records`` cleans. Format rules, one function each:

- a session with a parent is a subagent's session, not one of its own
  (``_opencode_records.is_child_session``); MiMoCode's imported copies of
  other tools' sessions are not its own either
  (``_opencode_db._imported_sessions``);
- a MiMoCode message whose ``agent_id`` is neither empty nor ``main`` is a
  subagent turn (``_opencode_records._is_subagent_turn``);
- only ``text`` parts are prose, minus ``synthetic`` and ``ignored`` ones
  (``_opencode_records._prose``); reasoning, tool, step, file, patch,
  snapshot, agent, subtask, retry, checkpoint and compaction parts are dropped;
- an assistant message that is a compaction summary is dropped
  (``_opencode_records._is_compaction_summary``);
- messages after a pending ``/undo`` point are hidden
  (``_opencode_records._apply_revert``);
- reminders stored unflagged in user text by old versions are cut
  (``_opencode_records._strip_reminders``);
- MiMoCode's own dream/distill sessions are marked automated
  (``OpenCodeReader._is_automated``).

Discovery lists a database's sessions with one query; a session's cache
marker is its update time plus its message count and newest message update,
so one session's entry changes only when that session changes.

``UnreadableSession``, ``open_database``, ``table_columns``, ``column``,
``db_override`` and ``failure_reason`` are public here: other read-only users
of these databases (the dream's trajectory check) import them from this module.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import msgspec

from ._common import unresolved
from ._io import stat_version, unlistable_reason, walk_files
from ._model import Conversation, FileVersion, SessionRef, Unresolved
from ._opencode_db import (
    column,
    failure_reason,
    list_sessions,
    open_database,
    read_session,
    table_columns,
)
from ._opencode_records import (
    Session,
    UnreadableSession,
    is_child_session,
    nonempty_text,
    session_messages,
    session_project,
)
from ._opencode_tree import json_object, read_tree, storage_dir, tree_ref
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

#: Session titles MiMoCode gives the sessions it starts by itself.
_MIMO_AUTOMATED_TITLES = frozenset({"Auto Dream", "Auto Distill"})


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


# -- The reader ------------------------------------------------------------------------------------


class OpenCodeReader(msgspec.Struct):
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
            yield from self._discover_tree(storage_dir(root), seen)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one session (a database row or a JSON file)."""
        try:
            if ref.locator:
                session, records = read_session(ref.path, ref.locator)
            else:
                session, records = read_tree(ref)
        except (UnreadableSession, sqlite3.Error, OSError) as error:
            return unresolved(ref, failure_reason(error))
        return Conversation(
            ref=ref,
            project=session_project(session, records),
            messages=session_messages(records, session.revert),
            automated=self._is_automated(session),
        )

    def _is_automated(self, session: Session) -> bool:
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
            rows = list_sessions(database)
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
                info = json_object(entry.path, "session file")
            except UnreadableSession as bad:
                yield Unresolved(self.tool, entry.path, str(bad), fallback, entry.version)
                continue
            if is_child_session(info.get("parentID"), info.get("title")):
                continue
            sid = nonempty_text(info.get("id")) or fallback
            if sid in seen:
                continue
            seen.add(sid)
            yield tree_ref(self.tool, sid, entry.path, entry.version, info, storage)


OPENCODE_READER = OpenCodeReader("opencode", "opencode", _opencode_roots, legacy_tree=True)
MIMOCODE_READER = OpenCodeReader(
    "mimocode", "mimocode", _mimocode_roots, automated_titles=_MIMO_AUTOMATED_TITLES
)
