"""The collection report lists each planted or updated item (issue 11 item 4)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from dreamd.collect.planted import planted_item
from dreamd.stores import MemoryItem, Quote, Receipt
from tests.collect.test_collect_cli import PROMPTS, collect, data, session

SID = "11111111-2222-4333-8444-555555555555"


def item() -> MemoryItem:
    return MemoryItem(
        type="feedback",
        category="Rule",
        name="Always run the linter",
        description="Rule: always run the linter",
        body="Always run the linter.",
        confidence=0.8,
        source="source:claude-code:box:s1",
        collected=date(2026, 12, 1),
        quotes=(Quote("claude-code:box:s1:u1", "always run the linter"),),
    )


def test_a_memory_folder_entry_names_its_inbox_file() -> None:
    """A topic file's entry carries the folder, the file inside it and the whole path."""
    receipt = Receipt("claude-memory:/h/.claude/projects/-a/memory", "k", ".inbox/f.md", "d")
    entry = planted_item("claude-memory", item(), receipt, updated=False)
    assert (entry.title, entry.type, entry.category, entry.session, entry.action) == (
        "Always run the linter", "feedback", "Rule", "claude-code:s1", "planted",
    )  # fmt: skip
    assert entry.file == "/h/.claude/projects/-a/memory/.inbox/f.md"


def test_a_row_has_no_file_and_an_update_says_so() -> None:
    """A SQL row is named by its location; an update of a pending item is ``updated``."""
    entry = planted_item(
        "sql", item(), Receipt("sql:sqlite:///x.db", "k", "memory_item/7", "d"), updated=True
    )
    assert (entry.file, entry.location, entry.action) == (None, "memory_item/7", "updated")


def test_a_held_record_names_the_holding_file() -> None:
    """A one-file store's entry points at the holding file beside the store's file."""
    receipt = Receipt("gemini:/h/.gemini/GEMINI.md", "k", "GEMINI.inbox.md#abc", "d")
    assert (
        planted_item("gemini", item(), receipt, updated=False).file == "/h/.gemini/GEMINI.inbox.md"
    )


def test_collect_json_lists_every_planted_item_with_store_place_and_session(
    isolated_home: Path,
) -> None:
    """``--json`` carries ``planted_items``: one per store write, each naming its file or row."""
    session(isolated_home, PROMPTS, sid=SID)
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    entries = report["planted_items"]
    assert len(entries) == report["planted"]["total"] == 6
    assert {e["store"] for e in entries} == {"claude-memory", "sql"}
    assert {e["session"] for e in entries} == {f"claude-code:{SID}"}
    for entry in entries:
        if entry["store"] == "claude-memory":
            assert Path(entry["file"]).is_file() and "/.inbox/" in entry["file"]
        else:
            assert entry["file"] is None and entry["location"].startswith("memory_item/")
    stored = json.loads(
        (data(isolated_home) / "reports" / f"collect-{report['run_id']}.json").read_text()
    )
    assert stored["planted_items"] == entries


def test_the_printed_report_lists_each_item(isolated_home: Path) -> None:
    """The text report has one line per planted item: title, kind, store, where, session."""
    session(isolated_home, PROMPTS, sid=SID)
    result = collect(isolated_home)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    listed = lines[lines.index("Planted items:") + 1 :]
    assert len([line for line in listed if line.startswith("- planted [")]) == 6
    assert any("→ claude-memory: " in line and ".inbox/" in line for line in listed)
    assert all(f"(from claude-code:{SID})" in line for line in listed if line.startswith("- "))


def test_a_restated_pending_item_is_listed_as_updated(isolated_home: Path) -> None:
    """A later window restating a pending item updates it, and the report says ``updated``."""
    session(isolated_home, PROMPTS, sid=SID)
    collect(isolated_home)
    again = [*PROMPTS, "Always run the linter before committing, from now on. I mean it."]
    session(isolated_home, again, sid=SID)
    report = json.loads(collect(isolated_home, "--json").stdout)
    actions = {(e["store"], e["action"]) for e in report["planted_items"]}
    assert ("claude-memory", "updated") in actions and ("sql", "updated") in actions
