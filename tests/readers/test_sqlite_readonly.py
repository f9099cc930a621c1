"""Opening a tool's SQLite database never creates a file beside it, whatever state it is in."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from dreamd.readers._io import connect_sqlite_readonly


def _wal_database(folder: Path) -> sqlite3.Connection:
    """A WAL-mode database: 2 rows checkpointed into the file, 3 more only in the log."""
    connection = sqlite3.connect(folder / "tool.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, text TEXT)")
    connection.executemany("INSERT INTO message (text) VALUES (?)", [("a",), ("b",)])
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.executemany("INSERT INTO message (text) VALUES (?)", [("c",), ("d",), ("e",)])
    return connection


def _rows(path: Path) -> int:
    with closing(connect_sqlite_readonly(path)) as connection:
        count: int = connection.execute("SELECT count(*) FROM message").fetchone()[0]
    return count


def test_a_running_tool_is_read_through_its_log(tmp_path: Path) -> None:
    """-wal and -shm beside the file: the tool is running; its committed log is read."""
    tmp_path = tmp_path / "running"
    tmp_path.mkdir()
    writer = _wal_database(tmp_path)
    try:
        before = sorted(p.name for p in tmp_path.iterdir())
        assert {"tool.db-wal", "tool.db-shm"} <= set(before)
        assert _rows(tmp_path / "tool.db") == 5
        assert sorted(p.name for p in tmp_path.iterdir()) == before
    finally:
        writer.close()


def test_a_quiet_database_is_opened_immutable(tmp_path: Path) -> None:
    tmp_path = tmp_path / "quiet"
    tmp_path.mkdir()
    writer = _wal_database(tmp_path)
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute("PRAGMA journal_mode = DELETE")
    writer.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert before == ["tool.db"]
    assert _rows(tmp_path / "tool.db") == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    tmp_path = tmp_path / "empty"
    tmp_path.mkdir()
    with pytest.raises(FileNotFoundError):
        connect_sqlite_readonly(tmp_path / "absent.db")
    assert list(tmp_path.iterdir()) == []
