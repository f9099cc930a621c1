"""Full-text search over the SQL store: the database's own index, kept in step by the database.

Rules (issue 14 part 4, "The read path"):

- SQLite: an FTS5 table ``memory_item_fts`` over ``name``, ``description``,
  ``body`` and ``category`` (external content: the text stays in
  ``memory_item`` only), tokenised ``unicode61 remove_diacritics 0``. Three
  triggers keep it in step with every insert, delete and change of those
  columns, whichever process (or dreamd version) writes the row; a status
  change (the validate gate) does not touch the index, the status is read
  from the row at query time.
- PostgreSQL: a stored generated column ``search`` (``tsvector`` of the same
  columns, weights A name, B description, C body and category, ``simple``
  configuration) with a GIN index. The server computes it for every row
  written, by any host.
- Both index *words*: the text is cut at every character that is not a
  letter or a digit before it is indexed (PostgreSQL's parser would keep
  ``stores/sql.py`` or an address as one token). No stemming and no accent
  folding, in either database: the same query finds the same items in every store (the file
  stores tokenise the same way, ``dreamd.search``).
- Creation (``prepare_search``) runs inside the schema transaction that
  ``_sqlschema.prepare_schema`` holds (PostgreSQL advisory lock, SQLite
  ``BEGIN IMMEDIATE``), so hosts opening a store together create the index
  once. It is recorded as its own component in ``dreamd_schema``
  (``memory_item_search``, version ``SEARCH_VERSION``) rather than as a new
  ``memory_item`` version: the rows' columns do not change, so a host still
  running an older dreamd keeps reading and writing the store (its writes are
  indexed by the triggers or the generated column). Creating it fills it from
  the rows already there (FTS5 ``rebuild``; PostgreSQL computes a generated
  column for every existing row when it is added).
- A SQLite build without FTS5 keeps working without the index; search then
  falls back to ``LIKE`` over the same columns (``search_rows``), as on any
  other database.

The query functions take the query already rendered for each backend
(``dreamd.search.query`` renders one query language into both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Row,
    column,
    func,
    literal,
    literal_column,
    or_,
    select,
    table,
    text,
)
from sqlalchemy.exc import OperationalError

from ._sqlschema import memory_item, schema_version

__all__ = [
    "FTS_TABLE",
    "SEARCH_COMPONENT",
    "SEARCH_VERSION",
    "VISIBLE_STATUSES",
    "RowFilter",
    "has_index",
    "prepare_search",
    "recent_rows",
    "row_by_id",
    "search_rows",
]

#: The component name of the search index in ``dreamd_schema``.
SEARCH_COMPONENT = "memory_item_search"
#: The version of the search index this code creates and queries.
SEARCH_VERSION = 1
#: The SQLite FTS5 table (its shadow tables carry this prefix too).
FTS_TABLE = "memory_item_fts"
#: Statuses a search shows: items waiting for the gate and items it accepted. ``merged`` and
#: ``rejected`` rows stay in the table (undo can bring them back) but are not memories.
VISIBLE_STATUSES = ("new", "accepted")

_INDEXED = ("name", "description", "body", "category")

_SQLITE_DDL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "name, description, body, category, content='memory_item', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 0')",
    f"CREATE TRIGGER IF NOT EXISTS memory_item_fts_insert AFTER INSERT ON memory_item BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, name, description, body, category) "
    "VALUES (new.id, new.name, new.description, new.body, new.category); END",
    f"CREATE TRIGGER IF NOT EXISTS memory_item_fts_delete AFTER DELETE ON memory_item BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name, description, body, category) "
    "VALUES ('delete', old.id, old.name, old.description, old.body, old.category); END",
    "CREATE TRIGGER IF NOT EXISTS memory_item_fts_update "
    "AFTER UPDATE OF name, description, body, category ON memory_item BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name, description, body, category) "
    "VALUES ('delete', old.id, old.name, old.description, old.body, old.category); "
    f"INSERT INTO {FTS_TABLE}(rowid, name, description, body, category) "
    "VALUES (new.id, new.name, new.description, new.body, new.category); END",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
)


def _words(column: str) -> str:
    """A PostgreSQL expression: ``column`` with every run of non-alphanumerics made a space."""
    return f"regexp_replace(coalesce({column}, ''), '[^[:alnum:]]+', ' ', 'g')"


_PG_VECTOR = " || ".join(
    f"setweight(to_tsvector('simple'::regconfig, {_words(column)}), '{weight}')"
    for column, weight in (("name", "A"), ("description", "B"), ("body", "C"), ("category", "C"))
)
_PG_DDL = (
    "ALTER TABLE memory_item ADD COLUMN IF NOT EXISTS search tsvector "
    f"GENERATED ALWAYS AS ({_PG_VECTOR}) STORED",
    "CREATE INDEX IF NOT EXISTS ix_memory_item_search ON memory_item USING GIN (search)",
)


def prepare_search(connection: Connection, *, postgres: bool) -> None:
    """Create the search index once, filled from the rows there (inside the schema transaction).

    Does nothing when ``dreamd_schema`` already records it. On a SQLite without
    FTS5 nothing is created or recorded (search falls back to ``LIKE``).
    """
    recorded = schema_version.c.component == SEARCH_COMPONENT
    found = connection.execute(select(schema_version.c.version).where(recorded)).scalar()
    if found is not None:
        return
    if postgres:
        for statement in _PG_DDL:
            connection.execute(text(statement))
    elif connection.dialect.name == "sqlite":
        try:
            with connection.begin_nested():
                for statement in _SQLITE_DDL:
                    connection.execute(text(statement))
        except OperationalError as error:
            if "fts5" not in str(error).lower():
                raise
            return  # this SQLite has no FTS5: searched with LIKE instead
    else:
        return  # another database: searched with LIKE, nothing to create
    values = {"component": SEARCH_COMPONENT, "version": SEARCH_VERSION}
    connection.execute(schema_version.insert().values(values))


def has_index(connection: Connection) -> bool:
    """Whether this store's search index was created (else search falls back to ``LIKE``)."""
    recorded = schema_version.c.component == SEARCH_COMPONENT
    return connection.execute(select(schema_version.c.version).where(recorded)).scalar() is not None


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which rows a search or listing may return.

    ``project``: the item's project is this path or lies under it; ``kind``: its
    type, or its category (case-insensitive); ``statuses``: the row statuses shown.
    """

    project: str | None = None
    kind: str | None = None
    statuses: Sequence[str] = VISIBLE_STATUSES

    def clauses(self) -> list[Any]:
        """The filter as SQLAlchemy conditions on ``memory_item``."""
        columns = memory_item.c
        conditions: list[Any] = [columns.status.in_(list(self.statuses))]
        if self.project is not None:
            base = self.project.rstrip("/") or "/"
            under = _like_escape(base.rstrip("/")) + "/%"
            conditions.append(
                or_(columns.project == base, columns.project.like(under, escape="\\"))
            )
        if self.kind is not None:
            kind = self.kind.casefold()
            conditions.append(or_(columns.type == kind, func.lower(columns.category) == kind))
        return conditions


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_rows(
    connection: Connection,
    *,
    fts5: str,
    websearch: str,
    words: Sequence[str],
    where: RowFilter,
    limit: int,
) -> list[tuple[Row[Any], float]]:
    """The best ``limit`` rows matching the query, best first, with the database's score.

    ``fts5`` is the query as an FTS5 expression, ``websearch`` as PostgreSQL's
    ``websearch_to_tsquery`` reads it, ``words`` its words: without an index
    the newest rows holding any of them (``LIKE``), for the caller to match the
    query against. Scores: FTS5 ``bm25`` negated, PostgreSQL ``ts_rank_cd``, 0
    for ``LIKE``; higher is better within one store.
    """
    indexed = has_index(connection)
    if indexed and connection.dialect.name == "sqlite":
        return _sqlite_rows(connection, fts5, where, limit)
    if indexed and connection.dialect.name == "postgresql":
        return _postgres_rows(connection, websearch, where, limit)
    return _like_rows(connection, words, where, limit)


def _sqlite_rows(
    connection: Connection, fts5: str, where: RowFilter, limit: int
) -> list[tuple[Row[Any], float]]:
    fts = table(FTS_TABLE, column("rowid"))
    # bm25() is lower for better matches; weights: name, description, body, category.
    score = literal(0.0) - func.bm25(literal_column(FTS_TABLE), 4.0, 2.0, 1.0, 1.0)
    query = (
        select(memory_item, score.label("score"))
        .select_from(memory_item.join(fts, fts.c.rowid == memory_item.c.id))
        .where(text(f"{FTS_TABLE} MATCH :query").bindparams(query=fts5), *where.clauses())
        .order_by(text("score DESC"), memory_item.c.id.desc())
        .limit(limit)
    )
    rows = connection.execute(query).all()
    return [(row, float(row.score)) for row in rows]


def _postgres_rows(
    connection: Connection, websearch: str, where: RowFilter, limit: int
) -> list[tuple[Row[Any], float]]:
    tsquery = func.websearch_to_tsquery(literal_column("'simple'::regconfig"), websearch)
    search: ColumnElement[Any] = literal_column("memory_item.search")
    score = func.ts_rank_cd(search, tsquery)
    query = (
        select(memory_item, score.label("score"))
        .where(search.op("@@")(tsquery), *where.clauses())
        .order_by(text("score DESC"), memory_item.c.id.desc())
        .limit(limit)
    )
    rows = connection.execute(query).all()
    return [(row, float(row.score)) for row in rows]


def _like_rows(
    connection: Connection, words: Sequence[str], where: RowFilter, limit: int
) -> list[tuple[Row[Any], float]]:
    if not words:
        return []
    columns = memory_item.c
    holds = [
        func.lower(getattr(columns, name)).like(f"%{_like_escape(word)}%", escape="\\")
        for word in words
        for name in _INDEXED
    ]
    query = (
        select(memory_item, literal(0.0).label("score"))
        .where(or_(*holds), *where.clauses())
        .order_by(memory_item.c.id.desc())
        .limit(limit)
    )
    return [(row, 0.0) for row in connection.execute(query).all()]


def row_by_id(connection: Connection, row_id: int) -> Row[Any] | None:
    """The ``memory_item`` row with this id, whatever its status."""
    return connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()


def recent_rows(connection: Connection, where: RowFilter, limit: int) -> list[Row[Any]]:
    """The newest rows the filter lets through: latest planted first."""
    query = (
        select(memory_item)
        .where(*where.clauses())
        .order_by(memory_item.c.created_at.desc(), memory_item.c.id.desc())
        .limit(limit)
    )
    return list(connection.execute(query).all())
