"""The memory folder's key index: a plant reads O(1) files, and nothing stale is ever trusted.

Each "run" is a new store and a new ``StateKeyIndex`` over the same real
state database, as two ``dreamd collect`` processes are. Files are changed
by hand between runs the ways a person or an editor changes them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import dreamd.stores._keyindex as _keyindex
import dreamd.stores.claude_memory as claude_memory
from dreamd.collect.keyindex import StateKeyIndex
from dreamd.statedb import StateDB, open_state
from dreamd.stores import ItemVersion, MemoryKeyIndex
from dreamd.stores._keyindex import FolderVersion, Listing, held_keys, stale_locations
from dreamd.stores.claude_memory import INBOX, ClaudeMemoryStore, render_item
from tests.stores.factories import sample_item

Run = Callable[[], ClaudeMemoryStore]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "user_role.md").write_text("---\nname: role\ntype: user\n---\nA dev.\n")
    return memory


@pytest.fixture
def state(tmp_path: Path) -> StateDB:
    return open_state(tmp_path / "data" / "state.db")


@pytest.fixture
def run(folder: Path, tmp_path: Path) -> Run:
    """A new process's store: a fresh state DB connection and index each time."""

    def start() -> ClaudeMemoryStore:
        state = open_state(tmp_path / "data" / "state.db")
        return ClaudeMemoryStore(folder, index=StateKeyIndex(state))

    return start


def inbox_files(folder: Path) -> list[str]:
    return sorted(p.name for p in (folder / INBOX).iterdir() if not p.name.startswith("."))


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the files the store reads from now on (the real read runs)."""
    names: list[str] = []
    real = claude_memory.read_file

    def spy(folder: int, name: str, *, max_bytes: int) -> bytes | None:
        names.append(name)
        return real(folder, name, max_bytes=max_bytes)

    monkeypatch.setattr(claude_memory, "read_file", spy)
    return names


def test_a_plant_reads_only_new_files_once_the_folder_is_indexed(
    run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After one run has seen 40 items, the next run's plant reads the one hit, not 40 files."""
    first = run()
    for index in range(40):
        first.write(f"op-{index}", sample_item(index))
    assert first.find("op-39") is not None  # as ``plant_once`` confirms: the last file indexed
    reads = count_reads(monkeypatch)
    later = run()
    assert later.find("op-7") is not None
    assert later.find("op-absent") is None
    assert len(reads) == 1  # the file holding op-7, read to confirm it and take its digest
    receipt = later.write("op-new", sample_item(99))
    assert later.find("op-new") == receipt
    assert len(reads) <= 4  # the hit, the new file indexed, the new file confirmed


def test_the_index_persists_in_the_state_db(run: Run, folder: Path, state: StateDB) -> None:
    store = run()
    receipt = store.write("op-1", sample_item(1))
    assert store.find("op-1") == receipt
    rows = {row[0]: row for row in state.load_key_index(f"claude-memory:{folder}")}
    assert rows[receipt.location][5] == ("op-1",)
    assert rows[receipt.location][6] == sample_item(1).source
    assert rows["user_role.md"][5] == ()  # a hand-written memory: read once, no key


def test_an_edited_memory_file_is_seen(run: Run, folder: Path) -> None:
    """Changing a file's key by hand moves the find from the old key to the new one."""
    receipt = run().write("op-old", sample_item(1))
    path = folder / receipt.location
    path.write_bytes(path.read_bytes().replace(b"op_key: op-old", b"op_key: op-new"))
    later = run()
    assert later.find("op-old") is None
    found = later.find("op-new")
    assert found is not None and found.location == receipt.location
    assert later.write("op-old", sample_item(1)).location != receipt.location  # planted anew


def test_a_deleted_item_is_planted_again(run: Run, folder: Path) -> None:
    receipt = run().write("op-1", sample_item(1))
    (folder / receipt.location).unlink()
    later = run()
    assert later.find("op-1") is None
    again = later.write("op-1", sample_item(1))
    assert (folder / again.location).exists()
    assert len(inbox_files(folder)) == 1


def test_a_changed_file_version_is_read_again_even_with_size_and_mtime_restored(
    run: Run, folder: Path
) -> None:
    """Same length, same modification time, other key: the change time gives it away."""
    receipt = run().write("op-aaaa", sample_item(1))
    path = folder / receipt.location
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"op-aaaa", b"op-bbbb"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    later = run()
    assert later.find("op-aaaa") is None
    assert later.find("op-bbbb") is not None


def test_a_file_replaced_by_a_rename_is_read_again(run: Run, folder: Path) -> None:
    receipt = run().write("op-aaaa", sample_item(1))
    path = folder / receipt.location
    other = folder / INBOX / ".replacement.tmp"
    other.write_bytes(render_item("op-cccc", sample_item(1)))
    os.utime(other, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    other.replace(path)
    later = run()
    assert later.find("op-aaaa") is None
    assert later.find("op-cccc") is not None


def test_a_file_added_by_hand_is_found_and_not_planted_twice(run: Run, folder: Path) -> None:
    """An item copied in by hand (or by the dream's gate, accepted) holds its key already."""
    run().write("op-1", sample_item(1))  # the folder is indexed
    (folder / "project_by_hand.md").write_bytes(render_item("op-hand", sample_item(2)))
    later = run()
    receipt = later.write("op-hand", sample_item(2))
    assert receipt.location == "project_by_hand.md"
    assert len(inbox_files(folder)) == 1


def test_an_accepted_item_moved_out_of_the_inbox_is_still_found(run: Run, folder: Path) -> None:
    """The gate moves ``.inbox/x.md`` to ``x.md``: found at its new place, not planted again."""
    receipt = run().write("op-1", sample_item(1))
    name = receipt.location.split("/")[1]
    (folder / receipt.location).rename(folder / name)
    later = run()
    found = later.find("op-1")
    assert found is not None and found.location == name
    assert later.write("op-1", sample_item(1)).location == name


def test_items_from_sees_a_source_edited_by_hand(run: Run, folder: Path) -> None:
    store = run()
    store.write("op-1", sample_item(1))
    source = sample_item(1).source
    assert len(store.items_from(source)) == 1
    (receipt_path,) = (folder / INBOX).glob("*.md")
    receipt_path.write_bytes(receipt_path.read_bytes().replace(b"devbox", b"otherbox"))
    later = run()
    assert later.items_from(source) == []
    assert len(later.items_from(source.replace("devbox", "otherbox"))) == 1


def test_a_lying_index_entry_is_never_trusted(folder: Path) -> None:
    """An entry claiming a key at a file's current version is checked against the file."""
    index = MemoryKeyIndex()
    store = ClaudeMemoryStore(folder, index=index)
    status = (folder / "user_role.md").stat()
    lie = (ItemVersion.of(status), frozenset({"op-x"}), "")
    index.update(store.name, {"user_role.md": lie}, ())
    assert store.find("op-x") is None


def test_stale_and_held_are_pure_rules() -> None:
    v1, v2 = ItemVersion(1, 10, 100, 100), ItemVersion(1, 10, 100, 101)
    remembered = {"a.md": (v1, frozenset({"k"}), ""), "gone.md": (v1, frozenset(), "")}
    current = {"a.md": v2, "b.md": v1}
    assert stale_locations(remembered, current) == (["a.md", "b.md"], ["gone.md"])
    assert held_keys(remembered, current, "k") == []  # a.md changed: not trusted
    assert held_keys(remembered, {"a.md": v1}, "k") == ["a.md"]


# --- one plan, one listing ----------------------------------------------------------------


def count_listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The prefix of each folder the store lists from now on (the real listing runs)."""
    prefixes: list[str] = []
    real = claude_memory.folder_versions

    def spy(folder: int, prefix: str, wanted: Callable[[str], bool]) -> dict[str, ItemVersion]:
        prefixes.append(prefix)
        return real(folder, prefix, wanted)

    monkeypatch.setattr(claude_memory, "folder_versions", spy)
    return prefixes


@pytest.fixture
def settled_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders count as listed long after their last change (the tests change them within
    milliseconds; a real plan's folder last changed in an earlier run)."""
    monkeypatch.setattr(_keyindex, "settled", lambda version, listed_ns: True)


@pytest.mark.usefixtures("settled_folders")
def test_a_plan_lists_the_folder_once(
    run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the collector asks for one planted item (items_from, find, write, find) lists
    the folder once inside ``planning``, and once per look-up outside it."""
    first = run()
    for index in range(5):
        first.write(f"op-{index}", sample_item(index))
    listings = count_listings(monkeypatch)
    store = run()
    with store.planning():
        assert len(store.items_from(sample_item(1).source)) == 5
        assert store.find("op-new") is None
        receipt = store.write("op-new", sample_item(9))
        assert store.find("op-new") == receipt
        assert len(store.items_from(sample_item(1).source)) == 6
    assert listings == [f"{INBOX}/", ""]
    assert store.find("op-new") == receipt
    assert listings == [f"{INBOX}/", "", f"{INBOX}/", ""]


@pytest.mark.usefixtures("settled_folders")
def test_inside_a_plan_a_write_by_another_process_is_seen_under_the_lock(
    run: Run, folder: Path
) -> None:
    """The plan listed the folder before another writer planted the same key: the write,
    under the lock, sees the folder changed, lists it again and plants nothing."""
    run().write("op-0", sample_item(0))  # the inbox exists when the plan lists it
    store = run()
    with store.planning():
        assert store.find("op-x") is None
        theirs = run().write("op-x", sample_item(1))
        assert store.write("op-x", sample_item(1)) == theirs
    assert len(inbox_files(folder)) == 2


def test_a_plan_that_listed_too_soon_after_a_change_lists_again_before_writing(
    run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder changed within a timestamp tick of the listing may change again unseen: the
    write does not trust that listing."""
    run().write("op-1", sample_item(1))  # the inbox changed just now
    listings = count_listings(monkeypatch)
    store = run()
    with store.planning():
        assert store.find("op-2") is None
        store.write("op-2", sample_item(2))
    assert listings == [f"{INBOX}/", "", f"{INBOX}/", ""]


def test_a_hand_edit_during_a_plan_is_seen_by_the_next_plan(run: Run, folder: Path) -> None:
    """A plan sees the folder as it first listed it; the store's next plan lists it anew."""
    store = run()
    receipt = store.write("op-old", sample_item(1))
    path = folder / receipt.location
    with store.planning():
        assert store.find("op-new") is None
        path.write_bytes(path.read_bytes().replace(b"op_key: op-old", b"op_key: op-new"))
    with store.planning():
        assert store.find("op-old") is None
        found = store.find("op-new")
    assert found is not None and found.location == receipt.location


def test_a_listed_item_moved_during_a_plan_is_found_at_its_new_place(
    run: Run, folder: Path
) -> None:
    """A hit the plan's listing names that no longer holds the key is looked up afresh."""
    store = run()
    receipt = store.write("op-1", sample_item(1))
    name = receipt.location.split("/")[1]
    with store.planning():
        assert store.find("op-1") == receipt
        (folder / receipt.location).rename(folder / name)
        found = store.find("op-1")
        assert found is not None and found.location == name


def test_a_plan_finds_its_own_writes_and_updates(run: Run, folder: Path) -> None:
    store = run()
    source = sample_item(1).source
    with store.planning():
        first = store.write("op-a", sample_item(1))
        second = store.write("op-b", sample_item(2))
        assert store.find("op-a") == first and store.find("op-b") == second
        updated = store.update("op-c", first, sample_item(1, name=sample_item(1).name))
        assert updated is not None and store.find("op-c") == updated
        assert store.find("op-a") is not None and store.find("op-a") != first  # new digest
        assert [h.receipt.location for h in store.items_from(source)] == sorted(
            [first.location, second.location]
        )


def test_a_folder_is_settled_a_tick_after_its_last_change() -> None:
    """Fine timestamps: settled once the listing began more than a tick after the change;
    a time of whole seconds may come from a file system that keeps no more."""
    fine = FolderVersion(1, 10_123_456_789, 10_123_456_789)
    assert not _keyindex.settled(fine, fine.ctime_ns + _keyindex.TICK_NS)
    assert _keyindex.settled(fine, fine.ctime_ns + _keyindex.TICK_NS + 1)
    whole = FolderVersion(1, 10_000_000_000, 10_000_000_000)
    assert not _keyindex.settled(whole, whole.ctime_ns + _keyindex.TICK_NS + 1)
    assert _keyindex.settled(whole, whole.ctime_ns + _keyindex.COARSE_TICK_NS + 1)


def test_a_listing_is_still_true_only_for_the_folders_it_listed_unchanged() -> None:
    seen = FolderVersion(1, 100, 100)
    listing = Listing({"": seen}, listed_ns=10**12)
    assert listing.still_true({"": seen})
    assert not listing.still_true({"": FolderVersion(1, 100, 101)})
    assert not listing.still_true({"": seen, f"{INBOX}/": seen})
    listing.wrote("", "x.md", ["op-x"], "")
    assert not listing.still_true({"": seen})  # our own write: no longer the listed folder
    assert listing.holding("op-x") == ["x.md"]
