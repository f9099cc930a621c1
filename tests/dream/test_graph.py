"""The knowledge-graph store's validate gate and dream: entities, merges, foreign lines, undo."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from dreamd.dream.execute import undo_run
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates import graph as graph_module
from dreamd.dream.gates.graph import dream_graph, duplicate_observations, gate_pending, tidy
from dreamd.stores import MemoryItem, Quote
from dreamd.stores.graph_jsonl import (
    GraphLine,
    GraphStore,
    Pending,
    parse_graph,
    parse_line,
    parse_pending,
    render_entity,
    render_pending,
    render_provenance,
)

NOW = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)
SESSION = "claude-code:box:ses-1"
WHERE = Path("/kg/memory.jsonl")
OTHER = "claude-code:box:other"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
FOREIGN = (
    b'{"type":"entity","name":"Ada","entityType":"person",'
    b'"observations":["Ada reviews every database migration before release"]}\n'
    b"not JSON, kept as it is\n"
    b'{"type":"relation","from":"Ada","to":"Billing","relationType":"owns"}\n'
)


def item(
    body: str,
    *,
    name: str = "cursor store",
    kind: str = "project",
    quote_session: str = SESSION,
    collected: date = date(2026, 11, 30),
    project: str | None = None,
) -> MemoryItem:
    return MemoryItem(
        type=kind, category="Decision", name=name, description=body[:40], body=body,  # type: ignore[arg-type]
        confidence=0.8, source=f"source:{SESSION}", collected=collected,
        quotes=(Quote(f"{quote_session}:m1", body),), project=project,
    )  # fmt: skip


def pending(key: str, value: MemoryItem) -> Pending:
    return parse_pending(render_pending(key, value))


def owned(value: MemoryItem, *observations: str, keys: tuple[str, ...] = ("k0",)) -> bytes:
    texts = [*(observations or (value.body,)), render_provenance(keys, value)]
    return render_entity(value.name, value.category, texts)


def gate(lines: list[Pending], graph: bytes, **views: RepoView) -> tuple[list[str], bytes]:
    decisions, new = gate_pending(lines, parse_graph(graph), now=NOW, views=views, where=WHERE)
    return [f"{d.verdict}:{d.target}:{d.reason}" for d in decisions], b"".join(
        line.raw + b"\n" for line in new
    )


def test_an_accepted_item_becomes_an_entity_at_the_end_and_nothing_else_moves() -> None:
    """Name, category as type, the body and one provenance observation; other lines untouched."""
    verdicts, new = gate([pending("k1", item("Use SQLite for the cursor store"))], FOREIGN)
    assert verdicts == [f"accept:cursor store:provenance {SESSION}"]
    assert new.startswith(FOREIGN)
    entity = json.loads(new[len(FOREIGN) :])
    assert entity["observations"][0] == "Use SQLite for the cursor store"
    assert (entity["name"], entity["entityType"]) == ("cursor store", "Decision")
    provenance = json.loads(entity["observations"][1].removeprefix("[dreamd] "))
    assert provenance == {
        "op": ["k1"], "source": f"source:{SESSION}", "collected": "2026-11-30",
        "type": "project", "project": None,
    }  # fmt: skip


def test_a_name_another_entity_holds_gets_a_suffix() -> None:
    """Names are unique in the server's graph: a foreign ``Ada`` makes ours ``Ada (2)``."""
    verdicts, _ = gate([pending("k1", item("Likes tea with the standup", name="Ada"))], FOREIGN)
    assert verdicts[0].startswith("accept:Ada (2):")


def test_same_name_merges_into_dreamds_entity_adding_the_new_statement() -> None:
    """The body joins unless already said; a provenance observation always joins."""
    base = item("Use SQLite for the cursor store")
    graph = FOREIGN + owned(base) + b"\n"
    verdicts, new = gate([pending("k1", item("Keep the cursor in WAL mode"))], graph)
    assert verdicts == ["merge:cursor store:same name; sources kept"]
    observations = parse_graph(new)[3].observations
    assert observations[0] == base.body and observations[2] == "Keep the cursor in WAL mode"
    assert [key for p in parse_graph(new)[3].provenance for key in p.keys] == ["k0", "k1"]
    _, again = gate([pending("k2", item("Use SQLite for the cursor store!"))], graph)
    assert len(parse_graph(again)[3].observations) == 3  # body already said: provenance only


def test_a_statement_an_entity_of_dreamd_holds_merges_into_it() -> None:
    """A near-duplicate of an owned observation adds only the provenance, under any name."""
    base = item("Always run the migrations before the integration tests")
    graph = owned(base) + b"\n"
    twin = item("Run the migrations before the integration tests, always", name="other")
    verdicts, new = gate([pending("k1", twin)], graph)
    assert verdicts[0].startswith("merge:cursor store:says the same")
    assert len(parse_graph(new)) == 1 and parse_graph(new)[0].op_keys == ("k0", "k1")


def test_a_statement_a_foreign_entity_holds_leaves_the_graph_byte_for_byte() -> None:
    """The line is not dreamd's: merged (sources go to the ledger), nothing rewritten."""
    twin = item("Ada reviews every database migration before a release", name="x")
    verdicts, new = gate([pending("k1", twin)], FOREIGN)
    assert verdicts[0].startswith("merge:Ada:already stated there")
    assert new == FOREIGN


def test_rejections_name_their_reason_and_change_nothing() -> None:
    """Secrets, quotes of another session, unreadable lines, references gone at birth."""
    view = RepoView.build(Path("/repo"), ["src/app.py"], ["main"])
    lines = [
        pending("a", item(f"Deploy with {TOKEN}")),
        pending("b", item("Use SQLite", quote_session="claude-code:box:other")),
        parse_pending(b'{"dreamd":"pending","op":"c"}'),
        pending("d", item("The retry loop is in `src/gone.py`", project="/repo")),
    ]
    verdicts, new = gate(lines, FOREIGN, **{"/repo": view})
    assert verdicts == [
        "reject:None:credential-shaped value",
        f"reject:None:untraceable: a quote cites {OTHER}:m1, not session {SESSION}",
        "reject:None:malformed: the record holds no valid item",
        "reject:None:stale at birth: every reference is missing from the repository (src/gone.py)",
    ]
    assert new == FOREIGN


def test_duplicate_observations_collapse_in_dreamds_entities_only() -> None:
    """Equal once folded or 90 % of the words: the later ones go; foreign lines stay."""
    base = item("Use SQLite for the cursor store")
    line = parse_line(
        owned(base, base.body, "use sqlite  for the CURSOR store", "Keep the cursor in WAL mode")
    )
    assert [index for index, _ in duplicate_observations(line)] == [1]
    doubled = b'{"type":"entity","name":"A","entityType":"p","observations":["same","same"]}'
    kept, removals, _ = tidy([parse_line(doubled), line], views={}, now=NOW, where=WHERE)
    assert kept[0].raw == doubled
    assert [r.observation for r in removals] == ["use sqlite  for the CURSOR store"]
    assert len(kept[1].observations) == 3


def stale(collected: date, kind: str = "project", name: str = "parser") -> GraphLine:
    value = item("The parser lives in `src/old_parser.py`", name=name, kind=kind,
                 collected=collected, project="/repo")  # fmt: skip
    return parse_line(owned(value))


@pytest.mark.parametrize(
    ("line", "moved"),
    [
        (stale(date(2026, 10, 1)), True),
        (stale(date(2026, 11, 28)), False),  # prune guard: collected within 14 days
        (stale(date(2026, 10, 1), kind="feedback"), False),  # prune guard: a lesson
        (stale(date(2026, 10, 1), name="Billing"), False),  # a relation names it: flagged
    ],
)
def test_stale_entities_of_dreamd_leave_the_graph_unless_a_guard_keeps_them(
    line: GraphLine, moved: bool
) -> None:
    """Every reference missing, old, a project memory, no relation: moved to the trash."""
    view = RepoView.build(Path("/repo"), ["src/app.py"], ["main"])
    relation = parse_line(b'{"type":"relation","from":"Ada","to":"Billing","relationType":"owns"}')
    kept, removals, flags = tidy([line, relation], views={"/repo": view}, now=NOW, where=WHERE)
    assert (line in kept) is not moved
    assert bool(removals) is moved
    if line.name == "Billing":
        assert flags == ["entity 'Billing': stale: every reference is missing from its project "
                         "(src/old_parser.py); kept, a relation names it"]  # fmt: skip


def test_entities_left_without_observations() -> None:
    """Dreamd's: moved out; another's: flagged and kept as it is."""
    empty_owned = parse_line(
        render_entity("x", "t", [render_provenance(["k"], item("anything at all"))])
    )
    foreign = parse_line(b'{"type":"entity","name":"y","entityType":"t","observations":[]}')
    kept, removals, flags = tidy([empty_owned, foreign], views={}, now=NOW, where=WHERE)
    assert kept == [foreign] and removals[0].reason == "no observations left but its provenance"
    assert flags == ["entity 'y' has no observations (not dreamd's: left as is)"]


# --- the I/O edge -----------------------------------------------------------------------------


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def planted(folder: Path) -> GraphStore:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "memory.jsonl").write_bytes(FOREIGN)
    store = GraphStore(folder / "memory.jsonl")
    store.write("good", item("Use SQLite for the cursor store"))
    store.write("twin", item("Ada reviews every database migration before release", name="t"))
    store.write("bad", item(f"Deploy with {TOKEN}", name="deploy"))
    return store


def test_a_run_moves_every_pending_line_out_and_deletes_nothing(tmp_path: Path) -> None:
    """Accepted and merged lines go to the ledger, rejected ones to the trash with a reason."""
    store = planted(tmp_path / "kg")
    result = dream_graph(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    assert [line.split(" ")[0] for line in result.changes] == ["accepted", "merged", "rejected"]
    assert store.pending_path.read_bytes() == b""
    assert store.path.read_bytes().startswith(FOREIGN)
    ledger = [parse_pending(raw).op_key for raw in store.ledger_path.read_bytes().splitlines()]
    assert ledger == ["good", "twin"]
    (trashed,) = (
        (store.folder / ".trash" / "2026-12-01" / "memory.inbox.jsonl").read_text().splitlines()
    )
    assert json.loads(trashed)["reason"] == "credential-shaped value"
    assert parse_pending(json.loads(trashed)["line"].encode()).op_key == "bad"
    receipt = store.find("good")
    assert receipt is not None and store.verify(receipt, "good")
    assert store.read(receipt) == item("Use SQLite for the cursor store")


def test_a_dry_run_changes_no_byte(tmp_path: Path) -> None:
    """Every line says what would happen; the folder stays as it was."""
    store = planted(tmp_path / "kg")
    before = files(store.folder)
    result = dream_graph(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=True)
    assert result.changes and all(line.startswith("would ") for line in result.changes)
    assert files(store.folder) == before


def test_undo_puts_back_every_byte(tmp_path: Path) -> None:
    """The run is journaled: undoing it restores the graph and the pending file exactly."""
    store = planted(tmp_path / "kg")
    before = files(store.folder)
    run_dir = tmp_path / "runs" / "r1"
    dream_graph(store, run_dir=run_dir, now=NOW, dry_run=False)
    for journal in run_dir.iterdir():
        undo_run(journal)
    assert files(store.folder) == before


def test_a_graph_the_server_changes_during_the_run_is_left_for_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server holds no lock: bytes that changed since the read are never overwritten."""
    store = planted(tmp_path / "kg")
    reads = {"count": 0}
    real = graph_module._read

    def racing(path: Path) -> bytes | None:
        if path == store.path:
            reads["count"] += 1
            if reads["count"] == 3:  # the check before writing: the server saved meanwhile
                store.path.write_bytes(
                    FOREIGN + b'{"type":"entity","name":"n","entityType":"t","observations":[]}\n'
                )
        return real(path)

    monkeypatch.setattr(graph_module, "_read", racing)
    before = store.pending_path.read_bytes()
    result = dream_graph(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    assert result.changes == [] and "changed while the dream read it" in result.flags[0]
    assert store.pending_path.read_bytes() == before and not store.ledger_path.exists()


def test_merging_twice_after_a_cut_off_run_adds_nothing_twice(tmp_path: Path) -> None:
    """A pending line whose key the graph already holds is only moved out (to the ledger once)."""
    store = planted(tmp_path / "kg")
    dream_graph(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    graph_bytes = store.path.read_bytes()
    store.pending_path.write_bytes(
        render_pending("good", item("Use SQLite for the cursor store")) + b"\n"
    )
    result = dream_graph(store, run_dir=tmp_path / "runs" / "r2", now=NOW, dry_run=False)
    assert result.changes == [
        "accepted memory.inbox.jsonl:good as entity 'cursor store': already in the graph"
    ]
    assert store.path.read_bytes() == graph_bytes
    ledger = [parse_pending(raw).op_key for raw in store.ledger_path.read_bytes().splitlines()]
    assert ledger == ["good", "twin"]


def test_an_update_planted_after_acceptance_is_not_made(tmp_path: Path) -> None:
    """Once the gate took an item, the collector's update of it returns None."""
    store = planted(tmp_path / "kg")
    (held,) = [h for h in store.items_from(f"source:{SESSION}") if h.item.name == "cursor store"]
    dream_graph(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    changed = dataclasses.replace(held.item, body="Use SQLite for the cursor store, in WAL mode")
    assert store.update("later", held.receipt, changed) is None
