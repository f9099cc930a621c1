"""Issue 15, 12e-12h as pure rules: the legacy and imported cursor shapes reach selection.

A legacy or imported record that finished a session decides before the
budget; a pending window keeps its session open; a tool is exported under one
name; a live copy of a session makes the session live. The CLI side is in
``test_cursor_import.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dreamd.collect.cursorcheck import CursorDocumentError, check_document, summarize
from dreamd.collect.cursordoc import document_host, export_cursor, import_cursor
from dreamd.collect.cursorstate import selection_view
from dreamd.selection import SelectionPolicy, select
from tests.core.test_selection import HOUR, NOW, info

AT = (NOW - 3 * HOUR).isoformat()  # after the sessions' last messages (5 h ago)
EARLY = (NOW - 6 * HOUR).isoformat()  # before them


def decide(document: dict[str, Any], *sessions: Any, budget: int = 1) -> dict[str, tuple[str, str]]:
    """Each session's (status, reason) against ``document``, with a one-session budget."""
    view = selection_view(import_cursor(document, "lap"))
    policy = SelectionPolicy(budget_sessions=budget, budget_messages=None)
    result = select(sessions, view, now=NOW, policy=policy)
    return {d.session.session_id: (d.status if not d.selected else "SELECTED", d.reason)
            for d in result.decisions}  # fmt: skip


class TestLegacyBeforeTheBudget:
    def test_flat_dev_map_finishes_sessions_before_the_budget(self) -> None:
        """12e/12f: ``{"pi": {"processed": {id: {"at": T}}}}`` finishes a session whose last
        message is no later than T: it is resolved, and the budget goes to the unfinished one."""
        document = {"pi": {"processed": {"done": {"at": AT}}}}
        decided = decide(document, info("done", tool="pi"), info("todo", tool="pi", age=6 * HOUR))
        assert decided["done"][0] == "resolved" and "pi.processed" in decided["done"][1]
        assert decided["todo"][0] == "SELECTED"

    def test_a_session_grown_since_the_legacy_time_is_new_work(self) -> None:
        """A legacy time before the last message: eligible, the reason says since when."""
        decided = decide({"pi": {"processed": {"s": {"at": EARLY}}}}, info("s", tool="pi"))
        assert (
            decided["s"][0] == "SELECTED" and "new since finished in the legacy" in decided["s"][1]
        )

    def test_nested_flat_and_keyed_forms_agree(self) -> None:
        """The same record in the nested, flat dev and ``tool:id`` forms decides the same."""
        for document in (
            {"sources": {"pi": {"processed": {"s": {"resolvedAt": AT}}}}},
            {"pi": {"processed": {"s": {"resolvedAt": AT}}}},
            {"processed": {"pi:s": {"at": AT}}},
        ):
            assert decide(document, info("s", tool="pi"))["s"][0] == "resolved"

    def test_a_flat_record_without_a_time_is_held_for_review(self) -> None:
        """12f: listed without a time in the flat form: legacy-review, as in the nested form."""
        for document in ({"pi": {"processed": ["s"]}}, {"sources": {"pi": {"processed": ["s"]}}}):
            status, reason = decide(document, info("s", tool="pi"))["s"]
            assert status == "held" and "legacy review" in reason and "no usable time" in reason

    def test_skipped_trivial_arrays(self) -> None:
        """A legacy skipped-trivial record with ``skippedAt``: trivial until it grows; with no
        time: held for review."""
        document = {
            "skipped_trivial": [{"tool": "pi", "id": "a", "skippedAt": AT}, "pi:b"],
            "pi": {"skipped_trivial": [{"id": "c", "skippedAt": EARLY}]},
        }
        decided = decide(document, info("a", tool="pi"), info("b", tool="pi"), info("c", tool="pi"))
        assert decided["a"][0] == "trivial" and "skipped as trivial" in decided["a"][1]
        assert decided["b"][0] == "held"
        assert decided["c"][0] == "SELECTED"


class TestImportedSidecar:
    def test_an_alias_tool_name_is_honoured_and_exported_once(self) -> None:
        """12g: ``claudecode`` entries are claude-code's; the export has one key for the tool."""
        document = {
            "collectorV2": {"sources": {"claudecode": {"sessions": {
                "s": {"revision": "rev-s", "status": "complete", "acked": {"m": "f"}},
            }, "note": "kept"}}},
        }  # fmt: skip
        cursor = import_cursor(document, "lap")
        assert cursor.state("claude-code:s").status == "resolved"
        assert decide(document, info("s"))["s"][0] == "resolved"
        exported = export_cursor(cursor.with_state("claude-code:t", cursor.state("claude-code:s")))
        sources = exported["collectorV2"]["sources"]
        assert list(sources) == ["claude-code"] and sources["claude-code"]["note"] == "kept"
        assert set(sources["claude-code"]["sessions"]) == {"s", "t"}
        assert sources["claude-code"]["sessions"]["s"] == document["collectorV2"]["sources"][
            "claudecode"]["sessions"]["s"]  # fmt: skip
        assert import_cursor(exported, "lap").sessions == {
            "claude-code:s": cursor.state("claude-code:s"),
            "claude-code:t": cursor.state("claude-code:s"),
        }

    def test_dreamds_name_wins_over_the_alias(self) -> None:
        """Both names hold the session: the entry under dreamd's name is the state."""
        document = {"collectorV2": {"sources": {
            "claude-code": {"sessions": {"s": {"revision": "r2", "status": "resolved"}}},
            "claudecode": {"sessions": {"s": {"revision": "r1", "status": "partial"}}},
        }}}  # fmt: skip
        cursor = import_cursor(document, "lap")
        assert cursor.state("claude-code:s").revision == "r2"
        sessions = export_cursor(cursor)["collectorV2"]["sources"]["claude-code"]["sessions"]
        assert sessions["s"]["revision"] == "r2"

    def test_another_collectors_finished_entry_is_read_by_its_time(self) -> None:
        """A finished entry without fingerprints of its own (another revision): its time
        finishes the session; without a time it is held for review, never re-collected."""
        document = {"collectorV2": {"sources": {"pi": {"sessions": {
            "a": {"revision": "theirs-1", "status": "completed", "lastMessageAt": AT},
            "b": {"revision": "theirs-2", "status": "completed"},
        }}}}}  # fmt: skip
        decided = decide(document, info("a", tool="pi"), info("b", tool="pi"))
        assert decided["a"][0] == "resolved" and decided["b"][0] == "held"

    def test_the_sidecars_own_processed_map(self) -> None:
        """12g: ``collectorV2.sources.<tool>.processed`` records finish sessions by their time."""
        document = {"collectorV2": {"sources": {"pi": {"processed": {"a": {"at": AT}}}}}}
        status, reason = decide(document, info("a", tool="pi"))["a"]
        assert status == "resolved" and "collectorV2.sources.pi.processed" in reason

    def test_a_timeless_session_after_a_legacy_time_is_held(self) -> None:
        """A session whose messages carry no time cannot be split at the record's time: held,
        so it never takes the budget run after run."""
        timeless = info("s", tool="pi")._replace(last_message_at=None)
        status, reason = decide({"pi": {"processed": {"s": {"at": AT}}}}, timeless)["s"]
        assert status == "held" and "carry no time" in reason

    def test_a_pending_window_keeps_a_finished_session_open(self) -> None:
        """12g: an entry that says resolved but holds an open window is selectable, so the
        plan is reconciled before the session completes."""
        document = {"collectorV2": {"sources": {"pi": {"sessions": {"s": {
            "revision": "rev-s", "status": "resolved", "acked": {"m": "f"},
            "pendingWindow": {"windowKey": "w1", "planId": "p1", "messageIds": ["m"]},
        }}}}}}  # fmt: skip
        cursor = import_cursor(document, "lap")
        intent = cursor.state("pi:s").intent
        assert intent is not None and intent.plan_id == "p1"
        assert decide(document, info("s", tool="pi"))["s"][0] == "SELECTED"
        assert summarize(cursor).open_windows == 1 and summarize(cursor).finished == 0


class TestLiveCopies:
    def test_a_duplicate_is_never_taken_in_place_of_the_live_copy(self) -> None:
        """12h: the live file cannot be read yet (being written) and an older copy can: the
        session is live, not selected from the copy."""
        live = info("s", path="/t/live.jsonl", age=timedelta(minutes=1), unresolved="partial line")
        copy = info("s", path="/t/archive/copy.jsonl", age=5 * HOUR)
        result = select([copy, live], {}, now=NOW)
        (decision,) = result.decisions
        assert decision.status == "live" and not result.selected
        assert "/t/live.jsonl" in decision.reason


class TestCheck:
    @pytest.mark.parametrize(
        ("document", "message"),
        [
            ([], "must be a JSON object, not a list"),
            ({"bad": 1}, "not a cursor: none of collectorV2"),
            ({}, "(found: nothing)"),
            ({"collectorV2": []}, "collectorV2: must be an object, not a list"),
            ({"collectorV2": {"sources": {"pi": 3}}}, "collectorV2.sources.pi: must be an object"),
            (
                {"collectorV2": {"sources": {"pi": {"sessions": {"x": {"generation": "2"}}}}}},
                "collectorV2.sources.pi.sessions.x.generation: must be a whole number",
            ),
            (
                {"collectorV2": {"sources": {"pi": {"sessions": {"x": {"status": "weird"}}}}}},
                "collectorV2.sources.pi.sessions.x.status: 'weird' is not a session status",
            ),
            (
                {"collectorV2": {"sources": {"pi": {"sessions": {"x": {"intent": {"a": 1}}}}}}},
                "collectorV2.sources.pi.sessions.x.intent: must be null or an open window",
            ),
            ({"processed": "pi:x"}, "processed: must be a list of session ids or an object"),
            ({"sources": {"pi": {"processed": 5}}}, "sources.pi.processed: must be a list"),
            ({"highWater": 1, "host": 5}, "host: must be a host name"),
        ],
    )
    def test_the_first_problem_is_named_by_its_path(self, document: Any, message: str) -> None:
        with pytest.raises(CursorDocumentError) as caught:
            check_document(document)
        assert message in str(caught.value) and "\n" not in str(caught.value)

    def test_every_shape_of_the_seed_passes(self) -> None:
        """Nested, flat, keyed, skipped and V2 forms, unknown fields included, are accepted."""
        check_document({"pi": {"processed": {"a": {"at": AT}}}, "skipped_trivial": ["pi:b"]})
        check_document({"highWater": "x", "sources": {"pi": {"processed": [], "lastRun": 1}}})
        check_document({"collectorV2": {"host": "h", "sources": {"pi": {"sessions": {
            "s": {"status": "skipped-trivial", "pending": True, "custom": [1]}}}}}})  # fmt: skip

    def test_the_host_a_document_names(self) -> None:
        assert document_host({"collectorV2": {"host": "a"}, "host": "b"}) == "a"
        assert document_host({"machine": "c"}) == "c" and document_host({}) is None
        assert export_cursor(import_cursor({}, "lap"))["collectorV2"]["host"] == "lap"


def test_times_are_aware() -> None:
    """The fixtures' times carry a zone (a zone-less time would be held, never guessed)."""
    assert datetime.fromisoformat(AT).tzinfo is UTC
