"""Every run lists every index change, the seed's rebuild line and the budget report (item 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import SHARED_FIXTURES
from tests.dream.test_dream_cli import OLD, run, topic, write

PARTIAL = (
    SHARED_FIXTURES / "memory" / "BobG1983__breaker__agent-memory-reviewer-performance-partial"
)


def dangling_folder(root: Path) -> Path:
    """Two memories, an index with three dangling links, one orphan, no stale memory."""
    memory = root / "memory"
    topic(memory / "project_a.md", "project", "first", "Alpha notes.")
    topic(memory / "project_orphan.md", "project", "never linked", "Orphan notes.")
    lines = ["# Memory", "", "- [A](project_a.md) — a"]
    lines += [f"- [Gone {k}](project_gone_{k}.md) — gone" for k in range(3)]
    write(memory / "MEMORY.md", "\n".join(lines) + "\n")
    return memory


def test_json_lists_every_index_change_and_the_budget(isolated_home: Path, tmp_path: Path) -> None:
    """Dangling entries removed, the orphan added, each with why; the seed's line; budget."""
    memory = dangling_folder(tmp_path)
    result = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(memory))
    (folder,) = json.loads(result.stdout)["directories"]
    changes = folder["index"]["changes"]
    assert [c["file"] for c in changes["removed"]] == [f"project_gone_{k}.md" for k in range(3)]
    assert all("dangling" in c["reason"] and c["line"] for c in changes["removed"])
    assert [c["file"] for c in changes["added"]] == ["project_orphan.md"]
    assert folder["index"]["rebuild_line"] == (
        f"Would rebuild: {memory}/MEMORY.md (3 entries removed, 2 remaining)"
    )
    budget = folder["index"]["budget_report"]
    assert budget["budget"] == 17408 and budget["line_limit"] == 200 and budget["fits"]
    assert budget["sections"] and "overhead_bytes" in budget and "long_entries" in budget


def test_text_shows_index_changes_when_no_memory_moved(isolated_home: Path, tmp_path: Path) -> None:
    """A run where no memory moved still lists what changed in the index."""
    memory = dangling_folder(tmp_path)
    text = run(isolated_home, "dream", "--root", str(memory)).stdout
    assert "No memory moved." not in text
    assert "### Index changes" in text
    assert f"Rebuilt: {memory}/MEMORY.md (3 entries removed, 2 remaining)" in text
    assert "| `project_gone_0.md` | removed | no such file in the folder (dangling link) |" in text
    assert "| `project_orphan.md` | added |" in text
    assert "Budget: " in text and "of 200 lines" in text


def test_archive_moves_and_shortened_hooks_are_listed(isolated_home: Path, tmp_path: Path) -> None:
    """Over budget: the shortened hooks, the moves and the per-section bytes are reported."""
    memory = tmp_path / "memory"
    hook = "lesson " * 40
    lines = ["# Memory", "", "## Feedback", ""]
    for k in range(8):
        name = f"feedback_n{k}.md"
        topic(memory / name, "feedback", f"n{k}", f"Lesson {k}.", mtime=OLD + k)
        lines.append(f"- [N{k}]({name}) — first clause {k}, {hook}")
    write(memory / "MEMORY.md", "\n".join(lines) + "\n")
    env = {"DREAMD_INDEX_BUDGET_BYTES": "1100"}
    result = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(memory), **env)
    index = json.loads(result.stdout)["directories"][0]["index"]
    changes = index["changes"]
    assert changes["shortened"] or changes["archived"]
    budget = index["budget_report"]
    assert budget["moved"] == [c["file"] for c in changes["archived"]]
    assert [s["heading"] for s in budget["sections"]][-1] == "Feedback"
    assert budget["long_entries"] == []  # shortened below 400 characters
    text = run(isolated_home, "dream", "--dry-run", "--root", str(memory), **env).stdout
    assert "| Section | Entries | Bytes |" in text


@pytest.mark.fixtures
def test_the_real_partial_folder_reports_its_26_dropped_entries(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The real folder whose index has 26 dangling links: all 26 are listed as removed."""
    if not PARTIAL.is_dir():
        pytest.skip("shared memory fixtures not found")
    memory = tmp_path / "partial"
    shutil.copytree(PARTIAL, memory)
    for path in memory.iterdir():
        path.chmod(0o644)
    result = run(isolated_home, "dream", "--dry-run", "--json", "--root", str(memory))
    (folder,) = json.loads(result.stdout)["directories"]
    removed = folder["index"]["changes"]["removed"]
    assert len(removed) == 26
    assert folder["index"]["rebuild_line"].endswith("(26 entries removed, 4 remaining)")
    text = run(isolated_home, "dream", "--dry-run", "--root", str(memory)).stdout
    assert "No memory moved." not in text
    assert text.count("| removed | no such file in the folder (dangling link) |") == 26
