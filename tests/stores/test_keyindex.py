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

import dreamd.stores.claude_memory as claude_memory
from dreamd.collect.keyindex import StateKeyIndex
from dreamd.statedb import StateDB, open_state
from dreamd.stores import ItemVersion, MemoryKeyIndex
from dreamd.stores._keyindex import held_keys, stale_locations
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
