"""Selection (seed 002 phase 1) as a pure function: order, guards, budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from dreamd.readers import FileVersion
from dreamd.selection import (
    CursorEntry,
    SelectionPolicy,
    collapse_duplicates,
    live_reason,
    select,
    trivial_reason,
)
from dreamd.sessioninfo import SessionInfo

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def info(
    sid: str,
    *,
    tool: str = "claude-code",
    age: timedelta = 5 * HOUR,
    messages: int = 10,
    users: int = 4,
    path: str | None = None,
    **changes: object,
) -> SessionInfo:
    last = NOW - age
    base = SessionInfo(
        tool=tool,
        session_id=sid,
        path=path or f"/t/{tool}/{sid}.jsonl",
        locator="",
        file_version=FileVersion(1, hash(sid) & 0xFFFF, 100, int(last.timestamp() * 1e9)),
        activity_at=last,
        first_message_at=last - HOUR,
        last_message_at=last,
        messages=messages,
        user_messages=users,
        revision=f"rev-{sid}",
        human_replies=max(users - 1, 0),
    )
    return base._replace(**changes)


def statuses(sessions: list[SessionInfo], **kwargs: object) -> dict[str, str]:
    result = select(sessions, kwargs.pop("cursor", {}), now=NOW, **kwargs)  # type: ignore[arg-type]
    return {d.session.session_id: d.status for d in result.decisions}


class TestOrder:
    def test_newest_last_message_first_across_tools(self) -> None:
        """Sessions of every tool are merged and ordered by last message, newest first."""
        sessions = [
            info("a", tool="codex", age=3 * HOUR),
            info("b", tool="claude-code", age=1 * HOUR),
            info("c", tool="pi", age=2 * HOUR),
        ]
        order = [d.session.session_id for d in select(sessions, {}, now=NOW).decisions]
        assert order == ["b", "c", "a"]

    def test_ties_break_by_tool_then_id_by_code_point_then_path(self) -> None:
        """Equal times order by tool name, then session id by code point, then path."""
        sessions = [
            info("b", tool="pi"),
            info("B", tool="pi"),
            info("a", tool="codex"),
            info("a", tool="pi", path="/z/a.jsonl"),
        ]
        order = [
            (d.session.tool, d.session.session_id) for d in select(sessions, {}, now=NOW).decisions
        ]
        assert order == [("codex", "a"), ("pi", "B"), ("pi", "a"), ("pi", "b")]

    def test_unknown_times_sort_last(self) -> None:
        """A session with no message time goes after every dated one."""
        sessions = [info("x", last_message_at=None, first_message_at=None), info("y", age=9 * HOUR)]
        order = [d.session.session_id for d in select(sessions, {}, now=NOW).decisions]
        assert order == ["y", "x"]

    @given(st.permutations(list(range(8))))
    def test_result_ignores_input_order(self, permutation: list[int]) -> None:
        """Shuffling the input never changes decisions or their order."""
        sessions = [
            info(f"s{i}", tool=("codex", "pi")[i % 2], age=(i // 3 + 1) * HOUR, messages=3 + i)
            for i in range(8)
        ]
        expected = select(sessions, {}, now=NOW)
        shuffled = select([sessions[i] for i in permutation], {}, now=NOW)
        assert shuffled == expected


class TestDuplicates:
    def test_same_session_twice_collapses_to_newest_copy(self) -> None:
        """One tool:id found at two paths is listed once, the newer copy."""
        old = info("dup", age=5 * HOUR, path="/archived/dup.jsonl")
        new = info("dup", age=2 * HOUR, path="/sessions/dup.jsonl")
        assert collapse_duplicates([old, new]) == [new]
        assert [d.session.path for d in select([old, new], {}, now=NOW).decisions] == [new.path]

    def test_readable_copy_wins_over_unreadable(self) -> None:
        """A readable copy is preferred to an unresolved one regardless of time."""
        broken = info("dup", age=1 * HOUR, unresolved="permission denied", path="/b")
        good = info("dup", age=9 * HOUR, path="/a")
        assert collapse_duplicates([broken, good]) == [good]


class TestGuards:
    def test_unresolved_is_reported_not_taken(self) -> None:
        """An unreadable source is listed as unresolved with its reason."""
        result = select([info("u", unresolved="not JSON Lines")], {}, now=NOW)
        (decision,) = result.decisions
        assert (decision.status, decision.reason, decision.selected) == (
            "unresolved",
            "not JSON Lines",
            False,
        )

    def test_recent_file_write_is_live(self) -> None:
        """A file written within the guard is live even if its messages are old."""
        session = info("w", age=5 * HOUR, activity_at=NOW - timedelta(minutes=10))
        assert statuses([session]) == {"w": "live"}

    def test_recent_last_message_is_live(self) -> None:
        """A last message within the guard makes the session live."""
        session = info("m", age=timedelta(minutes=29), activity_at=NOW - 2 * HOUR)
        assert statuses([session]) == {"m": "live"}

    def test_guard_boundary(self) -> None:
        """Exactly at the guard's edge a session is no longer live."""
        guard = timedelta(minutes=30)
        session = info("e", age=guard)
        assert live_reason(session, NOW, guard, frozenset()) is None
        assert live_reason(
            session._replace(activity_at=NOW - guard + timedelta(seconds=1)),
            NOW,
            guard,
            frozenset(),
        )

    def test_named_live_id(self) -> None:
        """A session named live is skipped however old it is."""
        assert statuses([info("n", age=99 * HOUR)], live_ids=frozenset({"claude-code:n"})) == {
            "n": "live"
        }

    def test_live_session_is_never_marked_trivial_or_resolved(self) -> None:
        """Live wins over trivial and resolved: an unstable session is not judged."""
        tiny = info("t", messages=1, users=1, age=timedelta(minutes=1))
        done = info("d", age=timedelta(minutes=1))
        cursor = {"claude-code:d": CursorEntry("resolved", "rev-d")}
        assert statuses([tiny, done], cursor=cursor) == {"t": "live", "d": "live"}

    def test_resolved_only_at_the_same_revision(self) -> None:
        """The cursor's resolution holds for its revision; a changed session is eligible again."""
        same = info("s")
        changed = info("c")
        cursor = {
            "claude-code:s": CursorEntry("resolved", "rev-s"),
            "claude-code:c": CursorEntry("resolved", "older-revision"),
        }
        result = select([same, changed], cursor, now=NOW)
        by_id = {d.session.session_id: d for d in result.decisions}
        assert by_id["s"].status == "resolved"
        assert by_id["c"].status == "eligible"
        assert "changed" in by_id["c"].reason


class TestTrivial:
    def test_fewer_than_four_messages(self) -> None:
        """Three messages are trivial, four are not."""
        assert (
            trivial_reason(info("a", messages=3, users=2), None) == "only 3 messages (fewer than 4)"
        )
        assert trivial_reason(info("b", messages=4, users=2), None) is None

    def test_no_user_message(self) -> None:
        """A session without a user message is trivial."""
        assert trivial_reason(info("a", users=0), None) == "no user message"

    def test_machine_opening_without_human_reply(self) -> None:
        """A machine-written opening prompt with no human reply is a job, not a conversation."""
        job = info("j", machine_opening=True, human_replies=0)
        answered = info("k", machine_opening=True, human_replies=1)
        assert trivial_reason(job, None) == "machine-generated opening prompt with no human reply"
        assert trivial_reason(answered, None) is None

    def test_recorded_skip_holds_only_for_its_revision(self) -> None:
        """A skipped-trivial record applies to the revision it was made for."""
        session = info("s")
        assert (
            trivial_reason(session, CursorEntry("skipped_trivial", "rev-s", "runner job"))
            == "runner job"
        )
        assert trivial_reason(session, CursorEntry("skipped_trivial", "old", "runner job")) is None


class TestBudget:
    def test_session_budget(self) -> None:
        """Only the first N eligible sessions are selected; the rest are deferred."""
        sessions = [info(f"s{i}", age=(i + 1) * HOUR, messages=10) for i in range(5)]
        result = select(sessions, {}, now=NOW, policy=SelectionPolicy(budget_sessions=3))
        assert [d.session.session_id for d in result.selected] == ["s0", "s1", "s2"]
        assert result.backlog == 2
        assert all("session budget" in d.reason for d in result.decisions if not d.selected)

    def test_message_budget_stops_after_it_is_used_up(self) -> None:
        """Sessions are taken until the message budget is used up."""
        sessions = [info(f"s{i}", age=(i + 1) * HOUR, messages=100) for i in range(3)]
        result = select(sessions, {}, now=NOW, policy=SelectionPolicy(budget_messages=150))
        assert [d.session.session_id for d in result.selected] == ["s0", "s1"]
        assert "message budget" in result.decisions[2].reason

    def test_first_session_is_taken_even_if_larger_than_budget(self) -> None:
        """A session longer than the message budget does not block the queue."""
        result = select(
            [info("big", messages=999)], {}, now=NOW, policy=SelectionPolicy(budget_messages=150)
        )
        assert [d.session.session_id for d in result.selected] == ["big"]

    def test_guarded_sessions_spend_no_budget(self) -> None:
        """Live, trivial and resolved sessions are skipped before the budget is counted."""
        sessions = [
            info("live", age=timedelta(minutes=1)),
            info("tiny", age=1 * HOUR, messages=2),
            info("done", age=2 * HOUR),
            info("e1", age=3 * HOUR),
            info("e2", age=4 * HOUR),
        ]
        cursor = {"claude-code:done": CursorEntry("resolved", "rev-done")}
        result = select(sessions, cursor, now=NOW, policy=SelectionPolicy(budget_sessions=2))
        assert [d.session.session_id for d in result.selected] == ["e1", "e2"]

    @given(
        st.lists(st.integers(min_value=0, max_value=60), min_size=0, max_size=12), st.integers(1, 5)
    )
    def test_every_session_gets_exactly_one_decision(self, sizes: list[int], budget: int) -> None:
        """No session is lost or doubled, and only eligible ones are selected."""
        sessions = [
            info(f"s{i}", age=(i + 1) * HOUR, messages=n, users=min(n, 2))
            for i, n in enumerate(sizes)
        ]
        result = select(sessions, {}, now=NOW, policy=SelectionPolicy(budget_sessions=budget))
        assert sorted(d.session.session_id for d in result.decisions) == sorted(
            s.session_id for s in sessions
        )
        assert all(d.status == "eligible" for d in result.selected)
        assert len(result.selected) <= budget
