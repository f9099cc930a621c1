"""The SQL store's row operations, inside a transaction the caller holds.

- Text no portable column holds (NUL, which PostgreSQL refuses, and lone surrogates) is refused
  on every backend, before the database is touched (``check_text``); so is an operation key no
  ``op_key`` column holds (``check_key``).
- A row is found under its own key and under every update key applied to it
  (``memory_item_op``: ``row_holding``, ``key_names_row``).
- ``rewrite`` changes a row only while its status is ``new`` and only if it still has the
  digest the caller read; it records the update's key in the same transaction, and never
  changes what item a row is (source, type, name).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, select

from dreamd.errors import StoreError

from ._codec import item_texts
from ._item import MemoryItem, Receipt
from ._sqlschema import (
    MAX_OP_KEY,
    STATUS_NEW,
    item_or_none,
    memory_item,
    memory_item_op,
    row_digest,
    row_values,
)
from .memory import ITEM_FIELDS

__all__ = [
    "check_key",
    "check_text",
    "key_names_row",
    "location_row",
    "rewrite",
    "row_by_key",
    "row_holding",
]


def check_key(op_key: str) -> None:
    """Refuse an operation key the ``op_key`` column cannot hold."""
    if not op_key or len(op_key) > MAX_OP_KEY:
        raise StoreError(f"an operation key must have 1 to {MAX_OP_KEY} characters")


def check_text(item: MemoryItem) -> None:
    """Refuse text no portable SQL column holds: NUL (PostgreSQL) and lone surrogates."""
    for value in item_texts(item):
        if "\x00" in value:
            raise StoreError(f"item {item.name!r} holds a NUL character, which SQL text cannot")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise StoreError(f"item {item.name!r} holds text that is not valid Unicode") from error


def row_by_key(connection: Connection, op_key: str) -> Row[Any] | None:
    """The row written under ``op_key`` itself (not under an update key)."""
    return connection.execute(select(memory_item).where(memory_item.c.op_key == op_key)).first()


def row_holding(connection: Connection, op_key: str) -> Row[Any] | None:
    """The row ``op_key`` wrote: its own key, else one of the updates applied to it."""
    row = row_by_key(connection, op_key)
    if row is not None:
        return row
    updated = select(memory_item).join(memory_item_op, memory_item_op.c.item_id == memory_item.c.id)
    return connection.execute(updated.where(memory_item_op.c.op_key == op_key)).first()


def key_names_row(connection: Connection, row: Row[Any], op_key: str) -> bool:
    """Whether ``op_key`` names ``row`` (its own key or an update applied to it)."""
    if row.op_key == op_key:
        return True
    applied = select(memory_item_op.c.item_id).where(memory_item_op.c.op_key == op_key)
    return bool(connection.execute(applied).scalar() == row.id)


def rewrite(
    connection: Connection,
    row_id: int,
    target: Receipt,
    item: MemoryItem,
    op_key: str,
    *,
    now: datetime,
) -> Row[Any] | None:
    """Inside a transaction: rewrite a ``new`` row still as ``target`` read it; None if not."""
    query = select(memory_item).where(memory_item.c.id == row_id).with_for_update()
    row = connection.execute(query).first()
    if row is None or row.op_key != target.op_key or row.status != STATUS_NEW:
        return None
    current = item_or_none(row)
    if current is None or row_digest(row) != target.digest:
        return None
    if (item.source, item.type, item.name) != (current.source, current.type, current.name):
        raise StoreError(f"an update cannot change what item {current.name!r} is")
    fields = row_values(row.op_key, item, host=row.host, now=row.created_at)
    changes = {key: fields[key] for key in ITEM_FIELDS}
    connection.execute(
        memory_item.update()
        .where(memory_item.c.id == row_id, memory_item.c.status == STATUS_NEW)
        .values(changes)
    )
    connection.execute(
        memory_item_op.insert().values(op_key=op_key, item_id=row_id, created_at=now)
    )
    return connection.execute(select(memory_item).where(memory_item.c.id == row_id)).first()


def location_row(location: str) -> int | None:
    """The row id a receipt location (``memory_item/<id>``) names, or None."""
    table, _, number = location.partition("/")
    if table != memory_item.name or not number.isdigit() or not number.isascii():
        return None
    return int(number)
