"""The SQL store: rows planted as new, schema, races, uncertain commits, driver errors."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sqlite3
from datetime import UTC, date, datetime
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect
from sqlalchemy.exc import SQLAlchemyError

from dreamd.errors import StoreError, WriteUncertain
from dreamd.stores import Receipt
from dreamd.stores.sql import STATUS_NEW, SqlStore
from tests.stores.factories import rich_item, sample_item

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where the SQLite store file goes (its folder does not exist yet)."""
    return tmp_path / "stores" / "items.db"


@pytest.fixture
def store(path: Path) -> SqlStore:
    """A SQLite store on ``path`` that records host ``devbox`` and time ``NOW``."""
    return SqlStore(f"sqlite:///{path}", host="devbox", clock=lambda: NOW)


def rows(path: Path) -> list[dict[str, Any]]:
    """Every row of ``memory_item``, read with plain sqlite3."""
    with sqlite3.connect(path) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute("SELECT * FROM memory_item ORDER BY id")]


def test_a_planted_row_is_new_with_every_field_and_its_host(store: SqlStore, path: Path) -> None:
    """A write inserts one ``new`` row holding the item, the host and the time planted."""
    store.write("op-1", rich_item())
    (row,) = rows(path)
    assert row["status"] == STATUS_NEW == "new"
    assert (row["op_key"], row["host"], row["type"], row["category"]) == (
        "op-1",
        "devbox",
        "feedback",
        "Preference",
    )
    assert row["body"] == rich_item().body
    assert row["collected"] == "2026-02-28"
    assert row["created_at"].startswith("2026-11-30 12:00:00")


def test_the_table_keeps_op_key_unique(store: SqlStore) -> None:
    """The schema itself forbids a second row for one operation key."""
    store.find("create")
    inspector = inspect(store.engine)
    unique = [c["column_names"] for c in inspector.get_unique_constraints("memory_item")]
    indexes = [i["column_names"] for i in inspector.get_indexes("memory_item") if i["unique"]]
    assert ["op_key"] in unique + indexes


def test_the_file_and_its_folder_are_created_on_first_use(path: Path) -> None:
    """Nothing is created until the store is used; then the folder and file exist."""
    store = SqlStore(f"sqlite:///{path}")
    assert not path.parent.exists()
    assert store.find("op-1") is None
    assert path.is_file()


def test_sqlite_runs_with_wal_and_full_sync(store: SqlStore) -> None:
    """Connections use WAL and ``synchronous = FULL``: a receipt outlives a power cut."""
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2


def _race(url: str, keys: list[str], barrier: Barrier, out: Any) -> None:
    store = SqlStore(url)
    store.find("warm up")
    barrier.wait()
    out.put([dataclasses.astuple(store.write(key, sample_item(7))) for key in keys])


def test_two_processes_writing_the_same_keys_at_once_keep_one_row_each(path: Path) -> None:
    """Concurrent writers of the same keys get the same receipts and never a duplicate row."""
    url = f"sqlite:///{path}"
    SqlStore(url).find("create")
    keys = [f"op-{i}" for i in range(60)]
    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_race, args=(url, keys, barrier, out)) for _ in range(2)]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert results[0] == results[1]
    assert sorted(row["op_key"] for row in rows(path)) == sorted(keys)


def test_accepting_a_row_keeps_its_receipt_valid(store: SqlStore, path: Path) -> None:
    """The validate gate changing the status is not an edit of the item."""
    receipt = store.write("op-1", sample_item(1))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE memory_item SET status = 'accepted'")
    assert store.verify(receipt, "op-1")
    assert store.find("op-1") == receipt


@pytest.mark.parametrize(
    ("column", "value"),
    [("body", "changed"), ("confidence", 0.76), ("quotes", "[]"), ("collected", "2026-12-01")],
)
def test_a_changed_field_fails_verify(
    store: SqlStore, path: Path, column: str, value: object
) -> None:
    """Any edit to a stored item field, in any column, is caught by ``verify``."""
    receipt = store.write("op-1", sample_item(1))
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE memory_item SET {column} = ?", (value,))
    assert not store.verify(receipt, "op-1")


def test_a_row_edited_into_no_item_fails_verify_and_reads_as_none(
    store: SqlStore, path: Path
) -> None:
    """A row whose fields no longer make an item neither verifies nor reads."""
    receipt = store.write("op-1", sample_item(1))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE memory_item SET confidence = 7, quotes = '{\"x\": 1}'")
    assert not store.verify(receipt, "op-1")
    assert store.read(receipt) is None


@pytest.mark.parametrize("location", ["memory_item/999", "memory_item/-1", "other/1", "../1", ""])
def test_a_forged_location_fails_verify(store: SqlStore, location: str) -> None:
    """A receipt pointing at another or no row does not verify."""
    receipt = store.write("op-1", sample_item(1))
    forged = Receipt(receipt.store, "op-1", location, receipt.digest)
    assert not store.verify(forged, "op-1")
    assert store.read(forged) is None


def test_a_failed_commit_is_uncertain_and_find_reconciles_it(store: SqlStore, path: Path) -> None:
    """A commit that fails raises WriteUncertain (chained); ``find`` then settles the question."""
    store.find("create")
    with sqlite3.connect(path) as connection:
        connection.executescript(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (
                parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED
            );
            CREATE TRIGGER fail_at_commit AFTER INSERT ON memory_item
            WHEN NEW.op_key = 'op-doomed'
            BEGIN INSERT INTO child VALUES (404); END;
            """
        )
    with pytest.raises(WriteUncertain) as raised:
        store.write("op-doomed", sample_item(1))
    assert "FOREIGN KEY" in str(raised.value.__cause__)
    assert store.find("op-doomed") is None
    receipt = store.write("op-fine", sample_item(2))
    assert store.verify(receipt, "op-fine")


def test_a_file_that_is_not_a_database_is_a_store_error(path: Path) -> None:
    """A driver error becomes a StoreError with the SQLAlchemy error chained."""
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as raised:
        SqlStore(f"sqlite:///{path}").write("op-1", sample_item(1))
    assert isinstance(raised.value.__cause__, SQLAlchemyError)


def test_an_unusable_url_is_a_store_error(tmp_path: Path) -> None:
    """A malformed URL or a driver that is not installed is reported, not raised raw."""
    with pytest.raises(StoreError):
        SqlStore("not a url")
    with pytest.raises(StoreError):
        SqlStore("nosuchdb://host/db").find("op-1")


def test_a_folder_that_cannot_be_made_is_a_store_error(tmp_path: Path) -> None:
    """An OSError creating the database folder becomes a StoreError, chained."""
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(StoreError) as raised:
        SqlStore(f"sqlite:///{tmp_path / 'file' / 'items.db'}").find("op-1")
    assert isinstance(raised.value.__cause__, OSError)


def test_text_sql_cannot_hold_is_refused_before_writing(store: SqlStore, path: Path) -> None:
    """NUL and lone surrogates are refused on every backend, and no row is written."""
    store.find("create")
    for bad in ("nul \x00 inside", "surrogate \ud800"):
        with pytest.raises(StoreError):
            store.write("op-1", dataclasses.replace(sample_item(1), body=bad))
    assert rows(path) == []


def test_an_overlong_operation_key_is_refused(store: SqlStore) -> None:
    """Keys longer than the portable unique-index limit are refused, not truncated."""
    with pytest.raises(StoreError, match="255"):
        store.write("k" * 256, sample_item(1))
    assert store.write("k" * 255, sample_item(1)).op_key == "k" * 255


def test_the_name_hides_a_password() -> None:
    """The store's name, which plans and reports show, never carries the URL's password."""
    store = SqlStore("postgresql://planter:hunter2@db.example/memories")
    assert "hunter2" not in store.name
    assert store.name == "sql:postgresql://planter:***@db.example/memories"


def test_only_a_server_database_is_shared() -> None:
    """A SQLite file belongs to one host; a PostgreSQL store is declared shared."""
    assert not SqlStore("sqlite:///x.db").capabilities.shared
    assert SqlStore("postgresql://u@h/db").capabilities.shared


def test_collected_dates_and_confidence_round_trip_exactly(store: SqlStore) -> None:
    """Dates stay dates and floats keep every bit through the database."""
    item = dataclasses.replace(sample_item(1), collected=date(2024, 2, 29), confidence=1 / 3)
    back = store.read(store.write("op-1", item))
    assert back == item
