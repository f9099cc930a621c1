"""Discovering a folder again: a file unchanged since the last walk keeps its reference,
any change to it (size, time, identity) gives a new one, and a removed file is gone.

``discover_files`` hands back the last complete walk's reference for a file whose
version is unchanged (the service rescans every few minutes); these tests prove that
nothing stale survives a change.
"""

from __future__ import annotations

import os
from pathlib import Path

from dreamd.readers import READERS, SessionRef

READER = READERS["claude-code"]


def refs(root: Path) -> dict[str, SessionRef]:
    found = list(READER.discover(root))
    assert all(isinstance(ref, SessionRef) for ref in found)
    return {ref.session_id: ref for ref in found if isinstance(ref, SessionRef)}


def transcript(root: Path, name: str, text: str = '{"type":"user"}\n') -> Path:
    path = root / "-home-user-src-app" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unchanged_file_keeps_its_reference(tmp_path: Path) -> None:
    transcript(tmp_path, "one")
    first = refs(tmp_path)
    again = refs(tmp_path)
    assert again["one"] is first["one"]


def test_an_appended_file_gets_a_new_version(tmp_path: Path) -> None:
    path = transcript(tmp_path, "one")
    first = refs(tmp_path)["one"]
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"assistant"}\n')
    again = refs(tmp_path)["one"]
    assert again.file_version.size == path.stat().st_size != first.file_version.size


def test_a_file_replaced_with_the_same_size_and_time_is_told_by_its_inode(tmp_path: Path) -> None:
    path = transcript(tmp_path, "one")
    first = refs(tmp_path)["one"]
    os.link(path, path.with_suffix(".old"))  # holds the old inode: the new file cannot reuse it
    replacement = path.with_suffix(".new")
    replacement.write_text('{"type":"xxxx"}\n', encoding="utf-8")
    stamp = first.file_version.mtime_ns
    os.utime(replacement, ns=(stamp, stamp))
    replacement.replace(path)
    again = refs(tmp_path)["one"]
    assert (again.file_version.size, again.file_version.mtime_ns) == (
        first.file_version.size,
        stamp,
    )
    assert again.file_version.inode == path.stat().st_ino != first.file_version.inode


def test_a_file_rewritten_at_the_same_size_is_told_by_its_time(tmp_path: Path) -> None:
    path = transcript(tmp_path, "one")
    first = refs(tmp_path)["one"]
    path.write_text('{"type":"xxxx"}\n', encoding="utf-8")  # same length, same inode
    later = first.file_version.mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))
    again = refs(tmp_path)["one"]
    assert again is not first
    assert (again.file_version.inode, again.file_version.size) == (
        first.file_version.inode,
        first.file_version.size,
    )
    assert again.file_version.mtime_ns == later


def test_a_file_replaced_by_a_folder_of_its_name_is_no_session_any_more(tmp_path: Path) -> None:
    path = transcript(tmp_path, "one")
    assert set(refs(tmp_path)) == {"one"}
    path.unlink()
    path.mkdir()
    found = list(READER.discover(tmp_path))
    assert [item for item in found if isinstance(item, SessionRef)] == []


def test_a_removed_file_is_not_found_again(tmp_path: Path) -> None:
    path = transcript(tmp_path, "one")
    transcript(tmp_path, "two")
    assert set(refs(tmp_path)) == {"one", "two"}
    path.unlink()
    assert set(refs(tmp_path)) == {"two"}


def test_a_walk_given_up_halfway_leaves_the_next_one_complete(tmp_path: Path) -> None:
    for name in ("one", "two", "three"):
        transcript(tmp_path, name)
    full = refs(tmp_path)
    partial = READER.discover(tmp_path)
    next(iter(partial))
    partial.close()  # type: ignore[attr-defined]
    transcript(tmp_path, "two", '{"type":"user","changed":true}\n')
    again = refs(tmp_path)
    assert set(again) == {"one", "two", "three"}
    assert again["one"] is full["one"]
    assert again["two"].file_version != full["two"].file_version


def test_the_same_folder_under_two_roots_is_remembered_per_root(tmp_path: Path) -> None:
    transcript(tmp_path / "a", "one")
    link = tmp_path / "b"
    link.symlink_to(tmp_path / "a")
    direct, linked = refs(tmp_path / "a")["one"], refs(link)["one"]
    assert direct.location.startswith(str(tmp_path / "a"))
    assert linked.location.startswith(str(link))
    assert refs(tmp_path / "a")["one"] is direct
    assert refs(link)["one"] is linked


def test_a_file_moved_to_another_folder_is_found_where_it_is_now(tmp_path: Path) -> None:
    """A rename keeps inode, size and time: the reference still follows the new path."""
    path = transcript(tmp_path, "one")
    first = refs(tmp_path)["one"]
    moved = tmp_path / "-home-user-src-other" / path.name
    moved.parent.mkdir()
    path.rename(moved)
    again = refs(tmp_path)["one"]
    assert again.location == str(moved) != first.location
    assert again.file_version == first.file_version


def test_two_files_swapping_names_are_each_told_by_their_inode(tmp_path: Path) -> None:
    one, two = transcript(tmp_path, "one"), transcript(tmp_path, "two", '{"type":"user"}\n')
    before = refs(tmp_path)
    swap = one.with_suffix(".swap")
    one.rename(swap)
    two.rename(one)
    swap.rename(two)
    after = refs(tmp_path)
    assert after["one"].file_version.inode == before["two"].file_version.inode
    assert after["two"].file_version.inode == before["one"].file_version.inode
