"""Seed 003 verification against OpenCode-schema trajectory databases, read-only.

Synthetic databases are built here from the layout seed 003 documents
(``session``; ``message`` with ``agent_id`` and a JSON ``data`` holding the
role; ``part`` with ``session_id`` and a JSON ``data``), plus the older shape
whose ``part`` has no ``session_id``. The real OpenCode fixture is only ever
read from a copy in ``tmp_path``.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreamd.dream import trajectories
from dreamd.dream.claims import Needle, claims_with_sources, source_ids
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gardener import run_dream
from dreamd.dream.model import DreamRequest
from dreamd.dream.plan import plan_folder
from dreamd.dream.trajectories import (
    Evidence,
    confirmed_first,
    data_dir_of,
    findings,
    gather,
    locate,
)
from tests.dream.factories import NOW
from tests.dream.test_dream_cli import run, write

DAY_MS = 86_400_000
NOW_MS = int(NOW.timestamp() * 1000)

_SESSION = """CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL,
    title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)"""
_MESSAGE = """CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL DEFAULT '', time_created INTEGER NOT NULL, data TEXT NOT NULL)"""
_PART = """CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL,
    session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL)"""
_PART_OLD = """CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL,
    time_created INTEGER NOT NULL, data TEXT NOT NULL)"""


class Trajectories:
    """A synthetic MiMoCode/OpenCode-schema database, written through a normal connection."""

    def __init__(self, path: Path, *, part_session: bool = True, wal: bool = False) -> None:
        self.path = path
        self.part_session = part_session
        self._count = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(path)) as db:
            if wal:
                db.execute("PRAGMA journal_mode=WAL")
            for statement in (_SESSION, _MESSAGE, _PART if part_session else _PART_OLD):
                db.execute(statement)
            db.commit()

    def session(self, sid: str, *, days_ago: float = 1, directory: str = "/work/app") -> str:
        """One session, last updated ``days_ago`` before NOW."""
        stamp = NOW_MS - int(days_ago * DAY_MS)
        with closing(sqlite3.connect(self.path)) as db:
            db.execute(
                "INSERT INTO session VALUES (?, NULL, ?, 'work', ?, ?)",
                (sid, directory, stamp - 1000, stamp),
            )
            db.commit()
        return sid

    def part(self, sid: str, data: dict[str, Any], *, role: str = "assistant") -> None:
        """One message of ``sid`` holding one part."""
        with closing(sqlite3.connect(self.path)) as db:
            self.add_part(db, sid, data, role=role)
            db.commit()

    def add_part(
        self, db: sqlite3.Connection, sid: str, data: dict[str, Any], *, role: str = "assistant"
    ) -> None:
        """One message with one part, on an open connection (not committed)."""
        self._count += 1
        mid, pid = f"msg_{self._count:05d}", f"prt_{self._count:05d}"
        db.execute(
            "INSERT INTO message (id, session_id, time_created, data) VALUES (?, ?, ?, ?)",
            (mid, sid, self._count, json.dumps({"role": role})),
        )
        if self.part_session:
            row: tuple[Any, ...] = (pid, mid, sid, self._count, json.dumps(data))
        else:
            row = (pid, mid, self._count, json.dumps(data))
        db.execute(f"INSERT INTO part VALUES ({', '.join('?' * len(row))})", row)


def text(body: str) -> dict[str, Any]:
    return {"type": "text", "text": body}


def tool(name: str, tool_input: dict[str, Any], output: str = "") -> dict[str, Any]:
    return {"type": "tool", "tool": name, "state": {"input": tool_input, "output": output}}


def listing(folder: Path) -> dict[str, bytes]:
    """Every file of a folder with its bytes: side files and checkpoints both show."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


INDEX = (
    "# Project memory\n\n"
    "## Rules\n"
    "- Config is read by `load_config()` in `src/config.py` [ses_recent_1]\n"
    "- Deploys go through `scripts/deploy.sh` [ses_old_1]\n\n"
    "## Patterns\n"
    "- Retries live in `src/retry.py` [ses_gone_1]\n\n"
    "## Gotchas\n"
    "- The cache key is built by `cache_key()` [ses_recent_1]\n"
)


@pytest.fixture
def store(tmp_path: Path) -> Trajectories:
    """Sessions: one recent, one 30 days old; what each one shows is below."""
    db = Trajectories(tmp_path / "data" / "mimocode.db")
    db.session("ses_recent_1", days_ago=1)
    db.session("ses_old_1", days_ago=30)
    db.part("ses_recent_1", tool("read", {"filePath": "/work/app/src/config.py"}, "def load_con"))
    db.part("ses_recent_1", text("load_config() reads TOML"))
    db.part("ses_old_1", tool("bash", {"command": "ls scripts"}, "deploy.sh.bak\nrelease.sh"))
    db.part("ses_old_1", text("the retry helper is in src/retry.py"))
    return db


# ---------------------------------------------------------------- pure rules


class TestSourceIds:
    def test_one_id_and_a_list(self) -> None:
        """The trailing bracket gives the sources; several are split on commas."""
        assert source_ids("- a fact [ses_1]") == ("ses_1",)
        assert source_ids("- a fact [ses_a, ses_b; ses_a]\n") == ("ses_a", "ses_b")

    def test_marks_after_the_source_are_ignored(self) -> None:
        """``[unverified]`` marks after the source do not hide it."""
        assert source_ids("- x `a.py` [ses_1] [unverified]") == ("ses_1",)
        assert source_ids("- x [ses_1] [UNVERIFIED] [unverified]  ") == ("ses_1",)

    def test_words_in_brackets_are_not_sources(self) -> None:
        """``[TODO]`` or a trailing link is not a session id; a source not at the end neither."""
        assert source_ids("- x [TODO]") == ()
        assert source_ids("- see [docs](https://x.y/z)") == ()
        assert source_ids("- [ses_1] said so, later") == ()


class TestNeedle:
    @pytest.mark.parametrize(
        ("claim", "haystack", "found"),
        [
            ("src/a.py", '{"filePath":"/work/app/src/a.py"}', True),
            ("src/a.py", '"src/a.pyc"', False),
            ("src/a.py", '"xsrc/a.py"', False),
            ("load_config", '"self.load_config(path)"', True),
            ("load_config", '"reload_config()"', False),
            ("load_config", '"load_configs"', False),
            ("load_config", '"line one\\nload_config() two"', True),
            ("load_config", '"tab\\tload_config"', True),
            ("~/.config/app.toml", '"edit ~/.config/app.toml now"', True),
            ("src/", '"src/app.py"', True),
            ("src/a.py", '"src/b.py" "src/a.py"', True),
        ],
    )
    def test_whole_words_only(self, claim: str, haystack: str, found: bool) -> None:
        """A claim counts only outside a longer word; JSON escapes are boundaries."""
        assert Needle.of(claim).found_in(haystack) is found

    def test_a_later_hit_counts_after_a_false_one(self) -> None:
        """The first occurrence inside a longer word does not hide a real one after it."""
        assert Needle.of("cache_key").found_in('"cache_keys then cache_key()"')

    @given(
        st.from_regex(r"[a-z_][a-z_0-9]{0,6}", fullmatch=True),
        st.text(alphabet="ab_1 .\\n/(", max_size=40),
    )
    def test_agrees_with_a_regular_expression(self, claim: str, haystack: str) -> None:
        """Same answer as the word-boundary regex it replaces (kept here as the reference)."""
        reference = re.compile(r"(?:(?<!\w)|(?<=\\[nrt]))" + re.escape(claim) + r"(?!\w)")
        assert Needle.of(claim).found_in(haystack) is bool(reference.search(haystack))


def test_claims_carry_the_sources_of_every_entry_naming_them() -> None:
    """A claim named by two entries is searched in both entries' sessions; marked entries count."""
    index = (
        "# M\n\n## Rules\n- `src/a.py` first [ses_1]\n- `src/a.py` again [ses_2]\n\n"
        "## Patterns\n- `src/b.py` [ses_3] [unverified]\n\n## Gotchas\n- no claim [ses_4]\n"
    )
    assert claims_with_sources(index) == {
        "src/a.py": frozenset({"ses_1", "ses_2"}),
        "src/b.py": frozenset({"ses_3"}),
    }


class TestConfirmedFirst:
    EVIDENCE = Evidence((), confirmed=frozenset({"seen"}), refuted=frozenset({"absent"}))

    @pytest.mark.parametrize(
        ("claim", "repository", "expected"),
        [
            ("seen", False, True),  # the trajectories are the authority
            ("seen", None, True),
            ("absent", True, True),  # the code has it now
            ("absent", None, False),  # nobody confirms, its own source does not show it
            ("absent", False, False),
            ("unknown", False, False),  # the repository alone, as before
            ("unknown", None, None),
            ("unknown", True, True),
        ],
    )
    def test_combination(self, claim: str, repository: bool | None, expected: bool | None) -> None:
        """Trajectories' True, else the repository's answer, else the trajectories' False."""
        verify = confirmed_first(self.EVIDENCE, lambda _claim: repository)
        assert verify(claim) is expected

    def test_without_a_repository(self) -> None:
        """With no repository the trajectories answer alone."""
        verify = confirmed_first(self.EVIDENCE, None)
        assert [verify(c) for c in ("seen", "absent", "unknown")] == [True, False, None]


# ---------------------------------------------------------------- locating the databases


class TestLocate:
    def test_data_dir_is_the_parent_of_the_nearest_memory_folder(self) -> None:
        """``<DATA>/memory/`` and any folder below it; nothing outside a memory tree."""
        assert data_dir_of(Path("/d/memory")) == Path("/d")
        assert data_dir_of(Path("/d/memory/global")) == Path("/d")
        assert data_dir_of(Path("/d/memory/projects/memory/x")) == Path("/d/memory/projects")
        assert data_dir_of(Path("/d/agent-memory/x")) is None

    def test_databases_beside_the_memory_root(self, tmp_path: Path) -> None:
        """mimocode.db, opencode.db and a release channel's copy; other files are not."""
        data = tmp_path / "data"
        for name in ("mimocode.db", "mimocode-beta.db", "opencode.db", "notes.db"):
            write(data / name, "")
        (data / "memory" / "global").mkdir(parents=True)
        found = locate(data / "memory" / "global", {}, tmp_path / "home")
        assert sorted(p.name for p in found) == ["mimocode-beta.db", "mimocode.db", "opencode.db"]
        assert locate(tmp_path / "elsewhere", {}, tmp_path / "home") == ()

    def test_missing_database_is_no_database(self, tmp_path: Path) -> None:
        """A memory root without a database beside it has no trajectories."""
        (tmp_path / "data" / "memory").mkdir(parents=True)
        assert locate(tmp_path / "data" / "memory", {}, tmp_path) == ()

    def test_mimocode_db_overrides_in_mimocode_own_data_dir(self, tmp_path: Path) -> None:
        """MIMOCODE_DB (absolute, or relative to the data dir) replaces ``<DATA>/mimocode.db``."""
        data = tmp_path / "mimo" / "data"
        write(data / "mimocode.db", "")
        moved = write(tmp_path / "elsewhere" / "moved.db", "")
        write(data / "sub" / "rel.db", "")
        memory = data / "memory"
        memory.mkdir()
        env = {"MIMOCODE_HOME": str(tmp_path / "mimo")}
        assert locate(memory, env, tmp_path) == (data / "mimocode.db",)
        assert locate(memory, {**env, "MIMOCODE_DB": str(moved)}, tmp_path) == (moved,)
        assert locate(memory, {**env, "MIMOCODE_DB": "sub/rel.db"}, tmp_path) == (
            data / "sub" / "rel.db",
        )
        assert locate(memory, {**env, "MIMOCODE_DB": ":memory:"}, tmp_path) == ()

    def test_override_follows_the_xdg_data_dir(self, tmp_path: Path) -> None:
        """Without MIMOCODE_HOME the data dir is ``$XDG_DATA_HOME/mimocode``."""
        data = tmp_path / "xdg" / "mimocode"
        moved = write(tmp_path / "moved.db", "")
        (data / "memory").mkdir(parents=True)
        env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "MIMOCODE_DB": str(moved)}
        assert locate(data / "memory", env, tmp_path) == (moved,)

    def test_override_does_not_follow_other_memory_roots(self, tmp_path: Path) -> None:
        """MIMOCODE_DB belongs to MiMoCode's data dir, not to every folder named memory."""
        moved = write(tmp_path / "moved.db", "")
        other = tmp_path / "project" / ".claude" / "memory"
        other.mkdir(parents=True)
        env = {"MIMOCODE_HOME": str(tmp_path / "mimo"), "MIMOCODE_DB": str(moved)}
        assert locate(other, env, tmp_path) == ()


# ---------------------------------------------------------------- the questions


class TestGather:
    def test_verdicts(self, store: Trajectories) -> None:
        """Seen in the window: True; absent from its own source: False; else None."""
        evidence = gather([store.path], INDEX, now=NOW)
        assert evidence.confirmed == {"load_config", "src/config.py"}
        # src/retry.py: only an old, uncited session shows it; its source is unknown.
        assert evidence.verify("src/retry.py") is None
        # cache_key: ses_recent_1 exists, is searched, and does not show it.
        # scripts/deploy.sh: ses_old_1 shows only deploy.sh.bak, a longer word.
        assert evidence.refuted == {"cache_key", "scripts/deploy.sh"}
        assert evidence.known_sessions == {"ses_recent_1", "ses_old_1"}
        assert evidence.window_sessions == 1
        assert evidence.answered == (store.path,) and evidence.problems == ()

    def test_absence_from_the_window_alone_is_not_evidence(self, store: Trajectories) -> None:
        """A claim whose entry cites no known session and is not seen stays unknown (None)."""
        index = "# M\n\n## Rules\n- `src/nowhere.py` [ses_unknown_9]\n- `src/also.py`\n"
        evidence = gather([store.path], index, now=NOW)
        assert evidence.verify("src/nowhere.py") is None
        assert evidence.verify("src/also.py") is None

    def test_cited_sessions_are_searched_whatever_their_age(self, store: Trajectories) -> None:
        """The 30-day-old source confirms what it shows; the window alone would not."""
        index = "# M\n\n## Rules\n- retries in `src/retry.py` [ses_old_1]\n"
        assert gather([store.path], index, now=NOW).verify("src/retry.py") is True
        uncited = "# M\n\n## Rules\n- retries in `src/retry.py` [ses_recent_1]\n"
        assert gather([store.path], uncited, now=NOW).verify("src/retry.py") is False

    def test_window_is_seven_days(self, store: Trajectories) -> None:
        """A session updated 6 days ago is in the window, one 8 days ago is not."""
        store.session("ses_six", days_ago=6)
        store.session("ses_eight", days_ago=8)
        store.part("ses_six", text("see `six_days()`"))
        store.part("ses_eight", text("see `eight_days()`"))
        index = "# M\n\n## Rules\n- `six_days()` and `eight_days()`\n"
        evidence = gather([store.path], index, now=NOW)
        assert evidence.confirmed == {"six_days"}
        assert evidence.window_sessions == 2  # ses_recent_1 and ses_six

    def test_window_keeps_to_the_project_when_known(self, store: Trajectories) -> None:
        """Another project's recent session does not confirm this project's claims."""
        store.session("ses_other", days_ago=1, directory="/work/other")
        store.session("ses_sub", days_ago=1, directory="/work/app/packages/web")
        store.part("ses_other", text("other_helper() lives there"))
        store.part("ses_sub", text("web_helper() lives here"))
        index = "# M\n\n## Rules\n- `other_helper()` and `web_helper()`\n"
        scoped = gather([store.path], index, now=NOW, project=Path("/work/app"))
        assert scoped.confirmed == {"web_helper"}
        assert gather([store.path], index, now=NOW).confirmed == {"other_helper", "web_helper"}

    def test_second_stamps_count_as_well(self, tmp_path: Path) -> None:
        """Rows stamped in epoch seconds are still placed in the window."""
        db = Trajectories(tmp_path / "opencode.db")
        with closing(sqlite3.connect(db.path)) as connection:
            seconds = NOW_MS // 1000 - 3600
            connection.execute(
                "INSERT INTO session VALUES ('ses_s', NULL, '/w', 't', ?, ?)", (seconds, seconds)
            )
            connection.commit()
        db.part("ses_s", text("uses seconds_helper()"))
        index = "# M\n\n## Rules\n- `seconds_helper()`\n"
        assert gather([db.path], index, now=NOW).confirmed == {"seconds_helper"}

    def test_parts_without_session_id_are_reached_through_messages(self, tmp_path: Path) -> None:
        """The older ``part`` table (no ``session_id``) gives the same answers."""
        db = Trajectories(tmp_path / "opencode.db", part_session=False)
        db.session("ses_recent_1")
        db.part("ses_recent_1", tool("edit", {"filePath": "src/config.py"}))
        evidence = gather([db.path], INDEX, now=NOW)
        assert "src/config.py" in evidence.confirmed
        assert evidence.verify("cache_key") is False

    def test_several_databases_pool_their_answers(
        self, store: Trajectories, tmp_path: Path
    ) -> None:
        """A claim refuted by one database's source but seen in another's window is seen."""
        other = Trajectories(tmp_path / "data" / "opencode.db")
        other.session("ses_x", days_ago=2)
        other.part("ses_x", text("cache_key() is hashed"))
        evidence = gather([store.path, other.path], INDEX, now=NOW)
        assert evidence.verify("cache_key") is True
        assert evidence.window_sessions == 2

    def test_an_index_without_claims_or_sources_opens_nothing(self, tmp_path: Path) -> None:
        """Nothing to ask: not even a corrupt database is touched."""
        bad = write(tmp_path / "mimocode.db", "garbage")
        evidence = gather([bad], "# M\n\n## Rules\n- plain words\n", now=NOW)
        assert evidence.answered == () and evidence.problems == ()

    def test_scan_budget_ends_the_scan_and_refutes_nothing(
        self, store: Trajectories, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A cut-short scan keeps what it saw and refutes nothing; the report says so."""
        monkeypatch.setattr(trajectories, "_BATCH_CHARS", 1)
        monkeypatch.setattr(trajectories, "MAX_SCAN_CHARS", 1)
        evidence = gather([store.path], INDEX, now=NOW)
        assert evidence.refuted == frozenset()
        assert len(evidence.confirmed) <= 2
        assert any("scan stopped" in p and "nothing refuted" in p for p in evidence.problems)


# ---------------------------------------------------------------- failures and the read-only rule


@contextmanager
def rollback_writer(path: Path) -> Iterator[None]:
    """A writer in the middle of a transaction: its rollback journal lies beside the file."""
    with closing(sqlite3.connect(path, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("UPDATE session SET title = 'changing'")
        try:
            yield
        finally:
            writer.execute("ROLLBACK")


class TestFailures:
    def test_database_being_written_is_reported(self, store: Trajectories) -> None:
        """A write in progress (rollback journal): reported as locked, nothing read, no file."""
        with rollback_writer(store.path):
            before = listing(store.path.parent)
            evidence = gather([store.path], INDEX, now=NOW)
            assert listing(store.path.parent) == before
        assert evidence.answered == () and evidence.confirmed == frozenset()
        (problem,) = evidence.problems
        assert "locked" in problem and str(store.path) in problem

    def test_exclusive_wal_writer_is_reported_and_no_shm_appears(self, tmp_path: Path) -> None:
        """WAL held in exclusive mode has no -shm; opening would create one: refused."""
        db = Trajectories(tmp_path / "mimocode.db")
        db.session("ses_recent_1")
        with closing(sqlite3.connect(db.path, timeout=0)) as writer:
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute("PRAGMA locking_mode=EXCLUSIVE")
            writer.execute("UPDATE session SET title = 'mine'")
            writer.commit()
            before = listing(tmp_path)
            assert "mimocode.db-wal" in before and "mimocode.db-shm" not in before
            evidence = gather([db.path], INDEX, now=NOW)
            assert listing(tmp_path) == before
        assert evidence.answered == ()
        assert "locked" in evidence.problems[0]

    def test_log_left_by_a_crash_is_not_given_a_shm(self, tmp_path: Path) -> None:
        """A -wal without -shm and nobody holding it: still refused, still no file created."""
        live = Trajectories(tmp_path / "live" / "opencode.db", wal=True)
        live.session("ses_recent_1")
        copy = tmp_path / "copy"
        copy.mkdir()
        with closing(sqlite3.connect(live.path)) as writer:
            writer.execute("PRAGMA wal_autocheckpoint=0")
            live.add_part(writer, "ses_recent_1", text("load_config() is in the log"))
            writer.commit()
            for suffix in ("", "-wal"):
                shutil.copyfile(f"{live.path}{suffix}", copy / f"opencode.db{suffix}")
        before = listing(copy)
        evidence = gather([copy / "opencode.db"], INDEX, now=NOW)
        assert listing(copy) == before
        assert evidence.answered == () and len(evidence.problems) == 1

    @pytest.mark.parametrize(
        "damage",
        ["garbage", "truncated", "overwritten pages", "not opencode", "empty"],
    )
    def test_corrupt_database_is_reported(self, tmp_path: Path, damage: str) -> None:
        """Whatever is wrong with the file, the evidence says so and ``gather`` returns."""
        db = Trajectories(tmp_path / "mimocode.db")
        db.session("ses_recent_1")
        with closing(sqlite3.connect(db.path)) as connection:
            for n in range(300):
                db.add_part(connection, "ses_recent_1", text(f"filler {n} " * 40))
            connection.commit()
        raw = db.path.read_bytes()
        if damage == "garbage":
            db.path.write_bytes(b"this is not a database at all\n" * 200)
        elif damage == "truncated":
            db.path.write_bytes(raw[: len(raw) // 3])
        elif damage == "overwritten pages":
            db.path.write_bytes(raw[:4096] + b"\xff" * (len(raw) - 4096))
        elif damage == "not opencode":
            db.path.unlink()
            with closing(sqlite3.connect(db.path)) as other:
                other.execute("CREATE TABLE sessions (id TEXT)")
                other.commit()
        else:
            db.path.write_bytes(b"")
        evidence = gather([db.path], INDEX, now=NOW)
        assert evidence.answered == () and evidence.confirmed == frozenset()
        (problem,) = evidence.problems
        assert str(db.path) in problem and "could not be read" in problem

    def test_live_wal_writer_is_read_without_new_files(self, tmp_path: Path) -> None:
        """A running tool (WAL with -wal and -shm): committed rows in its log are read,
        no file appears, the database file keeps its bytes (nothing checkpointed)."""
        db = Trajectories(tmp_path / "data" / "mimocode.db", wal=True)
        db.session("ses_recent_1")
        with closing(sqlite3.connect(db.path)) as writer:
            writer.execute("PRAGMA wal_autocheckpoint=0")
            db.add_part(writer, "ses_recent_1", text("cache_key() only in the log"))
            writer.commit()
            names = sorted(p.name for p in db.path.parent.iterdir())
            assert names == ["mimocode.db", "mimocode.db-shm", "mimocode.db-wal"]
            main_bytes = db.path.read_bytes()
            evidence = gather([db.path], INDEX, now=NOW)
            assert sorted(p.name for p in db.path.parent.iterdir()) == names
            assert db.path.read_bytes() == main_bytes
        assert evidence.verify("cache_key") is True

    def test_idle_database_listing_and_bytes_unchanged(self, store: Trajectories) -> None:
        """No -wal, -shm or -journal is created; the file keeps its bytes and mtime."""
        folder = store.path.parent
        before = listing(folder), store.path.stat().st_mtime_ns
        gather([store.path], INDEX, now=NOW)
        assert (listing(folder), store.path.stat().st_mtime_ns) == before


# ---------------------------------------------------------------- the report


def test_findings_name_missing_sources_and_marks_that_now_verify(store: Trajectories) -> None:
    """Unknown sources are reported; a mark the evidence no longer backs is reported, not lifted."""
    index = INDEX + "- Reader in `src/config.py` [ses_recent_1] [unverified]\n"
    evidence = gather([store.path], index, now=NOW)
    lines = findings(index, evidence, confirmed_first(evidence, None))
    assert lines[0].startswith("trajectories mimocode.db: 1 session(s) in the 7-day window")
    assert "MEMORY.md:8: source [ses_gone_1] is not a session in mimocode.db" in lines
    (mark,) = [line for line in lines if "marked [unverified]" in line]
    assert mark.startswith("MEMORY.md:12:") and "(`src/config.py`)" in mark


def test_findings_of_an_unreadable_database(tmp_path: Path) -> None:
    """Only the problem is reported: no summary, no claim about sources."""
    bad = write(tmp_path / "mimocode.db", "garbage" * 100)
    evidence = gather([bad], INDEX, now=NOW)
    lines = findings(INDEX, evidence, confirmed_first(evidence, None))
    assert len(lines) == 1 and lines[0].startswith(f"trajectories: {bad} could not be read")


# ---------------------------------------------------------------- wired into the dream


def memory_root(store: Trajectories, index: str = INDEX) -> Path:
    memory = store.path.parent / "memory"
    write(memory / "MEMORY.md", index)
    return memory


def dream(memory: Path, home: Path, state: Path, **env: str) -> Any:
    request = DreamRequest(mode="apply", now=NOW, budget=17408, only=(memory,))
    return run_dream(request, env=env, home=home, state_dir=state, sessions=())


def test_dream_marks_what_its_source_does_not_show(
    store: Trajectories, isolated_home: Path, tmp_path: Path
) -> None:
    """Confirmed entries stay as written; refuted ones get the mark; the database is untouched."""
    memory = memory_root(store)
    before = listing(store.path.parent), store.path.stat().st_mtime_ns
    report = dream(memory, isolated_home, tmp_path / "state")
    new = (memory / "MEMORY.md").read_text()
    assert "`src/config.py` [ses_recent_1]\n" in new
    assert "`src/retry.py` [ses_gone_1]\n" in new  # nothing can say: left as written
    assert "`scripts/deploy.sh` [ses_old_1] [unverified]\n" in new
    assert "`cache_key()` [ses_recent_1] [unverified]\n" in new
    (folder,) = report.directories
    assert any(f.startswith("trajectories mimocode.db:") for f in folder.findings)
    assert (listing(store.path.parent), store.path.stat().st_mtime_ns) == before


def test_dream_goes_on_when_the_database_is_corrupt(
    store: Trajectories, isolated_home: Path, tmp_path: Path
) -> None:
    """A corrupt database is a finding; nothing is marked on its account; the run completes."""
    memory = memory_root(store)
    store.path.write_bytes(b"\x00garbage" * 512)
    report = dream(memory, isolated_home, tmp_path / "state")
    (folder,) = report.directories
    assert folder.refused is None
    assert any("could not be read" in f for f in folder.findings)
    assert "[unverified]" not in (memory / "MEMORY.md").read_text()


def test_dream_goes_on_when_the_database_is_locked(
    store: Trajectories, isolated_home: Path, tmp_path: Path
) -> None:
    """A database being written is a finding; the folder is still dreamed."""
    memory = memory_root(store)
    with rollback_writer(store.path):
        report = dream(memory, isolated_home, tmp_path / "state")
    (folder,) = report.directories
    assert folder.refused is None and any("locked" in f for f in folder.findings)


def test_trajectories_overrule_a_missing_file_in_the_repository(tmp_path: Path) -> None:
    """The repository lacks `src/config.py`, the trajectories show it: no mark."""
    repo = tmp_path / "repo"
    write(repo / "src" / "other.py", "def load_config():\n    pass\n")
    memory = repo / ".claude" / "memory"
    write(memory / "MEMORY.md", INDEX)
    db = Trajectories(tmp_path / "mimocode.db")
    db.session("ses_recent_1")
    db.part("ses_recent_1", tool("write", {"filePath": "/work/app/src/config.py"}))
    evidence = gather([db.path], INDEX, now=NOW)

    def plan(evidence: Evidence | None) -> str:
        result = plan_folder(
            load_folder(memory, repo),
            RepoView.scan(repo),
            now=NOW,
            budget=17408,
            terms=frozenset(),
            read_paths=frozenset(),
            evidence=evidence,
        )
        return result.new_index or ""

    assert "`src/config.py` [ses_recent_1] [unverified]" in plan(None)
    assert "`src/config.py` [ses_recent_1]\n" in plan(evidence)


def test_cli_dream_reads_mimocode_db_from_the_env_override(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The real CLI: MIMOCODE_HOME/MIMOCODE_DB lead to the database; it is left as it was."""
    db = Trajectories(tmp_path / "elsewhere" / "moved.db")
    db.session("ses_recent_1")
    db.part("ses_recent_1", text("load_config() and src/config.py"))
    memory = isolated_home / "mimo" / "data" / "memory"
    write(memory / "MEMORY.md", INDEX)
    now = datetime.now(UTC)
    with closing(sqlite3.connect(db.path)) as connection:
        stamp = int((now - timedelta(hours=1)).timestamp() * 1000)
        connection.execute("UPDATE session SET time_updated = ?", (stamp,))
        connection.commit()
    before = listing(db.path.parent)
    env = {"MIMOCODE_HOME": str(isolated_home / "mimo"), "MIMOCODE_DB": str(db.path)}
    result = run(isolated_home, "dream", "--json", "--root", str(memory), **env)
    assert result.returncode == 0, result.stderr
    (folder,) = json.loads(result.stdout)["directories"]
    assert any(f.startswith("trajectories moved.db: 1 session(s)") for f in folder["findings"])
    assert "`cache_key()` [ses_recent_1] [unverified]" in (memory / "MEMORY.md").read_text()
    assert listing(db.path.parent) == before


# ---------------------------------------------------------------- the real OpenCode fixture

FIXTURE_SESSION = "ses_04ca851f7ffevKrKMHW3RsPK1U"
FIXTURE_NOW = datetime(2026, 8, 1, tzinfo=UTC)  # two days after its only session


@pytest.fixture
def fixture_copy(shared_transcripts: Path, tmp_path: Path) -> Path:
    """A copy of the real OpenCode database as ``<DATA>/opencode.db`` (skips when absent)."""
    source = shared_transcripts / "opencode" / "stunningmemory_opencode.db"
    if not source.is_file():
        pytest.skip(f"{source} not found")
    copy = tmp_path / "data" / "opencode.db"
    copy.parent.mkdir()
    shutil.copyfile(source, copy)
    return copy


@pytest.mark.fixtures
def test_real_database_answers(fixture_copy: Path) -> None:
    """Its session exists; its tool calls show SPEC.md; an invented claim is refuted."""
    index = (
        "# M\n\n## Rules\n"
        f"- The spec is `/workspace/SPEC.md`, restructured [{FIXTURE_SESSION}]\n"
        f"- Parsing is done by `parse_everything()` [{FIXTURE_SESSION}]\n"
        "- Unknown source `src/lib.rs` [ses_not_there_1]\n"
    )
    before = listing(fixture_copy.parent)
    evidence = gather([fixture_copy], index, now=FIXTURE_NOW)
    assert listing(fixture_copy.parent) == before  # WAL-mode file, opened immutable
    assert evidence.known_sessions == {FIXTURE_SESSION}
    assert evidence.window_sessions == 1
    assert evidence.verify("/workspace/SPEC.md") is True
    assert evidence.verify("parse_everything") is False
    assert evidence.verify("src/lib.rs") is None
    assert evidence.verify("/workspace") is None  # not a claim of this index


@pytest.mark.fixtures
def test_real_database_through_a_dream(
    fixture_copy: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """A full dream over a memory root beside the real database leaves its folder as it was."""
    memory = fixture_copy.parent / "memory"
    write(
        memory / "MEMORY.md",
        "# M\n\n## Rules\n"
        f"- Spec at `/workspace/SPEC.md` [{FIXTURE_SESSION}]\n\n"
        f"## Patterns\n- Commit with `git_commit_all()` [{FIXTURE_SESSION}]\n\n"
        "## Gotchas\n- none [ses_gone_2]\n",
    )
    before = listing(fixture_copy.parent)
    request = DreamRequest(mode="apply", now=FIXTURE_NOW, budget=17408, only=(memory,))
    report = run_dream(
        request, env={}, home=isolated_home, state_dir=tmp_path / "state", sessions=()
    )
    assert listing(fixture_copy.parent) == before
    new = (memory / "MEMORY.md").read_text()
    assert f"`/workspace/SPEC.md` [{FIXTURE_SESSION}]\n" in new
    assert f"`git_commit_all()` [{FIXTURE_SESSION}] [unverified]\n" in new
    (folder,) = report.directories
    assert "MEMORY.md:10: source [ses_gone_2] is not a session in opencode.db" in folder.findings
