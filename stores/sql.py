"""The SQL store (SQLAlchemy 2 Core): one ``memory_item`` row per planted item.

Rules (seed 002 phase 4, SPEC "Stores", issue 4 item 4):

- SQLite file by default; a PostgreSQL URL lets several machines plant into
  one store. Only portable Core SQL: ``write`` looks the operation key up and
  inserts in one transaction; a unique violation on ``op_key`` (a concurrent
  writer on a server database) is answered with the winner's receipt. The
  same key never makes a second row.
- "Make new items clearly new": rows are planted with ``status = 'new'``;
  the validate gate changes the status, the collector never does.
- The engine (``stores/_sqlengine.py``): SQLite driven as the state database
  is, with ``synchronous = FULL``; PostgreSQL through psycopg 3.
- Text no portable column holds (NUL, which PostgreSQL refuses, and lone
  surrogates) is refused on every backend, before the database is touched
  (``stores/_sqlrows.py``).
- Errors: driver errors become ``StoreError``; an error while committing an
  insert becomes ``WriteUncertain`` (the row may exist: reconcile with
  ``find``). Both chain the driver's error.
- Tables and schema (``stores/_sqlschema.py``): created on first use inside
  one transaction serialised across processes (PostgreSQL advisory lock,
  SQLite ``BEGIN IMMEDIATE``), so daemons starting together create them
  once; versioned in ``dreamd_schema`` with one ``MIGRATIONS`` step per
  version. A store newer than this dreamd is refused, never written.
- PostgreSQL (``stores/_postgres.py``): ``dream_lease`` lets one host at a
  time dream over a shared store; the others skip it.
- Receipts: location ``memory_item/<id>``; digest ``item_digest`` of the row
  as read back, so any change to a stored field fails ``verify``.
- ``update`` rewrites a row only while its status is ``new`` and only if it
  still has the digest the caller read, in one transaction that also records
  the update's key in ``memory_item_op`` (unique): the row is found under its
  own key and under every update key, and a replayed update changes nothing.
  ``memory_item_op`` is a table of its own (``create_all`` adds it to an
  older store), so ``memory_item``'s columns and version are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, Row, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from dreamd.errors import StoreError, WriteUncertain

from ._item import MemoryItem, Receipt
from ._postgres import (
    DREAM_LOCK,
    holder_of,
    is_postgres,
    release_lease,
    store_lock_key,
    try_lease,
)
from ._protocol import Capabilities, HeldItem, KnownMemory
from ._sqlengine import drop_connection, open_engine, reason, shown
from ._sqlrows import (
    check_key,
    check_text,
    key_names_row,
    location_row,
    rewrite,
    row_by_key,
    row_holding,
)
from ._sqlschema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    STATUS_ACCEPTED,
    STATUS_NEW,
    item_or_none,
    memory_item,
    memory_item_op,
    metadata,
    row_digest,
    row_values,
    schema_steps,
    schema_version,
)
from .memory import ITEM_FIELDS, known_memory
from .sqlspec import SPEC, SqlTable, default_url

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SPEC",
    "STATUS_NEW",
    "DreamLease",
    "SqlStore",
    "SqlTable",
    "default_url",
    "memory_item",
    "memory_item_op",
    "metadata",
    "schema_steps",
    "schema_version",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DreamLease:
    """Whether this host may dream over the store now; who holds it when not (if known)."""

    held: bool
    holder: str | None = None


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
        return f"sql:{shown(self.url)}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field; rejected rows are set aside by status; shared unless SQLite."""
        shared = self.url.get_backend_name() != "sqlite"
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=False, shared=shared)

    @property
    def engine(self) -> Engine:
        """The store's engine, created with the table on first use."""
        if self._engine is None:
            self._engine = open_engine(self.url)
        return self._engine

    @contextmanager
    def dream_lease(self) -> Iterator[DreamLease]:
        """One dream at a time over a shared store: yields whether this host holds the lease.

        PostgreSQL: a session advisory lock, tried without waiting, on a
        connection kept until the block ends (the server frees it if this
        process dies). SQLite is one host's file, guarded by the local dream
        lock: the lease is always held there.
        """
        if not is_postgres(self.url):
            yield DreamLease(held=True)
            return
        connection = self._connect()
        try:
            key = store_lock_key(connection, DREAM_LOCK)
            held = try_lease(connection, key, self.host)
            lease = DreamLease(held, None if held else holder_of(connection, key))
        except SQLAlchemyError as error:
            drop_connection(connection)
            raise StoreError(
                f"cannot ask {self.name} for the dream lease: {reason(error)}"
            ) from error
        try:
            yield lease
        finally:
            try:
                release_lease(connection, key, held=held)
                connection.close()
            except SQLAlchemyError:
                drop_connection(connection)  # the server frees a dropped session's locks

    def close(self) -> None:
        """Release the engine's connections (the store can be used again afterwards)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the row written or updated under ``op_key``, or None."""
        with self._transaction() as connection:
            row = row_holding(connection, op_key)
        return None if row is None else self._receipt(row, op_key)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Insert ``item`` as a ``new`` row under ``op_key``, unless the key is already held."""
        check_key(op_key)
        check_text(item)
        values = row_values(op_key, item, host=self.host, now=self._clock())
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
        row_id = location_row(receipt.location)
        if receipt.store != self.name or receipt.op_key != op_key or row_id is None:
            return False
        with self._transaction() as connection:
            row = connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()
            holds = row is not None and key_names_row(connection, row, op_key)
        return row is not None and holds and row_digest(row) == receipt.digest

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item in the receipt's row as it is now; None when gone or no longer an item."""
        row_id = location_row(receipt.location)
        if row_id is None:
            return None
        with self._transaction() as connection:
            row = connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()
            holds = row is not None and key_names_row(connection, row, receipt.op_key)
        return item_or_none(row) if row is not None and holds else None

    def items_from(self, source: str) -> list[HeldItem]:
        """Rows tagged ``source`` holding a valid item, oldest first; pending while ``new``."""
        with self._transaction() as connection:
            rows = connection.execute(
                select(memory_item).where(memory_item.c.source == source).order_by(memory_item.c.id)
            ).all()
        held = [(row, item_or_none(row)) for row in rows]
        return [
            HeldItem(self._receipt(row), item, row.status == STATUS_NEW)
            for row, item in held
            if item is not None
        ]

    def memories_of(self, project: str, *, limit: int) -> list[KnownMemory]:
        """Rows of ``project`` still standing (``new`` or accepted), newest first."""
        standing = (STATUS_NEW, STATUS_ACCEPTED)  # merged and rejected rows are gone from view
        with self._transaction() as connection:
            rows = connection.execute(
                select(memory_item)
                .where(memory_item.c.project == project, memory_item.c.status.in_(standing))
                .order_by(memory_item.c.id.desc())
                .limit(limit)
            ).all()
        held = [(row, item_or_none(row)) for row in rows]
        return [
            known_memory(item, pending=row.status == STATUS_NEW)
            for row, item in held
            if item is not None
        ]

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the ``new`` row ``target`` names; None when accepted, gone or changed."""
        check_key(op_key)
        check_text(item)
        row_id = location_row(target.location)
        if row_id is None or target.store != self.name:
            return self.find(op_key)
        try:
            return self._update_once(op_key, row_id, target, item)
        except IntegrityError as error:
            # Another writer applied the same update between our look-up and insert.
            existing = self.find(op_key)
            if existing is None:
                raise StoreError(f"the store refused the update {op_key}: {error.orig}") from error
            return existing

    def _update_once(
        self, op_key: str, row_id: int, target: Receipt, item: MemoryItem
    ) -> Receipt | None:
        """Look up, rewrite if still as read, read back; only a rewrite's commit is uncertain."""

        def step(connection: Connection) -> tuple[Receipt | None, bool]:
            row = row_holding(connection, op_key)
            if row is not None:
                return self._receipt(row, op_key), False
            row = rewrite(connection, row_id, target, item, op_key, now=self._clock())
            return (None, False) if row is None else (self._receipt(row, op_key), True)

        return self._once(step)

    def _insert_once(self, op_key: str, values: dict[str, Any]) -> Receipt:
        """Look up, insert if absent, read back; only the commit of an insert is uncertain."""

        def step(connection: Connection) -> tuple[Receipt, bool]:
            row = row_holding(connection, op_key)
            inserted = row is None
            if row is None:
                connection.execute(memory_item.insert().values(values))
                row = row_by_key(connection, op_key)
            assert row is not None  # read back inside the inserting transaction
            return self._receipt(row, op_key), inserted

        return self._once(step)

    def _once(self, step: Callable[[Connection], tuple[T, bool]]) -> T:
        """Run ``step`` in one transaction and commit it; ``step`` returns its result and
        whether it wrote. A failed commit is ``WriteUncertain`` only after a write."""
        connection = self._connect()
        with connection:
            try:
                transaction = connection.begin()
                result, wrote = step(connection)
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
                if not wrote:
                    raise StoreError(f"cannot read the store {self.name}: {error}") from error
                raise WriteUncertain(f"committing to {self.name} broke off: {error}") from error
        return result

    def items_with_status(self, status: str) -> list[tuple[str, MemoryItem | None]]:
        """``(op_key, item)`` of every row with ``status`` (None: the row holds no valid item)."""
        with self._transaction() as connection:
            rows = connection.execute(
                select(memory_item).where(memory_item.c.status == status).order_by(memory_item.c.id)
            ).all()
        return [(row.op_key, item_or_none(row)) for row in rows]

    def status_of(self, op_key: str) -> str | None:
        """The status of the row written under ``op_key`` (None when there is none)."""
        with self._transaction() as connection:
            row = row_by_key(connection, op_key)
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

    def _connect(self) -> Connection:
        """A connection from the engine; failing to get one is a ``StoreError``."""
        try:
            return self.engine.connect()
        except SQLAlchemyError as error:
            raise StoreError(f"cannot reach the store {self.name}: {reason(error)}") from error

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One read transaction; driver errors become ``StoreError``."""
        try:
            with self.engine.begin() as connection:
                yield connection
        except SQLAlchemyError as error:
            raise StoreError(f"cannot read the store {self.name}: {error}") from error

    def _receipt(self, row: Row[Any], op_key: str | None = None) -> Receipt:
        """The receipt for ``op_key`` (the row's own key by default) and the row as it is."""
        key = row.op_key if op_key is None else op_key
        return Receipt(self.name, key, f"memory_item/{row.id}", row_digest(row))
