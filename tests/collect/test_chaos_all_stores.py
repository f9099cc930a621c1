"""The chaos test with every store configured: `dreamd collect` SIGKILLed at 20 I/O points.

The same session planted into the Claude Code memory folder, the SQL store,
the sectioned ``MEMORY.md`` and the knowledge graph at once: whatever the
kill point, a rerun leaves all four holding exactly what an uninterrupted run
leaves — no duplicate, nothing missing — and the session fully acknowledged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import LONG, SID, collect, kill_run, session, stores_of
from tests.process import run_dreamd

pytestmark = pytest.mark.slow


def configure(home: Path) -> None:
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    notes = home / "notes"
    notes.mkdir(exist_ok=True)
    config.write_text(
        '[collect]\nstores = ["claude-memory", "sql", "memory-md", "graph"]\n'
        f'[stores.memory-md]\npath = "{notes / "MEMORY.md"}"\n'
        f'[stores.graph]\npath = "{notes / "memory.jsonl"}"\n'
    )


def everything(home: Path) -> dict[str, object]:
    """Every store's content, as a rerun must leave it."""
    files, keys = stores_of(home)
    notes = home / "notes"
    return {
        "inbox": files,
        "sql": keys,
        "memory-md": sorted(p.name for p in notes.iterdir() if not p.name.startswith(".")),
        "memory-md held": _read(notes / "MEMORY.inbox.md"),
        "graph held": sorted(_read(notes / "memory.inbox.jsonl").splitlines()),
    }


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], int]:
    """An uninterrupted run's stores, and how many I/O calls it made."""
    home = tmp_path_factory.mktemp("all-stores") / "home"
    home.mkdir()
    configure(home)
    session(home, LONG)
    result = kill_run(home, 0)
    assert result.returncode == 0, result.stderr
    calls = int(result.stderr.strip().rsplit("io-calls ", 1)[1])
    stores = everything(home)
    assert stores["sql"] and stores["memory-md held"] and stores["graph held"]
    return stores, calls


@pytest.mark.parametrize("share", [i / 20 for i in range(20)])
def test_killed_anywhere_with_every_store_a_rerun_plants_exactly_once(
    isolated_home: Path, share: float, baseline: tuple[dict[str, object], int]
) -> None:
    stores, calls = baseline
    configure(isolated_home)
    session(isolated_home, LONG)
    kill_at = 1 + int(share * (calls - 1))
    assert kill_run(isolated_home, kill_at).returncode == -9
    rerun = collect(isolated_home)
    assert rerun.returncode == 0, rerun.stderr
    assert everything(isolated_home) == stores
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["status"] == "resolved" and entry["intent"] is None
    assert len(entry["acked"]) == len(LONG) * 2
