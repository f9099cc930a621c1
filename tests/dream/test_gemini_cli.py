"""`dreamd collect` then `dreamd dream` into Gemini CLI's GEMINI.md, then `dreamd undo`."""

from __future__ import annotations

import json
from pathlib import Path

from dreamd.stores.memory_md import parse_records
from tests.collect.test_collect_cli import PROMPTS, collect, session
from tests.process import run_dreamd

MINE = "# Global notes\n\n## Gemini Added Memories\n- I work on a laptop.\n"


def test_facts_wait_beside_gemini_md_then_join_it_undoably(isolated_home: Path) -> None:
    """Collect holds 3 facts; the dream adds 3 clean lines; undo restores every byte."""
    gemini = isolated_home / ".gemini"
    gemini.mkdir()
    (gemini / "GEMINI.md").write_text(MINE)
    config = isolated_home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[collect]\nstores = ["gemini"]\n')
    session(isolated_home, PROMPTS)
    collected = collect(isolated_home)
    assert collected.returncode == 0, collected.stderr
    assert (gemini / "GEMINI.md").read_text() == MINE
    assert len(parse_records((gemini / "GEMINI.inbox.md").read_text())) == 3
    before = {p.name: p.read_bytes() for p in gemini.iterdir() if p.is_file()}

    live = run_dreamd(isolated_home, "dream", "--json")
    assert live.returncode == 0, live.stderr
    report = json.loads(live.stdout)
    assert sum(": accepted " in m for m in report["messages"]) == 3, report["messages"]
    lines = (gemini / "GEMINI.md").read_text().splitlines()
    assert lines[:4] == MINE.splitlines() and len(lines) == 7
    assert all(line.startswith("- ") and "dreamd" not in line for line in lines[3:])

    undo = run_dreamd(isolated_home, "undo", report["run_id"])
    assert undo.returncode == 0, undo.stderr
    after = {p.name: p.read_bytes() for p in gemini.iterdir() if p.is_file()}
    assert {k: v for k, v in after.items() if not k.startswith(".")} == {
        k: v for k, v in before.items() if not k.startswith(".")
    }
