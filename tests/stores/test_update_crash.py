"""A store update killed at every I/O call inside it: the old item or the new one, never a mix.

Seed 002 phase 4: the collector rewrites a pending item it planted when a
later window restates it, and a crash may land anywhere in that rewrite. On
the next run the plan is replayed; the update must then happen exactly once
(one item, found under both keys, reading as the update left it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.stores.factories import open_store, sample_item
from tests.stores.updater import PLANTED, UPDATE, restated

PROJECT_ROOT = Path(__file__).resolve().parents[2]
KINDS = ("claude-memory", "sql", "memory-md", "graph")
#: The file a one-file store of each kind lives in, under the run's area.
FILE_STORES = {"memory-md": "MEMORY.md", "graph": "memory.jsonl"}


def target_of(kind: str, area: Path) -> str:
    if kind in FILE_STORES:
        return str(area / "store" / FILE_STORES[kind])
    return str(area / "memory") if kind == "claude-memory" else f"sqlite:///{area / 'items.db'}"


def run_updater(kind: str, target: str, kill_at: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.stores.updater", kind, target, str(kill_at)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def calls_in_update(kind: str, area: Path) -> int:
    area.mkdir()
    result = run_updater(kind, target_of(kind, area), 0)
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split()[0])


def held_now(kind: str, target: str) -> list[object]:
    """Every item of the session the store holds now."""
    return [held.item for held in open_store(kind, target).items_from(sample_item(0).source)]


@pytest.mark.parametrize("kind", KINDS)
def test_an_update_killed_anywhere_then_replayed_happens_once(kind: str, tmp_path: Path) -> None:
    """Kill at each I/O call of the update; after each, one whole item; a rerun completes it."""
    total = calls_in_update(kind, tmp_path / "calibration")
    assert total >= 2  # the crash points are real: the update does I/O
    for kill_at in range(1, total + 1):
        area = tmp_path / f"run-{kill_at}"
        area.mkdir()
        target = target_of(kind, area)
        killed = run_updater(kind, target, kill_at)
        assert killed.returncode == -9, killed.stderr
        assert held_now(kind, target) in ([sample_item(0)], [restated(sample_item(0))])
        rerun = run_updater(kind, target, 0)
        assert rerun.returncode == 0, rerun.stderr
        assert held_now(kind, target) == [restated(sample_item(0))]
        store = open_store(kind, target)
        for key in (PLANTED, UPDATE):
            receipt = store.find(key)
            assert receipt is not None and store.verify(receipt, key)
        if kind == "claude-memory":
            visible = [p.name for p in (area / "memory" / ".inbox").iterdir()]
            assert len([name for name in visible if name.endswith(".md")]) == 1
