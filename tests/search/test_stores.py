"""Search over every kind of store: what each one hands over, filters, ids, failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dreamd.search import Filter, get_memory, open_read_path, recent, search
from dreamd.stores.sql import SqlStore
from tests.process import run_dreamd
from tests.search.homes import (
    PROJECT,
    SESSION,
    close,
    every_store_config,
    item,
    memory_folder,
    settings_of,
    stores_of,
    write_config,
)


def _search(home: Path, query: str, **where: Any) -> list[dict[str, Any]]:
    settings = settings_of(home)
    read = open_read_path(settings, {}, home, project=where.get("project"))
    try:
        found = search(read, query, Filter(**where), limit=20)
    finally:
        read.close()
    assert found.failures == ()
    return [hit.to_json() for hit in found.hits]


def _plant_one_in_each(home: Path) -> None:
    stores = stores_of(home)
    bodies = {
        "claude-memory": "Deploy with the blue green switch.",
        "sql": "Deploy only from the release branch.",
        "memory-md": "Deploy after the smoke tests pass.",
        "graph": "Deploy windows are Tuesday and Thursday.",
    }
    for name, body in bodies.items():
        stores[name].write(f"op-{name}", item(f"deploy rule {name}", body))
    close(stores)


def test_every_configured_store_answers_one_query(isolated_home: Path) -> None:
    """One search finds the item waiting in each store: folder inbox, SQL row, MEMORY.md, graph."""
    every_store_config(isolated_home)
    _plant_one_in_each(isolated_home)
    hits = _search(isolated_home, "deploy")
    assert sorted(hit["store"].split(":")[0] for hit in hits) == [
        "claude-memory", "graph", "memory-md", "sql",
    ]  # fmt: skip
    assert {hit["status"] for hit in hits} == {"pending"}
    assert all(hit["session"] == SESSION and hit["project"] == PROJECT for hit in hits)
    assert [h["store"].split(":")[0] for h in _search(isolated_home, '"release branch"')] == ["sql"]


def test_a_dream_that_accepts_the_items_leaves_them_found_as_accepted(isolated_home: Path) -> None:
    """After the validate gate, each item is found where the gate put it, its provenance kept."""
    every_store_config(isolated_home)
    _plant_one_in_each(isolated_home)
    dreamed = run_dreamd(isolated_home, "dream", "--json")
    assert dreamed.returncode == 0, dreamed.stderr
    hits = _search(isolated_home, "deploy")
    assert len(hits) == 4
    assert {hit["status"] for hit in hits} == {"accepted"}, hits
    for hit in hits:
        memory, _ = _get(isolated_home, hit["id"])
        assert memory is not None and memory["quotes"], hit
        assert memory["quotes"][0]["message"] == f"{SESSION}:u1"
        assert memory["collected"] == "2026-11-30"


def _get(home: Path, id: str) -> tuple[dict[str, Any] | None, tuple[Any, ...]]:
    read = open_read_path(settings_of(home), {}, home)
    try:
        memory, failures = get_memory(read, id)
    finally:
        read.close()
    return (None if memory is None else memory.to_json(full=True)), failures


def test_a_folder_yields_its_topic_files_and_inbox_items_only(isolated_home: Path) -> None:
    """Accepted files and ``.inbox/`` items are memories; the index, hidden files, other
    subfolders and links are not."""
    write_config(isolated_home, '[collect]\nstores = ["claude-memory"]\n')
    folder = memory_folder(isolated_home)
    stores_of(isolated_home)["claude-memory"].write("op-1", item("tabs", "Indent with tabs."))
    (folder / "feedback_tabs.md").write_text(
        "---\nname: Tabs please\ndescription: indent with tabs\ntype: feedback\n"
        "originSessionId: 0a1b-2c3d\n---\nThe user wants tabs, not spaces.\n"
    )
    (folder / "MEMORY.md").write_text("- [Tabs please](feedback_tabs.md) — tabs\n")
    (folder / ".hidden.md").write_text("tabs\n")
    (folder / ".trash" / "2026-11-01").mkdir(parents=True)
    (folder / ".trash" / "2026-11-01" / "project_old.md").write_text("tabs\n")
    (folder / "project_link.md").symlink_to(folder / "feedback_tabs.md")
    hits = _search(isolated_home, "tabs")
    assert sorted(hit["location"] for hit in hits) == [
        ".inbox/project_tabs.md", "feedback_tabs.md",
    ]  # fmt: skip
    own = next(hit for hit in hits if hit["location"] == "feedback_tabs.md")
    assert (own["title"], own["kind"], own["status"]) == ("Tabs please", "feedback", "accepted")
    assert own["session"] == "claude-code:0a1b-2c3d"


def test_project_and_kind_narrow_every_store(isolated_home: Path) -> None:
    """``project`` keeps that directory and below; ``kind`` matches a type or a category."""
    every_store_config(isolated_home)
    stores = stores_of(isolated_home)
    sql = stores["sql"]
    assert isinstance(sql, SqlStore)
    sql.write("a", item("cache", "Cache the build.", project="/work/app/sub"))
    sql.write("b", item("cache2", "Cache the tests.", project="/work/application"))
    sql.write("c", item("cache3", "Cache nothing.", kind="feedback", category="Rule"))
    sql.close()
    assert {h["title"] for h in _search(isolated_home, "cache", project="/work/app")} == {
        "cache", "cache3",
    }  # fmt: skip
    assert [h["title"] for h in _search(isolated_home, "cache", kind="feedback")] == ["cache3"]
    assert [h["title"] for h in _search(isolated_home, "cache", kind="rule")] == ["cache3"]


def test_the_same_item_in_two_stores_is_one_hit(isolated_home: Path) -> None:
    """An item the collector planted into the folder and the SQL store is shown once."""
    every_store_config(isolated_home)
    stores = stores_of(isolated_home)
    same = item("one", "Prefer small commits.")
    stores["claude-memory"].write("k", same)
    stores["sql"].write("k", same)
    close(stores)
    hits = _search(isolated_home, "commits")
    assert len(hits) == 1 and len(hits[0]["also"]) == 1


def test_get_answers_only_for_a_memory_a_store_holds(isolated_home: Path) -> None:
    """An id naming a file outside every memory folder, or no row, finds nothing."""
    every_store_config(isolated_home)
    _plant_one_in_each(isolated_home)
    folder = memory_folder(isolated_home)
    (isolated_home / "secret.md").write_text("---\nname: x\n---\nsecret\n")
    for forged in (
        f"claude-memory:{folder}/../../secret.md",
        f"claude-memory:{isolated_home}/secret.md",
        f"claude-memory:{folder}/.inbox/../../../../secret.md",
        "sql:memory_item/999",
        "sql:memory_item/../1",
        "graph:/etc/passwd#00",
    ):
        assert _get(isolated_home, forged) == (None, ()), forged


def test_recent_lists_a_projects_newest_memories_first(isolated_home: Path) -> None:
    """The latest planted first, across stores; other projects left out."""
    every_store_config(isolated_home)
    stores = stores_of(isolated_home)
    sql = stores["sql"]
    assert isinstance(sql, SqlStore)
    sql.write("old", item("first", "One."))
    sql.write("other", item("elsewhere", "Two.", project="/elsewhere"))
    sql.write("new", item("second", "Three."))
    sql.close()
    read = open_read_path(settings_of(isolated_home), {}, isolated_home, project=PROJECT)
    try:
        found = recent(read, Filter(PROJECT), limit=5)
    finally:
        read.close()
    assert [hit.memory.title for hit in found.hits] == ["second", "first"]


def test_a_store_that_fails_is_named_and_the_others_still_answer(isolated_home: Path) -> None:
    """An unreachable database and an unreadable graph file are reported; the folder answers."""
    every_store_config(
        isolated_home, sql_url="postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    )
    stores_of(isolated_home)["claude-memory"].write("k", item("ok", "Searchable still."))
    (isolated_home / "graph" / "memory.jsonl").mkdir(parents=True)  # a folder, not a file
    result = run_dreamd(isolated_home, "search", "searchable", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert [hit["title"] for hit in document["hits"]] == ["ok"]
    failed = sorted(failure["store"].split(":")[0] for failure in document["failures"])
    assert failed == ["graph", "sql"]
    assert "dreamd: sql:postgresql://nobody@127.0.0.1:1/none" in result.stderr


def test_search_on_the_command_line_prints_hits_in_words(isolated_home: Path) -> None:
    """Text output: title, kind and status, excerpt, provenance, where it is held, its id."""
    every_store_config(isolated_home)
    _plant_one_in_each(isolated_home)
    result = run_dreamd(isolated_home, "search", "smoke", "--kind", "project")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "1. deploy rule memory-md  [project/Decision, pending]"
    assert f"session {SESSION}" in lines[2] and "collected 2026-11-30" in lines[2]
    assert lines[3].startswith(f"   memory-md:{isolated_home}/notes/MEMORY.md MEMORY.inbox.md#")
    nothing = run_dreamd(isolated_home, "search", "nonexistentword")
    assert nothing.returncode == 0 and nothing.stdout.startswith("no memory matches")
