"""Opening a tool's SQLite database never creates a file beside it, whatever state it is in."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from dreamd.readers import READERS, Unresolved
from dreamd.readers._io import SideFileRefused, connect_sqlite_readonly
from dreamd.readers.opencode import open_database


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


def _stray_wal(folder: Path, name: str) -> Path:
    """A database with a ``-wal`` beside it and no ``-shm``: an exclusive writer, or a crash."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder.parent / f"source-{name}"
    connection = sqlite3.connect(source, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("CREATE TABLE message (id INTEGER PRIMARY KEY, text TEXT)")
    connection.execute("INSERT INTO message (text) VALUES ('a')")
    target = folder / name
    target.write_bytes(source.read_bytes())
    target.with_name(name + "-wal").write_bytes(source.with_name(source.name + "-wal").read_bytes())
    connection.close()
    return target


def test_a_stray_wal_without_shm_is_refused(tmp_path: Path) -> None:
    """A ``-wal`` without ``-shm`` is refused: even a read-only open would create the ``-shm``."""
    database = _stray_wal(tmp_path / "stray", "tool.db")
    with pytest.raises(SideFileRefused, match="-wal has no -shm"):
        connect_sqlite_readonly(database)
    assert sorted(p.name for p in database.parent.iterdir()) == ["tool.db", "tool.db-wal"]


def test_the_refusal_is_a_sqlite_error(tmp_path: Path) -> None:
    """Callers that report SQLite failures report the refusal without knowing it."""
    database = _stray_wal(tmp_path / "stray", "tool.db")
    with pytest.raises(sqlite3.Error):
        connect_sqlite_readonly(database)


@pytest.mark.parametrize(
    ("tool", "place"),
    [
        ("opencode", ".local/share/opencode/opencode.db"),
        ("mimocode", ".local/share/mimocode/mimocode.db"),
        ("cursor", ".config/Cursor/User/workspaceStorage/ws/state.vscdb"),
    ],
)
def test_readers_report_a_stray_wal_and_create_nothing(
    isolated_home: Path, tool: str, place: str
) -> None:
    """Every SQLite reader reports the refusal as unresolved and leaves the folder as it was."""
    target = isolated_home / place
    _stray_wal(target.parent, target.name)
    before = sorted(p.name for p in target.parent.iterdir())
    reader = READERS[tool]
    found = [
        item for root in reader.default_roots({}, isolated_home) for item in reader.discover(root)
    ]
    assert found and all(isinstance(item, Unresolved) for item in found)
    assert all("-wal has no -shm" in item.reason for item in found if isinstance(item, Unresolved))
    assert sorted(p.name for p in target.parent.iterdir()) == before


def test_the_public_opencode_opener_refuses_a_stray_wal(tmp_path: Path) -> None:
    """``open_database`` is the reader's own read-only opener, refusals included."""
    database = _stray_wal(tmp_path / "data", "opencode.db")
    with pytest.raises(sqlite3.Error, match="-wal has no -shm"):
        open_database(database)
    assert not database.with_name("opencode.db-shm").exists()


def test_the_public_opencode_opener_reads_a_quiet_database(tmp_path: Path) -> None:
    """On a quiet database the public opener gives a working read-only connection."""
    folder = tmp_path / "quiet"
    folder.mkdir()
    writer = _wal_database(folder)
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute("PRAGMA journal_mode = DELETE")
    writer.close()
    with closing(open_database(folder / "tool.db")) as connection:
        assert connection.execute("SELECT count(*) FROM message").fetchone()[0] == 5
        with pytest.raises(sqlite3.OperationalError):
            connection.execute("DELETE FROM message")


def test_the_names_the_trajectory_check_imports_are_public() -> None:
    """The dream can import public names instead of the reader's private ones."""
    from dreamd.readers import opencode

    for name in ("open_database", "UnreadableSession", "table_columns", "column"):
        assert name in opencode.__all__
    for name in ("db_override", "failure_reason"):
        assert name in opencode.__all__
