"""The SQL store's full-text index stays in step with every write, update and status move.

Each test runs on SQLite (FTS5) and on the PostgreSQL test server (generated
``tsvector``; a fresh schema per test, skipped when no server answers).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from dreamd.search import Filter, open_read_path, search
from dreamd.stores import Quote
from dreamd.stores._postgres import driver_url
from dreamd.stores._sqlschema import metadata, row_values
from dreamd.stores.sql import SqlStore, memory_item
from dreamd.stores.sqlsearch import FTS_TABLE, SEARCH_COMPONENT, RowFilter, search_rows
from tests.process import run_dreamd
from tests.search.homes import SESSION, item, settings_of, write_config
from tests.stores.postgres import fresh_schema

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store URL on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'items.db'}"
        return
    with fresh_schema() as scoped:
        yield scoped


def _configure(home: Path, url: str) -> None:
    write_config(
        home, f'machine = "laptop"\n[collect]\nstores = ["sql"]\n[stores.sql]\nurl = "{url}"\n'
    )


def _titles(home: Path, query: str) -> list[tuple[str, str]]:
    read = open_read_path(settings_of(home), {}, home)
    try:
        found = search(read, query, Filter(), limit=20)
    finally:
        read.close()
    assert found.failures == (), found.failures
    return [(hit.memory.title, hit.memory.status) for hit in found.hits]


def test_an_updated_pending_item_is_found_by_its_new_words(isolated_home: Path, url: str) -> None:
    """The collector's update of a ``new`` row reindexes it: new words found, old ones not."""
    _configure(isolated_home, url)
    store = SqlStore(url, host="laptop")
    store.write("op-1", item("cache", "Cache builds with redis."))
    (held,) = store.items_from(f"source:{SESSION}")
    later = replace(held.item, description="Caching", body="Cache builds with memcached.")
    later = replace(later, quotes=(*later.quotes, Quote(f"{SESSION}:u9", "memcached")))
    assert store.update("op-2", held.receipt, later) is not None
    store.close()
    assert _titles(isolated_home, "memcached") == [("cache", "pending")]
    assert _titles(isolated_home, "redis") == []


def test_rows_the_gate_moves_are_found_or_not_as_their_status_says(
    isolated_home: Path, url: str
) -> None:
    """After a dream: the accepted row is found as accepted, the rejected one is not found."""
    _configure(isolated_home, url)
    store = SqlStore(url, host="laptop")
    store.write("good", item("kept", "Pin the toolchain version."))
    foreign = Quote("claude-code:laptop:another-session:u1", "Pin the toolchain twice.")
    store.write("bad", replace(item("lying", "Pin the toolchain twice."), quotes=(foreign,)))
    store.close()
    assert sorted(_titles(isolated_home, "toolchain")) == [
        ("kept", "pending"),
        ("lying", "pending"),
    ]
    dreamed = run_dreamd(isolated_home, "dream", "--json")
    assert dreamed.returncode == 0, dreamed.stderr
    assert _titles(isolated_home, "toolchain") == [("kept", "accepted")]
    store = SqlStore(url)
    assert store.status_of("bad") == "rejected"
    assert store.set_status("bad", "new", expected="rejected")  # what `dreamd undo` does
    store.close()
    assert sorted(_titles(isolated_home, "toolchain")) == [
        ("kept", "accepted"),
        ("lying", "pending"),
    ]


def test_a_row_another_process_writes_is_found(isolated_home: Path, url: str) -> None:
    """A row planted by another process (another host, another dreamd) is found at once."""
    _configure(isolated_home, url)
    assert _titles(isolated_home, "ferrets") == []
    writer = textwrap.dedent(
        f"""
        from tests.search.homes import item
        from dreamd.stores.sql import SqlStore
        store = SqlStore({url!r}, host="other")
        store.write("from-elsewhere", item("pets", "The office allows ferrets."))
        store.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", writer],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert _titles(isolated_home, "ferrets") == [("pets", "pending")]


def test_rows_from_before_the_index_are_found_once_a_dreamd_opens_the_store(
    isolated_home: Path, url: str
) -> None:
    """A store created by an older dreamd (no index) is indexed, its rows included, on open."""
    engine = create_engine(driver_url(SqlStore(url).url))
    metadata.create_all(engine)  # the tables as before the index, with a row in them
    values = row_values(
        "old", item("legacy", "Old rows count too."), host="a", now=datetime.now(UTC)
    )
    with engine.begin() as connection:
        connection.execute(memory_item.insert().values(values))
    engine.dispose()
    _configure(isolated_home, url)
    assert _titles(isolated_home, '"old rows"') == [("legacy", "pending")]


def test_without_an_index_the_store_is_still_searched(tmp_path: Path) -> None:
    """A SQLite store whose index is missing (a build without FTS5) answers through LIKE."""
    url = f"sqlite:///{tmp_path / 'items.db'}"
    store = SqlStore(url)
    store.write("k", item("plain", "Words without an index."))
    with store.engine.begin() as connection:
        connection.execute(text(f"DROP TABLE {FTS_TABLE}"))
        for trigger in ("insert", "delete", "update"):
            connection.execute(text(f"DROP TRIGGER memory_item_fts_{trigger}"))
        connection.execute(
            text(f"DELETE FROM dreamd_schema WHERE component = '{SEARCH_COMPONENT}'")
        )
        rows = search_rows(
            connection, fts5='"index"', websearch="index", words=["index"],
            where=RowFilter(), limit=5,
        )  # fmt: skip
    store.close()
    assert [row.name for row, _ in rows] == ["plain"]
