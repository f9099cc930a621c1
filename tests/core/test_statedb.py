"""The state database: migrations, cache round trip, and safe concurrent writes."""

from __future__ import annotations

import multiprocessing
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from dreamd.migrations.runner import head
from dreamd.readers import FileVersion
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import HEAD_REVISION, create_state_engine, open_state

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def sample(sid: str, **overrides: object) -> SessionInfo:
    values: dict[str, object] = {
        "tool": "claude-code",
        "session_id": sid,
        "path": f"/h/.claude/projects/p/{sid}.jsonl",
        "locator": "",
        "file_version": FileVersion(64, 99, 1234, 1_764_460_800_123_456_789, "m"),
        "activity_at": NOW,
        "project": "/repo",
        "first_message_at": NOW.replace(hour=1),
        "last_message_at": NOW.replace(hour=2),
        "messages": 9,
        "user_messages": 4,
        "revision": "abc",
        "machine_opening": True,
        "human_replies": 2,
    }
    values.update(overrides)
    return SessionInfo(**values)  # type: ignore[arg-type]


def test_head_constant_matches_migration_scripts() -> None:
    """The fast-path revision constant is the newest migration script."""
    assert head() == HEAD_REVISION


def test_new_database_is_created_at_head(tmp_path: Path) -> None:
    """Opening a missing file creates it with every table at the newest revision."""
    open_state(tmp_path / "data" / "state.db")
    with sqlite3.connect(tmp_path / "data" / "state.db") as connection:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        (version,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert {"session_cache", "collector_cursor", "job_run", "alembic_version"} <= tables
    assert version == HEAD_REVISION


def test_reopening_keeps_state(tmp_path: Path) -> None:
    """Opening an existing database again (an upgrade to the same head) loses nothing."""
    db = open_state(tmp_path / "state.db")
    db.save_sessions([sample("a")], now=NOW)
    db.save_cursor("laptop", {"collectorV2": {"x": 1}}, expected=0, now=NOW)
    again = open_state(tmp_path / "state.db")
    assert list(again.load_session_cache().values()) == [sample("a")]
    assert again.load_cursor("laptop") == (1, {"collectorV2": {"x": 1}})


def test_upgrade_from_every_older_revision_keeps_rows(tmp_path: Path) -> None:
    """A database at the first revision, with a cursor and a run, upgrades to head keeping
    them; the session cache it had is emptied on the way (0009: the next scan reads every
    session again), never half converted."""
    from dreamd.migrations.runner import upgrade

    path = tmp_path / "state.db"
    engine = create_state_engine(path)
    upgrade(engine, "0003")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO collector_cursor VALUES ('laptop', 1, '{\"collectorV2\": {}}', 0)"
        )
        connection.execute(
            "INSERT INTO session_cache (tool, path, locator, session_id, device, inode, size,"
            " mtime_ns, marker, messages, user_messages, machine_opening, human_replies,"
            " read_at) VALUES ('pi', '/s.jsonl', '', 's', 1, 2, 3, 4, '', 9, 4, 0, 2, 0)"
        )
    upgrade(engine, "0008")
    open_state(path).start_run("old", "dream", "apply", NOW)
    upgrade(engine, "head")
    upgraded = open_state(path)
    assert upgraded.load_cursor("laptop") == (1, {"collectorV2": {}})
    assert [run.run_id for run in upgraded.runs()] == ["old"]
    assert upgraded.load_session_cache() == {}
    upgraded.save_sessions([sample("new")], now=NOW)
    assert list(upgraded.load_session_cache().values()) == [sample("new")]


def test_a_cached_value_that_does_not_decode_is_read_again_not_fatal(tmp_path: Path) -> None:
    """A damaged row leaves only its own session out of the cache (a scan reads it again and
    replaces the row); every other session still loads."""
    path = tmp_path / "state.db"
    db = open_state(path)
    db.save_sessions([sample("a"), sample("b"), sample("c")], now=NOW)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE session_cache SET info = x'93a1' WHERE path LIKE '%/b.jsonl'")
    assert sorted(i.session_id for i in db.load_session_cache().values()) == ["a", "c"]
    db.save_sessions([sample("b")], now=NOW)
    assert sorted(i.session_id for i in db.load_session_cache().values()) == ["a", "b", "c"]


def test_cache_round_trip_is_exact(tmp_path: Path) -> None:
    """Every field of the session metadata survives the database."""
    db = open_state(tmp_path / "state.db")
    infos = [
        sample("a"),
        sample("b", project=None, first_message_at=None, last_message_at=None, revision=None),
        sample("c", activity_at=None, damaged_lines=(3, 7, 12), notes=("unknown project",)),
        sample("d", machine_opening=False, unresolved="cannot read: permission denied"),
    ]
    db.save_sessions(infos, now=NOW)
    assert sorted(db.load_session_cache().values(), key=lambda i: i.session_id) == infos


def test_save_replaces_and_forget_removes(tmp_path: Path) -> None:
    """Saving a changed session replaces its row; forgetting removes only the named rows."""
    db = open_state(tmp_path / "state.db")
    db.save_sessions([sample("a"), sample("b")], now=NOW)
    db.save_sessions([sample("a", messages=42)], now=NOW)
    db.forget_sessions([("claude-code", str(sample("b").path), "")])
    assert [(i.session_id, i.messages) for i in db.load_session_cache().values()] == [("a", 42)]


def _bump(path: str, rounds: int) -> None:
    db = open_state(Path(path))
    for _ in range(rounds):
        with db.transaction() as connection:
            (current,) = connection.execute("SELECT read_at FROM session_cache").fetchone()
            connection.execute("UPDATE session_cache SET read_at = ?", (current + 1,))


def _read_at(path: Path) -> float:
    with sqlite3.connect(path) as connection:
        (value,) = connection.execute("SELECT read_at FROM session_cache").fetchone()
    return float(value)


def test_concurrent_read_modify_write_loses_nothing(tmp_path: Path) -> None:
    """Three processes incrementing one row through transactions lose no update."""
    path = tmp_path / "state.db"
    open_state(path).save_sessions([sample("counter")], now=datetime.fromtimestamp(0, UTC))
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_bump, args=(str(path), 100)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert _read_at(path) == 300
    assert list(open_state(path).load_session_cache().values()) == [sample("counter")]


def _open_only(path: str) -> None:
    open_state(Path(path))


def test_processes_starting_together_migrate_once(tmp_path: Path) -> None:
    """Several processes creating the database at once all succeed, with one schema."""
    path = tmp_path / "state.db"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_open_only, args=(str(path),)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)


def test_unwritable_data_dir_is_a_state_error(tmp_path: Path) -> None:
    """A data dir that cannot be created is reported as a StateError naming it."""
    import pytest

    from dreamd.errors import StateError

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StateError, match="data directory"):
        open_state(blocker / "sub" / "state.db")


def test_cursor_save_refuses_a_concurrent_change(tmp_path: Path) -> None:
    """Saving with a stale version raises instead of overwriting the other writer's cursor."""
    import pytest

    from dreamd.errors import Refused

    db = open_state(tmp_path / "state.db")
    assert db.save_cursor("h", {"a": 1}, expected=0, now=NOW) == 1
    other = open_state(tmp_path / "state.db")
    assert other.save_cursor("h", {"a": 2}, expected=1, now=NOW) == 2
    with pytest.raises(Refused, match="changed while this run worked"):
        db.save_cursor("h", {"a": 3}, expected=1, now=NOW)
    assert db.load_cursor("h") == (2, {"a": 2})


def test_job_runs_round_trip(tmp_path: Path) -> None:
    """A started and finished run reads back with its mode, outcome and summary."""
    db = open_state(tmp_path / "state.db")
    db.start_run("r1", "dream", "apply", NOW)
    db.finish_run("r1", outcome="ok", mode="no-op", summary={"n": 3}, now=NOW)
    run = db.run("r1")
    assert run is not None
    assert (run.job, run.mode, run.outcome, run.summary) == ("dream", "no-op", "ok", {"n": 3})
    assert [r.run_id for r in db.runs("dream")] == ["r1"]


def test_a_failed_transaction_leaves_nothing_behind(tmp_path: Path) -> None:
    """An error inside a transaction rolls back every statement it made; the database
    stays usable and the next transaction commits."""
    import pytest

    db = open_state(tmp_path / "state.db")
    with pytest.raises(RuntimeError, match="half way"), db.transaction() as connection:
        connection.execute(
            "INSERT INTO job_run (run_id, job, mode, started_at, summary) "
            "VALUES ('r1', 'dream', 'apply', 1.0, '{}')"
        )
        raise RuntimeError("half way")
    assert db.runs() == []
    db.start_run("r2", "collect", "apply", NOW)
    assert [run.run_id for run in db.runs()] == ["r2"]


def test_driver_errors_are_state_errors_and_roll_back(tmp_path: Path) -> None:
    """A statement the database refuses (a duplicate run id) is a StateError naming the
    driver's error, and the rows written before it in the same transaction are gone."""
    import pytest

    from dreamd.errors import StateError

    db = open_state(tmp_path / "state.db")
    db.start_run("r1", "dream", "apply", NOW)
    with pytest.raises(StateError, match="IntegrityError"), db.transaction() as connection:
        connection.execute(
            "INSERT INTO job_run (run_id, job, mode, started_at, summary) "
            "VALUES ('r2', 'dream', 'apply', 2.0, '{}')"
        )
        connection.execute(
            "INSERT INTO job_run (run_id, job, mode, started_at, summary) "
            "VALUES ('r1', 'dream', 'apply', 3.0, '{}')"
        )
    assert [run.run_id for run in db.runs()] == ["r1"]


def test_a_closed_database_opens_again_on_its_next_use(tmp_path: Path) -> None:
    """``close`` (the service after each job) loses nothing: the next call reconnects."""
    db = open_state(tmp_path / "state.db")
    db.save_cursor("h", {"a": 1}, expected=0, now=NOW)
    db.close()
    db.close()  # twice is harmless
    assert db.load_cursor("h") == (1, {"a": 1})


def _write_in_child(db: object) -> None:
    from dreamd.statedb import StateDB

    assert isinstance(db, StateDB)
    db.start_run("child", "collect", "apply", NOW)


def test_a_forked_child_uses_a_connection_of_its_own(tmp_path: Path) -> None:
    """A connection must not cross a fork: the child of a process that used the database
    opens its own, and the parent's keeps working after the child wrote."""
    db = open_state(tmp_path / "state.db")
    db.start_run("parent", "dream", "apply", NOW)
    child = multiprocessing.get_context("fork").Process(target=_write_in_child, args=(db,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert sorted(run.run_id for run in db.runs()) == ["child", "parent"]


def test_threads_share_the_connection_one_transaction_at_a_time(tmp_path: Path) -> None:
    """The service's threads use one StateDB: concurrent read-modify-write transactions
    from several threads lose no update."""
    import threading

    db = open_state(tmp_path / "state.db")
    db.save_sessions([sample("counter")], now=datetime.fromtimestamp(0, UTC))

    def bump() -> None:
        for _ in range(50):
            with db.transaction() as connection:
                (current,) = connection.execute("SELECT read_at FROM session_cache").fetchone()
                connection.execute("UPDATE session_cache SET read_at = ?", (current + 1,))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert _read_at(tmp_path / "state.db") == 200


def _schema(path: Path) -> dict[str, object]:
    """Every table's columns (name, type, not null, default, key position), indexes and
    their columns, and the stamped revision: what two ways of creating a file must agree on."""
    with sqlite3.connect(path) as connection:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        schema: dict[str, object] = {
            "revision": connection.execute("SELECT version_num FROM alembic_version").fetchall()
        }
        for table in tables:
            columns = [row[1:] for row in connection.execute(f"PRAGMA table_info({table})")]
            indexes = {
                index[1]: (
                    index[2],
                    [row[2] for row in connection.execute(f"PRAGMA index_info({index[1]})")],
                )
                for index in connection.execute(f"PRAGMA index_list({table})")
            }
            schema[table] = (columns, indexes)
    return schema


def test_a_new_file_gets_exactly_the_schema_the_migrations_build(tmp_path: Path) -> None:
    """A new state database is created from ``headschema`` without Alembic; it must be the
    schema the migrations build, column for column and index for index (a new
    migration without its change to ``headschema`` fails here)."""
    from dreamd.migrations.runner import upgrade

    migrated = tmp_path / "migrated.db"
    engine = create_state_engine(migrated)
    upgrade(engine)
    engine.dispose()
    created = tmp_path / "data" / "state.db"
    open_state(created)
    assert _schema(created) == _schema(migrated)
    assert _schema(created)["revision"] == [(HEAD_REVISION,)]


def test_a_file_without_tables_but_not_empty_of_schema_goes_through_the_migrations(
    tmp_path: Path,
) -> None:
    """Only a file with no table at all is created directly: one holding tables of its own
    but no revision is left to Alembic, as before (which keeps those tables)."""
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE mine (x)")
    open_state(path)
    with sqlite3.connect(path) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        (version,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert "mine" in names and "session_cache" in names and version == HEAD_REVISION


def test_the_packed_cache_downgrades_to_the_table_0008_had(tmp_path: Path) -> None:
    """0009's downgrade gives back the column-per-field cache, column for column."""
    from alembic import command

    from dreamd.migrations.runner import alembic_config, upgrade

    direct, back = tmp_path / "direct.db", tmp_path / "back.db"
    upgrade(create_state_engine(direct), "0008")
    engine = create_state_engine(back)
    upgrade(engine, "head")
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0008")
    assert _schema(back) == _schema(direct)
