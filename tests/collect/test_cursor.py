"""Cursor transitions (seed 002 phases 2, 4, 5) and the JSON round trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamd.collect.cursordoc import export_cursor, import_cursor
from dreamd.collect.cursorstate import (
    Cursor,
    Intent,
    begin_window,
    checkpoint_window,
    complete_session,
    observe,
    pending_messages,
    qualified_id,
    skip_trivial,
    split_windows,
    window_key,
)
from dreamd.readers import Conversation, FileVersion, Message, SessionRef

KEY = "claude-code:s1"
T0 = datetime(2026, 5, 1, tzinfo=UTC)


def conversation(texts: list[str]) -> Conversation:
    ref = SessionRef("claude-code", "s1", "/x/s1.jsonl", FileVersion(1, 2, 3, 4))
    messages = tuple(
        Message(f"m{i}", "user" if i % 2 == 0 else "assistant", text, T0)
        for i, text in enumerate(texts)
    )
    return Conversation(ref, "/repo", messages)


def test_qualified_ids() -> None:
    """Fully qualified message ids are tool:machine:session:message."""
    assert qualified_id("claude-code", "mbp", "0a1f", "42") == "claude-code:mbp:0a1f:42"


class TestWindows:
    def test_sizes_and_merged_tail(self) -> None:
        """65 messages at 30 become 30 + 35 (a short tail joins the previous window)."""
        conv = conversation([f"message {i}" for i in range(65)])
        windows = split_windows(conv, conv.messages, 30)
        assert [len(w.messages) for w in windows] == [30, 35]

    def test_tail_is_kept_separate_when_merging_would_exceed_40(self) -> None:
        """75 messages at 30: 30 + 30 + 15, since 45 would exceed the 40 maximum."""
        conv = conversation([f"message {i}" for i in range(75)])
        assert [len(w.messages) for w in split_windows(conv, conv.messages, 30)] == [30, 30, 15]

    def test_digest_carries_earlier_prompts(self) -> None:
        """The second window's digest quotes user prompts from before it."""
        conv = conversation([f"prompt {i}" for i in range(60)])
        first, second = split_windows(conv, conv.messages, 30)
        assert first.digest == ""
        assert "prompt 28" in second.digest and "prompt 29" not in second.digest

    @pytest.mark.parametrize("size", [19, 41])
    def test_size_limits(self, size: int) -> None:
        """Window sizes outside 20 to 40 are refused."""
        with pytest.raises(ValueError, match="20 to 40"):
            split_windows(conversation(["a"]), (), size)


class TestGenerationsAndKeys:
    def test_key_is_stable_within_a_generation(self) -> None:
        """The same window retried gets the same key."""
        conv = conversation(["a", "b"])
        assert window_key("h", "t", "s", 0, conv.messages) == window_key(
            "h", "t", "s", 0, conv.messages
        )

    def test_a_b_a_is_new_work(self) -> None:
        """Going back to an earlier revision starts a new generation, hence new keys."""
        cursor = Cursor("h")
        seen = []
        for revision in ("A", "B", "A"):
            cursor = observe(cursor, KEY, revision)
            seen.append(cursor.state(KEY).generation)
        assert seen == [0, 1, 2]
        conv = conversation(["a"])
        assert window_key("h", "t", "s", 0, conv.messages) != window_key(
            "h", "t", "s", 2, conv.messages
        )

    def test_observing_the_same_revision_changes_nothing(self) -> None:
        """Re-observing a revision keeps the generation."""
        cursor = observe(Cursor("h"), KEY, "A")
        assert observe(cursor, KEY, "A") is cursor


class TestAcknowledgement:
    def test_checkpoint_acknowledges_at_fingerprints(self) -> None:
        """After a checkpoint only messages outside the window are pending."""
        conv = conversation([f"m {i}" for i in range(50)])
        cursor = observe(Cursor("h"), KEY, conv.revision)
        window = split_windows(conv, conv.messages, 25)[0]
        wkey = window_key("h", "claude-code", "s1", 0, window.messages)
        cursor = begin_window(
            cursor, KEY, Intent(wkey, "plan-1", tuple(m.id for m in window.messages))
        )
        cursor = checkpoint_window(cursor, KEY, window, ["r1"], window_key_=wkey)
        pending = pending_messages(cursor.state(KEY), conv.messages)
        assert [m.id for m in pending] == [f"m{i}" for i in range(25, 50)]
        assert cursor.state(KEY).intent is None and cursor.state(KEY).receipts == ("r1",)

    def test_edited_message_is_pending_again(self) -> None:
        """A message whose text changed is no longer acknowledged."""
        conv = conversation(["alpha", "beta"])
        cursor = observe(Cursor("h"), KEY, conv.revision)
        window = split_windows(conv, conv.messages, 20)[0]
        cursor = checkpoint_window(cursor, KEY, window, [], window_key_="k")
        edited = conversation(["alpha", "beta, edited"])
        assert [m.id for m in pending_messages(cursor.state(KEY), edited.messages)] == ["m1"]

    def test_complete_only_when_everything_is_acknowledged(self) -> None:
        """A partial session cannot be completed; a fully acknowledged one can."""
        conv = conversation(["a", "b", "c"])
        cursor = observe(Cursor("h"), KEY, conv.revision)
        with pytest.raises(ValueError, match="not acknowledged"):
            complete_session(cursor, KEY, conv)
        window = split_windows(conv, conv.messages, 20)[0]
        cursor = checkpoint_window(cursor, KEY, window, [], window_key_="k")
        assert complete_session(cursor, KEY, conv).state(KEY).status == "resolved"

    def test_complete_refuses_an_open_window_or_a_changed_revision(self) -> None:
        """Completion needs no pending intent and the revision that was observed."""
        conv = conversation(["a"])
        cursor = observe(Cursor("h"), KEY, conv.revision)
        opened = begin_window(cursor, KEY, Intent("w", "p", ("m0",)))
        with pytest.raises(ValueError, match="open window"):
            complete_session(opened, KEY, conv)
        with pytest.raises(ValueError, match="changed"):
            complete_session(observe(cursor, KEY, "other"), KEY, conv)

    def test_a_second_window_cannot_begin_over_an_open_one(self) -> None:
        """An unreconciled intent blocks a different window."""
        cursor = begin_window(Cursor("h"), KEY, Intent("w1", "p1", ()))
        with pytest.raises(ValueError, match="already has an open window"):
            begin_window(cursor, KEY, Intent("w2", "p2", ()))

    def test_skip_needs_a_reason_and_changes_reopen(self) -> None:
        """skip_trivial records a reason; a new revision makes the session partial again."""
        with pytest.raises(ValueError, match="reason"):
            skip_trivial(Cursor("h"), KEY, "A", " ")
        cursor = skip_trivial(Cursor("h"), KEY, "A", "runner job prompt")
        assert cursor.state(KEY).status == "skipped_trivial"
        assert observe(cursor, KEY, "B").state(KEY).status == "partial"


LEGACY = {
    "highWater": "2026-01-01T00:00:00Z",
    "high_water_mark": 1735689600,
    "sources": {"claude_code": {"processed": ["abc", "def"], "lastRun": "2026-01-02"}},
    "processed": {"pi:xyz": {"resolvedAt": "2026-01-03"}},
    "skipped_trivial": ["pi:job-1", "pi:job-2"],
    "unknownTool": {"whatever": [1, 2, {"deep": True}]},
    "collectorV2": {
        "schema": 2,
        "sources": {
            "codex": {
                "note": "kept",
                "sessions": {
                    "s9": {
                        "revision": "r9",
                        "generation": 1,
                        "status": "resolved",
                        "reason": "",
                        "acked": {"m1": "f1"},
                        "receipts": ["x"],
                        "intent": None,
                        "custom": "field",
                    }
                },
            }
        },
    },
}


class TestJson:
    def test_round_trip_keeps_every_field(self) -> None:
        """Import then export returns the identical document, legacy fields included."""
        cursor = import_cursor(json.loads(json.dumps(LEGACY)), "h")
        assert export_cursor(cursor) == LEGACY
        assert cursor.state("codex:s9").status == "resolved"

    def test_changes_land_in_the_sidecar_only(self) -> None:
        """A new session state is written under collectorV2; nothing else moves."""
        cursor = import_cursor(LEGACY, "h")
        cursor = skip_trivial(cursor, "pi:new", "r1", "machine job")
        exported = export_cursor(cursor)
        assert (
            exported["collectorV2"]["sources"]["pi"]["sessions"]["new"]["status"]
            == "skipped_trivial"
        )
        assert {k: v for k, v in exported.items() if k != "collectorV2"} == {
            k: v for k, v in LEGACY.items() if k != "collectorV2"
        }
        assert (
            exported["collectorV2"]["sources"]["codex"] == LEGACY["collectorV2"]["sources"]["codex"]
        )

    def test_a_non_object_is_refused(self, tmp_path: Path) -> None:
        """A cursor document must be an object."""
        with pytest.raises(ValueError, match="object"):
            import_cursor([], "h")  # type: ignore[arg-type]


def test_a_concurrent_cursor_change_stops_the_run(tmp_path: Path) -> None:
    """If another process saved the cursor meanwhile, this run's save refuses, changing nothing."""
    from datetime import UTC, datetime

    from dreamd.collect.collector import CursorStore
    from dreamd.errors import Refused
    from dreamd.statedb import open_state

    state = open_state(tmp_path / "state.db")
    now = datetime(2026, 11, 30, tzinfo=UTC)
    mine, theirs = CursorStore(state, "h"), CursorStore(state, "h")
    theirs.save(skip_trivial(theirs.cursor, "pi:a", "r1", "runner job"), now)
    with pytest.raises(Refused, match="changed while this run worked"):
        mine.save(skip_trivial(mine.cursor, "pi:b", "r2", "runner job"), now)
    assert set(CursorStore(state, "h").cursor.sessions) == {"pi:a"}
