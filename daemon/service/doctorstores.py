"""``dreamd doctor``'s store checks: each store ``collect.stores`` lists, without writing to it.

- the SQL store (SQLite or PostgreSQL): reachable (a connection within a few
  seconds), its schema version (``dreamd_schema``: newer than this dreamd
  knows fails, older is migrated at the next write, none yet is created then)
  and whether this user may write (SQLite: the file's and folder's
  permissions; PostgreSQL: ``INSERT`` on ``memory_item``, or ``CREATE`` in the
  schema when the table is not there yet). SQLite is opened read-only;
- the memory folders (Claude Code's): the folder they live under is writable;
- the one-file stores (``memory-md``, ``graph``, ``gemini``): the file, or the
  folder it is to be created in, is writable.

A store whose check breaks is reported as failed; the others are still checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from dreamd.agentdirs import claude_dir
from dreamd.config import Settings
from dreamd.service.doctorprobe import Check, writable
from dreamd.stores.registry import StoreContext, StoreSpec, StoreTable
from dreamd.stores.sql import SCHEMA_VERSION, SqlTable, default_url, memory_item, schema_version

__all__ = ["CONNECT_TIMEOUT_SECONDS", "sql_check", "store_checks"]

#: How long the PostgreSQL server has to accept the connection.
CONNECT_TIMEOUT_SECONDS = 5
_MAY_CREATE = "SELECT has_schema_privilege(current_schema(), 'CREATE')"
_MAY_INSERT = "SELECT has_table_privilege('memory_item', 'INSERT')"


def store_checks(settings: Settings, env: Mapping[str, str], home: Path) -> list[Check]:
    """One check (or more) per listed store, in ``collect.stores`` order."""
    context = settings.store_context(env, home)
    checks: list[Check] = []
    for spec, table in settings.listed_stores():
        try:
            checks.append(_store_check(spec, table, settings, context))
        except Exception as error:  # one store that cannot be checked is its own failure
            checks.append(Check("store", spec.name, "fail", f"cannot be checked: {error}"))
    return checks


def _store_check(
    spec: StoreSpec, table: StoreTable, settings: Settings, context: StoreContext
) -> Check:
    if isinstance(table, SqlTable):
        return sql_check(spec.name, default_url(table, settings.data_dir))
    if spec.per_project:  # Claude Code's memory folders, one per project under its config dir
        projects = claude_dir(context.env, context.home) / "projects"
        what = "the folder the memory folders live in"
        return writable("store", projects, what, f"{spec.name} {projects}")
    store = spec.adapter(table, context, create=False)
    path = getattr(store, "path", None)
    if not isinstance(path, Path):
        fix = f"set [stores.{spec.name}] path"
        return Check("store", spec.name, "fail", "no file to write to", fix)
    return writable("store", path, "the file", f"{spec.name} {path}")


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def sql_check(name: str, url_text: str) -> Check:
    """Reachable, schema version, writable: one line for the SQL store at ``url_text``."""
    try:
        url = make_url(url_text)
    except ArgumentError as error:
        return Check("store", name, "fail", f"not a database URL: {error}", _fix_url(name))
    subject = f"{name} {_shown(url)}"
    if url.get_backend_name() == "sqlite":
        return _sqlite_check(name, subject, Path(url.database or ""))
    try:
        engine = create_engine(_driver(url), connect_args=_connect_args(url))
    except (ImportError, SQLAlchemyError) as error:
        fix = "pip install 'dreamd[postgres]'" if "postgres" in url.drivername else ""
        return Check("store", subject, "fail", f"no driver: {error}", fix)
    try:
        with engine.connect() as connection:
            return _schema_check(subject, connection, postgres=True)
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        return Check("store", subject, "fail", f"cannot be reached: {reason}", _fix_url(name))
    finally:
        engine.dispose()


def _fix_url(name: str) -> str:
    return f"start the server, or fix [stores.{name}] url"


def _driver(url: URL) -> URL:
    """PostgreSQL through psycopg 3 (the driver dreamd installs); anything else as given."""
    return url.set(drivername="postgresql+psycopg") if url.drivername == "postgresql" else url


def _connect_args(url: URL) -> dict[str, Any]:
    if url.get_backend_name() != "postgresql" or "connect_timeout" in url.query:
        return {}
    return {"connect_timeout": CONNECT_TIMEOUT_SECONDS}


def _sqlite_check(name: str, subject: str, database: Path) -> Check:
    access = writable("store", database, "the database file", subject)
    if access.status == "fail" or not database.exists():
        return access
    readonly = create_engine(f"sqlite:///file:{database}?mode=ro&uri=true")
    try:
        with readonly.connect() as connection:
            return _schema_check(subject, connection, postgres=False)
    except SQLAlchemyError as error:
        detail = f"cannot be read as a database: {error.__class__.__name__}"
        return Check("store", subject, "fail", detail, f"move {database} away; it is made anew")
    finally:
        readonly.dispose()


def _schema_check(subject: str, connection: Connection, *, postgres: bool) -> Check:
    """The recorded schema version against this dreamd's, and the right to write."""
    tables = inspect(connection)
    if not tables.has_table(memory_item.name):
        if postgres and not _may(
            connection, "SELECT has_schema_privilege(current_schema(), 'CREATE')"
        ):
            fix = "GRANT CREATE ON SCHEMA to this user, or point [stores.sql] url elsewhere"
            return Check("store", subject, "fail", "reachable; may not create tables", fix)
        return Check("store", subject, "ok", "reachable; no tables yet: made at the first collect")
    found = None
    if tables.has_table(schema_version.name):
        recorded = schema_version.c.component == memory_item.name
        found = connection.execute(select(schema_version.c.version).where(recorded)).scalar()
    version = int(found) if found is not None else 1
    if version > SCHEMA_VERSION:
        detail = f"schema version {version}, newer than this dreamd knows ({SCHEMA_VERSION})"
        return Check("store", subject, "fail", detail, "upgrade dreamd on this host")
    if postgres and not _may(connection, _MAY_INSERT):
        fix = "GRANT INSERT, UPDATE ON memory_item to this user"
        return Check("store", subject, "fail", "reachable; may not write memory_item", fix)
    later = "" if version == SCHEMA_VERSION else f" (migrated to {SCHEMA_VERSION} at next write)"
    return Check("store", subject, "ok", f"reachable, writable, schema version {version}{later}")


def _may(connection: Connection, query: str) -> bool:
    return bool(connection.execute(text(query)).scalar())
