"""The PostgreSQL server store tests run against, and a fresh schema per test.

The server on ``127.0.0.1:5432`` (trust auth, database ``test``) is used when
it answers; ``DREAMD_TEST_POSTGRES_URL`` names another. Without an answering
server every test that needs one is skipped. Each test gets its own schema
``test_<random>`` (the URL sets ``search_path`` through libpq ``options``, so
child processes given the URL land in it too); it is dropped afterwards, so
nothing is left behind in the database.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError

from dreamd.stores._postgres import driver_url

#: The local test server (see ENGINEERING-NOTES).
DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@functools.cache
def server_url() -> URL | None:
    """The test server's URL (psycopg 3 driver) if it answers within a few seconds."""
    url = driver_url(make_url(os.environ.get("DREAMD_TEST_POSTGRES_URL") or DEFAULT_URL))
    try:
        engine = create_engine(url, connect_args={"connect_timeout": 3})
        with engine.connect():
            pass
        engine.dispose()
    except (SQLAlchemyError, ImportError):
        return None
    return url


def require_server() -> URL:
    """The server's URL, or skip the calling test."""
    url = server_url()
    if url is None:
        given = make_url(os.environ.get("DREAMD_TEST_POSTGRES_URL") or DEFAULT_URL)
        shown = given.render_as_string(hide_password=True)
        pytest.skip(f"no PostgreSQL server answers at {shown} (DREAMD_TEST_POSTGRES_URL)")
    return url


def in_schema(url: URL, schema: str) -> str:
    """``url`` as a string whose connections create and find tables in ``schema`` only."""
    scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
    return scoped.render_as_string(hide_password=False)


@contextmanager
def fresh_schema() -> Iterator[str]:
    """A URL into a new, empty schema, dropped with everything in it on exit."""
    url = require_server()
    schema = f"test_{secrets.token_hex(6)}"
    admin = create_engine(url)
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield in_schema(url, schema)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()
