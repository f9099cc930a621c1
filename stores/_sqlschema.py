"""The SQL store's tables: their columns, an item as a row, and the schema's versions.

Rules (seed 002 phase 4, SPEC "Stores", issue 4 item 4):

- ``memory_item`` holds one row per planted item: every item field, the
  operation key (unique, at most ``MAX_OP_KEY`` characters), the planting
  host, the status (``STATUS_NEW`` until the validate gate changes it) and
  when it was planted. ``memory_item_op`` holds the key of every update
  applied to a row (unique: each key names one row).
- An item becomes a row (``row_values``) and a row an item again
  (``item_or_none``, None when an edit left the row no valid item); a row's
  digest (``row_digest``) is ``item_digest`` of that item, so any change to a
  stored field changes it.
- Schema, created on first use inside one transaction (``prepare_schema``):
  on PostgreSQL the transaction first takes an advisory lock
  (``pg_advisory_xact_lock``), on SQLite it is ``BEGIN IMMEDIATE``; so daemons
  starting together create the tables once and the others find them.
  ``dreamd_schema`` holds one row per versioned table (``memory_item`` →
  ``SCHEMA_VERSION``). A changed table is a new ``SCHEMA_VERSION`` plus one
  function in ``MIGRATIONS`` taking the version before it one step up;
  ``schema_steps`` decides which run (a ``memory_item`` older than the version
  table counts as version 1). A store newer than this dreamd is refused,
  never written.
- The full-text index (``stores/sqlsearch.py``) is created in the same
  transaction, recorded as its own component (``memory_item_search``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Date,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    inspect,
    select,
)

from dreamd.errors import StoreError

from ._codec import item_to_json
from ._item import MemoryItem, Quote
from ._postgres import take_schema_lock
from .memory import item_digest

__all__ = [
    "MAX_OP_KEY",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STATUS_ACCEPTED",
    "STATUS_NEW",
    "item_or_none",
    "memory_item",
    "memory_item_op",
    "metadata",
    "prepare_schema",
    "row_digest",
    "row_values",
    "schema_steps",
    "schema_version",
]

#: Status of a planted row until the validate gate accepts or rejects it.
STATUS_NEW = "new"
#: The validate gate's verdict for a row it kept as it is (the SQL gate's ``accepted``).
STATUS_ACCEPTED = "accepted"
#: Longest operation key (a unique index on longer text is not portable).
MAX_OP_KEY = 255

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "pk": "pk_%(table_name)s",
    }
)

memory_item = Table(
    "memory_item",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("op_key", String(MAX_OP_KEY), nullable=False, unique=True),
    Column("host", Text),
    Column("type", String(16), nullable=False),
    Column("category", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("confidence", Double, nullable=False),
    Column("source", Text, nullable=False),
    Column("collected", Date, nullable=False),
    Column("project", Text),
    Column("quotes", JSON, nullable=False),
    Column("status", String(16), nullable=False, default=STATUS_NEW),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index(None, "status"),
)

#: Keys of the updates applied to a row (``SqlStore.update``); each key names its row.
memory_item_op = Table(
    "memory_item_op",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("op_key", String(MAX_OP_KEY), nullable=False, unique=True),
    Column("item_id", Integer, ForeignKey("memory_item.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

#: The version of the store's tables this code reads and writes.
SCHEMA_VERSION = 1

#: One row per versioned table: its name and the version its columns are at.
schema_version = Table(
    "dreamd_schema",
    metadata,
    Column("component", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
)

#: ``MIGRATIONS[v]`` takes ``memory_item`` from version ``v`` to ``v + 1``, inside the
#: locked schema transaction. Empty until the table first changes.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


# --- an item as a row -------------------------------------------------------------------------


def row_values(op_key: str, item: MemoryItem, *, host: str | None, now: datetime) -> dict[str, Any]:
    """The ``memory_item`` row for ``item``: every field, status ``new``."""
    return {
        "op_key": op_key,
        "host": host,
        **item_to_json(item),
        # The columns hold the day itself and each quote as an object.
        "collected": item.collected,
        "quotes": [{"message": quote.message_id, "text": quote.text} for quote in item.quotes],
        "status": STATUS_NEW,
        "created_at": now,
    }


def item_or_none(row: Row[Any]) -> MemoryItem | None:
    """The item a row holds; None when an edit left it no valid item."""
    try:
        return MemoryItem(
            type=row.type,
            category=row.category,
            name=row.name,
            description=row.description,
            body=row.body,
            confidence=row.confidence,
            source=row.source,
            collected=row.collected,
            quotes=tuple(Quote(quote["message"], quote["text"]) for quote in row.quotes),
            project=row.project,
        )
    except (KeyError, TypeError, ValueError):
        return None


def row_digest(row: Row[Any]) -> str:
    """``item_digest`` of the row's item; a marker no receipt carries when it holds none."""
    item = item_or_none(row)
    return "invalid" if item is None else item_digest(row.op_key, item)


# --- versions ---------------------------------------------------------------------------------


def schema_steps(found: int | None, *, table_existed: bool, current: int = SCHEMA_VERSION) -> range:
    """The versions whose ``MIGRATIONS`` step must run, in order, to reach ``current``.

    ``found`` is the recorded version (None: nothing recorded). Unrecorded, a
    ``memory_item`` that was already there predates the version table
    (version 1); one just created has the current columns. A store newer
    than ``current`` is refused: this dreamd would write rows it cannot read.
    """
    start = found if found is not None else (1 if table_existed else current)
    if start > current:
        raise StoreError(
            f"the store's tables are at version {start}, newer than this dreamd knows "
            f"({current}): upgrade dreamd on this host"
        )
    return range(start, current)


def prepare_schema(connection: Connection, *, postgres: bool) -> None:
    """Create missing tables, run due migrations and record the version, in one transaction.

    The transaction is serialised across processes (PostgreSQL: advisory lock;
    SQLite: ``BEGIN IMMEDIATE``), so each step sees what an earlier one did.
    """
    with connection.begin():
        if postgres:
            take_schema_lock(connection)
        existed = inspect(connection).has_table(memory_item.name)
        metadata.create_all(connection)
        recorded = schema_version.c.component == memory_item.name
        found = connection.execute(select(schema_version.c.version).where(recorded)).scalar()
        for version in schema_steps(found, table_existed=existed, current=SCHEMA_VERSION):
            MIGRATIONS[version](connection)
        if found is None:
            values = {"component": memory_item.name, "version": SCHEMA_VERSION}
            connection.execute(schema_version.insert().values(values))
        elif found != SCHEMA_VERSION:
            connection.execute(
                schema_version.update().where(recorded).values(version=SCHEMA_VERSION)
            )
        from .sqlsearch import prepare_search  # imports this module's tables

        prepare_search(connection, postgres=postgres)
