"""Discovery of the conversations in the Cursor databases under one root.

A root is a ``User`` directory, its ``workspaceStorage`` or ``globalStorage``,
or one ``state.vscdb`` (``database_root_kind``). Workspace databases are
scanned first so that composers stored in the global ``cursorDiskKV`` table
can be tied to their workspace folder (their ``kv:`` locator then ends in
``|<workspace hash>``); a composer found both inline and in ``cursorDiskKV``
is reported once, from ``cursorDiskKV`` (where Cursor moved conversations and
keeps writing). ``ItemTable`` conversations are listed by
``dreamd.readers._cursor_items``; ``cursorDiskKV`` composers here, from
SQLite's JSON functions, without loading their values.

Invariants: one ``SessionRef`` per conversation, whose ``FileVersion.marker``
changes only when that one conversation changes; a database that cannot be
opened or queried, or has neither table, is reported as an ``Unresolved``
named by its folder (``<hash>/state.vscdb``). Subagent composers (spawned by
a Task tool call) belong to their parent's run and are not sessions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import msgspec
from msgspec import structs

from ._cursor_items import scan_item_table
from ._cursor_vscdb import (
    DB_NAME,
    ITEM_TABLE,
    KV_COMPOSER,
    KV_TABLE,
    TOOL,
    RootKind,
    db_unresolved,
    epoch_time,
    open_database,
    sqlite_reason,
    table_names,
)
from ._io import Found, stat_version, walk_files
from ._model import FileVersion, SessionRef, Unresolved

__all__ = ["discover_databases"]


class _Scan(msgspec.Struct):
    """What discovery learned from the databases under one root."""

    found: list[SessionRef | Unresolved] = msgspec.field(default_factory=list)
    #: composer id -> workspaceStorage folder name, from workspace composer lists.
    workspaces: dict[str, str] = msgspec.field(default_factory=dict)
    #: composers whose content lives in a ``cursorDiskKV`` table.
    kv_ids: set[str] = msgspec.field(default_factory=set)


def discover_databases(kind: RootKind, root: Path) -> Iterator[SessionRef | Unresolved]:
    """Every conversation in the Cursor databases under ``root``.

    Workspace databases are scanned first so that composers stored in the
    global ``cursorDiskKV`` table can be tied to their workspace folder; a
    composer found both inline and in ``cursorDiskKV`` is reported once, from
    ``cursorDiskKV`` (where Cursor moved conversations and keeps writing).
    """
    workspace_dbs, global_db = _database_files(kind, root)
    scan = _Scan()
    for found in workspace_dbs:
        if found.version is None:
            scan.found.append(db_unresolved(found.path, found.error or "cannot stat"))
        else:
            _scan_database(found.path, scan, workspace=found.path.parent.name)
    if global_db is not None and (global_db.exists() or global_db.is_symlink()):
        _scan_database(global_db, scan, workspace=None)
    for item in scan.found:
        if _superseded(item, scan.kv_ids):
            continue
        yield _with_workspace(item, scan.workspaces)


def _database_files(kind: RootKind, root: Path) -> tuple[list[Found], Path | None]:
    """Workspace databases (or why one cannot be looked at) and the global database
    under a root of ``kind``."""
    if kind == "database":
        return [], root
    if kind == "global":
        return [], root / DB_NAME
    workspaces = root if kind == "workspaces" else root / "workspaceStorage"
    found = [
        item
        for item in walk_files(
            workspaces, lambda name: name == DB_NAME, max_depth=2, report_unlistable=True
        )
        if item.path.parent != workspaces or item.version is None
    ]
    return found, (root / "globalStorage" / DB_NAME if kind == "user" else None)


def _superseded(item: SessionRef | Unresolved, kv_ids: set[str]) -> bool:
    """An inline composer whose conversation also lives in ``cursorDiskKV``."""
    return (
        isinstance(item, SessionRef)
        and item.locator.startswith("composer:")
        and item.session_id in kv_ids
    )


def _with_workspace(
    item: SessionRef | Unresolved, workspaces: dict[str, str]
) -> SessionRef | Unresolved:
    """Append the owning workspace folder to a ``kv:`` locator when it is known."""
    if not isinstance(item, SessionRef) or not item.locator.startswith("kv:"):
        return item
    folder = workspaces.get(item.session_id)
    return structs.replace(item, locator=f"{item.locator}|{folder}") if folder else item


def _scan_database(path: Path, scan: _Scan, *, workspace: str | None) -> None:
    """Add the conversations of one ``state.vscdb`` to ``scan`` (or why it is unreadable)."""
    try:
        version = stat_version(path)
        connection = open_database(path)
    except (OSError, sqlite3.Error) as error:
        scan.found.append(db_unresolved(path, sqlite_reason(error)))
        return
    with closing(connection):
        try:
            _scan_tables(connection, path, version, scan, workspace)
        except sqlite3.Error as error:
            scan.found.append(db_unresolved(path, sqlite_reason(error)))


def _scan_tables(
    connection: sqlite3.Connection,
    path: Path,
    version: FileVersion,
    scan: _Scan,
    workspace: str | None,
) -> None:
    """Find conversations in whichever of Cursor's tables the database has."""
    tables = table_names(connection)
    if ITEM_TABLE not in tables and KV_TABLE not in tables:
        scan.found.append(db_unresolved(path, "no ItemTable or cursorDiskKV table"))
        return
    if ITEM_TABLE in tables:
        scan_item_table(
            connection,
            path,
            version,
            workspace=workspace,
            found=scan.found,
            workspaces=scan.workspaces,
        )
    if KV_TABLE in tables:
        _scan_kv_table(connection, path, version, scan)


# -- cursorDiskKV ----------------------------------------------------------------------------------

#: Per composer row: id, validity, times, header/inline counts, subagent flag, size.
_KV_COMPOSERS_SQL = f"""
SELECT key, ok,
       CASE WHEN ok THEN json_extract(v, '$.lastUpdatedAt') END,
       CASE WHEN ok THEN json_extract(v, '$.createdAt') END,
       CASE WHEN ok THEN json_array_length(v, '$.fullConversationHeadersOnly') END,
       CASE WHEN ok THEN json_array_length(v, '$.conversation') END,
       CASE WHEN ok THEN json_type(v, '$.subagentInfo') END,
       length(v)
FROM (SELECT key, CAST(value AS TEXT) AS v, json_valid(CAST(value AS TEXT)) AS ok
      FROM {KV_TABLE} WHERE key >= '{KV_COMPOSER}' AND key < 'composerData;')
"""


class _KvComposer(msgspec.Struct, frozen=True):
    """The cheap facts discovery needs about one ``composerData:<id>`` row."""

    cid: str
    valid: bool
    updated: Any = None
    created: Any = None
    headers: int = 0
    inline: int = 0
    subagent: bool = False
    size: int = 0


def _kv_composer_rows(connection: sqlite3.Connection) -> list[_KvComposer]:
    """Composer rows summarised by SQLite's JSON functions (values are not loaded)."""
    return [
        _KvComposer(
            cid=str(key)[len(KV_COMPOSER) :],
            valid=bool(ok),
            updated=updated,
            created=created,
            headers=headers or 0,
            inline=inline or 0,
            subagent=kind in ("object", "array"),
            size=size or 0,
        )
        for key, ok, updated, created, headers, inline, kind, size in connection.execute(
            _KV_COMPOSERS_SQL
        )
    ]


def _is_subagent_composer(row: _KvComposer) -> bool:
    """A composer that a Task tool call spawned: part of its parent's run."""
    return row.subagent or row.cid.startswith("task-")


def _scan_kv_table(
    connection: sqlite3.Connection, path: Path, version: FileVersion, scan: _Scan
) -> None:
    """One session per ``composerData:<id>`` row that has a conversation."""
    for row in _kv_composer_rows(connection):
        if not row.cid or _is_subagent_composer(row):
            continue
        if not row.valid:
            scan.found.append(db_unresolved(path, "composer record is not JSON", row.cid))
            continue
        if row.headers == 0 and row.inline == 0:
            continue
        scan.kv_ids.add(row.cid)
        marker = f"{row.updated}:{row.headers}:{row.inline}:{row.size}"
        scan.found.append(
            SessionRef(
                TOOL,
                row.cid,
                str(path),
                version.with_marker(marker),
                locator=f"kv:{row.cid}",
                updated_at=epoch_time(row.updated, row.created),
            )
        )
