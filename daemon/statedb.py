"""The state database: dreamd's own SQLite file in the data dir.

It holds the session cache (metadata keyed by file version, so a rescan of
unchanged files costs a ``stat`` each), the cursor, the job runs and the
quarantined write plans. The schema is owned by
Alembic migrations in ``dreamd.migrations``; ``open_state`` upgrades an older
file in place before anything reads it, so an upgrade never loses state.

SQLite is driven the way concurrent writers need it (see ENGINEERING-NOTES):
pysqlite's implicit transactions are switched off and every transaction
starts with ``BEGIN IMMEDIATE``, so read-then-write sequences in two
processes serialise instead of losing updates.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    func,
    select,
    tuple_,
)
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError

from dreamd.errors import Refused, StateError
from dreamd.fswrite import private_file, private_folder, tighten_once
from dreamd.logs import get_logger
from dreamd.sessioninfo import SessionInfo
from dreamd.sqlite import tune_for_writers
from dreamd.staterows import (
    QUARANTINE_FIELDS,
    CacheKey,
    JobRun,
    KeyRow,
    QuarantinedPlan,
    info_from_row,
    moment,
    row_from_info,
    run_from_row,
)

__all__ = [
    "HEAD_REVISION",
    "CacheKey",
    "JobRun",
    "KeyRow",
    "QuarantinedPlan",
    "StateDB",
    "open_state",
]

#: The newest migration; ``open_state`` skips Alembic entirely when the file is at it.
HEAD_REVISION = "0008"
#: How many of the paths ``tighten_once`` changed the log line names.
_SHOWN_PATHS = 5

log = get_logger("dreamd.statedb")

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

session_cache = Table(
    "session_cache",
    metadata,
    Column("tool", String, primary_key=True),
    Column("path", Text, primary_key=True),
    Column("locator", Text, primary_key=True),
    Column("session_id", Text, nullable=False),
    Column("device", Integer, nullable=False),
    Column("inode", Integer, nullable=False),
    Column("size", Integer, nullable=False),
    Column("mtime_ns", Integer, nullable=False),
    Column("marker", Text, nullable=False),
    Column("activity_at", Float),
    Column("project", Text),
    Column("first_message_at", Float),
    Column("last_message_at", Float),
    Column("messages", Integer, nullable=False),
    Column("user_messages", Integer, nullable=False),
    Column("revision", String),
    Column("machine_opening", Boolean, nullable=False),
    Column("human_replies", Integer, nullable=False),
    Column("unresolved", Text),
    Column("read_at", Float, nullable=False),
    Column("damaged_lines", Text),
    Column("notes", Text),
)

collector_cursor = Table(
    "collector_cursor",
    metadata,
    Column("host", String, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("document", Text, nullable=False),
    Column("updated_at", Float, nullable=False),
)

job_run = Table(
    "job_run",
    metadata,
    Column("run_id", String, primary_key=True),
    Column("job", String, nullable=False),
    Column("mode", String, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("outcome", String),
    Column("summary", Text, nullable=False, default="{}"),
    Column("pid", Integer),
)

quarantined_plan = Table(
    "quarantined_plan",
    metadata,
    Column("plan_id", String, primary_key=True),
    Column("session", Text, nullable=False),
    Column("revision", Text, nullable=False),
    Column("window_key", Text, nullable=False),
    Column("stage", String, nullable=False),
    Column("reason", Text, nullable=False),
    Column("path", Text),
    Column("run_id", String, nullable=False),
    Column("quarantined_at", Float, nullable=False),
)

store_key_index = Table(
    "store_key_index",
    metadata,
    Column("store", Text, primary_key=True),
    Column("location", Text, primary_key=True),
    Column("inode", Integer, nullable=False),
    Column("size", Integer, nullable=False),
    Column("mtime_ns", Integer, nullable=False),
    Column("ctime_ns", Integer, nullable=False),
    Column("keys", Text, nullable=False),
    Column("source", Text, nullable=False),
)


def create_state_engine(path: Path) -> Engine:
    """A SQLAlchemy engine on ``path`` with dreamd's SQLite settings."""
    return tune_for_writers(create_engine(f"sqlite:///{path}"))


class StateDB:
    """Typed access to the state database. Every method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; driver errors become ``StateError``."""
        try:
            with self.engine.begin() as connection:
                yield connection
        except SQLAlchemyError as error:
            raise StateError(
                f"state database error: {error.__class__.__name__}: {error}"
            ) from error

    def load_session_cache(self) -> dict[CacheKey, SessionInfo]:
        """Every cached session, keyed by (tool, path, locator)."""
        with self.transaction() as connection:
            rows = connection.execute(select(*_CACHE_COLUMNS)).all()
        return {(row[0], row[2], row[3]): info_from_row(row) for row in rows}

    def save_sessions(self, infos: Iterable[SessionInfo], *, now: datetime) -> None:
        """Insert or replace the cache rows of ``infos`` (those with a file version)."""
        rows = [row_from_info(info, now) for info in infos if info.file_version is not None]
        if not rows:
            return
        statement = sqlite_insert(session_cache)
        updates = {c.name: statement.excluded[c.name] for c in session_cache.columns}
        with self.transaction() as connection:
            connection.execute(
                statement.on_conflict_do_update(
                    index_elements=["tool", "path", "locator"], set_=updates
                ),
                rows,
            )

    def forget_sessions(self, keys: Iterable[CacheKey]) -> None:
        """Drop cache rows of sessions that are gone from disk."""
        batch = list(keys)
        with self.transaction() as connection:
            for start in range(0, len(batch), 500):
                chunk = batch[start : start + 500]
                connection.execute(
                    delete(session_cache).where(
                        tuple_(
                            session_cache.c.tool, session_cache.c.path, session_cache.c.locator
                        ).in_(chunk)
                    )
                )

    def load_key_index(self, store: str) -> list[KeyRow]:
        """The key index of one store: which keys each file held at which version."""
        columns = [store_key_index.c[name] for name in _KEY_COLUMNS]
        query = select(*columns).where(store_key_index.c.store == store)
        with self.transaction() as connection:
            rows = connection.execute(query).all()
        return [(*row[:5], tuple(msgspec.json.decode(row[5])), row[6]) for row in rows]

    def save_key_index(self, store: str, changed: Iterable[KeyRow], gone: Iterable[str]) -> None:
        """Insert or replace ``changed`` and drop the ``gone`` locations, in one transaction."""
        rows = [
            {**dict(zip(_KEY_COLUMNS[:5], row[:5], strict=True)), "store": store,
             "keys": msgspec.json.encode(sorted(row[5])).decode(), "source": row[6]}
            for row in changed
        ]  # fmt: skip
        dropped = list(gone)
        statement = sqlite_insert(store_key_index)
        updates = {name: statement.excluded[name] for name in _KEY_COLUMNS[1:]}
        with self.transaction() as connection:
            for start in range(0, len(dropped), 500):
                where = store_key_index.c.location.in_(dropped[start : start + 500])
                connection.execute(
                    delete(store_key_index).where(store_key_index.c.store == store, where)
                )
            if rows:
                connection.execute(
                    statement.on_conflict_do_update(
                        index_elements=["store", "location"], set_=updates
                    ),
                    rows,
                )

    def start_run(
        self, run_id: str, job: str, mode: str, now: datetime, *, pid: int | None = None
    ) -> None:
        """Record that a job run started in process ``pid`` (this one by default); its
        completion is recorded by ``finish_run``."""
        values = {"run_id": run_id, "job": job, "mode": mode, "started_at": now.timestamp()}
        with self.transaction() as connection:
            connection.execute(
                job_run.insert().values(**values, summary="{}", pid=pid or os.getpid())
            )

    def unfinished_runs(self) -> list[JobRun]:
        """Every run with no finish recorded (running, or its process died), oldest first."""
        query = select(job_run).where(job_run.c.finished_at.is_(None))
        with self.transaction() as connection:
            rows = connection.execute(query.order_by(job_run.c.started_at)).all()
        return [run_from_row(row) for row in rows]

    def finish_run(
        self, run_id: str, *, outcome: str, mode: str, summary: dict[str, Any], now: datetime
    ) -> None:
        """Record a run's completion: outcome, final mode and summary counts."""
        with self.transaction() as connection:
            connection.execute(
                job_run.update()
                .where(job_run.c.run_id == run_id)
                .values(
                    finished_at=now.timestamp(),
                    outcome=outcome,
                    mode=mode,
                    summary=msgspec.json.encode(summary).decode(),
                )
            )

    def run(self, run_id: str) -> JobRun | None:
        """One recorded run, or None."""
        with self.transaction() as connection:
            row = connection.execute(select(job_run).where(job_run.c.run_id == run_id)).first()
        return None if row is None else run_from_row(row)

    def runs(self, job: str | None = None, limit: int = 20) -> list[JobRun]:
        """The most recent runs, newest first."""
        query = select(job_run).order_by(job_run.c.started_at.desc()).limit(limit)
        if job is not None:
            query = query.where(job_run.c.job == job)
        with self.transaction() as connection:
            return [run_from_row(row) for row in connection.execute(query)]

    def runs_since(self, since: datetime | None = None, limit: int = 200) -> list[JobRun]:
        """Every run started at ``since`` or later (all when None), newest first."""
        query = select(job_run).order_by(job_run.c.started_at.desc()).limit(limit)
        if since is not None:
            query = query.where(job_run.c.started_at >= since.timestamp())
        with self.transaction() as connection:
            return [run_from_row(row) for row in connection.execute(query)]

    def run_ids(self, prefix: str) -> list[str]:
        """The IDs of the recorded runs that start with ``prefix``, sorted."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = (
            select(job_run.c.run_id)
            .where(job_run.c.run_id.like(f"{escaped}%", escape="\\"))
            .order_by(job_run.c.run_id)
        )
        with self.transaction() as connection:
            return [str(row[0]) for row in connection.execute(query)]

    def earliest_run_start(self) -> datetime | None:
        """When dreamd first recorded a run of anything (the service counts): its install date."""
        with self.transaction() as connection:
            first = connection.execute(select(func.min(job_run.c.started_at))).scalar()
        return moment(first)

    def quarantine_plan(self, plan: QuarantinedPlan) -> None:
        """Record (or record again, with the newest reason) a quarantined plan."""
        values = {name: getattr(plan, name) for name in QUARANTINE_FIELDS}
        values["quarantined_at"] = plan.quarantined_at.timestamp()
        statement = sqlite_insert(quarantined_plan).values(**values)
        with self.transaction() as connection:
            connection.execute(
                statement.on_conflict_do_update(index_elements=["plan_id"], set_=values)
            )

    def quarantined_plans(self) -> list[QuarantinedPlan]:
        """Every quarantined plan, newest first."""
        query = select(quarantined_plan).order_by(quarantined_plan.c.quarantined_at.desc())
        with self.transaction() as connection:
            rows = connection.execute(query).all()
        return [
            QuarantinedPlan(
                **{name: getattr(row, name) for name in QUARANTINE_FIELDS[:-1]},
                quarantined_at=datetime.fromtimestamp(row.quarantined_at, tz=UTC),
            )
            for row in rows
        ]

    def load_cursor(self, host: str) -> tuple[int, dict[str, Any]]:
        """The host's cursor document and its version (0 and an empty document at first)."""
        with self.transaction() as connection:
            row = connection.execute(
                select(collector_cursor.c.version, collector_cursor.c.document).where(
                    collector_cursor.c.host == host
                )
            ).first()
        if row is None:
            return 0, {}
        return int(row.version), msgspec.json.decode(row.document)

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
                select(collector_cursor.c.version).where(collector_cursor.c.host == host)
            ).first()
            current = 0 if row is None else int(row.version)
            if current != expected:
                raise Refused(
                    f"the cursor of {host} changed while this run worked "
                    f"(version {current}, expected {expected}): stopping without overwriting it"
                )
            values = {"version": current + 1, "document": encoded, "updated_at": now.timestamp()}
            if row is None:
                connection.execute(collector_cursor.insert().values(host=host, **values))
            else:
                mine = collector_cursor.c.host == host
                connection.execute(collector_cursor.update().where(mine).values(**values))
        return current + 1


#: Columns in ``SessionInfo`` field order, the file version's five spliced in.
_CACHE_COLUMNS = tuple(
    session_cache.c[name]
    for name in (
        "tool", "session_id", "path", "locator",
        "device", "inode", "size", "mtime_ns", "marker",
        "activity_at", "project", "first_message_at", "last_message_at",
        "messages", "user_messages", "revision", "machine_opening", "human_replies",
        "unresolved", "damaged_lines", "notes",
    )
)  # fmt: skip


_KEY_COLUMNS = ("location", "inode", "size", "mtime_ns", "ctime_ns", "keys", "source")


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
    engine = create_state_engine(path)
    try:
        if current_revision(engine) != HEAD_REVISION:
            from dreamd.migrations.runner import upgrade

            upgrade(engine)
    except SQLAlchemyError as error:
        engine.dispose()
        raise StateError(f"cannot open the state database {path}: {error}") from error
    return StateDB(engine)


def current_revision(engine: Engine) -> str | None:
    """The Alembic revision the file is at (None for a new file)."""
    with engine.connect() as connection:
        exists = connection.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='alembic_version'"
        ).first()
        if exists is None:
            return None
        row = connection.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        return None if row is None else str(row[0])
