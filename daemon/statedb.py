"""The state database: dreamd's own SQLite file in the data dir.

It holds the session cache (metadata keyed by file version, so a rescan of
unchanged files costs a ``stat`` each), the cursor, the job runs, the
quarantined write plans, the stores' key index and the transcripts' read
evidence. The schema is owned by Alembic migrations in ``dreamd.migrations``;
``open_state`` upgrades an older file in place before anything reads it, so
an upgrade never loses state.

Everything else talks to the file through the standard library's ``sqlite3``:
every command opens this database, and SQLAlchemy's import alone would cost
``dreamd status`` several times its whole budget (issue 13). Alembic (and so
SQLAlchemy) is loaded only when the file is not at the newest revision.

SQLite is driven the way concurrent writers need it (see ENGINEERING-NOTES):
implicit transactions are switched off and every transaction starts with
``BEGIN IMMEDIATE``, so read-then-write sequences in two processes serialise
instead of losing updates. One connection serves the process's threads, one
transaction at a time; a forked child opens its own.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from dreamd.errors import Refused, StateError
from dreamd.fswrite import private_file, private_folder, tighten_once
from dreamd.logs import get_logger
from dreamd.migrations.headschema import HEAD_REVISION, HEAD_SCHEMA
from dreamd.sessioninfo import SessionInfo
from dreamd.sqlite import connect_for_writers
from dreamd.staterows import (
    QUARANTINE_FIELDS,
    CacheKey,
    JobRun,
    KeyRow,
    QuarantinedPlan,
    moment,
    row_from_info,
    run_from_row,
    unpack_info,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = [
    "HEAD_REVISION",
    "CacheKey",
    "JobRun",
    "KeyRow",
    "QuarantinedPlan",
    "StateDB",
    "open_state",
]


_SHOWN_PATHS = 5

_KEY_COLUMNS = ("location", "inode", "size", "mtime_ns", "ctime_ns", "keys", "source")

log = get_logger("dreamd.statedb")


def _upsert(
    table: str, columns: Iterable[str], key: tuple[str, ...], *, positional: bool = False
) -> str:
    """``INSERT ... ON CONFLICT (key) DO UPDATE`` of every column, with named parameters
    (``positional``: ``?`` in the columns' order)."""
    names = list(columns)
    updates = ", ".join(f"{name} = excluded.{name}" for name in names if name not in key)
    values = ", ".join("?" if positional else f":{name}" for name in names)
    return (
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({values}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )


#: ``row_from_info`` gives the columns in this order.
_SAVE_SESSION = _upsert(
    "session_cache",
    ("tool", "path", "locator", "read_at", "info"),
    ("tool", "path", "locator"),
    positional=True,
)
_SAVE_KEYS = _upsert("store_key_index", ("store", *_KEY_COLUMNS), ("store", "location"))
_SAVE_QUARANTINE = _upsert("quarantined_plan", QUARANTINE_FIELDS, ("plan_id",))
#: Counts one write to the session cache (in the writing transaction).
_NEXT_GENERATION = (
    "INSERT INTO session_cache_generation (id, generation) VALUES (1, 1) "
    "ON CONFLICT (id) DO UPDATE SET generation = generation + 1"
)
_GENERATION = "SELECT COALESCE((SELECT generation FROM session_cache_generation WHERE id = 1), 0)"


def create_state_engine(path: Path) -> Engine:
    """A SQLAlchemy engine on ``path`` with dreamd's SQLite settings (for the migrations)."""
    from sqlalchemy import create_engine

    from dreamd.sqlite import tune_for_writers

    return tune_for_writers(create_engine(f"sqlite:///{path}"))


class StateDB:
    """Typed access to the state database. Every method is one transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0

    def _connect(self) -> sqlite3.Connection:
        """This process's connection, opened on first use (again in a forked child)."""
        if self._connection is None or self._pid != os.getpid():
            self._connection = connect_for_writers(self.path)
            self._pid = os.getpid()
        return self._connection

    def close(self) -> None:
        """Close the connection; the next call opens a new one."""
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; driver errors become ``StateError``."""
        with self._lock:
            try:
                connection = self._connect()
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise _state_error(error) from error
            try:
                yield connection
            except BaseException as failure:
                connection.rollback()
                if isinstance(failure, sqlite3.Error):
                    raise _state_error(failure) from failure
                raise
            try:
                connection.commit()
            except sqlite3.Error as error:
                connection.rollback()
                raise _state_error(error) from error

    def load_session_cache(self) -> dict[CacheKey, SessionInfo]:
        """Every cached session, keyed by (tool, path, locator)."""
        return self.cached_sessions()[1]

    def cached_sessions(self) -> tuple[int, dict[CacheKey, SessionInfo]]:
        """(the session cache's generation, every cached session by (tool, path, locator)),
        read in one transaction: the generation counts the writes to the cache."""
        with self.transaction() as connection:
            generation = int(connection.execute(_GENERATION).fetchone()[0])
            rows = connection.execute("SELECT info FROM session_cache")
            infos = [info for (value,) in rows if (info := unpack_info(value)) is not None]
        return generation, {(info.tool, info.path, info.locator): info for info in infos}

    def save_sessions(self, infos: Iterable[SessionInfo], *, now: datetime) -> None:
        """Insert or replace the cache rows of ``infos`` (those with a file version)."""
        rows = [row_from_info(info, now) for info in infos if info.file_version is not None]
        if rows:
            with self.transaction() as connection:
                connection.executemany(_SAVE_SESSION, rows)
                connection.execute(_NEXT_GENERATION)

    def forget_sessions(self, keys: Iterable[CacheKey]) -> None:
        """Drop cache rows of sessions that are gone from disk."""
        batch = list(keys)
        if not batch:
            return
        with self.transaction() as connection:
            connection.executemany(
                "DELETE FROM session_cache WHERE tool = ? AND path = ? AND locator = ?", batch
            )
            connection.execute(_NEXT_GENERATION)

    def backlog_memo(self, inputs: str) -> bytes | None:
        """The kept backlog count (``dreamd.collect.waiting``) when it was counted from the
        session cache as it is now and from ``inputs``; None otherwise."""
        with self.transaction() as connection:
            row = connection.execute(
                f"SELECT memo FROM backlog_memo WHERE id = 1 AND inputs = ? "
                f"AND generation = ({_GENERATION})",
                (inputs,),
            ).fetchone()
        return None if row is None else bytes(row[0])

    def schedule_memo(self, job: str) -> bytes | None:
        """The fire times kept for ``job`` (``dreamd.schedule.KeptFires``), or None."""
        with self.transaction() as connection:
            row = connection.execute(
                "SELECT memo FROM schedule_memo WHERE job = ?", (job,)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def save_schedule_memo(self, job: str, memo: bytes) -> None:
        """Keep ``job``'s fire times."""
        with self.transaction() as connection:
            connection.execute(
                "INSERT INTO schedule_memo (job, memo) VALUES (?, ?) "
                "ON CONFLICT (job) DO UPDATE SET memo = excluded.memo",
                (job, memo),
            )

    def save_backlog_memo(self, generation: int, inputs: str, memo: bytes) -> None:
        """Keep ``memo``, counted from the session cache at ``generation`` and ``inputs``."""
        with self.transaction() as connection:
            connection.execute(
                "INSERT INTO backlog_memo (id, generation, inputs, memo) VALUES (1, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, "
                "inputs = excluded.inputs, memo = excluded.memo",
                (generation, inputs, memo),
            )

    def load_key_index(self, store: str) -> list[KeyRow]:
        """The key index of one store: which keys each file held at which version."""
        query = f"SELECT {', '.join(_KEY_COLUMNS)} FROM store_key_index WHERE store = ?"
        with self.transaction() as connection:
            rows = connection.execute(query, (store,)).fetchall()
        return [(*row[:5], tuple(msgspec.json.decode(row[5])), row[6]) for row in rows]

    def save_key_index(self, store: str, changed: Iterable[KeyRow], gone: Iterable[str]) -> None:
        """Insert or replace ``changed`` and drop the ``gone`` locations, in one transaction."""
        rows = [
            {**dict(zip(_KEY_COLUMNS[:5], row[:5], strict=True)), "store": store,
             "keys": msgspec.json.encode(sorted(row[5])).decode(), "source": row[6]}
            for row in changed
        ]  # fmt: skip
        dropped = [(store, location) for location in gone]
        with self.transaction() as connection:
            connection.executemany(
                "DELETE FROM store_key_index WHERE store = ? AND location = ?", dropped
            )
            connection.executemany(_SAVE_KEYS, rows)

    def start_run(
        self, run_id: str, job: str, mode: str, now: datetime, *, pid: int | None = None
    ) -> None:
        """Record that a job run started in process ``pid`` (this one by default); its
        completion is recorded by ``finish_run``."""
        with self.transaction() as connection:
            connection.execute(
                "INSERT INTO job_run (run_id, job, mode, started_at, summary, pid) "
                "VALUES (?, ?, ?, ?, '{}', ?)",
                (run_id, job, mode, now.timestamp(), pid or os.getpid()),
            )

    def unfinished_runs(self) -> list[JobRun]:
        """Every run with no finish recorded (running, or its process died), oldest first."""
        return self._runs("WHERE finished_at IS NULL ORDER BY started_at")

    def finish_run(
        self, run_id: str, *, outcome: str, mode: str, summary: dict[str, Any], now: datetime
    ) -> None:
        """Record a run's completion: outcome, final mode and summary counts."""
        encoded = msgspec.json.encode(summary).decode()
        with self.transaction() as connection:
            connection.execute(
                "UPDATE job_run SET finished_at = ?, outcome = ?, mode = ?, summary = ? "
                "WHERE run_id = ?",
                (now.timestamp(), outcome, mode, encoded, run_id),
            )

    def run(self, run_id: str) -> JobRun | None:
        """One recorded run, or None."""
        found = self._runs("WHERE run_id = ?", (run_id,))
        return found[0] if found else None

    def runs(self, job: str | None = None, limit: int = 20) -> list[JobRun]:
        """The most recent runs, newest first."""
        if job is None:
            return self._runs("ORDER BY started_at DESC LIMIT ?", (limit,))
        return self._runs("WHERE job = ? ORDER BY started_at DESC LIMIT ?", (job, limit))

    def runs_since(self, since: datetime | None = None, limit: int = 200) -> list[JobRun]:
        """Every run started at ``since`` or later (all when None), newest first."""
        if since is None:
            return self.runs(limit=limit)
        query = "WHERE started_at >= ? ORDER BY started_at DESC LIMIT ?"
        return self._runs(query, (since.timestamp(), limit))

    def _runs(self, clause: str, parameters: tuple[Any, ...] = ()) -> list[JobRun]:
        with self.transaction() as connection:
            cursor = connection.cursor()
            cursor.row_factory = sqlite3.Row
            rows = cursor.execute(f"SELECT * FROM job_run {clause}", parameters).fetchall()
        return [run_from_row(row) for row in rows]

    def run_ids(self, prefix: str) -> list[str]:
        """The IDs of the recorded runs that start with ``prefix``, sorted."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = "SELECT run_id FROM job_run WHERE run_id LIKE ? ESCAPE '\\' ORDER BY run_id"
        with self.transaction() as connection:
            return [str(row[0]) for row in connection.execute(query, (f"{escaped}%",))]

    def earliest_run_start(self) -> datetime | None:
        """When dreamd first recorded a run of anything (the service counts): its install date."""
        with self.transaction() as connection:
            (first,) = connection.execute("SELECT min(started_at) FROM job_run").fetchone()
        return moment(first)

    def quarantine_plan(self, plan: QuarantinedPlan) -> None:
        """Record (or record again, with the newest reason) a quarantined plan."""
        values = {name: getattr(plan, name) for name in QUARANTINE_FIELDS}
        values["quarantined_at"] = plan.quarantined_at.timestamp()
        with self.transaction() as connection:
            connection.execute(_SAVE_QUARANTINE, values)

    def quarantined_plans(self) -> list[QuarantinedPlan]:
        """Every quarantined plan, newest first."""
        query = (
            f"SELECT {', '.join(QUARANTINE_FIELDS)} FROM quarantined_plan "
            "ORDER BY quarantined_at DESC"
        )
        with self.transaction() as connection:
            rows = connection.execute(query).fetchall()
        return [
            QuarantinedPlan(
                **dict(zip(QUARANTINE_FIELDS[:-1], row[:-1], strict=True)),
                quarantined_at=datetime.fromtimestamp(row[-1], tz=UTC),
            )
            for row in rows
        ]

    def load_cursor(self, host: str) -> tuple[int, dict[str, Any]]:
        """The host's cursor document and its version (0 and an empty document at first)."""
        with self.transaction() as connection:
            row = connection.execute(
                "SELECT version, document FROM collector_cursor WHERE host = ?", (host,)
            ).fetchone()
        if row is None:
            return 0, {}
        return int(row[0]), msgspec.json.decode(row[1])

    def save_cursor(
        self, host: str, document: dict[str, Any], *, expected: int, now: datetime
    ) -> int:
        """Save the host's cursor if nobody else changed it since version ``expected``.

        The version is re-read inside the same ``BEGIN IMMEDIATE`` transaction:
        a concurrent change raises ``Refused`` instead of being overwritten.
        Returns the new version.
        """
        encoded = msgspec.json.encode(document).decode()
        with self.transaction() as connection:
            row = connection.execute(
                "SELECT version FROM collector_cursor WHERE host = ?", (host,)
            ).fetchone()
            current = 0 if row is None else int(row[0])
            if current != expected:
                raise Refused(
                    f"the cursor of {host} changed while this run worked "
                    f"(version {current}, expected {expected}): stopping without overwriting it"
                )
            connection.execute(
                "INSERT INTO collector_cursor (host, version, document, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (host) DO UPDATE SET version = excluded.version, "
                "document = excluded.document, updated_at = excluded.updated_at",
                (host, current + 1, encoded, now.timestamp()),
            )
        return current + 1


def _state_error(error: sqlite3.Error) -> StateError:
    return StateError(f"state database error: {error.__class__.__name__}: {error}")


def open_state(path: Path) -> StateDB:
    """Open (creating or upgrading) the state database at ``path``."""
    try:
        private_folder(path.parent)
        tightened = tighten_once(path.parent)
        private_file(path)
    except OSError as error:
        raise StateError(f"cannot create the data directory {path.parent}: {error}") from error
    if tightened:  # a data folder an older dreamd left readable by other users
        shown = [str(p.relative_to(path.parent)) for p in tightened[:_SHOWN_PATHS]]
        folder, count = str(path.parent), len(tightened)
        log.warning("state.permissions.tightened", folder=folder, count=count, paths=shown)
    state = StateDB(path)
    try:
        with state.transaction() as connection:
            revision = current_revision(connection)
            if revision is None and _is_empty(connection):
                revision = _create_at_head(connection)
    except StateError as error:
        state.close()
        raise StateError(f"cannot open the state database {path}: {error}") from error
    if revision != HEAD_REVISION:
        _upgrade(path)
    return state


def _is_empty(connection: sqlite3.Connection) -> bool:
    """Whether the file holds no table yet (a new state database)."""
    return connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None


def _create_at_head(connection: sqlite3.Connection) -> str:
    """Create the newest schema in the caller's transaction; returns its revision.

    The same schema the migrations build (``dreamd.migrations.headschema``), without
    importing Alembic: a new user's first command does not pay for every migration.
    """
    for statement in HEAD_SCHEMA:
        connection.execute(statement)
    return HEAD_REVISION


def _upgrade(path: Path) -> None:
    """Run the Alembic migrations up to head (the only path that loads SQLAlchemy)."""
    from sqlalchemy.exc import SQLAlchemyError

    from dreamd.migrations.runner import upgrade

    engine = create_state_engine(path)
    try:
        upgrade(engine)
    except SQLAlchemyError as error:
        raise StateError(f"cannot open the state database {path}: {error}") from error
    finally:
        engine.dispose()


def current_revision(connection: sqlite3.Connection) -> str | None:
    """The Alembic revision the file is at (None for a new file)."""
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ).fetchone()
    if exists is None:
        return None
    row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])
