"""The state database's schema at the newest migration, for creating a new file directly.

Running the migrations one after another costs a new user's first
command more than half a second (Alembic and SQLAlchemy are imported for it);
a new file gets these statements instead, in one transaction, and is stamped
at ``HEAD_REVISION``. ``tests/core/test_statedb.py`` creates a file both ways
and compares every table, column, key and index, so a new migration without
the matching change here fails the tests. Plain text, no imports: reading it
loads nothing.
"""

from __future__ import annotations

__all__ = ["HEAD_REVISION", "HEAD_SCHEMA"]

#: The newest migration (the last script in ``versions/``).
HEAD_REVISION = "0010"

#: The statements that create the schema at ``HEAD_REVISION``, in order.
HEAD_SCHEMA = (
    """CREATE TABLE alembic_version (
        version_num VARCHAR(32) NOT NULL,
        CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
    )""",
    """CREATE TABLE session_cache (
        tool VARCHAR NOT NULL,
        path TEXT NOT NULL,
        locator TEXT NOT NULL,
        read_at FLOAT NOT NULL,
        info BLOB NOT NULL,
        CONSTRAINT pk_session_cache PRIMARY KEY (tool, path, locator)
    )""",
    """CREATE TABLE job_run (
        run_id VARCHAR NOT NULL,
        job VARCHAR NOT NULL,
        mode VARCHAR NOT NULL,
        started_at FLOAT NOT NULL,
        finished_at FLOAT,
        outcome VARCHAR,
        summary TEXT DEFAULT '{}' NOT NULL,
        pid INTEGER,
        CONSTRAINT pk_job_run PRIMARY KEY (run_id)
    )""",
    "CREATE INDEX ix_job_run_job_started_at ON job_run (job, started_at)",
    """CREATE TABLE collector_cursor (
        host VARCHAR NOT NULL,
        version INTEGER NOT NULL,
        document TEXT NOT NULL,
        updated_at FLOAT NOT NULL,
        CONSTRAINT pk_collector_cursor PRIMARY KEY (host)
    )""",
    """CREATE TABLE quarantined_plan (
        plan_id VARCHAR NOT NULL,
        session TEXT NOT NULL,
        revision TEXT NOT NULL,
        window_key TEXT NOT NULL,
        stage VARCHAR NOT NULL,
        reason TEXT NOT NULL,
        path TEXT,
        run_id VARCHAR NOT NULL,
        quarantined_at FLOAT NOT NULL,
        CONSTRAINT pk_quarantined_plan PRIMARY KEY (plan_id)
    )""",
    """CREATE TABLE store_key_index (
        store TEXT NOT NULL,
        location TEXT NOT NULL,
        inode INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL,
        keys TEXT NOT NULL,
        source TEXT NOT NULL,
        CONSTRAINT pk_store_key_index PRIMARY KEY (store, location)
    )""",
    """CREATE TABLE transcript_reads (
        path TEXT NOT NULL,
        device INTEGER NOT NULL,
        inode INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        memory_paths TEXT NOT NULL,
        CONSTRAINT pk_transcript_reads PRIMARY KEY (path)
    )""",
    """CREATE TABLE session_cache_generation (
        id INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        CONSTRAINT pk_session_cache_generation PRIMARY KEY (id)
    )""",
    """CREATE TABLE backlog_memo (
        id INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        inputs VARCHAR NOT NULL,
        memo BLOB NOT NULL,
        CONSTRAINT pk_backlog_memo PRIMARY KEY (id)
    )""",
    """CREATE TABLE schedule_memo (
        job VARCHAR NOT NULL,
        memo BLOB NOT NULL,
        CONSTRAINT pk_schedule_memo PRIMARY KEY (job)
    )""",
    f"INSERT INTO alembic_version (version_num) VALUES ('{HEAD_REVISION}')",
)
