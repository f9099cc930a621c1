"""SQLite driven the way concurrent writers need it (ENGINEERING-NOTES, "SQLAlchemy 2 + SQLite").

pysqlite begins transactions lazily, which let read-then-write sequences in
two processes lose updates. With its implicit transactions switched off and
every transaction opened as ``BEGIN IMMEDIATE``, writers serialise instead.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Literal

from sqlalchemy import Connection, Engine, event

__all__ = ["tune_for_writers"]

BUSY_TIMEOUT_MS = 10_000


def tune_for_writers(
    engine: Engine, *, synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
) -> Engine:
    """Apply the settings to every connection of ``engine``; returns it.

    ``synchronous=FULL`` where a confirmed write must survive a power cut (a
    store's receipt), ``NORMAL`` where WAL's guarantee suffices (dreamd's state).
    """

    def on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor)
        cursor.execute(f"PRAGMA synchronous = {synchronous}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

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
