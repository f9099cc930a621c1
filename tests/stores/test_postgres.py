"""The SQL store shared by several machines on PostgreSQL (issue 6 item 4).

URLs and errors need no server; everything else runs against the real one
(``tests.stores.postgres``: a fresh schema per test, skipped when no server
answers). Hosts are real ``dreamd`` processes with their own HOME, config and
state database, pointed at one PostgreSQL schema.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, inspect, select, text
from sqlalchemy.engine import make_url

from dreamd.dream.model import DreamRequest
from dreamd.dream.run import dream_job
from dreamd.dream.stores import GatedStore
from dreamd.errors import StoreError
from dreamd.statedb import open_state
from dreamd.stores import _sqlschema, sql
from dreamd.stores._postgres import (
    CONNECT_TIMEOUT_S,
    DREAM_LOCK,
    SCHEMA_LOCK,
    application_name,
    driver_url,
    engine_options,
    lock_key,
)
from dreamd.stores.sql import SPEC as SQL_SPEC
from dreamd.stores.sql import (
    STATUS_NEW,
    SqlStore,
    SqlTable,
    memory_item,
    schema_steps,
    schema_version,
)
from dreamd.stores.sqlsearch import FTS_TABLE, SEARCH_COMPONENT, SEARCH_VERSION
from tests.collect.test_collect_cli import PROMPTS, session
from tests.stores.factories import sample_item
from tests.stores.postgres import fresh_schema

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DAY = 86400
OLD = time.time() - 90 * DAY


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL into a fresh schema of the test server (skips when none answers)."""
    with fresh_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store URL on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'items.db'}"
        return
    with fresh_schema() as url:
        yield url


def engine_on(url: str) -> Engine:
    """A plain engine on the store's database, for looking behind the store's back."""
    return create_engine(driver_url(make_url(url)))


# ---------------------------------------------------------------- URLs and errors


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("postgres://u@h/db", "postgresql+psycopg"),
        ("postgresql://u@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg2://u@h/db", "postgresql+psycopg2"),
        ("sqlite:///x.db", "sqlite"),
    ],
)
def test_bare_postgresql_urls_use_psycopg_3(given: str, driver: str) -> None:
    """Both bare spellings get the psycopg 3 driver; a driver the user named is kept."""
    assert driver_url(make_url(given)).drivername == driver


def test_connections_time_out_unless_the_url_says_otherwise() -> None:
    """A default connect timeout and pre-ping; a ``connect_timeout`` in the URL wins."""
    options = engine_options(make_url("postgresql://u@h/db"))
    assert options == {"pool_pre_ping": True, "connect_args": {"connect_timeout": 10}}
    assert CONNECT_TIMEOUT_S == 10
    given = engine_options(make_url("postgresql://u@h/db?connect_timeout=2"))
    assert given["connect_args"] == {}


def test_lock_keys_are_signed_32_bit_and_differ_per_schema() -> None:
    """Each half fits PostgreSQL's ``int4``; two schemas, or two purposes, never share a key."""
    keys = {lock_key(DREAM_LOCK, schema) for schema in ("public", "test_a", "test_b", "")}
    assert len(keys) == 4
    for first, second in keys:
        assert -(2**31) <= first < 2**31 and -(2**31) <= second < 2**31
    assert lock_key(DREAM_LOCK, "public") == lock_key(DREAM_LOCK, "public")
    assert lock_key(DREAM_LOCK, "public") != lock_key(SCHEMA_LOCK, "public")


def test_the_lease_name_is_cut_to_what_postgresql_keeps() -> None:
    """``application_name`` holds 63 bytes: a long or multi-byte host name is cut cleanly."""
    assert application_name("alpha") == "dreamd dream on alpha"
    assert len(application_name("ü" * 80).encode()) <= 63
    assert application_name(None) == "dreamd dream on unknown host"


def _refusing_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_server_that_does_not_answer_is_a_store_error_naming_the_store() -> None:
    """Connection refused: one StoreError naming the store, the password masked."""
    store = SqlStore(f"postgresql://planter:hunter2@127.0.0.1:{_refusing_port()}/memories")
    with pytest.raises(StoreError) as raised:
        store.write("op-1", sample_item(1))
    message = str(raised.value)
    assert "cannot reach the store postgresql://planter:***@127.0.0.1:" in message
    assert "hunter2" not in message and "refused" in message


def test_a_server_that_never_replies_times_out_as_a_store_error() -> None:
    """A listener that accepts and stays silent: the connect timeout ends the wait."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        store = SqlStore(f"postgres://u:pw@127.0.0.1:{port}/db?connect_timeout=1")
        with pytest.raises(StoreError, match="cannot reach the store postgres://u:\\*\\*\\*@"):
            store.find("op-1")


def test_a_missing_driver_names_the_extra_to_install() -> None:
    """Without psycopg the store says which extra to install (a real child process)."""
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from dreamd.stores.sql import SqlStore\n"
        "from dreamd.errors import StoreError\n"
        "try:\n"
        "    SqlStore('postgresql://u:secret@127.0.0.1/db').find('k')\n"
        "except StoreError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'dreamd[postgres]'" in result.stdout
    assert "u:***@127.0.0.1" in result.stdout and "secret" not in result.stdout


def test_a_password_given_as_a_query_option_is_hidden_too() -> None:
    """``?password=`` is masked in the store's name like the URL's own password."""
    store = SqlStore("postgresql://u@h/db?password=hunter2&sslmode=require")
    assert "hunter2" not in store.name and "sslmode=require" in store.name


# ---------------------------------------------------------------- schema and versions


def test_schema_steps_decide_which_migrations_run() -> None:
    """Fresh: none; unversioned old table: from 1; recorded: from there; newer: refused."""
    assert list(schema_steps(None, table_existed=False, current=3)) == []
    assert list(schema_steps(None, table_existed=True, current=3)) == [1, 2]
    assert list(schema_steps(2, table_existed=True, current=3)) == [2]
    assert list(schema_steps(3, table_existed=True, current=3)) == []
    with pytest.raises(StoreError, match="upgrade dreamd"):
        schema_steps(4, table_existed=True, current=3)


def _open_at_once(url: str, barrier: Barrier, out: Any) -> None:
    barrier.wait()
    try:
        SqlStore(url).find("open")
        out.put("ok")
    except Exception as error:  # reported to the test, which fails on it
        out.put(f"{type(error).__name__}: {error}")


def test_daemons_opening_a_fresh_store_at_once_create_it_once(any_url: str) -> None:
    """Six processes open an empty database together: none fails, one table, one version row."""
    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(6), context.Queue()
    workers = [
        context.Process(target=_open_at_once, args=(any_url, barrier, out)) for _ in "abcdef"
    ]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(60)
    assert results == ["ok"] * 6
    engine = engine_on(any_url)
    with engine.begin() as connection:
        tables = inspect(connection).get_table_names()
        rows = connection.execute(select(schema_version)).all()
    engine.dispose()
    # The search index (stores/sqlsearch.py): SQLite's FTS5 table and its shadow tables.
    assert sorted(t for t in tables if not t.startswith(FTS_TABLE)) == sorted(sql.metadata.tables)
    assert sorted(tuple(row) for row in rows) == [
        ("memory_item", sql.SCHEMA_VERSION),
        (SEARCH_COMPONENT, SEARCH_VERSION),
    ]


def _add_note_column(ran: list[str]) -> Any:
    def migrate(connection: Any) -> None:
        ran.append("1->2")
        connection.execute(text("ALTER TABLE memory_item ADD COLUMN note TEXT"))

    return migrate


def test_a_store_from_before_versions_is_migrated_once(
    any_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unversioned table counts as version 1; a due step runs once, is recorded, rows kept."""
    engine = engine_on(any_url)
    memory_item.create(engine)  # the store as dreamd created it before the version table
    receipt = SqlStore(any_url).write("op-1", sample_item(1))
    with engine.begin() as connection:
        connection.execute(schema_version.delete())  # as if the version table came later
    ran: list[str] = []
    monkeypatch.setattr(_sqlschema, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(_sqlschema, "MIGRATIONS", {1: _add_note_column(ran)})
    for _ in range(2):
        store = SqlStore(any_url)
        assert store.verify(receipt, "op-1")
        store.close()
    assert ran == ["1->2"]
    with engine.begin() as connection:
        assert connection.execute(select(schema_version.c.version)).scalar() == 2
        columns = {column["name"] for column in inspect(connection).get_columns("memory_item")}
    engine.dispose()
    assert "note" in columns


def test_a_store_newer_than_this_dreamd_is_refused_untouched(any_url: str) -> None:
    """A version this code does not know: every use is a StoreError, nothing is written."""
    SqlStore(any_url).find("create")
    engine = engine_on(any_url)
    with engine.begin() as connection:
        connection.execute(schema_version.update().values(version=sql.SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match="newer than this dreamd"):
        SqlStore(any_url).write("op-1", sample_item(1))
    with engine.begin() as connection:
        assert connection.execute(select(memory_item)).all() == []
    engine.dispose()


# ---------------------------------------------------------------- concurrent writers


def _write_all(url: str, host: str, keys: list[str], barrier: Barrier, out: Any) -> None:
    store = SqlStore(url, host=host)
    store.find("warm up")
    barrier.wait()
    out.put([dataclasses.astuple(store.write(key, sample_item(index))) for index, key in
             enumerate(keys)])  # fmt: skip


def test_two_hosts_writing_the_same_keys_at_once_keep_one_row_and_one_receipt(
    pg_url: str,
) -> None:
    """Stress: 200 keys written together by two processes; one row and one receipt per key."""
    keys = [f"window-{i // 4}:sql:op-{i}" for i in range(200)]
    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(2), context.Queue()
    workers = [
        context.Process(target=_write_all, args=(pg_url, host, keys, barrier, out))
        for host in ("alpha", "beta")
    ]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert results[0] == results[1]
    engine = engine_on(pg_url)
    with engine.begin() as connection:
        held = connection.execute(select(memory_item.c.op_key, memory_item.c.host)).all()
    engine.dispose()
    assert sorted(key for key, _host in held) == sorted(keys)
    assert {host for _key, host in held} <= {"alpha", "beta"}


# ---------------------------------------------------------------- the dream lease


def test_one_host_at_a_time_holds_the_dream_lease(pg_url: str) -> None:
    """While alpha holds it, beta is refused and told who holds it; then beta gets it."""
    alpha, beta = SqlStore(pg_url, host="alpha"), SqlStore(pg_url, host="beta")
    with alpha.dream_lease() as first:
        assert first.held
        with beta.dream_lease() as second:
            assert (second.held, second.holder) == (False, "alpha")
        with SqlStore(pg_url, host="gamma").dream_lease() as third:
            assert (third.held, third.holder) == (False, "alpha")
    with beta.dream_lease() as after:
        assert after.held
    alpha.close()
    beta.close()


def test_a_store_in_another_schema_has_its_own_lease(pg_url: str) -> None:
    """Two stores in one database do not keep each other from dreaming."""
    with (
        fresh_schema() as other,
        SqlStore(pg_url, host="alpha").dream_lease() as first,
        SqlStore(other, host="beta").dream_lease() as second,
    ):
        assert first.held and second.held


_HOLD_LEASE = """
import sys, time
from dreamd.stores.sql import SqlStore
with SqlStore(sys.argv[1], host="crashing").dream_lease() as lease:
    print("held" if lease.held else "refused", flush=True)
    time.sleep(600)
"""


def test_a_host_killed_while_dreaming_leaves_no_stale_lease(pg_url: str) -> None:
    """SIGKILL the holder: the server ends its session and the lease is free again."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LEASE, pg_url], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        store = SqlStore(pg_url, host="beta")
        with store.dream_lease() as refused:
            assert (refused.held, refused.holder) == (False, "crashing")
        holder.send_signal(signal.SIGKILL)
        holder.wait(60)
        deadline, held = time.monotonic() + 60, False
        while not held and time.monotonic() < deadline:
            with store.dream_lease() as lease:
                held = lease.held
            time.sleep(0.05)
        assert held
    finally:
        holder.kill()
        holder.wait()


def test_sqlite_always_holds_the_lease_and_touches_nothing(tmp_path: Path) -> None:
    """A SQLite store is one host's file: the lease is a no-op that creates no file."""
    path = tmp_path / "items.db"
    with SqlStore(f"sqlite:///{path}").dream_lease() as lease:
        assert lease.held and lease.holder is None
    assert not path.exists()


def test_dream_job_leaves_a_shared_store_to_the_host_holding_it(
    pg_url: str, tmp_path: Path, isolated_home: Path
) -> None:
    """Lease held elsewhere: rows stay new and the report says who dreams; then gated."""
    store = SqlStore(pg_url, host="beta")
    for index in range(3):
        store.write(f"op-{index}", sample_item(index))
    state = open_state(tmp_path / "state.db")

    def dream() -> list[str]:
        request = DreamRequest(mode="apply", now=datetime.now(UTC), budget=17408)
        outcome = dream_job(
            request,
            state=state,
            state_dir=tmp_path,
            env={},
            home=isolated_home,
            stores=gated(store),
        )
        return list(outcome.report.messages)

    with SqlStore(pg_url, host="alpha").dream_lease() as elsewhere:
        assert elsewhere.held
        messages = dream()
    assert [m for m in messages if m.startswith("SQL store skipped")] == [
        f"SQL store skipped: alpha is dreaming over {store.name}; its new rows wait"
    ]
    assert [key for key, _item in store.items_with_status(STATUS_NEW)] == ["op-0", "op-1", "op-2"]
    messages = dream()
    assert not any(m.startswith("SQL store skipped") for m in messages)
    assert store.items_with_status(STATUS_NEW) == []
    store.close()


def gated(store: SqlStore) -> list[GatedStore]:
    """``store`` as the dream gates a configured SQL store."""
    return [GatedStore(SQL_SPEC, SqlTable(), store)]


# ---------------------------------------------------------------- hosts as real processes


def host_home(tmp_path: Path, machine: str, url: str) -> Path:
    """A HOME for host ``machine``: its own config (shared SQL store) and state dir."""
    home = tmp_path / machine
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'machine = "{machine}"\n[collect]\nstores = ["sql"]\n[stores.sql]\nurl = "{url}"\n'
    )
    return home


def start_dreamd(home: Path, *args: str) -> subprocess.Popen[str]:
    """``python -m dreamd ARGS`` in the background, HOME set to ``home``, info logs on stderr."""
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_", "CLAUDE_"))
    }
    environment.update({"HOME": str(home), "DREAMD_LOG_LEVEL": "info"})
    return subprocess.Popen(
        [sys.executable, "-m", "dreamd", *args],
        cwd=PROJECT_ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    stdout, stderr = process.communicate(timeout=300)
    return process.returncode, stdout, stderr


def test_two_collectors_plant_into_one_database_at_once_without_duplicates(
    pg_url: str, tmp_path: Path
) -> None:
    """Hosts alpha and beta collect the same conversation together: each plants its items
    once, no key or (source, name) repeats, each host's cursor holds only its own work."""
    homes = {machine: host_home(tmp_path, machine, pg_url) for machine in ("alpha", "beta")}
    for home in homes.values():
        session(home, PROMPTS)  # the same session id on both hosts (a synced transcript)
    runs = {m: start_dreamd(home, "collect", "--json") for m, home in homes.items()}
    results = {machine: finish(process) for machine, process in runs.items()}
    for code, _stdout, stderr in results.values():
        assert code == 0, stderr
    planted = {m: json.loads(stdout)["planted"]["total"] for m, (_c, stdout, _e) in results.items()}
    engine = engine_on(pg_url)
    with engine.begin() as connection:
        rows = connection.execute(select(memory_item)).all()
    assert len({row.op_key for row in rows}) == len(rows)
    assert len({(row.source, row.name) for row in rows}) == len(rows)
    for machine in homes:
        mine = [row for row in rows if row.host == machine]
        assert len(mine) == planted[machine] == 3
        assert all(row.source.startswith(f"source:claude-code:{machine}:") for row in mine)
        assert all(row.status == STATUS_NEW for row in mine)
    for machine, home in homes.items():  # each state database holds its own host's cursor
        state = open_state(home / ".local" / "share" / "dreamd" / "state.db")
        (other,) = set(homes) - {machine}
        assert state.load_cursor(machine)[0] > 0 and state.load_cursor(other) == (0, {})
    # A host's cursor lives in its own state database: alpha's second pass finds its
    # session done; beta, whose transcript grew, collects only beta's new message.
    session(homes["beta"], [*PROMPTS, "Never commit directly to main, always open a pull request."])
    again = {m: start_dreamd(home, "collect", "--json") for m, home in homes.items()}
    second = {m: json.loads(finish(process)[1]) for m, process in again.items()}
    assert second["alpha"]["selected"] == [] and second["alpha"]["planted"]["total"] == 0
    assert second["beta"]["planted"]["total"] == 1
    with engine.begin() as connection:
        hosts = connection.execute(select(memory_item.c.host)).scalars().all()
    engine.dispose()
    assert sorted(hosts) == ["alpha"] * 3 + ["beta"] * 4


def topic(path: Path, description: str, body: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {path.stem}\ndescription: {description}\ntype: project\n---\n\n"
                    f"{body}\n")  # fmt: skip
    os.utime(path, (mtime, mtime))


def own_folder(home: Path) -> Path:
    """A memory folder of this host with two topics and no index yet (the dream writes one)."""
    memory = home / ".claude" / "memory"
    topic(memory / "project_deploy.md", "deploy checklist", "Staging first, then production.", OLD)
    topic(memory / "project_release.md", "release notes", "Tag, then publish the notes.", OLD)
    return memory


def test_two_dreams_at_once_on_the_shared_store_exactly_one_gates_it(
    pg_url: str, tmp_path: Path
) -> None:
    """Two hosts dream together: one gates the rows, the other skips the store (and says so)
    but still dreams its own folder."""
    store = SqlStore(pg_url, host="alpha")
    for index in range(4):
        store.write(f"op-{index}", sample_item(index))
    homes = {machine: host_home(tmp_path, machine, pg_url) for machine in ("alpha", "beta")}
    folders = {machine: own_folder(home) for machine, home in homes.items()}
    blocker = engine_on(pg_url).connect()
    # Row locks hold the lease winner inside its run until the other host has tried.
    blocker.execute(select(memory_item).with_for_update()).all()
    runs = {m: start_dreamd(home, "dream", "--json") for m, home in homes.items()}
    deadline, done = time.monotonic() + 300, list[str]()
    while not done and time.monotonic() < deadline:
        done = [machine for machine, process in runs.items() if process.poll() is not None]
        time.sleep(0.05)
    assert len(done) == 1, "one dream must finish while the other holds the lease"
    blocker.commit()
    blocker.close()
    results = {machine: finish(process) for machine, process in runs.items()}
    skipper = done[0]
    (gater,) = set(runs) - {skipper}
    for code, _stdout, stderr in results.values():
        assert code == 0, stderr
    skipped = json.loads(results[skipper][1])["messages"]
    assert f"SQL store skipped: {gater} is dreaming over" in " ".join(skipped)
    logged = [json.loads(line) for line in results[skipper][2].splitlines() if "{" in line]
    assert [line.get("holder") for line in logged if line.get("event") ==
            "dream.shared_store.skipped"] == [gater]  # fmt: skip
    gated = json.loads(results[gater][1])["messages"]
    assert sum(line.startswith("SQL item op-") for line in gated) == 4
    assert store.items_with_status(STATUS_NEW) == []
    runs_with_moves = {
        machine: list((home / ".local/share/dreamd/runs").glob("*/sql-status.json"))
        for machine, home in homes.items()
    }
    assert len(runs_with_moves[gater]) == 1 and runs_with_moves[skipper] == []
    for folder in folders.values():  # both hosts dreamed their own folder
        written = (folder / "MEMORY.md").read_text()
        assert "project_deploy.md" in written and "project_release.md" in written
    store.close()


def test_an_unreachable_shared_store_does_not_stop_the_dream_of_local_folders(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The server is down: this host's folders still dream; the report says the store waits."""
    folder = isolated_home / ".claude" / "projects" / "-work-app" / "memory"
    folder.mkdir(parents=True)
    (folder / "user_role.md").write_text(
        "---\nname: role\ndescription: the user's role\ntype: user\n---\nBackend engineer.\n"
    )
    store = SqlStore(f"postgresql://dreamd@127.0.0.1:{_refusing_port()}/test", host="beta")
    state = open_state(tmp_path / "state.db")
    request = DreamRequest(mode="apply", now=datetime.now(UTC), budget=17408)
    outcome = dream_job(
        request, state=state, state_dir=tmp_path, env={}, home=isolated_home, stores=gated(store)
    )
    assert outcome.exit_code == 0
    assert any(m.startswith("SQL store skipped: ") for m in outcome.report.messages)
    assert [d.path for d in outcome.report.directories] == [str(folder)]
    assert "user_role.md" in (folder / "MEMORY.md").read_text()  # the folder was dreamed
    run = state.run(request.run_id)
    assert run is not None and run.outcome == "ok"
