"""SQLite driven the way concurrent writers need it (ENGINEERING-NOTES, "SQLAlchemy 2 + SQLite").

pysqlite begins transactions lazily, which let read-then-write sequences in
two processes lose updates. With its implicit transactions switched off and
every transaction opened as ``BEGIN IMMEDIATE``, writers serialise instead.
The same settings serve a plain ``sqlite3`` connection (the state database)
and every connection of a SQLAlchemy engine (a store's SQLite file).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

__all__ = ["BUSY_TIMEOUT_MS", "connect_for_writers", "tune_for_writers"]

BUSY_TIMEOUT_MS = 10_000

Synchronous = Literal["NORMAL", "FULL"]


def connect_for_writers(path: Path, *, synchronous: Synchronous = "NORMAL") -> sqlite3.Connection:
    """A ``sqlite3`` connection with the writers' settings; the caller issues ``BEGIN
    IMMEDIATE`` (``StateDB.transaction``). Shared by the threads of one process."""
    connection = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        configure(connection, synchronous)
    except sqlite3.Error:
        connection.close()
        raise
    return connection


def configure(connection: sqlite3.Connection, synchronous: Synchronous = "NORMAL") -> None:
    """Autocommit mode (transactions only where the caller begins one), the busy timeout,
    WAL, ``synchronous`` and foreign keys."""
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    _switch_to_wal(cursor)
    cursor.execute(f"PRAGMA synchronous = {synchronous}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def tune_for_writers(engine: Engine, *, synchronous: Synchronous = "NORMAL") -> Engine:
    """Apply the settings to every connection of ``engine``; returns it.

    ``synchronous=FULL`` where a confirmed write must survive a power cut (a
    store's receipt), ``NORMAL`` where WAL's guarantee suffices (dreamd's state).
    """
    from sqlalchemy import event

    def on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        configure(dbapi_connection, synchronous)

    def on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)
    return engine


def _switch_to_wal(cursor: sqlite3.Cursor) -> None:
    """``journal_mode = WAL``, retried while another process creates or recovers the file.

    Several processes opening a new database at once can get "database is
    locked" from this pragma before SQLite's busy handler applies; it clears as
    soon as the first one finishes, so it is retried within the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.01
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
