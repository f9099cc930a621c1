"""The SQL store's engine: opened on a URL, tuned, its tables ready; driver errors phrased.

- SQLite is driven as the state database is (ENGINEERING-NOTES): pysqlite's implicit
  transactions off, every transaction ``BEGIN IMMEDIATE``, a busy timeout, WAL; and
  ``synchronous = FULL``, because the cursor checkpoint relies on a receipt surviving a power
  cut. Its folder is created when missing.
- PostgreSQL (``stores/_postgres.py``): ``postgres://`` and ``postgresql://`` use psycopg 3;
  connections are pre-pinged and time out. A missing driver says what to install.
- The tables are prepared (``stores/_sqlschema.py``) before the engine is handed out; any
  failure disposes of it and is a ``StoreError`` chaining the driver's error.
- A URL is shown with its password hidden, also one given as a query option.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from dreamd.errors import StoreError
from dreamd.fswrite import private_file
from dreamd.sqlite import tune_for_writers

from ._postgres import driver_url, engine_options, is_postgres
from ._sqlschema import prepare_schema

__all__ = ["drop_connection", "open_engine", "reason", "shown"]


def open_engine(url: URL) -> Engine:
    """An engine on ``url`` with the store's tables ready (SQLite tuned for safe writers)."""
    try:
        if url.get_backend_name() == "sqlite":
            engine = _sqlite_engine(url)
        elif is_postgres(url):
            engine = create_engine(driver_url(url), **engine_options(url))
        else:
            engine = create_engine(url, pool_pre_ping=True)
    except ImportError as error:
        missing = (
            "the PostgreSQL driver psycopg 3 is not installed: pip install 'dreamd[postgres]'"
            if is_postgres(url)
            else f"its driver is not installed ({error})"
        )
        raise StoreError(f"cannot open the store {shown(url)}: {missing}") from error
    except (SQLAlchemyError, OSError) as error:
        raise StoreError(f"cannot open the store {shown(url)}: {error}") from error
    try:
        connection = engine.connect()
    except SQLAlchemyError as error:
        engine.dispose()
        raise StoreError(f"cannot reach the store {shown(url)}: {reason(error)}") from error
    try:
        with connection:
            prepare_schema(connection, postgres=is_postgres(url))
    except SQLAlchemyError as error:
        engine.dispose()
        raise StoreError(f"cannot create the tables in {shown(url)}: {reason(error)}") from error
    except StoreError:
        engine.dispose()
        raise
    return engine


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        try:  # 0600 whatever the umask; SQLite gives its -wal and -shm the same mode
            private_file(Path(database))
        except OSError as error:
            raise StoreError(f"cannot create the database {database}: {error}") from error
    return tune_for_writers(create_engine(url), synchronous="FULL")


def shown(url: URL) -> str:
    """The URL as reports show it: the password, also one given as a query option, hidden."""
    if "password" in url.query:
        url = url.update_query_dict({"password": "***"})
    return url.render_as_string(hide_password=True)


def reason(error: SQLAlchemyError) -> str:
    """The driver's own message on one line (the chained error keeps the rest)."""
    message = str(error.orig) if isinstance(error, DBAPIError) else str(error)
    return " ".join(message.split())


def drop_connection(connection: Connection) -> None:
    """Close ``connection`` for good: it never goes back to the pool."""
    with suppress(SQLAlchemyError):
        connection.invalidate()
    with suppress(SQLAlchemyError):
        connection.close()
