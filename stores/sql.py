"""The SQL store (SQLAlchemy 2 Core): one ``memory_item`` row per planted item.

Rules (seed 002 phase 4, SPEC "Stores", issue 4 item 4):

- SQLite file by default; a PostgreSQL URL lets several machines plant into
  one store. Only portable Core SQL: ``write`` looks the operation key up and
  inserts in one transaction; a unique violation on ``op_key`` (a concurrent
  writer on a server database) is answered with the winner's receipt. The
  same key never makes a second row.
- "Make new items clearly new": rows are planted with ``status = 'new'``;
  the validate gate changes the status, the collector never does.
- SQLite is driven as the state database is (ENGINEERING-NOTES): pysqlite's
  implicit transactions off, every transaction ``BEGIN IMMEDIATE``, a busy
  timeout, WAL; and ``synchronous = FULL``, because the cursor checkpoint
  relies on a receipt surviving a power cut.
- Text no portable column holds (NUL, which PostgreSQL refuses, and lone
  surrogates) is refused on every backend, before the database is touched.
- Errors: driver errors become ``StoreError``; an error while committing an
  insert becomes ``WriteUncertain`` (the row may exist: reconcile with
  ``find``). Both chain the driver's error.
- Schema: ``metadata.create_all`` on first use. The store table has no
  migrations yet; the first change to it must add them.
- Receipts: location ``memory_item/<id>``; digest ``item_digest`` of the row
  as read back, so any change to a stored field fails ``verify``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Date,
    DateTime,
    Double,
    Engine,
    Index,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    create_engine,
    select,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from dreamd.errors import StoreError, WriteUncertain
from dreamd.sqlite import tune_for_writers

from ._item import MemoryItem, Quote, Receipt
from ._protocol import Capabilities
from .memory import ITEM_FIELDS, item_digest

__all__ = ["STATUS_NEW", "SqlStore", "memory_item", "metadata"]

#: Status of a planted row until the validate gate accepts or rejects it.
STATUS_NEW = "new"
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


def _utc_now() -> datetime:
    return datetime.now(UTC)


class SqlStore:
    """Adapter for a SQL database reached by a SQLAlchemy URL (``sqlite:///path`` by default)."""

    def __init__(
        self, url: str, *, host: str | None = None, clock: Callable[[], datetime] = _utc_now
    ) -> None:
        try:
            self.url: URL = make_url(url)
        except SQLAlchemyError as error:
            raise StoreError(f"not a database URL: {error}") from error
        self.host = host
        self._clock = clock
        self._engine: Engine | None = None

    @property
    def name(self) -> str:
        """``sql:<url>``, the password hidden."""
        return f"sql:{_shown(self.url)}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field; rejected rows are set aside by status; shared unless SQLite."""
        shared = self.url.get_backend_name() != "sqlite"
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=False, shared=shared)

    @property
    def engine(self) -> Engine:
        """The store's engine, created with the table on first use."""
        if self._engine is None:
            self._engine = _open_engine(self.url)
        return self._engine

    def close(self) -> None:
        """Release the engine's connections (the store can be used again afterwards)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the row written under ``op_key``, or None."""
        with self._transaction() as connection:
            row = _row_by_key(connection, op_key)
        return None if row is None else self._receipt(row)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Insert ``item`` as a ``new`` row under ``op_key``, unless the key is already held."""
        _check_key(op_key)
        _check_text(item)
        values = _row_values(op_key, item, host=self.host, now=self._clock())
        try:
            return self._insert_once(op_key, values)
        except IntegrityError as error:
            # Another writer inserted the key between our look-up and insert (server databases).
            existing = self.find(op_key)
            if existing is None:
                raise StoreError(f"the store refused item {item.name!r}: {error.orig}") from error
            return existing

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the receipt's row still holds, field for field, what was written."""
        row_id = _row_id(receipt.location)
        if receipt.store != self.name or receipt.op_key != op_key or row_id is None:
            return False
        with self._transaction() as connection:
            row = connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()
        if row is None or row.op_key != op_key:
            return False
        return _row_digest(row) == receipt.digest

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item in the receipt's row as it is now; None when gone or no longer an item."""
        row_id = _row_id(receipt.location)
        if row_id is None:
            return None
        with self._transaction() as connection:
            row = connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()
        if row is None or row.op_key != receipt.op_key:
            return None
        return _item_or_none(row)

    def _insert_once(self, op_key: str, values: dict[str, Any]) -> Receipt:
        """Look up, insert if absent, read back; only the commit of an insert is uncertain."""
        try:
            connection = self.engine.connect()
        except SQLAlchemyError as error:
            raise StoreError(f"cannot reach the store {self.name}: {error}") from error
        with connection:
            try:
                transaction = connection.begin()
                row = _row_by_key(connection, op_key)
                inserted = row is None
                if row is None:
                    connection.execute(memory_item.insert().values(values))
                    row = _row_by_key(connection, op_key)
                assert row is not None  # read back inside the inserting transaction
                receipt = self._receipt(row)
            except IntegrityError:
                raise
            except SQLAlchemyError as error:
                raise StoreError(f"cannot write to the store {self.name}: {error}") from error
            try:
                transaction.commit()
            except SQLAlchemyError as error:
                # The driver may still hold the failed transaction open (SQLite does after a
                # failed COMMIT): never hand this connection out again.
                with suppress(SQLAlchemyError):
                    connection.invalidate()
                if not inserted:
                    raise StoreError(f"cannot read the store {self.name}: {error}") from error
                raise WriteUncertain(f"committing to {self.name} broke off: {error}") from error
        return receipt

    def items_with_status(self, status: str) -> list[tuple[str, MemoryItem | None]]:
        """``(op_key, item)`` of every row with ``status`` (None: the row holds no valid item)."""
        with self._transaction() as connection:
            rows = connection.execute(
                select(memory_item).where(memory_item.c.status == status).order_by(memory_item.c.id)
            ).all()
        return [(row.op_key, _item_or_none(row)) for row in rows]

    def status_of(self, op_key: str) -> str | None:
        """The status of the row written under ``op_key`` (None when there is none)."""
        with self._transaction() as connection:
            row = _row_by_key(connection, op_key)
        return None if row is None else str(row.status)

    def set_status(self, op_key: str, status: str, *, expected: str) -> bool:
        """Move one row from ``expected`` to ``status``; False when it was not in ``expected``."""
        try:
            with self.engine.begin() as connection:
                result = connection.execute(
                    memory_item.update()
                    .where(memory_item.c.op_key == op_key, memory_item.c.status == expected)
                    .values(status=status)
                )
        except SQLAlchemyError as error:
            raise StoreError(f"cannot update the store {self.name}: {error}") from error
        return bool(result.rowcount)

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One read transaction; driver errors become ``StoreError``."""
        try:
            with self.engine.begin() as connection:
                yield connection
        except SQLAlchemyError as error:
            raise StoreError(f"cannot read the store {self.name}: {error}") from error

    def _receipt(self, row: Row[Any]) -> Receipt:
        return Receipt(self.name, row.op_key, f"memory_item/{row.id}", _row_digest(row))


def _check_key(op_key: str) -> None:
    if not op_key or len(op_key) > MAX_OP_KEY:
        raise StoreError(f"an operation key must have 1 to {MAX_OP_KEY} characters")


def _check_text(item: MemoryItem) -> None:
    """Refuse text no portable SQL column holds: NUL (PostgreSQL) and lone surrogates."""
    texts = [item.category, item.name, item.description, item.body, item.source]
    texts += [item.project or ""]
    texts += [part for quote in item.quotes for part in (quote.message_id, quote.text)]
    for value in texts:
        if "\x00" in value:
            raise StoreError(f"item {item.name!r} holds a NUL character, which SQL text cannot")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise StoreError(f"item {item.name!r} holds text that is not valid Unicode") from error


def _row_by_key(connection: Connection, op_key: str) -> Row[Any] | None:
    return connection.execute(select(memory_item).where(memory_item.c.op_key == op_key)).first()


def _row_id(location: str) -> int | None:
    table, _, number = location.partition("/")
    if table != memory_item.name or not number.isdigit() or not number.isascii():
        return None
    return int(number)


def _row_values(
    op_key: str, item: MemoryItem, *, host: str | None, now: datetime
) -> dict[str, Any]:
    """The ``memory_item`` row for ``item``: every field, status ``new``."""
    return {
        "op_key": op_key,
        "host": host,
        "type": item.type,
        "category": item.category,
        "name": item.name,
        "description": item.description,
        "body": item.body,
        "confidence": item.confidence,
        "source": item.source,
        "collected": item.collected,
        "project": item.project,
        "quotes": [{"message": quote.message_id, "text": quote.text} for quote in item.quotes],
        "status": STATUS_NEW,
        "created_at": now,
    }


def _item_or_none(row: Row[Any]) -> MemoryItem | None:
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


def _row_digest(row: Row[Any]) -> str:
    """``item_digest`` of the row's item; a marker no receipt carries when it holds none."""
    item = _item_or_none(row)
    return "invalid" if item is None else item_digest(row.op_key, item)


def _open_engine(url: URL) -> Engine:
    """An engine on ``url`` with the store table created (SQLite tuned for safe writers)."""
    try:
        if url.get_backend_name() == "sqlite":
            engine = _sqlite_engine(url)
        else:
            engine = create_engine(url, pool_pre_ping=True)
    except (SQLAlchemyError, OSError) as error:
        raise StoreError(f"cannot open the store {_shown(url)}: {error}") from error
    try:
        _create_table(engine)
    except SQLAlchemyError as error:
        engine.dispose()
        raise StoreError(f"cannot create the store table in {_shown(url)}: {error}") from error
    return engine


def _create_table(engine: Engine) -> None:
    try:
        metadata.create_all(engine)
    except SQLAlchemyError:
        # Two processes creating it at once on a server database: the second sees it now.
        metadata.create_all(engine)


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    return tune_for_writers(create_engine(url), synchronous="FULL")


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)
