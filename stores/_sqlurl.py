"""``[stores.sql] url`` checked at configuration load (issue 15, configuration item 12).

Three mistakes used to pass the load and fail at the first collect (or never):
a URL SQLAlchemy cannot parse, a URL whose driver is not installed (a bare
``mysql://`` means the ``mysqlclient`` driver), and a SQLite file in a folder
that does not exist. Each is one line naming the key.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

__all__ = ["url_place_problem", "url_problem"]

#: Drivers named by a bare backend, and the module each needs (SQLAlchemy's defaults).
_DEFAULT_DRIVERS = {"mysql": ("MySQLdb", "mysqlclient"), "mariadb": ("MySQLdb", "mysqlclient")}


def url_problem(table: Any, listed: bool) -> tuple[str, str] | None:
    """A URL that does not parse, or names a database whose driver is not installed."""
    raw = getattr(table, "url", None)
    if raw is None:
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        shown = repr(raw) if "@" not in raw else "the URL"  # never quote a password
        return "url", f"{shown} is not a database URL (e.g. sqlite:////path/memory.db)"
    backend = url.get_backend_name()
    if backend in ("postgres", "postgresql"):
        if importlib.util.find_spec("psycopg") is None:
            return (
                "url",
                "the PostgreSQL driver psycopg 3 is not installed: pip install 'dreamd[postgres]'",
            )
        return None
    try:
        dialect = url.get_dialect()
    except NoSuchModuleError:
        return "url", f"{url.drivername!r} is not a database SQLAlchemy knows"
    if backend == "sqlite":
        return None
    try:
        dialect.import_dbapi()
    except ImportError:
        return "url", _driver_missing(url.drivername, backend)
    return None


def _driver_missing(drivername: str, backend: str) -> str:
    if "+" not in drivername and backend in _DEFAULT_DRIVERS:
        module, package = _DEFAULT_DRIVERS[backend]
        return (
            f"{drivername}:// needs the {module} driver, which is not installed: "
            f"pip install {package}, or name an installed driver ({backend}+pymysql://)"
        )
    return f"the driver of {drivername}:// is not installed"


def url_place_problem(table: Any, home: Path) -> tuple[str, str] | None:
    """A SQLite file whose folder does not exist (dreamd never creates it)."""
    raw = getattr(table, "url", None)
    if raw is None:
        return None
    from sqlalchemy.engine import make_url

    url = make_url(raw)  # url_problem ran first: it parses
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    folder = Path(url.database).expanduser().parent
    if not folder.is_dir():
        return "url", f"the SQLite file's folder {folder} does not exist"
    return None
