"""Gemini CLI's memory file: clean ``- <fact>`` lines Gemini reads, provenance beside them."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from dreamd.dream.gates.gemini import dream_gemini, gate_facts
from dreamd.stores.gemini_md import (
    SECTION_HEADER,
    GeminiStore,
    append_fact,
    default_path,
    gemini_fact,
    section_facts,
)
from dreamd.stores.memory_md import parse_records
from dreamd.stores.registry import STORES, StoreContext
from tests.stores.factories import rich_item, sample_item

NOW = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)
MINE = "# My notes\n\nBe brief.\n\n## Gemini Added Memories\n- My preferred language is Python.\n"


def gate(store: GeminiStore) -> list[str]:
    """Run the real gate and return its report lines."""
    run = dream_gemini(store, run_dir=store.folder.parent / "runs" / "r1", now=NOW, dry_run=False)
    return run.lines


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", "## Gemini Added Memories\n- F\n"),
        ("# Mine\n\nintro", "# Mine\n\nintro\n\n## Gemini Added Memories\n- F\n"),
        ("x\n", "x\n\n## Gemini Added Memories\n- F\n"),
        ("x\n\n", "x\n\n## Gemini Added Memories\n- F\n"),
        (
            "# M\n\n## Gemini Added Memories\n\n- old\n\n\n## Other\nx\n\n",
            "# M\n\n## Gemini Added Memories\n- old\n- F\n\n## Other\nx\n",
        ),
        ("## Gemini Added Memories", "## Gemini Added Memories\n- F\n"),
    ],
)
def test_a_fact_is_added_exactly_as_save_memory_adds_it(before: str, after: str) -> None:
    """The bytes Gemini CLI's ``computeGlobalMemoryContent`` gives for the same file and fact."""
    assert append_fact(before, "F") == after


def test_the_fact_is_the_body_on_one_clean_line() -> None:
    """Line breaks, emphasis, leading dashes and angle brackets go, as ``save_memory`` does."""
    item = dataclasses.replace(
        sample_item(1), body="-- Use <uv> for installs.\n**Why:** pip is slow."
    )
    assert gemini_fact(item) == "Use uv for installs. Why: pip is slow."


def test_section_facts_are_the_bullets_under_the_heading_only() -> None:
    """Bullets of other sections are not Gemini's memories."""
    text = "- top\n## Gemini Added Memories\n- one\ntext\n- two\n## Later\n- three\n"
    assert section_facts(text) == ["- one", "- two"]


def test_a_write_holds_the_fact_beside_gemini_md_and_never_touches_it(tmp_path: Path) -> None:
    """GEMINI.md keeps its bytes; the fact waits in GEMINI.inbox.md with its item."""
    path = tmp_path / ".gemini" / "GEMINI.md"
    path.parent.mkdir()
    path.write_text(MINE)
    store = GeminiStore(path)
    receipt = store.write("op-1", sample_item(1))
    assert path.read_text() == MINE
    (record,) = parse_records((path.parent / "GEMINI.inbox.md").read_text())
    assert record.item == sample_item(1)
    assert store.read(receipt) == sample_item(1)


def test_accepted_facts_reach_gemini_md_as_plain_lines(tmp_path: Path) -> None:
    """After the gate GEMINI.md gains ``- <fact>`` lines and nothing else: no comment, no tag."""
    path = tmp_path / ".gemini" / "GEMINI.md"
    path.parent.mkdir()
    path.write_text(MINE)
    store = GeminiStore(path)
    store.write("op-1", sample_item(1))
    store.write("op-rich", rich_item())
    lines = gate(store)
    assert sum(line.startswith("accepted") for line in lines) == 2, lines
    text = path.read_text()
    assert text.startswith(MINE)
    added = text[len(MINE) :].splitlines()
    assert added == [f"- {gemini_fact(sample_item(1))}", f"- {gemini_fact(rich_item())}"]
    assert "dreamd" not in text and "<!--" not in text and "source:" not in text


def test_an_accepted_fact_keeps_its_provenance_in_the_ledger(tmp_path: Path) -> None:
    """The ledger holds the item under its line; the key is still found and verified."""
    store = GeminiStore(tmp_path / "GEMINI.md")
    store.write("op-1", sample_item(1))
    gate(store)
    (record,) = parse_records((tmp_path / "GEMINI.sources.md").read_text())
    assert record.item == sample_item(1) and record.op_key == "op-1"
    receipt = store.find("op-1")
    assert receipt is not None and receipt.location.startswith("GEMINI.md#")
    assert store.verify(receipt, "op-1")
    assert (tmp_path / "GEMINI.inbox.md").read_text().count("dreamd:item") == 0


def test_a_fact_saying_what_gemini_already_remembers_is_merged(tmp_path: Path) -> None:
    """A near-duplicate of a line Gemini saved leaves GEMINI.md as it is; the ledger links it."""
    path = tmp_path / "GEMINI.md"
    path.write_text(MINE)
    store = GeminiStore(path)
    item = dataclasses.replace(sample_item(1), body="My preferred programming language is Python.")
    store.write("op-1", item)
    lines = gate(store)
    assert lines[0].startswith("merged"), lines
    assert path.read_text() == MINE
    (record,) = parse_records((tmp_path / "GEMINI.sources.md").read_text())
    assert record.entry is not None and record.entry.text == "- My preferred language is Python.\n"
    assert store.find("op-1") is not None


def test_an_untraceable_fact_is_rejected_to_the_trash(tmp_path: Path) -> None:
    """No quote: the record goes to the day's trash, GEMINI.md is not created."""
    store = GeminiStore(tmp_path / "GEMINI.md")
    store.write("op-1", dataclasses.replace(sample_item(1), quotes=()))
    lines = gate(store)
    assert lines[0].startswith("rejected") and "untraceable" in lines[0]
    assert not (tmp_path / "GEMINI.md").exists()
    trashed = list((tmp_path / ".trash").rglob("GEMINI.inbox.md"))
    assert len(trashed) == 1 and "op-1" in trashed[0].read_text()


def test_a_fact_line_edited_in_gemini_md_no_longer_shows_its_item(tmp_path: Path) -> None:
    """Once the user rewrites the line, the receipt of the accepted fact fails to verify."""
    path = tmp_path / "GEMINI.md"
    store = GeminiStore(path)
    store.write("op-1", sample_item(1))
    gate(store)
    receipt = store.find("op-1")
    assert receipt is not None
    path.write_text(path.read_text().replace("simpler", "faster"))
    assert not store.verify(receipt, "op-1")


def test_a_rerun_after_a_crash_adds_no_line_twice(tmp_path: Path) -> None:
    """Keys the ledger holds, with their line in GEMINI.md, are accepted again without a change."""
    store = GeminiStore(tmp_path / "GEMINI.md")
    store.write("op-1", sample_item(1))
    held = parse_records((tmp_path / "GEMINI.inbox.md").read_text())
    _, text = gate_facts(held, "", [], now=NOW, views={}, where=store.path)
    ledger = parse_records(f"{text.splitlines()[1]}\n{held[0].text.splitlines()[1]}\n")
    again, same = gate_facts(held, text, ledger, now=NOW, views={}, where=store.path)
    assert (again[0].verdict, again[0].reason, same) == ("accept", "already in GEMINI.md", text)


def test_the_default_file_is_gemini_clis_global_context_file(tmp_path: Path) -> None:
    """``~/.gemini/GEMINI.md``, or under ``$GEMINI_CLI_HOME`` when it is set."""
    context = StoreContext(data_dir=tmp_path, machine="m", home=tmp_path / "h", env={})
    assert default_path(context) == tmp_path / "h" / ".gemini" / "GEMINI.md"
    moved = msgspec.structs.replace(context, env={"GEMINI_CLI_HOME": str(tmp_path / "g")})
    assert default_path(moved) == tmp_path / "g" / ".gemini" / "GEMINI.md"


def test_the_store_registers_as_gemini_with_its_own_gate() -> None:
    """``collect.stores`` accepts ``gemini``; the dream runs the ``gemini`` gate over it."""
    spec = STORES["gemini"]
    assert (spec.gate, spec.per_project) == ("gemini", False)
    assert SECTION_HEADER == "## Gemini Added Memories"
