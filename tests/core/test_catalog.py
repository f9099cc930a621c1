"""The catalog: discovery plus the version-keyed cache, on real files and a real state DB."""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from msgspec import structs

from dreamd.catalog import Catalog, read_safely
from dreamd.errors import NotFound
from dreamd.readers import READERS, Conversation, SessionRef, Unresolved
from dreamd.statedb import StateDB, open_state


def write_claude(home: Path, sid: str, prompts: list[str], cwd: str = "/work/repo") -> Path:
    folder = home / ".claude" / "projects" / "-work-repo"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for index, prompt in enumerate(prompts):
        stamp = f"2026-05-01T10:{index:02d}:00.000Z"
        base = {"sessionId": sid, "cwd": cwd, "isSidechain": False, "timestamp": stamp}
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": f"u{index}",
                "message": {"role": "user", "content": prompt},
            }
        )
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"a{index}",
                "message": {
                    "id": f"m{index}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"reply {index}"}],
                },
            }
        )
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    past = time.time() - 7200
    os.utime(path, (past, past))
    return path


@pytest.fixture
def state(tmp_path: Path) -> StateDB:
    return open_state(tmp_path / "state" / "state.db")


def claude_catalog(state: StateDB, home: Path) -> Catalog:
    return Catalog(state, {"claude-code": (home / ".claude" / "projects",)})


def test_unchanged_sessions_are_not_read_again(state: StateDB, isolated_home: Path) -> None:
    """The second scan reuses every cached entry and returns the same metadata."""
    write_claude(isolated_home, "s1", ["one", "two"])
    write_claude(isolated_home, "s2", ["three"])
    catalog = claude_catalog(state, isolated_home)
    first = catalog.scan()
    second = catalog.scan()
    assert (first.read, second.read, second.cached) == (2, 0, 2)
    assert sorted(first.sessions, key=lambda i: i.session_id) == sorted(
        second.sessions, key=lambda i: i.session_id
    )


def test_cache_survives_a_new_process(state: StateDB, isolated_home: Path, tmp_path: Path) -> None:
    """A fresh catalog on the same database reads nothing unchanged."""
    write_claude(isolated_home, "s1", ["one", "two"])
    claude_catalog(state, isolated_home).scan()
    again = claude_catalog(open_state(tmp_path / "state" / "state.db"), isolated_home).scan()
    assert again.read == 0 and len(again.sessions) == 1


def test_changed_file_is_read_again(state: StateDB, isolated_home: Path) -> None:
    """Appending to a transcript changes its version, so only it is re-read."""
    write_claude(isolated_home, "s1", ["one"])
    write_claude(isolated_home, "s2", ["two"])
    catalog = claude_catalog(state, isolated_home)
    catalog.scan()
    write_claude(isolated_home, "s1", ["one", "and more"])
    result = catalog.scan()
    assert result.read == 1
    assert {i.session_id: i.messages for i in result.sessions} == {"s1": 4, "s2": 2}


def test_deleted_file_is_forgotten(state: StateDB, isolated_home: Path) -> None:
    """A transcript that disappeared leaves the cache and the listing."""
    write_claude(isolated_home, "s1", ["one"])
    gone = write_claude(isolated_home, "s2", ["two"])
    catalog = claude_catalog(state, isolated_home)
    catalog.scan()
    gone.unlink()
    assert [i.session_id for i in catalog.scan().sessions] == ["s1"]
    assert [i.session_id for i in state.load_session_cache().values()] == ["s1"]


def test_unreadable_sessions_are_reported_and_retried(state: StateDB, isolated_home: Path) -> None:
    """A garbage transcript is unresolved with a reason, never cached, tried again next scan."""
    folder = isolated_home / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    (folder / "bad.jsonl").write_bytes(os.urandom(2048))
    catalog = claude_catalog(state, isolated_home)
    for _ in range(2):
        result = catalog.scan()
        (info,) = result.sessions
        assert info.unresolved and "JSON" in info.unresolved
        assert result.read == 1
    assert state.load_session_cache() == {}


class ExplodingReader:
    """A reader with a bug: discovery works, reading raises."""

    tool = "claude-code"

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        return ()

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        return READERS["claude-code"].discover(root)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        raise KeyError("surprise")


def test_a_reader_bug_becomes_an_unresolved_session(state: StateDB, isolated_home: Path) -> None:
    """An exception inside a reader is reported as unresolved, not raised."""
    write_claude(isolated_home, "s1", ["one"])
    catalog = Catalog(
        state,
        {"claude-code": (isolated_home / ".claude" / "projects",)},
        {"claude-code": ExplodingReader()},
    )
    (info,) = catalog.scan().sessions
    assert info.unresolved == "reader error: KeyError"


class BrokenDiscovery:
    """A reader whose discovery fails after its first session."""

    tool = "codex"

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        return ()

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        first = next(ref for ref in READERS["claude-code"].discover(root))
        assert isinstance(first, SessionRef)
        yield structs.replace(first, tool=self.tool)
        raise OSError("the disk went away")

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        return READERS["claude-code"].read(ref)


def test_a_failing_discovery_keeps_what_it_found_and_spares_the_other_tools(
    state: StateDB, isolated_home: Path
) -> None:
    """A reader's discovery raising is one unresolved entry naming the root; the sessions it
    found before, and every other tool's, are listed and read."""
    write_claude(isolated_home, "s1", ["one"])
    write_claude(isolated_home, "s2", ["two"])
    projects = isolated_home / ".claude" / "projects"
    catalog = Catalog(
        state,
        {"codex": (projects,), "claude-code": (projects,)},
        {"codex": BrokenDiscovery(), "claude-code": READERS["claude-code"]},
    )
    sessions = catalog.scan().sessions
    broken = [i for i in sessions if i.tool == "codex"]
    assert [i.unresolved for i in broken if i.unresolved] == ["discovery failed: OSError"]
    assert [i.path for i in broken if i.unresolved] == [str(projects)]
    assert len([i for i in broken if i.unresolved is None]) == 1
    assert sorted(i.session_id for i in sessions if i.tool == "claude-code") == ["s1", "s2"]


def test_progress_reports_each_read(state: StateDB, isolated_home: Path) -> None:
    """The progress callback sees every read, ending at the total."""
    for index in range(3):
        write_claude(isolated_home, f"s{index}", ["hi"])
    calls: list[tuple[int, int]] = []
    claude_catalog(state, isolated_home).scan(
        progress=lambda done, total: calls.append((done, total))
    )
    assert calls == [(1, 3), (2, 3), (3, 3)]


def aider_history(folder: Path, chats: list[tuple[str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(
        f"\n# aider chat started at {stamp}\n\n#### {prompt}  \n\nSure, done.\n\n"
        for stamp, prompt in chats
    )
    path = folder / ".aider.chat.history.md"
    path.write_text(text)
    past = time.time() - 7200
    os.utime(path, (past, past))
    return path


def test_shared_file_sessions_keep_their_cache(state: StateDB, isolated_home: Path) -> None:
    """Appending to an Aider history re-reads only the chat that changed."""
    repo = isolated_home / "src" / "app"
    chats = [("2026-05-01 10:00:00", "first chat prompt"), ("2026-05-02 10:00:00", "second one")]
    history = aider_history(repo, chats)
    catalog = Catalog(state, {"aider": (isolated_home,)})
    assert catalog.scan().read == 2
    with history.open("a") as handle:
        handle.write("#### and a follow-up  \n\nFollowed up.\n\n")
    result = catalog.scan()
    assert result.read == 1
    assert sorted(i.messages for i in result.sessions) == [2, 4]


def test_aider_history_is_found_in_projects_other_tools_report(
    state: StateDB, isolated_home: Path, tmp_path: Path
) -> None:
    """An Aider history outside HOME is found through a Claude Code session's project."""
    project = tmp_path / "elsewhere" / "deep" / "repo"
    aider_history(project, [("2026-05-01 10:00:00", "use the staging database")])
    write_claude(isolated_home, "s1", ["hello"], cwd=str(project))
    catalog = Catalog(
        state,
        {"claude-code": (isolated_home / ".claude" / "projects",), "aider": (isolated_home,)},
    )
    tools = sorted(i.tool for i in catalog.scan().sessions)
    assert tools == ["aider", "claude-code"]
    assert catalog.scan().read == 0


class CountingReader:
    """The real Claude Code reader, counting how often it discovers."""

    tool = "claude-code"

    def __init__(self) -> None:
        self.discoveries = 0

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        return ()

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        self.discoveries += 1
        return READERS["claude-code"].discover(root)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        return READERS["claude-code"].read(ref)


def counting_catalog(state: StateDB, home: Path) -> tuple[Catalog, CountingReader]:
    reader = CountingReader()
    roots = {"claude-code": (home / ".claude" / "projects",)}
    return Catalog(state, roots, {"claude-code": reader}), reader


def test_reading_a_scanned_session_does_not_discover_again(
    state: StateDB, isolated_home: Path
) -> None:
    """A collect reads each selected session twice: neither read walks every session again."""
    for index in range(5):
        write_claude(isolated_home, f"s{index}", ["hi", "there"])
    catalog, reader = counting_catalog(state, isolated_home)
    catalog.scan()
    discovered = reader.discoveries
    first = catalog.read("claude-code", "s3")
    write_claude(isolated_home, "s3", ["hi", "there", "and more"])  # appended since the scan
    again = catalog.read("claude-code", "s3")
    assert reader.discoveries == discovered
    assert len(first.messages) == 4 and len(again.messages) == 6  # the file as it is now
    assert first.revision != again.revision


def test_a_session_moved_since_the_scan_is_found_by_discovery(
    state: StateDB, isolated_home: Path
) -> None:
    """The scan's file is gone (or replaced): the read falls back to discovering it."""
    path = write_claude(isolated_home, "s1", ["hi"])
    catalog, _ = counting_catalog(state, isolated_home)
    catalog.scan()
    moved = path.parent.parent / "-work-other" / path.name
    moved.parent.mkdir()
    path.rename(moved)
    conversation = catalog.read("claude-code", "s1")
    assert conversation.ref.path == moved
    path.unlink(missing_ok=True)
    moved.unlink()
    with pytest.raises(NotFound):
        catalog.read("claude-code", "s1")


def test_a_session_never_scanned_is_still_read(state: StateDB, isolated_home: Path) -> None:
    write_claude(isolated_home, "s1", ["hi"])
    catalog, _ = counting_catalog(state, isolated_home)
    assert len(catalog.read("claude-code", "s1").messages) == 2


def test_a_read_leaves_the_cycle_collector_as_it_found_it(
    state: StateDB, isolated_home: Path
) -> None:
    """Paused during a read (even one that raises), on again after; off stays off."""
    write_claude(isolated_home, "s1", ["hi"])
    ref = next(iter(READERS["claude-code"].discover(isolated_home / ".claude" / "projects")))
    assert isinstance(ref, SessionRef)
    assert gc.isenabled()
    assert isinstance(read_safely(ExplodingReader(), ref), Unresolved)
    assert gc.isenabled()
    assert isinstance(read_safely(READERS["claude-code"], ref), Conversation)
    assert gc.isenabled()
    gc.disable()
    try:
        read_safely(READERS["claude-code"], ref)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_service_catalog_shares_the_walk_s_strings_with_the_sessions_it_loads(
    state: StateDB, isolated_home: Path
) -> None:
    """Sessions loaded from the state DB hold the walk's equal path, id and file version,
    and one copy of each project's path, instead of copies of their own (the service
    keeps both for days); their values are those a catalog that shares nothing loads."""
    for index in range(3):
        write_claude(isolated_home, f"s{index}", ["hi", "there"])
    roots = {"claude-code": (isolated_home / ".claude" / "projects",)}
    Catalog(state, roots).scan()  # read and cached
    plain_catalog = Catalog(state, roots)
    plain = plain_catalog.scan().sessions
    plain_refs = {ref.location: ref for ref in plain_catalog._found["claude-code"]}
    assert not any(info.path is plain_refs[info.path].location for info in plain)  # copies
    sharing = Catalog(state, roots, share_strings=True)
    shared = sharing.scan().sessions
    assert sorted(shared) == sorted(plain)
    refs = {ref.location: ref for ref in sharing._found["claude-code"]}
    for info in shared:
        ref = refs[info.path]
        assert info.path is ref.location and info.session_id is ref.session_id
        assert info.file_version is ref.file_version
    assert shared[0].project is shared[1].project is shared[2].project
    write_claude(isolated_home, "s1", ["hi", "there", "and more"])  # changed since
    again = {info.session_id: info for info in sharing.scan().sessions}
    assert again["s1"].messages == 6  # read afresh, never a shared stale copy
    assert again["s0"] is next(info for info in shared if info.session_id == "s0")
