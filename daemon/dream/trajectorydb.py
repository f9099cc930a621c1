"""The read-only queries on a trajectory database (seed 003 Phase 3). SQLite, never a write.

Databases are opened with the OpenCode reader's own helpers (``mode=ro``,
``immutable=1`` when no ``-wal``/``-journal`` lies beside the file,
``query_only``; refused while a rollback journal shows a write in progress,
and while a ``-wal`` lies there without its ``-shm``, which even a read-only
open would create). So no ``-wal``/``-shm`` file is ever created, nothing is
checkpointed, the directory listing stays as it was.

The questions, one parameterised query each, each with a bound:

- which of the cited ``[session-id]`` sources exist (``known_sessions``,
  in chunks of ``_CHUNK`` ids);
- which sessions the window holds (``window_sessions``): updated since its
  start, only the folder's project when it is known, newest first, at most
  ``MAX_WINDOW_SESSIONS``;
- the parts of some sessions (``part_texts``): text, tool input and tool
  output all live in ``part.data``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from dreamd.readers.opencode import column

__all__ = [
    "MAX_WINDOW_SESSIONS",
    "known_sessions",
    "part_texts",
    "window_sessions",
]

#: Newest sessions of the window searched per database.
MAX_WINDOW_SESSIONS = 200
#: Bound parameters per ``IN`` list, well under SQLite's oldest limit (999).
_CHUNK = 400


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def known_sessions(connection: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are rows of ``session`` (the primary key: one index probe each)."""
    known: set[str] = set()
    for chunk in _chunks(ids):
        rows = connection.execute(
            f"SELECT id FROM session WHERE id IN ({', '.join('?' * len(chunk))})", tuple(chunk)
        )
        known.update(row[0] for row in rows if isinstance(row[0], str))
    return known


def window_sessions(
    connection: sqlite3.Connection,
    columns: Mapping[str, frozenset[str]],
    since: datetime,
    project: Path | None,
) -> list[str]:
    """Sessions updated since ``since`` (epoch ms, or s in old rows), newest first, bounded."""
    stamp = column(columns["session"], "time_updated", "time_created")
    where: list[str] = []
    params: list[object] = []
    if stamp != "NULL":
        seconds = int(since.timestamp())
        where.append(f"({stamp} >= ? OR ({stamp} < 100000000000 AND {stamp} >= ?))")
        params += [seconds * 1000, seconds]
    if project is not None:
        root = str(project).rstrip("/") or "/"
        where.append("(directory = ? OR substr(directory, 1, ?) = ?)")
        params += [root, len(root) + 1, root.rstrip("/") + "/"]
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    order = f"{stamp} DESC, id" if stamp != "NULL" else "rowid DESC"
    rows = connection.execute(
        f"SELECT id FROM session {clause}ORDER BY {order} LIMIT ?",
        (*params, MAX_WINDOW_SESSIONS),
    )
    return [row[0] for row in rows if isinstance(row[0], str)]


def part_texts(
    connection: sqlite3.Connection, columns: Mapping[str, frozenset[str]], sessions: Sequence[str]
) -> Iterator[str]:
    """``part.data`` of the sessions: by ``part.session_id`` (indexed), else through ``message``."""
    for chunk in _chunks(list(dict.fromkeys(sessions))):
        marks = ", ".join("?" * len(chunk))
        if "session_id" in columns["part"]:
            sql = f"SELECT data FROM part WHERE session_id IN ({marks})"
        else:
            sql = (
                "SELECT p.data FROM part AS p JOIN message AS m ON m.id = p.message_id "
                f"WHERE m.session_id IN ({marks})"
            )
        for (data,) in connection.execute(sql, tuple(chunk)):
            yield _as_text(data)


def _as_text(data: object) -> str:
    if isinstance(data, str):
        return data
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return ""
