"""Lay the shared OpenCode fixtures out the way OpenCode and MiMoCode keep them under a HOME.

OpenCode keeps ``~/.local/share/opencode/opencode.db`` and, from before its
SQLite days, ``~/.local/share/opencode/storage/{session,message,part}/...``.
MiMoCode, a fork with the same tables, keeps ``~/.local/share/mimocode/
mimocode.db``; the real OpenCode database stands in for it. The fixture was
committed without ``-wal``/``-shm`` files; if the shared folder has gained
non-empty ones since, they go beside OpenCode's copy, where the tool keeps
them (with no ``-wal`` present the reader ignores a ``-shm``).

The expected keys are worked out from the fixtures themselves: every session
file without a parent, every ``session`` row without a parent.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

_DB_FIXTURE = "stunningmemory_opencode.db"
_TREE_FIXTURE = "agentsessions_storage_v2"


def _copy_tree(source: Path, target: Path) -> None:
    """Copy every file under ``source`` to the same place under ``target``."""
    for path in sorted(source.rglob("*")):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)


def _tree_sessions(storage: Path) -> list[str]:
    """Ids of the top-level sessions of a JSON storage tree."""
    ids: list[str] = []
    for path in sorted((storage / "session").glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if not record.get("parentID"):
            ids.append(str(record.get("id") or path.stem))
    return ids


def _db_sessions(database: Path) -> list[str]:
    """Ids of the top-level sessions of a database, opened read-only and immutable."""
    uri = f"file:{quote(str(database))}?mode=ro&immutable=1"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        rows = connection.execute(
            "SELECT id FROM session WHERE parent_id IS NULL OR parent_id = '' ORDER BY id"
        ).fetchall()
    return [str(row[0]) for row in rows]


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy the OpenCode fixtures into OpenCode's and MiMoCode's data dirs; return the keys."""
    share = home / ".local" / "share"
    opencode, mimocode = share / "opencode", share / "mimocode"
    source = fixtures / "opencode"
    _copy_tree(source / _TREE_FIXTURE / "storage", opencode / "storage")
    for folder, name in ((opencode, "opencode.db"), (mimocode, "mimocode.db")):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / _DB_FIXTURE, folder / name)
    for suffix in ("-wal", "-shm"):
        side = source / f"{_DB_FIXTURE}{suffix}"
        if side.is_file() and side.stat().st_size > 0:
            shutil.copy2(side, opencode / f"opencode.db{suffix}")
    db_ids = _db_sessions(opencode / "opencode.db")
    tree_ids = [sid for sid in _tree_sessions(opencode / "storage") if sid not in db_ids]
    keys = [f"opencode:{sid}" for sid in (*db_ids, *tree_ids)]
    keys += [f"mimocode:{sid}" for sid in _db_sessions(mimocode / "mimocode.db")]
    return keys
