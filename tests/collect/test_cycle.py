"""The daily cycle: `dreamd collect` plants into .inbox/, `dreamd dream` validates and indexes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.collect.test_collect_cli import PROMPTS, collect, session
from tests.process import run_dreamd


def memory_folder(home: Path) -> Path:
    return home / ".claude" / "projects" / "-work-app" / "memory"


def tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".trash" not in p.parts and p.name != ".lock"
    }


def test_collected_memories_end_indexed_with_provenance(isolated_home: Path) -> None:
    """After collect then dream, every planted memory is a topic file linked from MEMORY.md."""
    session(isolated_home, PROMPTS)
    assert collect(isolated_home).returncode == 0
    folder = memory_folder(isolated_home)
    planted = sorted(p.name for p in (folder / ".inbox").glob("*.md"))
    assert len(planted) == 3
    result = run_dreamd(isolated_home, "dream", "--json", "--root", str(folder))
    assert result.returncode == 0, result.stderr
    (report,) = json.loads(result.stdout)["directories"]
    assert sum(line.startswith("accepted") for line in report["findings"]) == 3
    assert not list((folder / ".inbox").glob("*.md"))
    index = (folder / "MEMORY.md").read_text()
    for name in planted:
        assert (folder / name).exists() and f"]({name})" in index
        assert "source: source:claude-code:" in (folder / name).read_text()
    assert report["index"]["invariant_ok"]


def test_running_both_again_changes_nothing(isolated_home: Path) -> None:
    """A second collect and dream leave the memory folder exactly as it was."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    folder = memory_folder(isolated_home)
    run_dreamd(isolated_home, "dream", "--root", str(folder))
    before = tree(folder)
    assert json.loads(collect(isolated_home, "--json").stdout)["planted"]["total"] == 0
    again = run_dreamd(isolated_home, "dream", "--json", "--root", str(folder))
    assert json.loads(again.stdout)["mode"] == "no-op"
    assert tree(folder) == before


def test_undo_of_the_dream_puts_items_back_in_the_inbox(isolated_home: Path) -> None:
    """Undoing the dream that accepted collected items returns them to .inbox/ unchanged."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    folder = memory_folder(isolated_home)
    before = tree(folder)
    document = json.loads(
        run_dreamd(isolated_home, "dream", "--json", "--root", str(folder)).stdout
    )
    assert run_dreamd(isolated_home, "undo", document["run_id"]).returncode == 0
    assert tree(folder) == before
