"""The Claude Code memory folder store: inbox topic files, names, containment, crashes."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.dream.folder.inventory import parse_memory_file
from dreamd.errors import StoreError
from dreamd.fs import MAX_NAME_BYTES, check_name, is_temp_name, slugify
from dreamd.stores import Quote, Receipt
from dreamd.stores.claude_memory import (
    INBOX,
    STALE_TEMP_SECONDS,
    ClaudeMemoryStore,
    file_names,
    parse_item,
    render_item,
)
from tests.stores.factories import HOSTILE_NAMES, rich_item, sample_item

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp()


def snapshot(folder: Path) -> dict[str, bytes]:
    """Bytes of every file under ``folder`` except the inbox."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and INBOX not in path.relative_to(folder).parts
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A memory folder with an index and two accepted memories."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("- [Old](project_decision_0.md) — an old one\n")
    (memory / "project_decision_0.md").write_text("---\nname: old\ntype: project\n---\nOld.\n")
    (memory / "user_role.md").write_text("---\nname: role\ntype: user\n---\nA dev.\n")
    return memory


def test_items_go_only_into_the_inbox(folder: Path) -> None:
    """Writing never changes, adds or removes anything outside ``.inbox/``."""
    before = snapshot(folder)
    store = ClaudeMemoryStore(folder)
    receipts = [store.write(f"op-{i}", sample_item(i)) for i in range(6)]
    assert snapshot(folder) == before
    assert all(receipt.location.startswith(f"{INBOX}/") for receipt in receipts)


def test_the_file_is_a_topic_file_with_front_matter_and_provenance(folder: Path) -> None:
    """Front matter holds name, description, type, the origin session and a metadata block."""
    item = sample_item(4)
    receipt = ClaudeMemoryStore(folder).write("op-4", item)
    text = (folder / receipt.location).read_text()
    block, body = text.removeprefix("---\n").split("\n---\n", 1)
    front = yaml.safe_load(block)
    assert front == {
        "name": "decision 1",
        "description": "We decided thing 4",
        "type": "project",
        "originSessionId": "0a1f-session",
        "metadata": {
            "source": "source:claude-code:devbox:0a1f-session",
            "collected": date(2026, 11, 30),
            "op_key": "op-4",
            "confidence": 0.75,
            "category": "Decision",
            "project": "/home/dev/repo",
            "quotes": [
                {"message": "claude-code:devbox:0a1f-session:5", "text": "let's go with approach 4"}
            ],
        },
    }
    assert body == "Use approach 4 because it is simpler.\n"


def test_the_dream_reads_an_inbox_file_like_any_topic_file(folder: Path) -> None:
    """The gardener's own parser sees the written file's name, description and type."""
    receipt = ClaudeMemoryStore(folder).write("op-r", rich_item())
    path = folder / receipt.location
    parsed = parse_memory_file(path, path.read_bytes(), datetime.now(UTC))
    assert (parsed.title, parsed.description, parsed.type) == (
        rich_item().name,
        rich_item().description.strip(),  # the dream trims front matter text
        "feedback",
    )


def test_file_names_are_type_and_slug(folder: Path) -> None:
    """A file is named ``<type>_<short_slug>.md`` after the item's name."""
    receipt = ClaudeMemoryStore(folder).write("op-1", sample_item(0, name="Prefer uv, not pip!"))
    assert receipt.location == f"{INBOX}/project_prefer_uv_not_pip.md"


def test_a_long_title_gives_a_few_words_of_file_name(folder: Path) -> None:
    """Only the first four words that carry meaning name the file; function words drop out."""
    title = "Always run the linter before committing to the main branch"
    receipt = ClaudeMemoryStore(folder).write("op-1", sample_item(0, name=title))
    assert receipt.location == f"{INBOX}/project_always_run_linter_before.md"


def test_a_taken_name_gets_a_numbered_suffix(folder: Path) -> None:
    """Names taken in the inbox or by an accepted memory in the folder get -2, -3 …"""
    store = ClaudeMemoryStore(folder)
    locations = [store.write(f"op-{i}", sample_item(0)).location for i in range(3)]
    # project_decision_0.md exists in the folder itself, so the inbox starts at -2
    assert locations == [
        f"{INBOX}/project_decision_0-2.md",
        f"{INBOX}/project_decision_0-3.md",
        f"{INBOX}/project_decision_0-4.md",
    ]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_becomes_one_safe_file_in_the_inbox(folder: Path, name: str) -> None:
    """Path-like, NUL, dot, unicode and overlong names give a visible file inside ``.inbox/``."""
    receipt = ClaudeMemoryStore(folder).write("op-x", sample_item(0, name=name))
    inbox, file_name = receipt.location.split("/")
    assert inbox == INBOX
    assert (folder / INBOX / file_name).is_file()
    assert not file_name.startswith(".") and file_name.endswith(".md")
    assert len(file_name.encode()) <= MAX_NAME_BYTES
    assert [path.name for path in (folder / INBOX).iterdir() if path.suffix == ".md"] == [file_name]


@given(st.text(min_size=1, max_size=300))
def test_any_text_slugifies_to_a_safe_visible_name(text: str) -> None:
    """For every text, the slug is one safe path component that is neither hidden nor temp."""
    slug = slugify(text)
    assert check_name(slug) == slug
    assert not slug.startswith(".") and "/" not in slug and "\x00" not in slug
    assert not is_temp_name(slug)
    first = next(file_names(sample_item(0, name=text if text.strip() else "x")))
    assert check_name(first) == first


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=120).filter(lambda text: bool(text.strip())))
def test_any_item_name_is_written_inside_the_inbox(name: str) -> None:
    """Whatever an item is called, its file lands in the inbox and reads back intact."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        store = ClaudeMemoryStore(root / "memory")
        item = sample_item(0, name=name)
        receipt = store.write("op", item)
        written = [path for path in root.rglob("*") if path.is_file()]
        assert {path.parent for path in written} == {root / "memory" / INBOX}
        assert store.read(receipt) == item


def test_an_inbox_that_is_a_symlink_is_refused(folder: Path, tmp_path: Path) -> None:
    """A ``.inbox`` link pointing out of the folder is not written through."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / INBOX).symlink_to(outside)
    with pytest.raises(StoreError, match="symbolic link"):
        ClaudeMemoryStore(folder).write("op-1", sample_item(1))
    assert list(outside.iterdir()) == []


def test_a_symlink_planted_at_the_file_name_is_never_written_through(
    folder: Path, tmp_path: Path
) -> None:
    """A link squatting on the item's name is skipped: the target keeps its bytes."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    (folder / INBOX).mkdir()
    (folder / INBOX / "project_decision_1.md").symlink_to(victim)
    receipt = ClaudeMemoryStore(folder).write("op-1", sample_item(1))
    assert receipt.location == f"{INBOX}/project_decision_1-2.md"
    assert victim.read_bytes() == b"precious\n"


def test_a_link_is_never_read_as_an_item(folder: Path, tmp_path: Path) -> None:
    """``find`` does not follow a link in the inbox to a file elsewhere holding the key."""
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_bytes(render_item("op-1", sample_item(1)))
    (folder / INBOX).mkdir()
    (folder / INBOX / "project_decision_1.md").symlink_to(elsewhere)
    assert ClaudeMemoryStore(folder).find("op-1") is None


@pytest.mark.parametrize(
    "location", ["../user_role.md", "/etc/passwd", f"{INBOX}/../../x.md", "a/b/c.md", "MEMORY.md"]
)
def test_a_forged_receipt_location_is_never_read(folder: Path, location: str) -> None:
    """Locations outside the folder, nested deeper, or naming the index read as nothing."""
    store = ClaudeMemoryStore(folder)
    receipt = store.write("op-1", sample_item(1))
    forged = Receipt(receipt.store, "op-1", location, receipt.digest)
    assert not store.verify(forged, "op-1")
    assert store.read(forged) is None


def test_a_temp_file_holding_a_whole_item_is_not_an_item(folder: Path) -> None:
    """Temp files count for nothing, even complete ones: only a published name is an item."""
    (folder / INBOX).mkdir()
    (folder / INBOX / ".project_decision_1.md.a1b2c3d4e5f6.tmp").write_bytes(
        render_item("op-1", sample_item(1))
    )
    assert ClaudeMemoryStore(folder).find("op-1") is None


def test_a_crash_between_publishing_and_cleanup_still_counts_once(folder: Path) -> None:
    """A temp file left hard-linked to the published file does not make a second item."""
    store = ClaudeMemoryStore(folder)
    receipt = store.write("op-1", sample_item(1))
    os.link(folder / receipt.location, folder / INBOX / f".{receipt.location[7:]}.0123456789ab.tmp")
    assert store.find("op-1") == receipt
    assert store.write("op-1", sample_item(1)) == receipt
    assert len(list((folder / INBOX).glob("*.md"))) == 1


def test_stale_temp_files_are_swept_and_fresh_ones_kept(folder: Path) -> None:
    """A write removes temp files older than the threshold, never a younger one in progress."""
    (folder / INBOX).mkdir()
    stale = folder / INBOX / ".project_a.md.000000000000.tmp"
    fresh = folder / INBOX / ".project_b.md.111111111111.tmp"
    for path in (stale, fresh):
        path.write_bytes(b"partial")
    os.utime(stale, (NOW - STALE_TEMP_SECONDS - 1, NOW - STALE_TEMP_SECONDS - 1))
    os.utime(fresh, (NOW - 60, NOW - 60))
    ClaudeMemoryStore(folder, clock=lambda: NOW).write("op-1", sample_item(1))
    assert not stale.exists()
    assert fresh.exists()


def test_an_item_accepted_into_the_folder_is_still_found(folder: Path) -> None:
    """After the gate moves an item out of the inbox, its key is found and not planted again."""
    store = ClaudeMemoryStore(folder)
    receipt = store.write("op-1", sample_item(1))
    (folder / receipt.location).rename(folder / "project_decision_1.md")
    moved = store.find("op-1")
    assert moved is not None and moved.location == "project_decision_1.md"
    assert store.verify(moved, "op-1")
    assert store.write("op-1", sample_item(1)) == moved
    assert list((folder / INBOX).glob("*.md")) == []


def test_keys_of_a_merged_memory_are_found(folder: Path) -> None:
    """A memory the gate merged several items into answers for each of their keys."""
    (folder / "project_merged.md").write_text(
        "---\nname: merged\ntype: project\nmetadata:\n  op_keys: [op-1, op-2]\n---\nBoth.\n"
    )
    store = ClaudeMemoryStore(folder)
    for key in ("op-1", "op-2"):
        receipt = store.find(key)
        assert receipt is not None and receipt.location == "project_merged.md"
        assert store.verify(receipt, key)
    assert store.find("op-3") is None


def test_a_moved_item_fails_its_old_receipt(folder: Path) -> None:
    """``verify`` checks the receipt's own location, not just that the key exists somewhere."""
    store = ClaudeMemoryStore(folder)
    receipt = store.write("op-1", sample_item(1))
    (folder / receipt.location).rename(folder / "project_decision_1.md")
    assert not store.verify(receipt, "op-1")


def test_find_in_a_missing_folder_is_none_and_creates_nothing(tmp_path: Path) -> None:
    """Looking up a key never creates the folder or its inbox."""
    store = ClaudeMemoryStore(tmp_path / "absent")
    assert store.find("op-1") is None
    assert not (tmp_path / "absent").exists()


def test_a_file_where_the_inbox_belongs_is_a_store_error(folder: Path) -> None:
    """A file system error becomes a StoreError with the OSError chained."""
    (folder / INBOX).write_text("not a folder")
    with pytest.raises(StoreError) as raised:
        ClaudeMemoryStore(folder).write("op-1", sample_item(1))
    assert isinstance(raised.value.__cause__, OSError)


def test_text_that_cannot_be_written_faithfully_is_refused(folder: Path) -> None:
    """An item whose text is not valid Unicode is refused before anything is written."""
    broken = sample_item(1, name="bad \ud800 surrogate")
    with pytest.raises(StoreError):
        ClaudeMemoryStore(folder).write("op-1", broken)
    assert not (folder / INBOX).exists() or list((folder / INBOX).glob("*.md")) == []


def test_render_and_parse_are_inverse_on_awkward_text() -> None:
    """Quotes, colons, separators, CRLF and control characters all read back unchanged."""
    item = rich_item()
    assert parse_item(render_item("key: with colon", item)) == ("key: with colon", item)


def test_multiline_quotes_are_written_as_readable_blocks() -> None:
    """A multi-line quote is a ``|`` block in the file, not an escaped one-liner."""
    quote = Quote("claude-code:devbox:0a1f-session:3", "first line\nsecond line")
    text = render_item("op", dataclasses.replace(sample_item(1), quotes=(quote,))).decode()
    assert "text: |-\n      first line\n      second line\n" in text


def test_an_edited_file_no_longer_parses_as_the_same_item(folder: Path) -> None:
    """Editing the body of an inbox file fails ``verify`` and changes what ``read`` returns."""
    store = ClaudeMemoryStore(folder)
    receipt = store.write("op-1", sample_item(1))
    path = folder / receipt.location
    path.write_text(path.read_text().replace("simpler", "faster"))
    assert not store.verify(receipt, "op-1")
    back = store.read(receipt)
    assert back is not None and "faster" in back.body


def test_a_fifo_in_the_folder_does_not_hang_find(folder: Path) -> None:
    """A named pipe called like a topic file is skipped, not opened for a blocking read."""
    os.mkfifo(folder / "project_pipe.md")
    assert ClaudeMemoryStore(folder).find("op-1") is None
