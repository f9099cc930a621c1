"""The optional ``ProjectMemories`` read, on every adapter that offers it.

Contract (``dreamd.stores.ProjectMemories``): reads only; every memory held
for the project, accepted and pending, from any session; never another
project's, nor a rejected or merged one; newest first, at most ``limit``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from dreamd.stores import MemoryItem, ProjectMemories, project_memories
from dreamd.stores.claude_memory import INBOX, ClaudeMemoryStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory import MemoryStore
from dreamd.stores.sql import SqlStore
from tests.stores.factories import sample_item

PROJECT = "/home/dev/repo"
OFFERING = ("memory", "claude-memory", "sql")

Opened = tuple[ProjectMemories, Callable[[MemoryItem, str], None]]


def other_session(item: MemoryItem, session: str) -> MemoryItem:
    return replace(item, source=f"source:codex:devbox:{session}")


def planter(
    adapter: MemoryStore | ClaudeMemoryStore | SqlStore,
) -> Callable[[MemoryItem, str], None]:
    """Plant ``item`` under ``key`` into ``adapter``."""

    def plant(item: MemoryItem, key: str) -> None:
        adapter.write(key, item)

    return plant


@pytest.fixture(params=OFFERING)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opened]:
    """An adapter offering the read, and how to plant into it (item, op key)."""
    kind = request.param
    if kind == "memory":
        memory = MemoryStore()
        yield memory, planter(memory)
    elif kind == "claude-memory":
        folder = ClaudeMemoryStore(tmp_path / "memory")
        yield folder, planter(folder)
    else:
        sql = SqlStore(f"sqlite:///{tmp_path / 'memory.db'}")
        yield sql, planter(sql)
        sql.close()


def test_every_session_of_the_project_is_read_newest_first(store: Opened) -> None:
    """Items of two sessions come back, the newest planted first."""
    adapter, plant = store
    plant(sample_item(1, name="older rule"), "k" * 32)
    plant(other_session(sample_item(2, name="newer rule"), "s-2"), "j" * 32)
    names = [memory.name for memory in adapter.memories_of(PROJECT, limit=10)]
    assert set(names) == {"older rule", "newer rule"}
    if not isinstance(adapter, ClaudeMemoryStore):  # one folder per project: by mtime
        assert names == ["newer rule", "older rule"]


def test_at_most_limit_memories_are_read(store: Opened) -> None:
    """``limit`` bounds what is returned."""
    adapter, plant = store
    for index in range(5):
        plant(sample_item(index, name=f"rule {index}"), f"{index}" * 32)
    assert len(adapter.memories_of(PROJECT, limit=3)) == 3


def test_a_memory_carries_what_the_match_step_reads(store: Opened) -> None:
    """Name, type, category, description, body, source and pending come back as planted."""
    adapter, plant = store
    item = sample_item(7, name="use approach seven")
    plant(item, "a" * 32)
    [memory] = adapter.memories_of(PROJECT, limit=5)
    assert (memory.name, memory.type, memory.category) == (item.name, item.type, item.category)
    assert (memory.description, memory.body) == (item.description, item.body)
    assert (memory.source, memory.pending) == (item.source, True)


def test_another_projects_items_are_never_read() -> None:
    """The SQL and in-memory stores hold every project: only the asked one comes back."""
    memory = MemoryStore()
    memory.write("a" * 32, sample_item(1, name="ours"))
    memory.write("b" * 32, replace(sample_item(2, name="theirs"), project="/elsewhere"))
    assert [m.name for m in memory.memories_of(PROJECT, limit=10)] == ["ours"]


def test_sql_rows_rejected_or_merged_are_not_read(tmp_path: Path) -> None:
    """Only ``new`` and ``accepted`` rows stand; accepted ones are no longer pending."""
    sql = SqlStore(f"sqlite:///{tmp_path / 'memory.db'}")
    try:
        for index, status in enumerate(("accepted", "rejected", "merged", "new")):
            key = f"{index}" * 32
            sql.write(key, sample_item(index, name=f"rule {status}"))
            if status != "new":
                assert sql.set_status(key, status, expected="new")
        found = {m.name: m.pending for m in sql.memories_of(PROJECT, limit=10)}
        assert found == {"rule accepted": False, "rule new": True}
    finally:
        sql.close()


def test_the_agents_own_memory_files_are_read_too(tmp_path: Path) -> None:
    """A topic file Claude Code wrote (no dreamd metadata) is a memory of the folder."""
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- [Linting](feedback_lint.md)\n")
    (folder / "feedback_lint.md").write_text(
        "---\nname: Lint before committing\ndescription: run ruff first\ntype: feedback\n---\n"
        "Run `ruff check` before every commit.\n"
    )
    (folder / "notes.md").write_text("no front matter here\n")
    [memory] = ClaudeMemoryStore(folder).memories_of(PROJECT, limit=10)
    assert (memory.name, memory.type, memory.category, memory.source) == (
        "Lint before committing",
        "feedback",
        "",
        None,
    )
    assert memory.body == "Run `ruff check` before every commit." and not memory.pending


def test_inbox_items_are_pending_and_accepted_files_are_not(tmp_path: Path) -> None:
    """``.inbox/`` files await the gate; files beside ``MEMORY.md`` were accepted."""
    store = ClaudeMemoryStore(tmp_path / "memory")
    receipt = store.write("a" * 32, sample_item(1, name="waiting"))
    accepted = tmp_path / "memory" / "project_done.md"
    accepted.write_bytes((tmp_path / "memory" / receipt.location).read_bytes())
    accepted.write_text(accepted.read_text().replace("name: waiting", "name: done"))
    found = {m.name: m.pending for m in store.memories_of(PROJECT, limit=10)}
    assert found == {"waiting": True, "done": False}
    assert receipt.location.startswith(f"{INBOX}/")


def test_reading_a_missing_folder_creates_nothing(tmp_path: Path) -> None:
    """Reads only: a folder that does not exist stays absent."""
    assert ClaudeMemoryStore(tmp_path / "none").memories_of(PROJECT, limit=10) == []
    assert not (tmp_path / "none").exists()


def test_a_store_without_the_read_offers_nothing(tmp_path: Path) -> None:
    """The read is optional: ``project_memories`` gives nothing for a store without it."""
    graph = GraphStore(tmp_path / "memory.jsonl")
    assert not isinstance(graph, ProjectMemories)
    assert project_memories(graph, PROJECT, 10) == []
    assert project_memories(MemoryStore(), None, 10) == []
