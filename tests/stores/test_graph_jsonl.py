"""The knowledge-graph JSONL store: pending lines, the server's line shapes, owned lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamd.errors import StoreError
from dreamd.stores.graph_jsonl import (
    GraphStore,
    parse_graph,
    parse_line,
    parse_pending,
    render_entity,
    render_provenance,
    with_observations,
)
from tests.stores.factories import rich_item, sample_item

#: A graph as the MCP memory server leaves it, plus lines it would skip.
GRAPH = (
    b'{"type":"entity","name":"Ada","entityType":"person","observations":["Writes Rust"]}\n'
    b'{"type":"relation","from":"Ada","to":"dreamd","relationType":"maintains"}\n'
    b"this line is not JSON\n"
    b'{"type":"entity","name":"x","entityType":"y","observations":"not a list"}\n'
    b'{"type":"entity","name":"z","entityType":"t","observations":[],"createdAt":"2026"}\n'
)


def mcp_save(data: bytes) -> bytes:
    """What the MCP memory server's ``saveGraph`` writes after loading ``data``: valid
    entities (its three fields only), then relations, each ``JSON.stringify``-ed."""
    entities, relations = [], []
    for line in parse_graph(data):
        if line.kind == "entity":
            entities.append(
                {"type": "entity", "name": line.name, "entityType": line.entity_type,
                 "observations": list(line.observations)}
            )  # fmt: skip
        elif line.relation is not None:
            start, end, kind = line.relation
            relations.append({"type": "relation", "from": start, "to": end, "relationType": kind})
    out = [json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in entities + relations]
    return "\n".join(out).encode() + b"\n"


def test_a_write_holds_the_item_beside_the_graph_and_never_touches_it(tmp_path: Path) -> None:
    """The graph keeps its bytes; the item waits as one pending line with every field."""
    graph = tmp_path / "kg" / "memory.jsonl"
    graph.parent.mkdir()
    graph.write_bytes(GRAPH)
    store = GraphStore(graph)
    receipt = store.write("op-rich", rich_item())
    assert graph.read_bytes() == GRAPH
    (line,) = (graph.parent / "memory.inbox.jsonl").read_bytes().splitlines()
    assert line.isascii() and parse_pending(line).item == rich_item()
    assert receipt.location.startswith("memory.inbox.jsonl#")


def test_lines_of_the_server_shape_are_read_and_others_kept_as_other() -> None:
    """Entities, relations; lines that are not JSON or not the shape are ``other``."""
    kinds = [line.kind for line in parse_graph(GRAPH)]
    assert kinds == ["entity", "relation", "other", "other", "entity"]
    assert parse_graph(GRAPH)[0].observations == ("Writes Rust",)


def test_owned_lines_are_written_the_way_the_server_writes_them() -> None:
    """Compact JSON, non-ASCII as is, control characters escaped: a server rewrite keeps
    dreamd's lines byte for byte (its receipts still verify)."""
    item = rich_item()
    line = render_entity(item.name, item.category, [item.body, render_provenance(["k"], item)])
    assert mcp_save(line + b"\n") == line + b"\n"
    assert "名前".encode() in render_entity("名前", "t", ["\x1c"])
    assert b"\\u001c" in render_entity("n", "t", ["\x1c"])


def test_replacing_observations_keeps_the_other_keys_in_order() -> None:
    """A fork's extra keys (``createdAt``) survive a rewrite of the observations."""
    line = parse_graph(GRAPH)[4]
    assert with_observations(line, ["new"]) == (
        b'{"type":"entity","name":"z","entityType":"t","observations":["new"],"createdAt":"2026"}'
    )


def test_ownership_is_a_provenance_observation_and_survives_a_server_rewrite(
    tmp_path: Path,
) -> None:
    """An entity carrying dreamd's provenance is found by key after the server saves."""
    item = sample_item(1)
    owned = render_entity(item.name, item.category, [item.body, render_provenance(["k1"], item)])
    graph = tmp_path / "kg" / "memory.jsonl"
    graph.parent.mkdir()
    graph.write_bytes(GRAPH + owned + b"\n")
    store = GraphStore(graph)
    receipt = store.find("k1")
    assert receipt is not None and parse_line(owned).owned
    graph.write_bytes(mcp_save(graph.read_bytes()))
    assert store.find("k1") == receipt and store.verify(receipt, "k1")
    assert not parse_graph(GRAPH)[0].owned


def test_a_forged_provenance_needs_valid_json_to_count() -> None:
    """Text that merely starts like a provenance observation does not make a line owned."""
    line = b'{"type":"entity","name":"a","entityType":"b","observations":["[dreamd] {nope"]}'
    assert not parse_line(line).owned


def test_a_symlink_in_place_of_the_pending_file_is_never_written_through(tmp_path: Path) -> None:
    """A link planted as the pending file is refused; its target keeps its bytes."""
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"precious\n")
    folder = tmp_path / "kg"
    folder.mkdir()
    (folder / "memory.inbox.jsonl").symlink_to(outside)
    with pytest.raises(StoreError, match="cannot be read"):
        GraphStore(folder / "memory.jsonl").write("op-1", sample_item(1))
    assert outside.read_bytes() == b"precious\n"


def test_a_graph_file_without_a_suffix_gets_plain_sidecars(tmp_path: Path) -> None:
    """``graph`` → ``graph.inbox``: the sidecar never is the graph file itself."""
    store = GraphStore(tmp_path / "kg" / "graph")
    store.write("op-1", sample_item(1))
    assert (tmp_path / "kg" / "graph.inbox").is_file()
    assert not (tmp_path / "kg" / "graph").exists()
