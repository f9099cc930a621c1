"""``dreamd mcp`` as agents use it: a subprocess driven over stdio by the MCP SDK's own client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dreamd.config import parse_config
from dreamd.errors import ConfigError
from dreamd.stores.sql import SqlStore
from tests.process import run_dreamd
from tests.search.client import Session, run_mcp
from tests.search.homes import SESSION, item, memory_folder, stores_of, write_config

TOOLS = ["get_memory", "recent_memories", "remember", "search_memories"]
TEXT = "Releases are cut from the main branch on Thursdays."


def _config(home: Path, *, allow: bool) -> None:
    write_config(
        home,
        'machine = "laptop"\n[collect]\nstores = ["claude-memory", "sql"]\n'
        f'[stores.sql]\nurl = "sqlite:///{home / "memory.db"}"\n'
        f"[mcp]\nallow_remember = {str(allow).lower()}\n",
    )


def _rows(home: Path) -> list[Any]:
    store = SqlStore(f"sqlite:///{home / 'memory.db'}")
    rows = store.items_with_status("new") + store.items_with_status("accepted")
    store.close()
    return rows


def test_an_agent_lists_the_tools_searches_and_reads_one_memory(isolated_home: Path) -> None:
    """The four tools are offered; a search hit's id gets the memory with its provenance."""
    _config(isolated_home, allow=False)
    stores_of(isolated_home)["claude-memory"].write("k", item("tabs", "Indent with tabs here."))

    async def script(client: Session) -> tuple[list[str], Any, Any, Any]:
        names = await client.tool_names()
        _, found = await client.call("search_memories", query="tabs")
        _, memory = await client.call("get_memory", id=found["hits"][0]["id"])
        _, listed = await client.call("recent_memories", project="/work/app")
        return names, found, memory, listed

    names, found, memory, listed = run_mcp(isolated_home, script)
    assert names == TOOLS
    assert [hit["title"] for hit in found["hits"]] == ["tabs"] and found["failures"] == []
    assert memory["body"] == "Indent with tabs here."
    assert memory["quotes"] == [{"message": f"{SESSION}:u1", "text": "Indent with tabs here."}]
    assert (memory["session"], memory["collected"]) == (SESSION, "2026-11-30")
    assert memory["status"] == "pending" and memory["location"].startswith(".inbox/")
    assert [m["title"] for m in listed["memories"]] == ["tabs"]


def test_a_bad_call_is_a_tool_error_and_the_server_keeps_serving(isolated_home: Path) -> None:
    """An unknown id or a bad limit is an error the agent reads; the next call still works."""
    _config(isolated_home, allow=False)

    async def script(client: Session) -> list[tuple[bool, Any]]:
        return [
            await client.call("get_memory", id="sql:memory_item/404"),
            await client.call("search_memories", query="x", limit=1000),
            await client.call("search_memories", query="anything"),
        ]

    missing, too_many, fine = run_mcp(isolated_home, script)
    assert missing[0] and "no memory has the id" in missing[1]
    assert too_many[0] and "limit must be between 1 and 50" in too_many[1]
    assert fine == (False, {"query": "anything", "hits": [], "failures": []})


def test_remember_is_refused_while_switched_off(isolated_home: Path) -> None:
    """With ``[mcp] allow_remember = false`` (the default) the tool writes nothing."""
    _config(isolated_home, allow=False)

    async def script(client: Session) -> tuple[bool, Any]:
        return await client.call("remember", text=TEXT)

    refused, message = run_mcp(isolated_home, script)
    assert refused and "allow_remember = true" in message
    assert not (isolated_home / "memory.db").exists() or _rows(isolated_home) == []
    assert not any(isolated_home.glob(".claude/projects/*/memory/.inbox/*.md"))


def test_remember_plants_once_through_the_plan_and_the_gate(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Switched on: one item per store with the call as provenance, however often it is asked;
    the dream's validate gate then accepts it like a collected one."""
    _config(isolated_home, allow=True)
    project = tmp_path / "app"
    project.mkdir()

    async def script(client: Session) -> list[tuple[bool, Any]]:
        first = await client.call("remember", text=TEXT, kind="project", title="release day")
        again = await client.call("remember", text=TEXT, kind="project", title="release day")
        found = await client.call("search_memories", query="releases thursdays")
        return [first, again, found]

    first, again, found = run_mcp(isolated_home, script, cwd=project)
    assert first[0] is False and first[1]["remembered"], first
    assert sorted(p["store"].split(":")[0] for p in first[1]["planted"]) == [
        "claude-memory", "sql",
    ]  # fmt: skip
    assert again[0] is False and again[1]["already_held"] and again[1]["planted"] == []
    source = first[1]["source"]
    assert source.startswith("source:mcp:laptop:")
    inbox = sorted((memory_folder(isolated_home, str(project)) / ".inbox").glob("*.md"))
    assert [p.name for p in inbox] == ["project_release_day.md"]
    assert len(_rows(isolated_home)) == 1
    (_key, row), = _rows(isolated_home)  # fmt: skip
    assert row.source == source and row.project == str(project)
    assert [(q.message_id.rsplit(":", 1)[0], q.text) for q in row.quotes] == [
        (source.removeprefix("source:"), TEXT)
    ]
    assert [hit["title"] for hit in found[1]["hits"]] == ["release day"]
    assert len(found[1]["hits"][0]["also"]) == 1  # the same item in both stores: one hit
    assert list((isolated_home / ".local/share/dreamd/plans").glob("*.json"))
    dreamed = run_dreamd(isolated_home, "dream", "--json")
    assert dreamed.returncode == 0, dreamed.stderr
    folder = memory_folder(isolated_home, str(project))
    assert (folder / "project_release_day.md").is_file(), json.loads(dreamed.stdout)
    assert _rows(isolated_home)[0][1].name == "release day"


def test_remember_refuses_a_credential(isolated_home: Path) -> None:
    """The secret filter runs first: a token in the text refuses the item, nothing is stored."""
    _config(isolated_home, allow=True)

    async def script(client: Session) -> tuple[bool, Any]:
        token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
        return await client.call("remember", text=f"The deploy token is {token} for CI.")

    refused, message = run_mcp(isolated_home, script)
    assert refused and "credential-shaped" in message and "ghp_" not in message
    assert not (isolated_home / "memory.db").exists() or _rows(isolated_home) == []


def test_no_other_command_loads_the_mcp_sdk() -> None:
    """The SDK is imported by ``dreamd mcp`` alone: the command line starts without it."""
    probe = (
        "import sys, dreamd.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_mcp_table_is_checked_like_every_other() -> None:
    """``[mcp]``: writing is off by default; a bad value or an unknown key names the key."""
    assert parse_config("").mcp.allow_remember is False
    assert parse_config("[mcp]\nallow_remember = true\n").mcp.allow_remember is True
    with pytest.raises(ConfigError, match=r"mcp\.allow_remember"):
        parse_config('[mcp]\nallow_remember = "yes"\n')
    with pytest.raises(ConfigError, match=r"mcp\.allow_writes: unknown key"):
        parse_config("[mcp]\nallow_writes = true\n")
