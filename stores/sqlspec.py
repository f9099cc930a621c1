"""The SQL store's entry in the registry: its ``[stores.sql]`` table and how to open it.

Kept apart from ``dreamd.stores.sql`` so that reading the configuration (every
command does) never imports SQLAlchemy; the adapter is imported when a store
is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ._registry import StoreContext, StoreSpec, StoreTable
from ._sqlurl import url_place_problem, url_problem

if TYPE_CHECKING:
    from .sql import SqlStore

__all__ = ["SPEC", "SqlTable", "default_url"]


class SqlTable(StoreTable):
    """``[stores.sql]``: a SQLAlchemy URL (SQLite in the data dir by default; PostgreSQL
    to share one store between machines)."""

    url: str | None = None


def default_url(table: SqlTable, data_dir: Path) -> str:
    """The store's URL: ``[stores.sql] url``, else SQLite in the data dir."""
    return table.url or f"sqlite:///{data_dir / 'memory.db'}"


def _open(
    table: SqlTable, context: StoreContext, project: str | None, create: bool
) -> SqlStore | None:
    url = default_url(table, context.data_dir)
    never_written = url.startswith("sqlite:///") and not Path(url[10:]).exists()
    if not create and never_written:
        return None  # a store nothing was ever planted into: nothing to gate
    from .sql import SqlStore

    return SqlStore(url, host=context.machine)


#: The registry's entry (``dreamd.stores.registry``): one store for every session.
SPEC = StoreSpec(
    name="sql",
    table=SqlTable,
    gate="rows",
    per_project=False,
    open=_open,
    check=url_problem,
    check_place=url_place_problem,
)
