"""`dreamd collect` then `dreamd dream` over a sectioned MEMORY.md and a graph file, then undo."""

from __future__ import annotations

import json
from pathlib import Path

from dreamd.stores.graph_jsonl import parse_graph, parse_pending, split_lines
from dreamd.stores.memory_md import parse_records
from tests.collect.test_collect_cli import PROMPTS, collect, session
from tests.process import run_dreamd

INDEX = "# Project memory\n\n## Rules\n- Keep PRs small [ses_0]\n"
GRAPH = b'{"type":"entity","name":"Ada","entityType":"person","observations":["Ada owns CI"]}\n'


def configure(home: Path) -> tuple[Path, Path]:
    """A config sending items to a MEMORY.md and a graph file only; both files seeded."""
    memory, graph = home / "notes" / "MEMORY.md", home / "kg" / "memory.jsonl"
    memory.parent.mkdir()
    graph.parent.mkdir()
    memory.write_text(INDEX)
    graph.write_bytes(GRAPH)
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[collect]\nstores = ["memory-md", "graph"]\n'
        f'[stores.memory-md]\npath = "{memory}"\n[stores.graph]\npath = "{graph}"\n'
    )
    return memory, graph


def snapshot(*folders: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for folder in folders
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def test_collect_holds_items_and_the_dream_gates_them_undoably(isolated_home: Path) -> None:
    """Collect holds 3 items per store; the dream accepts them; undo restores every byte."""
    memory, graph = configure(isolated_home)
    session(isolated_home, PROMPTS)
    collected = collect(isolated_home)
    assert collected.returncode == 0, collected.stderr
    assert memory.read_text() == INDEX and graph.read_bytes() == GRAPH
    held = parse_records((memory.parent / "MEMORY.inbox.md").read_text())
    pending = split_lines((graph.parent / "memory.inbox.jsonl").read_bytes())
    assert len(held) == 3 and len(pending) == 3
    items = [r.item for r in held] + [parse_pending(raw).item for raw in pending]
    assert all(i is not None and i.source.startswith("source:claude-code:") for i in items)
    before = snapshot(memory.parent, graph.parent)

    dry = run_dreamd(isolated_home, "dream", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert snapshot(memory.parent, graph.parent) == before
    assert sum("would accept " in m for m in json.loads(dry.stdout)["messages"]) == 6

    live = run_dreamd(isolated_home, "dream", "--json")
    assert live.returncode == 0, live.stderr
    report = json.loads(live.stdout)
    assert report["mode"] == "apply"
    assert sum(": accepted " in m for m in report["messages"]) == 6
    assert parse_records((memory.parent / "MEMORY.inbox.md").read_text()) == []
    text = memory.read_text()
    assert text.startswith(INDEX) and "uv instead of pip" in text and "linter" in text
    entities = [line for line in parse_graph(graph.read_bytes()) if line.owned]
    assert len(entities) == 3 and graph.read_bytes().startswith(GRAPH)

    again = run_dreamd(isolated_home, "dream", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["mode"] == "no-op"

    undo = run_dreamd(isolated_home, "undo", report["run_id"])
    assert undo.returncode == 0, undo.stderr
    assert snapshot(memory.parent, graph.parent) == before
