"""The full cycle on every shared real transcript: collect until nothing is left, then dream."""

from __future__ import annotations

import importlib
import json
import os
import time
from pathlib import Path

from tests.process import run_dreamd
from tests.readers.test_contract import LAYOUTS


def lay_out_everything(fixtures: Path, home: Path) -> None:
    for name in LAYOUTS:
        importlib.import_module(f"tests.readers.{name}").lay_out(fixtures, home)
    past = time.time() - 3 * 86400  # finished sessions, whenever the fixtures were copied
    for path in home.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


def memory_tree(home: Path) -> dict[str, bytes]:
    root = home / ".claude" / "projects"
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.glob("*/memory/**/*"))
        if p.is_file() and p.name != ".lock"
    }


def collect_until_done(home: Path) -> list[dict[str, object]]:
    reports = []
    for _ in range(40):
        result = run_dreamd(home, "collect", "--budget", "25", "--json")
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        reports.append(report)
        if not report["selected"]:
            return reports
    raise AssertionError("the collector never ran out of work")


def test_collect_everything_then_dream_then_nothing_changes(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Real transcripts end as indexed, provenance-tagged memories; a second cycle is a no-op."""
    lay_out_everything(shared_transcripts, isolated_home)
    reports = collect_until_done(isolated_home)
    assert all(not r["backlog"]["eligible_deferred"] for r in reports[-1:])
    dream = run_dreamd(isolated_home, "dream", "--json")
    assert dream.returncode == 0, dream.stdout + dream.stderr
    document = json.loads(dream.stdout)
    for folder in document["directories"]:
        assert folder["refused"] is None, folder
        assert folder["index"]["invariant_ok"], folder["path"]
    inboxes = list((isolated_home / ".claude" / "projects").glob("*/memory/.inbox/*.md"))
    assert inboxes == []
    planted = list((isolated_home / ".claude" / "projects").glob("*/memory/*_*.md"))
    for path in planted:
        text = path.read_text()
        assert "source: source:" in text and "collected: " in text, path
    before = memory_tree(isolated_home)
    again = collect_until_done(isolated_home)
    assert all(r["planted"]["total"] == 0 for r in again)  # type: ignore[index]
    second = json.loads(run_dreamd(isolated_home, "dream", "--json").stdout)
    assert second["mode"] == "no-op"
    assert memory_tree(isolated_home) == before
