"""The sectioned MEMORY.md store: held records, the seed 003 entry shape, byte-exact edits."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from dreamd.errors import StoreError
from dreamd.stores.memory_md import (
    MemoryMdStore,
    entry_text,
    parse_records,
    section_for,
    session_tag,
)
from dreamd.stores.sectioned import (
    SEED_SECTIONS,
    entries,
    insert_block,
    parse_tail,
    split_lines,
    with_sources,
)
from tests.conftest import SHARED_FIXTURES
from tests.stores.factories import rich_item, sample_item

INDEX = "# Notes\n\n## Rules\n- Keep PRs small [ses_1]\n\n## Gotchas\n- CI caches break [ses_2]\n"


def test_a_write_holds_the_entry_beside_memory_md_and_never_touches_it(tmp_path: Path) -> None:
    """MEMORY.md keeps its bytes; the entry waits in MEMORY.inbox.md under its section."""
    folder = tmp_path / "memory"
    folder.mkdir()
    index = folder / "MEMORY.md"
    index.write_bytes(INDEX.encode())
    store = MemoryMdStore(index)
    store.write("op-1", sample_item(1))
    assert index.read_bytes() == INDEX.encode()
    held = (folder / "MEMORY.inbox.md").read_text()
    (entry,) = entries(held)
    assert entry.section == "Architecture decisions"
    assert entry.text == (
        '- Use approach 1 because it is simpler. <!-- dreamd:op ["op-1"] --> [0a1f-session]\n'
    )
    assert sorted(p.name for p in folder.iterdir()) == [
        ".MEMORY.inbox.md.lock", "MEMORY.inbox.md", "MEMORY.md",
    ]  # fmt: skip


def test_every_entry_is_one_line_ending_in_its_session(tmp_path: Path) -> None:
    """A multi-line body becomes a one-line entry; the record keeps the body exactly."""
    store = MemoryMdStore(tmp_path / "MEMORY.md")
    receipt = store.write("op-rich", rich_item())
    (record,) = parse_records((tmp_path / "MEMORY.inbox.md").read_text())
    assert record.entry is not None and record.entry.first == record.entry.last
    assert record.entry.tail.tags == ("0a1f-session",)
    assert store.read(receipt) == rich_item()


@pytest.mark.parametrize(
    ("category", "section"),
    [
        ("Rule", "Rules"),
        ("Preference", "Rules"),
        ("Decision", "Architecture decisions"),
        ("Gotcha", "Gotchas"),
        ("Pattern", "Patterns"),
        ("Reference", "Discovered durable knowledge"),
        ("Fact", "Discovered durable knowledge"),
    ],
)
def test_the_category_names_the_seed_section(category: str, section: str) -> None:
    """Rules and preferences, decisions, gotchas, patterns; the rest is durable knowledge."""
    assert section_for(dataclasses.replace(sample_item(), category=category)) == section


def test_session_tags_are_ids_that_read_as_sources() -> None:
    """The session id, unsafe characters made ``_``; an id that reads as a word gets its tool."""
    assert session_tag("source:claude-code:box:ses_01J") == "ses_01J"
    assert session_tag("source:pi:box:a]b[c") == "a_b_c"
    assert session_tag("source:pi:box:abcdef") == "pi:abcdef"


def test_entry_text_defuses_comments_and_control_characters() -> None:
    """A body cannot open an HTML comment, hide the tail or carry control characters."""
    text = entry_text("a <!-- b\n\n c --> d\x00e\x1bf")
    assert text == "a &lt;!-- b c --&gt; d\ufffde\ufffdf"
    assert "\n" not in text


def test_a_body_that_looks_like_a_tail_does_not_fool_the_parser(tmp_path: Path) -> None:
    """Brackets and fake op comments in the body stay text; the real tail is the last one."""
    body = 'see [ses_9] and <!-- dreamd:op ["forged"] --> [x-1]'
    store = MemoryMdStore(tmp_path / "MEMORY.md")
    receipt = store.write("op-1", dataclasses.replace(sample_item(1), body=body))
    assert store.find("forged") is None and store.find("op-1") == receipt
    (record,) = parse_records((tmp_path / "MEMORY.inbox.md").read_text())
    assert record.entry is not None and record.entry.tail.op_keys == ("op-1",)


def test_insert_keeps_every_other_byte_and_the_line_endings() -> None:
    """A CRLF file gets CRLF lines; nothing else changes, the order of the seed is kept."""
    crlf = INDEX.replace("\n", "\r\n")
    new = insert_block(crlf, "Architecture decisions", "- x [s-1]\n")
    assert new.replace("## Architecture decisions\r\n- x [s-1]\r\n\r\n", "") == crlf
    assert new.index("## Rules") < new.index("## Architecture") < new.index("## Gotchas")
    appended = insert_block(INDEX, "Rules", "- y [s-2]\n")
    assert appended == INDEX.replace("small [ses_1]\n", "small [ses_1]\n- y [s-2]\n")


def test_insert_into_a_file_without_a_final_newline_or_sections() -> None:
    """The last line gains its newline; a missing section goes to the end (or a new file)."""
    assert insert_block("# T\ntext", "Patterns", "- p [s-1]\n") == (
        "# T\ntext\n\n## Patterns\n- p [s-1]\n"
    )
    assert insert_block("", "Rules", "- r [s-1]\n").endswith("\n\n## Rules\n- r [s-1]\n")


def test_headings_inside_code_fences_are_not_sections() -> None:
    """A ``## Rules`` inside a fence is text: the entry goes to the real section."""
    text = "```\n## Rules\n- not an entry\n```\n\n## Rules\n- real [s-1]\n"
    new = insert_block(text, "Rules", "- added [s-2]\n")
    assert new == text + "- added [s-2]\n"
    assert [e.text for e in entries(text)] == ["- real [s-1]\n"]


def test_adding_sources_keeps_the_words_and_the_marks() -> None:
    """Merging adds keys and tags once; ``[unverified]`` marks and the line ending stay."""
    merged = with_sources("- Use uv [ses_1] [unverified]\n", ["k1"], ["ses_1", "s-2"])
    assert merged == '- Use uv <!-- dreamd:op ["k1"] --> [ses_1, s-2] [unverified]\n'
    assert parse_tail(merged).op_keys == ("k1",)
    assert with_sources("- bare [TODO]\n", [], ["s-3"]) == "- bare [TODO] [s-3]\n"


def test_a_symlink_in_place_of_the_holding_file_is_never_written_through(tmp_path: Path) -> None:
    """A link planted as MEMORY.inbox.md is refused; its target keeps its bytes."""
    outside = tmp_path / "outside.md"
    outside.write_text("precious\n")
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.inbox.md").symlink_to(outside)
    with pytest.raises(StoreError, match="cannot be read"):
        MemoryMdStore(folder / "MEMORY.md").write("op-1", sample_item(1))
    assert outside.read_text() == "precious\n"


def test_a_held_entry_edited_by_hand_no_longer_verifies(tmp_path: Path) -> None:
    """The receipt covers the entry line too, not only the JSON record."""
    store = MemoryMdStore(tmp_path / "MEMORY.md")
    receipt = store.write("op-1", sample_item(1))
    held = tmp_path / "MEMORY.inbox.md"
    held.write_text(held.read_text().replace("simpler. <!--", "simpler!! <!--"))
    assert not store.verify(receipt, "op-1")


def test_an_accepted_entry_is_found_by_its_op_comment(tmp_path: Path) -> None:
    """Once in MEMORY.md the entry is found by key; removing its comment loses it."""
    index = tmp_path / "MEMORY.md"
    index.write_text(INDEX.replace("small [ses_1]", 'small <!-- dreamd:op ["k9"] --> [ses_1]'))
    store = MemoryMdStore(index)
    receipt = store.find("k9")
    assert receipt is not None and receipt.location.startswith("MEMORY.md#")
    assert store.verify(receipt, "k9") and store.read(receipt) is None  # no ledger record
    index.write_text(INDEX)
    assert store.find("k9") is None and not store.verify(receipt, "k9")


@pytest.fixture
def fixture_index() -> Path:
    """The real single-file MEMORY.md (19 sections, 124 bullets), or skip."""
    path = SHARED_FIXTURES / "memory" / "ActorForth__ActorForth__claude-memory" / "MEMORY.md"
    if not path.is_file():
        pytest.skip(f"shared memory fixtures not found at {path}")
    return path


def test_a_real_memory_md_keeps_every_line_through_writes(
    fixture_index: Path, tmp_path: Path
) -> None:
    """Writing never touches the real file; entries under seed sections are added after it."""
    copy = tmp_path / "MEMORY.md"
    shutil.copyfile(fixture_index, copy)
    copy.chmod(0o644)
    store = MemoryMdStore(copy)
    for index in range(5):
        store.write(f"op-{index}", sample_item(index))
    assert copy.read_bytes() == fixture_index.read_bytes()
    held = parse_records((tmp_path / "MEMORY.inbox.md").read_text())
    assert [r.op_key for r in held] == [f"op-{i}" for i in range(5)]
    assert {e.section for e in entries(copy.read_text())} & set(SEED_SECTIONS) == set()
    lines = split_lines(copy.read_text())
    assert len(lines) == 164


def test_a_long_body_is_cut_in_the_entry_and_kept_whole_in_the_record(tmp_path: Path) -> None:
    """MEMORY.md stays dense: at most 400 characters, cut between words; the item is exact."""
    body = " ".join(f"word{index}" for index in range(200))
    store = MemoryMdStore(tmp_path / "memory" / "MEMORY.md")
    receipt = store.write("op-1", dataclasses.replace(sample_item(1), body=body))
    text = entry_text(body)
    assert len(text) <= 400 and text.endswith("…") and body.startswith(text[:-1])
    assert text[:-1].split(" ")[-1] in body.split(" ")  # no word cut in half
    assert store.read(receipt) is not None and store.read(receipt).body == body  # type: ignore[union-attr]
