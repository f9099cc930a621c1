"""PostgreSQL specifics of the SQL store: the driver URL, advisory locks and the dream lease.

Rules (issue 6 item 4, ENGINEERING-NOTES "SQLAlchemy 2 + SQLite / PostgreSQL"):

- ``postgres://`` and ``postgresql://`` mean psycopg 3 (``postgresql+psycopg``);
  SQLAlchemy's default for the bare form would be psycopg2, which dreamd does
  not install. An explicit other driver is left as written.
- Every connection attempt gives up after ``CONNECT_TIMEOUT_S`` unless the URL
  sets its own ``connect_timeout``.
- Advisory lock keys are two 32-bit integers: a constant per purpose (schema
  creation, dream lease) and a checksum of the schema the store lives in, so
  two stores in one database (two schemas) never block each other.
- Schema creation holds a transaction-scoped lock (released by the commit or
  the rollback); the dream lease is a session lock on a connection held for
  the dream, released explicitly or by the server when the connection dies
  (a killed or disconnected host never leaves a stale lease).
- The lease holder names itself in ``application_name`` (``dreamd dream on
  <host>``), which every role may read in ``pg_stat_activity``; that is how a
  host that is refused the lease learns who holds it.
"""

from __future__ import annotations

import zlib
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.engine import URL

__all__ = [
    "CONNECT_TIMEOUT_S",
    "DREAM_LOCK",
    "SCHEMA_LOCK",
    "application_name",
    "driver_url",
    "engine_options",
    "holder_of",
    "is_postgres",
    "lock_key",
    "release_lease",
    "store_lock_key",
    "take_schema_lock",
    "try_lease",
]

#: Seconds a connection attempt may take before the store is reported unreachable.
CONNECT_TIMEOUT_S = 10
#: The psycopg 3 dialect, the one the ``postgres`` extra installs.
PSYCOPG_DRIVER = "postgresql+psycopg"
#: First half of the advisory key held while creating or migrating the store's tables.
SCHEMA_LOCK = 0x64726D73  # "drms"
#: First half of the advisory key held by the one host dreaming over the store.
DREAM_LOCK = 0x64726D64  # "drmd"
#: Prefix of the lease connection's ``application_name``; the host name follows.
LEASE_APPLICATION = "dreamd dream on "
#: PostgreSQL keeps at most 63 bytes of an ``application_name``.
_NAME_BYTES = 63


def is_postgres(url: URL) -> bool:
    """Whether ``url`` names a PostgreSQL database (any driver, any spelling)."""
    return url.get_backend_name() in ("postgresql", "postgres")


def driver_url(url: URL) -> URL:
    """``url`` with the bare PostgreSQL forms pointed at psycopg 3; other URLs unchanged."""
    if url.drivername in ("postgres", "postgresql"):
        return url.set(drivername=PSYCOPG_DRIVER)
    return url


def engine_options(url: URL) -> dict[str, Any]:
    """``create_engine`` keywords for a PostgreSQL URL: pre-ping, and a connect timeout."""
    connect_args = {} if "connect_timeout" in url.query else {"connect_timeout": CONNECT_TIMEOUT_S}
    return {"pool_pre_ping": True, "connect_args": connect_args}


def lock_key(purpose: int, schema: str) -> tuple[int, int]:
    """The two signed 32-bit halves of the advisory key for ``purpose`` in ``schema``."""
    checksum = zlib.crc32(schema.encode("utf-8"))
    return purpose, checksum - (1 << 32) if checksum >= 1 << 31 else checksum


def store_lock_key(connection: Connection, purpose: int) -> tuple[int, int]:
    """The advisory key for ``purpose`` in the schema this connection creates tables in."""
    schema = connection.execute(text("SELECT current_schema()")).scalar()
    return lock_key(purpose, str(schema or ""))


def take_schema_lock(connection: Connection) -> None:
    """Wait for the schema lock; the surrounding transaction's end releases it."""
    first, second = store_lock_key(connection, SCHEMA_LOCK)
    connection.execute(text("SELECT pg_advisory_xact_lock(:a, :b)"), {"a": first, "b": second})


def application_name(host: str | None) -> str:
    """What the lease connection calls itself: ``dreamd dream on <host>``, cut to 63 bytes."""
    name = LEASE_APPLICATION + (host or "unknown host")
    return name.encode("utf-8")[:_NAME_BYTES].decode("utf-8", "ignore")


def try_lease(connection: Connection, key: tuple[int, int], host: str | None) -> bool:
    """Take the dream lease on this connection without waiting; True when it is ours now.

    The connection is named after ``host`` first, so that whoever is refused
    can tell who holds it; the transaction is committed (a session lock
    outlives it), so nothing stays idle in a transaction during the dream.
    """
    connection.execute(
        text("SELECT set_config('application_name', :name, false)"),
        {"name": application_name(host)},
    )
    taken = connection.execute(
        text("SELECT pg_try_advisory_lock(:a, :b)"), {"a": key[0], "b": key[1]}
    ).scalar()
    connection.commit()
    return bool(taken)


def holder_of(connection: Connection, key: tuple[int, int]) -> str | None:
    """Who holds the lease ``key`` in this database: its host, or ``server process <pid>``."""
    row = connection.execute(
        text(
            "SELECT a.pid, a.application_name FROM pg_locks AS l"
            " JOIN pg_stat_activity AS a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND l.classid = CAST(:a AS oid) AND l.objid = CAST(:b AS oid)"
        ),
        {"a": key[0] & 0xFFFFFFFF, "b": key[1] & 0xFFFFFFFF},
    ).first()
    connection.commit()
    if row is None:
        return None
    name = str(row.application_name or "")
    if name.startswith(LEASE_APPLICATION):
        return name.removeprefix(LEASE_APPLICATION)
    return f"server process {row.pid}"


def release_lease(connection: Connection, key: tuple[int, int], *, held: bool) -> None:
    """Give the lease back (when held) and drop the connection's lease name."""
    if held:
        connection.execute(text("SELECT pg_advisory_unlock(:a, :b)"), {"a": key[0], "b": key[1]})
    connection.execute(text("SELECT set_config('application_name', '', false)"))
    connection.commit()
