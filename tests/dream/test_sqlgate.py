"""The validate gate for SQL-store rows: accept, merge, reject; moves undone by `dreamd undo`."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates import rules
from dreamd.dream.gates.sql import SqlVerdict
from dreamd.dream.gates.sql import sql_gate as gate
from dreamd.stores import MemoryItem, Quote
from tests.collect.test_collect_cli import PROMPTS, collect, data, session
from tests.process import run_dreamd

SOURCE = "source:claude-code:box:s1"
OWN, OTHER = "claude-code:box:s1", "claude-code:box:other"
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def sql_gate(
    new: list[tuple[str, MemoryItem | None]], accepted: list[tuple[str, MemoryItem | None]]
) -> list[SqlVerdict]:
    """The gate at ``NOW`` with no repository views."""
    return gate(new, accepted, now=NOW, views={})


def item(
    body: str, *, quote_session: str = "s1", quotes: int = 1, kind: str = "feedback"
) -> MemoryItem:
    cited = tuple(Quote(f"claude-code:box:{quote_session}:m{i}", body) for i in range(quotes))
    return MemoryItem(
        type=kind, category="Rule", name=body[:20], description=body, body=body,  # type: ignore[arg-type]
        confidence=0.8, source=SOURCE, collected=date(2026, 11, 30), quotes=cited,
    )  # fmt: skip


def test_accepts_traceable_clean_items() -> None:
    """A quoted, secret-free item is accepted."""
    (verdict,) = sql_gate([("k1", item("Always run the linter before committing"))], [])
    assert (verdict.status, verdict.op_key) == ("accepted", "k1")


def test_merges_duplicates_of_accepted_items() -> None:
    """Same type and at least 0.6 overlap with an accepted row: merged into it."""
    body = "Always run the linter before committing code changes"
    verdicts = sql_gate([("k2", item(body + " please"))], [("k1", item(body))])
    assert [(v.status, v.reason) for v in verdicts] == [("merged", "duplicate of k1")]
    other_type = sql_gate([("k3", item(body, kind="project"))], [("k1", item(body))])
    assert other_type[0].status == "accepted"


def test_two_new_duplicates_keep_the_first() -> None:
    """Among new rows the first is accepted and a later duplicate merged into it."""
    body = "Never push directly to the main branch"
    verdicts = sql_gate([("a", item(body)), ("b", item(body))], [])
    assert [v.status for v in verdicts] == ["accepted", "merged"]


def test_rejections() -> None:
    """Secrets, foreign or missing quotes and invalid rows are rejected with a reason."""
    secret = item("Use the token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + " for pushes")
    verdicts = sql_gate(
        [
            ("s", secret),
            ("f", item("Always lint first", quote_session="other")),
            ("n", item("Always lint first", quotes=0)),
            ("x", None),
        ],
        [],
    )
    assert [(v.op_key, v.status, v.reason) for v in verdicts] == [
        ("s", "rejected", "credential-shaped value"),
        ("f", "rejected", f"untraceable: a quote cites {OTHER}:m0, not session {OWN}"),
        ("n", "rejected", "untraceable: no quoted message"),
        ("x", "rejected", "malformed: the row holds no valid item"),
    ]


def test_the_sql_gate_applies_the_rules_of_every_gate() -> None:
    """A row collected in the future, or whose references are all gone, is rejected as the
    file gates reject it (the SQL gate used to accept both)."""
    view = RepoView.build(Path("/repo"), ["src/app.py"], ["main"])
    future = dataclasses.replace(item("Always lint first"), collected=date(2026, 12, 9))
    gone = dataclasses.replace(item("Retry lives in `src/gone.py` now"), project="/repo")
    kept = dataclasses.replace(item("Retry lives in `src/app.py` now"), project="/repo")
    verdicts = gate([("f", future), ("g", gone), ("k", kept)], [], now=NOW, views={"/repo": view})
    assert [(v.op_key, v.status, v.reason) for v in verdicts] == [
        ("f", "rejected", "no provenance: collected 2026-12-09 is in the future"),
        (
            "g",
            "rejected",
            "stale at birth: every reference is missing from the repository (src/gone.py)",
        ),
        ("k", "accepted", "provenance, quotes and content check out"),
    ]


def statuses(home: Path) -> list[str]:
    with sqlite3.connect(data(home) / "memory.db") as connection:
        return sorted(row[0] for row in connection.execute("SELECT status FROM memory_item"))


def test_dream_gates_new_rows_and_undo_puts_them_back(isolated_home: Path) -> None:
    """After collect, the dream accepts the new rows; undo returns them to new."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    assert statuses(isolated_home) == ["new", "new", "new"]
    dry = run_dreamd(isolated_home, "dream", "--dry-run", "--json")
    assert statuses(isolated_home) == ["new", "new", "new"]
    assert any("would mark SQL item" in m for m in json.loads(dry.stdout)["messages"])
    live = run_dreamd(isolated_home, "dream", "--json")
    assert live.returncode == 0, live.stderr
    assert statuses(isolated_home) == ["accepted", "accepted", "accepted"]
    undo = run_dreamd(isolated_home, "undo", json.loads(live.stdout)["run_id"])
    assert undo.returncode == 0, undo.stderr
    assert statuses(isolated_home) == ["new", "new", "new"]


def test_every_sql_rejection_is_the_shared_rules_verdict() -> None:
    """Issue 12 item 17: the SQL gate decides with ``gates.rules``, the rules every gate uses:
    for each rule, the row's reason is exactly what ``rules.rejection`` says."""
    view = RepoView.build(Path("/repo"), ["src/app.py"], ["main"])
    views = {"/repo": view}
    rows = {
        "credential": item("Use ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + " to push"),
        "untraceable": item("Always lint first", quotes=0),
        "foreign quote": item("Always lint first", quote_session="other"),
        "future": dataclasses.replace(item("Always lint first"), collected=date(2026, 12, 9)),
        "stale at birth": dataclasses.replace(item("See `src/gone.py`"), project="/repo"),
    }
    verdicts = gate(list(rows.items()), [], now=NOW, views=views)
    for verdict in verdicts:
        shared = rules.rejection(rows[verdict.op_key], now=NOW, views=views, where=Path("x"))
        assert shared is not None, verdict.op_key
        assert (verdict.status, verdict.reason) == ("rejected", shared)
