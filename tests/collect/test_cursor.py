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
    plan_source,
    qualified_id,
    reconcile_window,
    skip_trivial,
    source_unchanged,
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


class TestStalePlans:
    """Issue 15 item 0: a plan whose source changed is never reused (seed 002)."""

    def opened(self, conv: Conversation) -> Cursor:
        cursor = observe(Cursor("h"), KEY, conv.revision)
        ids = tuple(m.id for m in conv.messages)
        intent = Intent("w", "plan-1", ids, plan_source(conv.messages), conv.revision)
        return begin_window(cursor, KEY, intent)

    def test_an_edit_of_a_planned_message_makes_the_plan_stale(self) -> None:
        """The intent records each message's fingerprint; any edit is seen, a growth is not."""
        conv = conversation(["We use PostgreSQL", "ok"])
        intent = self.opened(conv).state(KEY).intent
        assert intent is not None and source_unchanged(intent, conv.messages)
        grown = conversation(["We use PostgreSQL", "ok", "later"])
        assert source_unchanged(intent, grown.messages)
        edited = conversation(["We use SQLite", "ok"])
        assert not source_unchanged(intent, edited.messages)
        assert not source_unchanged(intent, conversation(["We use PostgreSQL"]).messages)

    def test_an_intent_without_a_source_is_not_trusted_when_it_names_messages(self) -> None:
        """An intent recorded before sources were kept cannot be checked: never replayed."""
        conv = conversation(["a"])
        assert not source_unchanged(Intent("w", "p", ("m0",)), conv.messages)
        assert source_unchanged(Intent("w", "p", ()), conv.messages)

    def test_reconciliation_keeps_receipts_and_acknowledges_nothing(self) -> None:
        """reconcileWindow closes the intent, keeps receipts and the plan id, acks nothing."""
        conv = conversation(["We use PostgreSQL", "ok"])
        cursor = reconcile_window(self.opened(conv), KEY, ["r1"])
        state = cursor.state(KEY)
        assert state.intent is None and state.receipts == ("r1",)
        assert state.reconciled == ("plan-1",) and state.acked == {}
        assert len(pending_messages(state, conv.messages)) == 2
        with pytest.raises(ValueError, match="no open window"):
            reconcile_window(cursor, KEY, [])

    def test_the_intent_source_survives_the_json_round_trip(self) -> None:
        """Saved and read back, the intent still knows what its plan was made from."""
        conv = conversation(["We use PostgreSQL", "ok"])
        cursor = self.opened(conv)
        again = import_cursor(json.loads(json.dumps(export_cursor(cursor))), "h")
        assert again.state(KEY).intent == cursor.state(KEY).intent
        closed = reconcile_window(again, KEY, ["r1"])
        exported = export_cursor(closed)
        assert import_cursor(exported, "h").state(KEY).reconciled == ("plan-1",)


LEGACY = {
    "highWater": "2026-01-01T00:00:00Z",
    "high_water_mark": 1735689600,
    "sources": {"claude_code": {"processed": ["abc", "def"], "lastRun": "2026-01-02"}},
    "processed": {"pi:xyz": {"resolvedAt": "2026-01-03"}},
    "skipped_trivial": ["pi:job-1", "pi:job-2"],
    "unknownTool": {"whatever": [1, 2, {"deep": True}]},
    "collectorV2": {
        "schema": 2,
        "host": "h",
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
