"""Two machines, one PostgreSQL store: what host A plants, host B finds (search and MCP).

Each host is a real ``dreamd`` with its own HOME, config (``machine = "a"`` /
``"b"``) and state, pointed at one fresh schema of the test server (skipped
when none answers).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.collect.test_collect_cli import PROMPTS, session
from tests.process import run_dreamd
from tests.search.client import Session, run_mcp
from tests.search.homes import write_config
from tests.stores.postgres import fresh_schema


@pytest.fixture
def shared_url() -> Iterator[str]:
    with fresh_schema() as url:
        yield url


def _host(root: Path, name: str, url: str) -> Path:
    home = root / f"host-{name}"
    home.mkdir()
    write_config(
        home,
        f'machine = "{name}"\n[collect]\nstores = ["sql"]\n'
        f'[stores.sql]\nurl = "{url}"\n[mcp]\nallow_remember = true\n',
    )
    return home


def test_what_host_a_plants_host_b_finds(tmp_path: Path, shared_url: str) -> None:
    """A collects a session and remembers one item over MCP; B's search and B's MCP server
    find both, with A's provenance."""
    host_a, host_b = _host(tmp_path, "a", shared_url), _host(tmp_path, "b", shared_url)
    session(host_a, PROMPTS)
    collected = run_dreamd(host_a, "collect", "--json")
    assert collected.returncode == 0, collected.stderr

    async def remember(client: Session) -> tuple[bool, Any]:
        return await client.call("remember", text="The staging database is rebuilt on Mondays.")

    refused, remembered = run_mcp(host_a, remember)
    assert not refused and remembered["remembered"], remembered

    found = run_dreamd(host_b, "search", "uv pip", "--json")
    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)["hits"]
    assert hit["source"].startswith("source:claude-code:a:") and hit["store"].startswith("sql:")

    async def read(client: Session) -> tuple[Any, Any]:
        _, staging = await client.call("search_memories", query="staging mondays")
        _, memory = await client.call("get_memory", id=staging["hits"][0]["id"])
        _, linter = await client.call("search_memories", query="linter")
        return linter, memory

    linter, memory = run_mcp(host_b, read)
    assert linter["hits"] and linter["hits"][0]["session"].startswith("claude-code:a:")
    assert memory["source"] == remembered["source"] and memory["source"].startswith("source:mcp:a:")
    assert memory["quotes"][0]["text"] == "The staging database is rebuilt on Mondays."
    assert memory["quotes"][0]["message"].startswith(memory["session"] + ":")
