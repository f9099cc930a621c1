"""The SQL store on the read path: its own full-text index picks the candidates.

SQLite answers through FTS5, PostgreSQL through the ``search`` column and
``websearch_to_tsquery`` (``dreamd.stores.sqlsearch``), both kept in step by
the database itself with every write, update and status move, by any host.
Only rows ``new`` (status ``pending`` here) or ``accepted`` are memories; the
filter (project, kind) runs in the database, and at most ``limit`` rows are
read. Several machines pointed at one PostgreSQL database read each other's
items through it.

Ids: ``sql:memory_item/<row id>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row
from sqlalchemy.exc import SQLAlchemyError

from dreamd.errors import StoreError
from dreamd.search.model import Filter, Memory, matches
from dreamd.search.query import Query
from dreamd.stores.sql import STATUS_NEW, SqlStore
from dreamd.stores.sqlsearch import (
    VISIBLE_STATUSES,
    RowFilter,
    recent_rows,
    row_by_id,
    search_rows,
)

__all__ = ["KIND", "SqlSearch"]

KIND = "sql"
_PREFIX = f"{KIND}:memory_item/"


class SqlSearch:
    """The SQL store as the read path sees it (``Searchable``)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    @property
    def name(self) -> str:
        return self.store.name

    def candidates(self, query: Query, where: Filter, limit: int) -> list[Memory]:
        if query.empty:
            return []
        rows = self._read(
            lambda connection: search_rows(
                connection,
                fts5=query.fts5(),
                websearch=query.websearch(),
                words=query.words,
                where=_row_filter(where),
                limit=limit,
            )
        )
        # The index chose the rows; the query decides, as for every store (the LIKE fallback
        # hands over rows holding any of its words).
        memories = [_memory(self.name, row) for row, _score in rows]
        return [memory for memory in memories if matches(query, memory)]

    def get(self, id: str) -> Memory | None:
        number = id.removeprefix(_PREFIX)
        if not id.startswith(_PREFIX) or not number.isascii() or not number.isdigit():
            return None
        row = self._read(lambda connection: row_by_id(connection, int(number)))
        return None if row is None else _memory(self.name, row)

    def recent(self, where: Filter, limit: int) -> list[Memory]:
        rows = self._read(lambda connection: recent_rows(connection, _row_filter(where), limit))
        return [_memory(self.name, row) for row in rows]

    def _read(self, step: Any) -> Any:
        """Run ``step(connection)`` in one read transaction; driver errors become StoreError."""
        try:
            with self.store.engine.begin() as connection:
                return step(connection)
        except SQLAlchemyError as error:
            raise StoreError(f"cannot search {self.name}: {error}") from error


def _row_filter(where: Filter) -> RowFilter:
    return RowFilter(project=where.project, kind=where.kind, statuses=VISIBLE_STATUSES)


def _memory(store: str, row: Row[Any]) -> Memory:
    quotes = row.quotes if isinstance(row.quotes, list) else []
    pairs: Sequence[tuple[str, str]] = [
        (str(q.get("message", "")), str(q.get("text", ""))) for q in quotes if isinstance(q, dict)
    ]
    created = row.created_at if isinstance(row.created_at, datetime) else None
    if created is not None and created.tzinfo is None:
        created = created.replace(tzinfo=UTC)  # SQLite hands back what was stored, without zone
    return Memory(
        id=f"{_PREFIX}{row.id}",
        store=store,
        location=f"memory_item/{row.id}",
        title=row.name,
        description=row.description,
        body=row.body,
        type=row.type,
        category=row.category,
        project=row.project,
        source=row.source,
        collected=row.collected,
        quotes=tuple(pairs),
        status="pending" if row.status == STATUS_NEW else str(row.status),
        changed=created,
    )
