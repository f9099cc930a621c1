"""The backlog ``status`` keeps: the same count as a selection, kept only while it holds."""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.collect.waiting import (
    Waiting,
    count_waiting,
    decode_waiting,
    encode_waiting,
    memo_inputs,
    shown_backlog,
    stable_until,
)
from dreamd.config import load_settings
from dreamd.readers import FileVersion
from dreamd.selection import SELECTABLE, CursorEntry, SelectionPolicy, select
from dreamd.service.status import status_document
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import QuarantinedPlan, open_state
from tests.collect.backlog import backlog
from tests.process import run_dreamd

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
GUARD = timedelta(minutes=30)
PROJECTS = ("/src/a", "/src/b", "/src/c", None)


def session(
    n: int,
    *,
    tool: str = "claude-code",
    project: str | None = "/src/a",
    written: timedelta = timedelta(hours=5),
    last: timedelta | None = timedelta(hours=5),
    messages: int = 10,
) -> SessionInfo:
    """Session ``n``, written ``written`` before ``NOW``, its last message ``last`` before
    (negative: after ``NOW``, a time from the future)."""
    return SessionInfo(
        tool=tool,
        session_id=f"s{n}",
        path=f"/t/{tool}/s{n}.jsonl",
        locator="",
        file_version=FileVersion(1, n, 100, 1),
        activity_at=NOW - written,
        project=project,
        first_message_at=None if last is None else NOW - last - timedelta(hours=1),
        last_message_at=None if last is None else NOW - last,
        messages=messages,
        user_messages=4,
        revision=f"rev-{n}",
        human_replies=3,
    )


minutes = st.integers(min_value=-3 * 24 * 60, max_value=3 * 24 * 60).map(
    lambda m: timedelta(minutes=m)
)
sessions = st.lists(
    st.builds(
        session,
        st.integers(min_value=0, max_value=40),  # repeated ids: duplicate copies
        tool=st.sampled_from(["claude-code", "codex", "pi"]),
        project=st.sampled_from(PROJECTS),
        written=minutes,
        last=st.none() | minutes,
        messages=st.sampled_from([2, 10]),  # trivial or not
    ),
    max_size=30,
)
cursors = st.dictionaries(
    st.sampled_from([f"claude-code:s{n}" for n in range(10)]),
    st.builds(
        CursorEntry,
        st.sampled_from(["resolved", "partial", "held", "skipped_trivial"]),
        st.sampled_from([f"rev-{n}" for n in range(10)]),
    ),
)


def selected_by_tool(
    infos: list[SessionInfo],
    cursor: dict[str, CursorEntry],
    now: datetime,
    excluded: frozenset[str] = frozenset(),
) -> dict[str, int]:
    """What ``status`` counted before the count was kept: a selection, tallied per tool."""
    policy = SelectionPolicy(
        live_guard=GUARD, excluded=lambda p: "kept out" if p in excluded else None
    )
    selection = select(infos, cursor, now=now, policy=policy)
    counts = Counter(d.session.tool for d in selection.decisions if d.status in SELECTABLE)
    return dict(sorted(counts.items()))


@settings(max_examples=300, deadline=None)
@given(sessions, cursors, st.frozensets(st.sampled_from(PROJECTS[:3])))
def test_the_kept_count_is_the_selections_count_whatever_is_excluded(
    infos: list[SessionInfo], cursor: dict[str, CursorEntry], excluded: frozenset[str]
) -> None:
    """Counted with nothing excluded, then shown with any projects left out: the very count a
    selection excluding them gives."""
    waiting = count_waiting(infos, cursor, now=NOW, live_ids=frozenset(), live_guard=GUARD)
    shown = shown_backlog(waiting, lambda p: "kept out" if p in excluded else None)
    assert shown == selected_by_tool(infos, cursor, NOW, excluded)
    assert waiting.known == len(infos)


@settings(max_examples=300, deadline=None)
@given(sessions, cursors, st.lists(st.floats(min_value=0, max_value=1), max_size=5))
def test_no_decision_changes_before_the_count_stops_holding(
    infos: list[SessionInfo], cursor: dict[str, CursorEntry], fractions: list[float]
) -> None:
    """Between ``now`` and ``stable_until`` (a microsecond before it included) the selection
    gives every session the status it has at ``now``."""
    until = stable_until(infos, NOW, GUARD)
    end = until if until is not None else NOW + timedelta(days=30)
    moments = [end - timedelta(microseconds=1), *(NOW + (end - NOW) * f for f in fractions)]
    policy = SelectionPolicy(live_guard=GUARD)
    before = select(infos, cursor, now=NOW, policy=policy).decisions
    for moment in (m for m in moments if NOW <= m < end):
        later = select(infos, cursor, now=moment, policy=policy).decisions
        assert [(d.session, d.status) for d in later] == [(d.session, d.status) for d in before]


def test_a_live_session_holds_the_count_until_its_guard_runs_out() -> None:
    """Written ten minutes ago: live, not waiting, for twenty minutes more; then waiting."""
    infos = [session(1, written=timedelta(minutes=10), last=timedelta(minutes=10)), session(2)]
    until = stable_until(infos, NOW, GUARD)
    assert until == NOW + timedelta(minutes=20)
    waiting = count_waiting(infos, {}, now=NOW, live_ids=frozenset(), live_guard=GUARD)
    assert shown_backlog(waiting, lambda p: None) == {"claude-code": 1}
    assert waiting.holds_at(until - timedelta(seconds=1)) and not waiting.holds_at(until)
    assert not waiting.holds_at(NOW - timedelta(seconds=1))  # a clock set back
    assert selected_by_tool(infos, {}, until) == {"claude-code": 2}


def test_a_last_message_from_the_future_turns_when_the_clock_comes_close() -> None:
    """Two days ahead: damaged, not live; a day later it is a live session's time."""
    infos = [session(1, written=timedelta(hours=5), last=-timedelta(days=2))]
    until = stable_until(infos, NOW, GUARD)
    assert until == NOW + timedelta(days=1)
    assert selected_by_tool(infos, {}, NOW) == {"claude-code": 1}
    assert selected_by_tool(infos, {}, until) == {}  # live from then on


def test_old_sessions_hold_the_count_forever() -> None:
    assert stable_until([session(1), session(2, last=None)], NOW, GUARD) is None


def test_every_input_changes_the_digest() -> None:
    plan = QuarantinedPlan("p1", "claude-code:s1", "rev-1", "w", "save", "why", None, "r", NOW)
    base = {
        "machine": "m",
        "cursor_version": 3,
        "quarantined": [plan],
        "live_ids": frozenset({"pi:x"}),
        "live_guard": GUARD,
    }
    changed = [
        {"machine": "n"},
        {"cursor_version": 4},
        {"quarantined": []},
        {"quarantined": [msgspec.structs.replace(plan, revision="rev-2")]},
        {"live_ids": frozenset()},
        {"live_guard": timedelta(minutes=31)},
    ]
    digests = {memo_inputs(**{**base, **change}) for change in changed}  # type: ignore[arg-type]
    assert memo_inputs(**base) not in digests and len(digests) == len(changed)  # type: ignore[arg-type]
    assert memo_inputs(**base) == memo_inputs(**base)  # type: ignore[arg-type]


def test_a_kept_count_reads_back_and_a_damaged_one_is_none() -> None:
    waiting = Waiting(3, NOW.timestamp(), None, (("codex", "", 1), ("pi", "/src/a", 2)))
    assert decode_waiting(encode_waiting(waiting)) == waiting
    assert decode_waiting(b"\x93garbage") is None
    assert decode_waiting(encode_waiting(waiting)[:-3]) is None


# --- the state database keeps it only while the cache is the one counted ------------------------


def test_the_memo_is_dropped_by_every_write_to_the_session_cache(tmp_path: Path) -> None:
    state = open_state(tmp_path / "state.db")
    generation, known = state.cached_sessions()
    assert (generation, known) == (0, {})
    state.save_backlog_memo(generation, "inputs", b"memo")
    assert state.backlog_memo("inputs") == b"memo"
    assert state.backlog_memo("other inputs") is None
    state.save_sessions([session(1)], now=NOW)
    assert state.backlog_memo("inputs") is None  # the cache changed since
    generation, known = state.cached_sessions()
    assert generation == 1 and len(known) == 1
    state.save_backlog_memo(generation, "inputs", b"memo 2")
    assert state.backlog_memo("inputs") == b"memo 2"
    state.save_sessions([], now=NOW)  # nothing written: the memo holds
    state.forget_sessions([])
    assert state.backlog_memo("inputs") == b"memo 2"
    state.forget_sessions([("claude-code", "/t/claude-code/s1.jsonl", "")])
    assert state.backlog_memo("inputs") is None
    assert state.cached_sessions() == (2, {})


def test_a_count_taken_before_a_write_is_never_kept_as_current(tmp_path: Path) -> None:
    """A scan saving sessions between ``status`` loading the cache and keeping its count:
    the count is kept under the older generation, so it is never used."""
    state = open_state(tmp_path / "state.db")
    generation, _ = state.cached_sessions()
    state.save_sessions([session(1)], now=NOW)  # another process, meanwhile
    state.save_backlog_memo(generation, "inputs", b"stale")
    assert state.backlog_memo("inputs") is None


# --- status: the kept count follows every change --------------------------------------------


def _status_backlog(home: Path, now: datetime) -> tuple[int, dict[str, int]]:
    settings_ = load_settings(home=home)
    state = open_state(settings_.data_dir / "state.db")
    document = status_document(settings_, state, env={}, now=now, timezone=UTC)
    return document["sessions_known"], document["backlog"]


def _listed_backlog(home: Path) -> tuple[int, dict[str, int]]:
    """What ``sources list`` (a scan and a new selection) says waits, per tool."""
    listed = run_dreamd(home, "sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    counts = Counter(row["tool"] for row in rows if row["status"] in SELECTABLE)
    return len(rows), dict(sorted(counts.items()))


def _sessions_in(home: Path, count: int) -> Path:
    """``count`` finished sessions whose project is a folder inside ``home``."""
    backlog(home, count)
    project = home / "work" / "app"
    project.mkdir(parents=True, exist_ok=True)
    for path in (home / ".claude" / "projects" / "-work-app").glob("*.jsonl"):
        stat = path.stat()
        path.write_text(path.read_text().replace('"/work/app"', json.dumps(str(project))))
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return project


def test_status_counts_again_once_a_scan_finds_a_new_session(isolated_home: Path) -> None:
    _sessions_in(isolated_home, 4)
    listed = _listed_backlog(isolated_home)
    now = datetime.now(UTC)
    assert _status_backlog(isolated_home, now) == listed == (4, {"claude-code": 4})
    state = open_state(load_settings(home=isolated_home).data_dir / "state.db")
    with state.transaction() as connection:
        kept = connection.execute("SELECT generation, memo FROM backlog_memo").fetchall()
    assert [g for g, _ in kept] == [state.cached_sessions()[0]]  # kept for the cache as it is
    assert _status_backlog(isolated_home, now) == listed  # the kept count
    _sessions_in(isolated_home, 6)  # two more sessions, found by the next scan
    assert _status_backlog(isolated_home, now) == listed  # no scan since: as it was
    listed = _listed_backlog(isolated_home)
    assert _status_backlog(isolated_home, now) == listed == (6, {"claude-code": 6})


def test_status_counts_again_after_a_collect_and_sees_an_ignore_file_at_once(
    isolated_home: Path,
) -> None:
    """A collect moves the cursor: what it took no longer waits. A ``.dreamd-ignore`` in the
    sessions' project leaves them out at once, without a scan, and back when removed."""
    project = _sessions_in(isolated_home, 5)
    now = datetime.now(UTC)
    assert _listed_backlog(isolated_home) == _status_backlog(isolated_home, now)
    done = run_dreamd(isolated_home, "collect", "--budget", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cursor"]["resolved"]
    after = _status_backlog(isolated_home, now)
    assert after == _listed_backlog(isolated_home) and after[1]["claude-code"] < 5
    (project / ".dreamd-ignore").write_text("")
    assert _status_backlog(isolated_home, now) == (5, {})
    (project / ".dreamd-ignore").unlink()
    assert _status_backlog(isolated_home, now) == after


def test_status_counts_the_sessions_whose_guard_ran_out(isolated_home: Path) -> None:
    """The kept count holds until the clock alone changes a decision, then is counted again."""
    _sessions_in(isolated_home, 3)
    _listed_backlog(isolated_home)
    state = open_state(load_settings(home=isolated_home).data_dir / "state.db")
    newest = max(i.activity_at for i in state.load_session_cache().values() if i.activity_at)
    during = newest + timedelta(minutes=5)  # all three written within the last 30 minutes
    assert _status_backlog(isolated_home, during) == (3, {})
    assert _status_backlog(isolated_home, during + timedelta(minutes=1)) == (3, {})
    after = newest + timedelta(minutes=31)
    assert _status_backlog(isolated_home, after) == (3, {"claude-code": 3})
