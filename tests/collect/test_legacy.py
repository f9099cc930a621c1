"""Legacy processed records (seed 002 phase 2): rules, the JSON shapes, and collection.

A cursor written by the earlier collector records processed sessions with a
last-message or resolved time but no message fingerprints. Only messages
after that time are analysed; the part before it is fingerprinted once
(``legacyBaseline``); a record without a usable time is held for review.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dreamd.collect.cursordoc import export_cursor, import_cursor, legacy_records, legacy_time
from dreamd.collect.cursorstate import (
    Cursor,
    LegacyRecord,
    SessionState,
    adopt_legacy_baseline,
    governed_by_legacy,
    legacy_boundary,
    legacy_review_reason,
    legacy_split,
    observe,
    pending_messages,
)
from dreamd.readers import Conversation, FileVersion, Message, SessionRef
from tests.collect.test_collect_cli import PROMPTS, SID, collect, inbox, session, sql_keys
from tests.process import run_dreamd

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
KEY = "claude-code:s1"


def conversation(count: int, *, stamped: bool = True) -> Conversation:
    ref = SessionRef("claude-code", "s1", "/x/s1.jsonl", FileVersion(1, 2, 3, 4))
    messages = tuple(
        Message(f"m{i}", "user" if i % 2 == 0 else "assistant", f"text {i}",
                T0 + timedelta(minutes=i) if stamped or i != 2 else None)
        for i in range(count)
    )  # fmt: skip
    return Conversation(ref, "/repo", messages)


class TestRules:
    def test_boundary_is_the_last_message_time_else_the_resolved_time(self) -> None:
        """The last-message time wins; the resolved time serves when it is all there is."""
        later = T0 + timedelta(hours=1)
        assert legacy_boundary(LegacyRecord(T0, later)) == T0
        assert legacy_boundary(LegacyRecord(None, later)) == later
        assert legacy_boundary(LegacyRecord()) is None

    def test_split_at_the_boundary(self) -> None:
        """At or before the boundary is the legacy-resolved part; after it is new."""
        split = legacy_split(conversation(6).messages, T0 + timedelta(minutes=3))
        assert split is not None
        assert [m.id for m in split[0]] == ["m0", "m1", "m2", "m3"]
        assert [m.id for m in split[1]] == ["m4", "m5"]

    def test_a_message_without_a_time_cannot_be_placed(self) -> None:
        """One timeless message makes the split refuse instead of guessing."""
        assert legacy_split(conversation(6, stamped=False).messages, T0) is None

    def test_baseline_acknowledges_the_resolved_part_only(self) -> None:
        """The first V2 transition: earlier messages acknowledged, later ones pending, flag set."""
        conv = conversation(6)
        cursor = observe(Cursor("h"), KEY, conv.revision)
        split = legacy_split(conv.messages, T0 + timedelta(minutes=3))
        assert split is not None
        cursor = adopt_legacy_baseline(cursor, KEY, split[0])
        state = cursor.state(KEY)
        assert state.legacy_baseline
        assert [m.id for m in pending_messages(state, conv.messages)] == ["m4", "m5"]

    def test_a_baseline_is_taken_once(self) -> None:
        """A session with V2 acknowledgements or a baseline cannot take another."""
        conv = conversation(4)
        cursor = adopt_legacy_baseline(Cursor("h"), KEY, conv.messages[:2])
        with pytest.raises(ValueError, match="already has V2 state"):
            adopt_legacy_baseline(cursor, KEY, conv.messages)

    def test_edits_after_the_baseline_are_found_by_hash(self) -> None:
        """An edited message of the resolved part is pending again, whatever its time."""
        conv = conversation(4)
        cursor = adopt_legacy_baseline(Cursor("h"), KEY, conv.messages)
        edited = (Message("m1", "assistant", "text 1, edited", T0), *conv.messages[2:])
        assert [m.id for m in pending_messages(cursor.state(KEY), edited)] == ["m1"]

    def test_the_legacy_record_governs_only_until_v2_state_exists(self) -> None:
        """A record decides while there is no baseline and nothing acknowledged."""
        record = LegacyRecord(T0)
        assert governed_by_legacy(SessionState(), record)
        assert not governed_by_legacy(SessionState(legacy_baseline=True), record)
        assert not governed_by_legacy(SessionState(acked={"m0": "f"}), record)
        assert not governed_by_legacy(SessionState(), None)

    def test_only_a_timeless_record_is_held_for_review(self) -> None:
        """legacy-review: a governing record with no usable time; never one with a time."""
        cursor = Cursor("h", legacy_sessions={KEY: LegacyRecord(origin="processed")})
        assert "no usable time" in (legacy_review_reason(cursor, KEY) or "")
        timed = Cursor("h", legacy_sessions={KEY: LegacyRecord(T0)})
        assert legacy_review_reason(timed, KEY) is None
        assert legacy_review_reason(Cursor("h"), KEY) is None


#: The seed's shapes, as the cursor_json tests build them, with processed records.
LEGACY: dict[str, Any] = {
    "highWater": "2026-01-01T00:00:00Z",
    "high_water_mark": 1735689600,
    "sources": {
        "claude_code": {
            "processed": ["abc", "def"],
            "lastRun": "2026-01-02",
        },
        "pi": {"processed": {"p1": {"lastMessageAt": "2026-01-05T10:00:00+02:00"}}},
    },
    "processed": {
        "pi:xyz": {"resolvedAt": "2026-01-03T08:00:00Z"},
        "codex:c1": 1767254400,
        "codex:c2": 1767254400000,
        "claudecode:mbp:def": {"resolvedAt": "2026-01-04T00:00:00Z"},
        "pi:naive": {"resolvedAt": "2026-01-03T08:00:00"},
        "pi:p1": {"lastMessageAt": "2026-01-06T00:00:00Z"},
    },
    "skipped_trivial": ["pi:job-1"],
    "unknownTool": {"whatever": [1, {"deep": True}]},
}


class TestShapes:
    def test_records_from_nested_and_flat_maps(self) -> None:
        """Ids, times, tool names and epoch numbers are read from every shape."""
        records = legacy_records(LEGACY)
        assert legacy_boundary(records["claude-code:abc"]) is None
        assert records["pi:xyz"].resolved_at == datetime(2026, 1, 3, 8, tzinfo=UTC)
        assert records["codex:c1"].resolved_at == records["codex:c2"].resolved_at
        assert records["codex:c1"].resolved_at == datetime(2026, 1, 1, 8, tzinfo=UTC)
        # listed without a time in one place and with one in another: the time is used
        assert records["claude-code:def"].resolved_at == datetime(2026, 1, 4, tzinfo=UTC)
        assert records["claude-code:def"].origin == "sources.claude_code.processed, processed"
        # a time with no zone would be a guess
        assert legacy_boundary(records["pi:naive"]) is None
        # recorded twice: the earlier time, so nothing unanalysed is skipped
        assert records["pi:p1"].last_message_at == datetime(2026, 1, 5, 8, tzinfo=UTC)
        # the top-level skipped_trivial array is read too (issue 15, 12e): no time, so review
        assert records["pi:job-1"].skipped and legacy_boundary(records["pi:job-1"]) is None
        assert "collectorV2" not in json.dumps(list(records))

    def test_flat_dev_maps_and_skipped_arrays(self) -> None:
        """12e: ``{"pi": {"processed": ...}}`` at the top level, ``at`` / ``skippedAt`` times,
        skipped-trivial arrays of ids or objects, flat or under a tool; other maps ignored."""
        document = {
            "pi": {
                "processed": {"p1": {"at": "2026-02-01T10:00:00Z"}, "p2": {}},
                "skipped_trivial": [{"id": "job-7", "skippedAt": "2026-02-02T00:00:00Z"}],
            },
            "claudecode": {"processed": ["c1"]},
            "skipped_trivial": [
                "codex:x1",
                {"tool": "gemini", "id": "g1", "skippedAt": 1767254400},
                "no-tool-named",
            ],
            "settings": {"theme": "dark"},
        }
        records = legacy_records(document)
        assert records["pi:p1"].resolved_at == datetime(2026, 2, 1, 10, tzinfo=UTC)
        assert records["pi:p1"].origin == "pi.processed" and not records["pi:p1"].skipped
        assert legacy_boundary(records["pi:p2"]) is None  # listed, no time: legacy-review
        assert records["pi:job-7"].skipped
        assert records["pi:job-7"].resolved_at == datetime(2026, 2, 2, tzinfo=UTC)
        assert legacy_boundary(records["claude-code:c1"]) is None
        assert records["codex:x1"].skipped and records["codex:x1"].origin == "skipped_trivial"
        assert records["gemini:g1"].resolved_at == datetime(2026, 1, 1, 8, tzinfo=UTC)
        assert set(records) == {
            "pi:p1", "pi:p2", "pi:job-7", "claude-code:c1", "codex:x1", "gemini:g1"
        }  # fmt: skip

    @pytest.mark.parametrize(
        "value", [None, True, "", "yesterday", "2026-01-03", -5, float("nan"), 10**30, [1]]
    )
    def test_unusable_times(self, value: object) -> None:
        """Absent, zone-less, malformed or impossible times are not usable."""
        assert legacy_time(value) is None

    def test_the_baseline_is_exported_and_every_field_kept(self) -> None:
        """legacyBaseline goes to the sidecar entry; every legacy field stays as it was."""
        cursor = import_cursor(copy.deepcopy(LEGACY), "h")
        conv = conversation(4)
        cursor = observe(cursor, "pi:xyz", conv.revision)
        cursor = adopt_legacy_baseline(cursor, "pi:xyz", conv.messages[:2])
        exported = export_cursor(cursor)
        entry = exported["collectorV2"]["sources"]["pi"]["sessions"]["xyz"]
        assert entry["legacyBaseline"] is True and len(entry["acked"]) == 2
        assert {k: v for k, v in exported.items() if k != "collectorV2"} == LEGACY
        again = import_cursor(json.loads(json.dumps(exported)), "h")
        assert again.state("pi:xyz") == cursor.state("pi:xyz")
        assert export_cursor(again) == exported
        untouched = export_cursor(import_cursor(LEGACY, "h"))
        assert untouched == {**LEGACY, "collectorV2": {"host": "h", "sources": {}}}


# ------------------------------------------------------------------ collecting (real CLI)

NEW_PROMPTS = [
    "Never push directly to main, always open a pull request.",
    "thanks, that is all for today",
]


def stamps(path: Path) -> list[str]:
    """The timestamp of every record of a session file, in order."""
    return [json.loads(line)["timestamp"] for line in path.read_text().splitlines()]


def import_document(home: Path, tmp_path: Path, document: dict[str, Any]) -> None:
    path = tmp_path / "legacy-cursor.json"
    path.write_text(json.dumps(document))
    result = run_dreamd(home, "cursor", "import", str(path))
    assert result.returncode == 0, result.stderr


def export_document(home: Path) -> dict[str, Any]:
    exported = json.loads(run_dreamd(home, "cursor", "export").stdout)
    assert isinstance(exported, dict)
    return exported


def inbox_texts(home: Path) -> str:
    folder = home / ".claude" / "projects" / "-work-app" / "memory" / ".inbox"
    return " ".join((folder / name).read_text() for name in inbox(home))


def test_only_messages_after_the_legacy_time_are_analysed(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A session the old collector processed, then grown: only the new part plants anything."""
    path = session(isolated_home, [*PROMPTS, *NEW_PROMPTS])
    boundary = stamps(path)[len(PROMPTS) * 2 - 1]  # the last message the old collector saw
    document = {**copy.deepcopy(LEGACY), "processed": {
        f"claude-code:{SID}": {"lastMessageAt": boundary, "resolvedAt": "2026-01-01T00:00:00Z"},
    }}  # fmt: skip
    import_document(isolated_home, tmp_path, document)
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["cursor"]["legacy_baseline"] == [f"claude-code:{SID}"]
    assert report["cursor"]["resolved"] == [f"claude-code:{SID}"]
    assert report["planted"]["total"] == 2  # one item, two stores
    texts = inbox_texts(isolated_home)
    assert "pull request" in texts
    assert "linter" not in texts and "uv instead of pip" not in texts and "grafana" not in texts
    exported = export_document(isolated_home)
    entry = exported["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["legacyBaseline"] is True and entry["status"] == "resolved"
    assert len(entry["acked"]) == 2 * len(PROMPTS + NEW_PROMPTS)
    assert {k: v for k, v in exported.items() if k != "collectorV2"} == {
        k: v for k, v in document.items() if k != "collectorV2"
    }
    text = run_dreamd(isolated_home, "collect").stdout
    assert "Legacy:" not in text  # a second run has nothing legacy left to do


def test_a_timeless_legacy_record_is_held_for_review(isolated_home: Path, tmp_path: Path) -> None:
    """A processed id without any time: legacy-review, not selected, nothing planted or acked."""
    session(isolated_home, PROMPTS)
    document = {"sources": {"claude_code": {"processed": [SID]}}, "note": "kept"}
    import_document(isolated_home, tmp_path, document)
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    (review,) = report["cursor"]["legacy_review"]
    assert review.startswith(f"claude-code:{SID}: ") and "no usable time" in review
    assert report["selected"] == [] and report["planted"]["total"] == 0
    assert inbox(isolated_home) == [] and sql_keys(isolated_home) == []
    assert export_document(isolated_home) == document
    text = run_dreamd(isolated_home, "collect").stdout
    assert f"held for your review claude-code:{SID}: " in text
    # Listing and status tell the same story: held, not eligible, not in the backlog.
    (listed,) = json.loads(run_dreamd(isolated_home, "sources", "list", "--json").stdout)
    assert listed["status"] == "held" and "legacy review" in listed["reason"]
    status = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert status["backlog"] == {}


def test_items_the_old_collector_planted_are_matched_not_planted_again(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Items tagged with the legacy session's source are reconciled first: a restatement after
    the legacy time updates the item planted before, it does not plant a second one."""
    path = session(isolated_home, PROMPTS)
    assert collect(isolated_home).returncode == 0  # stands in for the old collector's plants
    planted_files, planted_rows = inbox(isolated_home), sql_keys(isolated_home)
    boundary = stamps(path)[-1]
    legacy = {"processed": {f"claude-code:{SID}": {"lastMessageAt": boundary}}}
    import_document(isolated_home, tmp_path, legacy)  # the V2 sidecar is gone: legacy only
    session(isolated_home, [*PROMPTS, PROMPTS[2], NEW_PROMPTS[0]])
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["cursor"]["legacy_baseline"] == [f"claude-code:{SID}"]
    assert report["planted"]["total"] == 2 and report["planted"]["updated"]["total"] == 2
    assert len(inbox(isolated_home)) == len(planted_files) + 1
    assert len(sql_keys(isolated_home)) == len(planted_rows) + 1
    (uv,) = [n for n in inbox(isolated_home) if "uv" in n]
    text = (isolated_home / ".claude/projects/-work-app/memory/.inbox" / uv).read_text()
    assert len(re.findall(r"- message: ", text)) == 2
