"""The extraction pipeline (seed 002 phase 3): windows, stage order, provenance, merging, tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

import pytest

from dreamd.collect.heuristic import HEURISTIC
from dreamd.collect.pipeline import (
    MIN_CONFIDENCE,
    SessionInfo,
    Window,
    item_identity,
    merge_items,
    qualify_message_id,
    run_pipeline,
)
from dreamd.readers import Message
from dreamd.stores import MemoryItem, Quote

DAY = date(2025, 3, 4)
ONE = SessionInfo("codex", "laptop", "s-1", "/work/app", DAY)
TWO = SessionInfo("pi", "laptop", "s-2", None, DAY)


def msgs(*ids: str) -> tuple[Message, ...]:
    return tuple(Message(i, "user", f"message {i}", None) for i in ids)


def item_for(window: Window, name: str, *, confidence: float = 0.8) -> MemoryItem:
    """An item citing the first message of ``window``."""
    return MemoryItem(
        type="project",
        category="Decision",
        name=name,
        description=f"Decision: {name}",
        body=name,
        confidence=confidence,
        source=window.source,
        collected=window.session.collected,
        quotes=(Quote(window.message_ids[0], name),),
    )


class Recorder:
    """A real extractor that records each call, spends tokens, and returns what it is told."""

    name = "recorder"

    def __init__(self, tokens_per_call: int = 0) -> None:
        self.calls: list[str] = []
        self.tokens_per_call = tokens_per_call
        self.spent = 0
        self.topic_items: dict[int, list[MemoryItem]] = {}
        self.event_items: list[MemoryItem] = []

    @property
    def tokens_used(self) -> int:
        return self.spent

    def _call(self, stage: str, window: Window) -> None:
        self.calls.append(f"{stage}:{window.messages[0].id}")
        self.spent += self.tokens_per_call

    def topics(self, window: Window) -> list[MemoryItem]:
        self._call("topics", window)
        return list(self.topic_items.get(id(window), []))

    def people(self, window: Window) -> list[MemoryItem]:
        self._call("people", window)
        return []

    def events(self, session_windows: Sequence[Window]) -> list[MemoryItem]:
        self.calls.append("events:" + ",".join(w.messages[0].id for w in session_windows))
        self.spent += self.tokens_per_call
        return list(self.event_items)

    def facts(self, window: Window, missing_facts: Sequence[str]) -> list[MemoryItem]:
        self._call("facts", window)
        return []


class TestSessionInfoAndWindow:
    def test_source_and_message_ids_are_fully_qualified(self) -> None:
        """source:<tool>:<machine>:<session> and <tool>:<machine>:<session>:<msg>."""
        window = Window(ONE, msgs("7", "8"))
        assert window.source == "source:codex:laptop:s-1"
        assert window.message_ids == ("codex:laptop:s-1:7", "codex:laptop:s-1:8")
        assert window.qualify(window.messages[1]) == "codex:laptop:s-1:8"

    def test_reader_ids_with_spaces_are_percent_encoded_and_citable(self) -> None:
        """A reader id such as "[trimmed for fixture]" still makes one valid quote id."""
        qualified = qualify_message_id("source:codex:laptop:s-1", "[trimmed for fixture] 5%")
        assert qualified == "codex:laptop:s-1:[trimmed%20for%20fixture]%205%25"
        assert Quote(qualified, "x").message_id == qualified

    @pytest.mark.parametrize(
        ("tool", "machine", "session"),
        [
            ("Claude Code", "m", "s"),
            ("codex", "my:host", "s"),
            ("codex", "m", "a b"),
            ("pi", "", "s"),
        ],
    )
    def test_parts_that_cannot_form_a_source_tag_are_refused(
        self, tool: str, machine: str, session: str
    ) -> None:
        """Tool, machine and session id must each be one colon-free token."""
        with pytest.raises(ValueError):
            SessionInfo(tool, machine, session, None, DAY)

    def test_a_window_needs_messages_with_distinct_ids(self) -> None:
        """An empty window or a repeated message id is refused."""
        with pytest.raises(ValueError):
            Window(ONE, ())
        with pytest.raises(ValueError):
            Window(ONE, msgs("1", "1"))


class TestStageOrder:
    def test_stages_run_in_the_seeds_order(self) -> None:
        """Per window topics then people; events once per session after its last window."""
        recorder = Recorder()
        windows = [Window(ONE, msgs("a")), Window(ONE, msgs("b")), Window(TWO, msgs("c"))]
        run_pipeline(recorder, windows)
        assert recorder.calls == [
            "topics:a",
            "people:a",
            "topics:b",
            "people:b",
            "events:a,b",
            "topics:c",
            "people:c",
            "events:c",
        ]

    def test_facts_run_only_with_a_missing_facts_list(self) -> None:
        """No list or an empty list: no facts stage; a list: facts after people in each window."""
        no_list: tuple[list[str] | None, ...] = (None, [])
        for missing in no_list:
            recorder = Recorder()
            run_pipeline(recorder, [Window(ONE, msgs("a"))], missing_facts=missing)
            assert not any(call.startswith("facts") for call in recorder.calls)
        recorder = Recorder()
        result = run_pipeline(recorder, [Window(ONE, msgs("a"))], missing_facts=["timezone"])
        assert recorder.calls == ["topics:a", "people:a", "facts:a", "events:a"]
        assert result.windows[0].facts_run

    def test_sessions_keep_their_windows_in_order_when_interleaved(self) -> None:
        """Windows are grouped by session in first-seen order, each session's order kept."""
        recorder = Recorder()
        windows = [Window(ONE, msgs("a")), Window(TWO, msgs("c")), Window(ONE, msgs("b"))]
        result = run_pipeline(recorder, windows)
        assert [s.session for s in result.sessions] == [ONE, TWO]
        assert recorder.calls[-3:] == ["topics:c", "people:c", "events:c"]
        assert "events:a,b" in recorder.calls

    def test_tokens_are_accounted_per_window_and_per_run(self) -> None:
        """Each window counts the tokens its stages spent; the run adds the events stage."""
        recorder = Recorder(tokens_per_call=10)
        windows = [Window(ONE, msgs("a")), Window(ONE, msgs("b"))]
        result = run_pipeline(recorder, windows, missing_facts=["x"])
        assert [w.tokens_used for w in result.windows] == [30, 30]
        assert result.tokens_used == 70 == recorder.tokens_used
        assert result.extractor == "recorder"


class TestScreening:
    def test_untraceable_items_are_dropped_and_counted(self) -> None:
        """Wrong source, no quote, or a quote from another window: dropped, never planted."""
        first, second = Window(ONE, msgs("a")), Window(ONE, msgs("b"))
        good = item_for(first, "good")
        recorder = Recorder()
        recorder.topic_items[id(first)] = [
            good,
            replace(good, name="foreign", source="source:codex:laptop:other"),
            replace(good, name="unquoted", quotes=()),
            replace(good, name="elsewhere", quotes=(Quote(second.message_ids[0], "b"),)),
        ]
        result = run_pipeline(recorder, [first, second])
        assert [i.name for i in result.items] == ["good"]
        assert result.dropped_untraceable == 3
        assert result.windows[0].dropped_untraceable == 3

    def test_low_confidence_items_are_dropped_and_counted(self) -> None:
        """Below MIN_CONFIDENCE an item is noise (safety contract 6)."""
        window = Window(ONE, msgs("a"))
        recorder = Recorder()
        recorder.topic_items[id(window)] = [
            item_for(window, "sure", confidence=MIN_CONFIDENCE),
            item_for(window, "unsure", confidence=MIN_CONFIDENCE - 0.01),
        ]
        result = run_pipeline(recorder, [window])
        assert [i.name for i in result.items] == ["sure"]
        assert result.dropped_low_confidence == 1

    def test_events_may_quote_any_window_of_their_session(self) -> None:
        """An event spans the session: quotes from any of its windows are traceable."""
        first, second = Window(ONE, msgs("a")), Window(ONE, msgs("b"))
        recorder = Recorder()
        event = item_for(first, "night-of-the-cpu")
        recorder.event_items = [
            replace(event, quotes=(*event.quotes, Quote(second.message_ids[0], "b")))
        ]
        result = run_pipeline(recorder, [first, second])
        assert [i.name for i in result.sessions[0].events] == ["night-of-the-cpu"]
        assert result.counts()["events"] == 1


class TestMerging:
    def test_a_later_window_updates_the_earlier_item(self) -> None:
        """The same item found again is one item with both quotes, in the later window too."""
        first, second = Window(ONE, msgs("a")), Window(ONE, msgs("b"))
        recorder = Recorder()
        recorder.topic_items[id(first)] = [item_for(first, "pnpm", confidence=0.6)]
        recorder.topic_items[id(second)] = [item_for(second, "pnpm", confidence=0.9)]
        result = run_pipeline(recorder, [first, second])
        (merged,) = result.items
        assert [q.message_id for q in merged.quotes] == ["codex:laptop:s-1:a", "codex:laptop:s-1:b"]
        assert merged.confidence == 0.9
        assert result.windows[1].topics == (merged,)
        assert result.counts() == {"topics": 1, "people": 0, "facts": 0, "events": 0, "quotes": 2}

    def test_items_of_different_sessions_never_merge(self) -> None:
        """Identity includes the source: two sessions, two items."""
        one, two = Window(ONE, msgs("a")), Window(TWO, msgs("a"))
        recorder = Recorder()
        recorder.topic_items[id(one)] = [item_for(one, "pnpm")]
        recorder.topic_items[id(two)] = [item_for(two, "pnpm")]
        assert len(run_pipeline(recorder, [one, two]).items) == 2

    def test_merge_keeps_the_first_wording_and_each_quote_once(self) -> None:
        """merge_items unions quotes without repeats and keeps the earlier body."""
        window = Window(ONE, msgs("a", "b"))
        first = item_for(window, "x")
        second = replace(
            first, body="other words", quotes=(*first.quotes, Quote(window.message_ids[1], "b"))
        )
        merged = merge_items(first, second)
        assert merged.body == "x"
        assert merged.quotes == second.quotes
        assert item_identity(merged) == item_identity(first)

    def test_merging_different_items_is_refused(self) -> None:
        """Two items with different identities cannot be merged."""
        window = Window(ONE, msgs("a"))
        with pytest.raises(ValueError):
            merge_items(item_for(window, "x"), item_for(window, "y"))


def test_the_heuristic_runs_through_the_pipeline() -> None:
    """The default extractor meets the Extractor contract: a rule planted, no tokens spent."""
    window = Window(ONE, (Message("1", "user", "Always use pnpm for installs.", None),))
    result = run_pipeline(HEURISTIC, [window], missing_facts=["timezone"])
    assert [(i.category, i.body) for i in result.items] == [
        ("Rule", "Always use pnpm for installs.")
    ]
    assert (result.extractor, result.tokens_used) == ("heuristic", 0)
