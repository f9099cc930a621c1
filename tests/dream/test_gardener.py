"""The gardener's wiring of the seeds: discovery, findings, failures, housekeeping."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest

from dreamd.dream.apply import apply_plan
from dreamd.dream.discovery import discover_folders, repo_for_encoded
from dreamd.dream.execute import CrashPoint, Executor
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gardener import run_dream
from dreamd.dream.model import DreamRequest
from dreamd.dream.plan import plan_folder
from tests.conftest import SHARED_FIXTURES
from tests.dream.factories import NOW
from tests.dream.test_dream_cli import run, topic, tree, write


class TestDiscovery:
    def test_encoded_folder_pairs_with_the_project_its_transcripts_name(self) -> None:
        """The most common project of the folder's sessions wins; the name is never decoded."""
        folder = Path("/h/.claude/projects/-work-app")
        projects = {folder: ["/work/app", "/work/app", "/elsewhere"]}
        assert repo_for_encoded(folder, projects) == Path("/work/app")
        assert repo_for_encoded(Path("/h/.claude/projects/-x"), projects) is None

    def test_the_three_locations_and_project_folders(self, tmp_path: Path) -> None:
        """projects/*/memory, agent-memory/*, memory and the same under each project."""
        claude = tmp_path / ".claude"
        for relative in ("projects/-w-app/memory", "agent-memory/reviewer", "memory"):
            write(claude / relative / "MEMORY.md", "# m\n")
        project = tmp_path / "src" / "app"
        write(project / ".claude" / "memory" / "MEMORY.md", "# p\n")
        (claude / "projects" / "-w-empty" / "memory").mkdir(parents=True)
        targets = discover_folders(
            claude, [str(project)], {claude / "projects" / "-w-app": [str(project)]}
        )
        found = {t.path.relative_to(tmp_path).as_posix(): t.repo for t in targets}
        assert found == {
            ".claude/agent-memory/reviewer": None,
            ".claude/memory": None,
            ".claude/projects/-w-app/memory": project,
            "src/app/.claude/memory": project,
        }

    def test_root_option_restricts_the_run(self, tmp_path: Path) -> None:
        """--root limits the run to the named folders, even unknown ones."""
        claude = tmp_path / ".claude"
        write(claude / "memory" / "MEMORY.md", "# m\n")
        other = tmp_path / "repo" / ".claude" / "agent-memory" / "x"
        write(other / "MEMORY.md", "# x\n")
        targets = discover_folders(claude, [], {}, only=[other])
        assert [(t.path, t.repo) for t in targets] == [(other, tmp_path / "repo")]


def test_findings_report_drift_wikilinks_and_unverified(tmp_path: Path) -> None:
    """Version drift and wikilinks to trashed memories are reported; sectioned claims marked."""
    repo = tmp_path / "repo"
    write(repo / "package.json", json.dumps({"dependencies": {"react": "19.1.0"}}))
    write(repo / "src" / "app.ts", "export function boot() {}\n")
    memory = repo / ".claude" / "memory"
    topic(memory / "project_gone.md", "project", "old", "Uses `src/old.ts` only.")
    topic(
        memory / "project_ui.md",
        "project",
        "ui stack",
        "We use react 18.2 with `src/app.ts`. See [[project_gone]].",
    )
    write(
        memory / "MEMORY.md",
        "# Memory\n\n## Rules\n- Boot lives in `src/missing.ts` [ses_1]\n\n"
        "## Patterns\n- ok [ses_2]\n\n## Gotchas\n- none [ses_3]\n",
    )
    folder = load_folder(memory, repo)
    plan = plan_folder(
        folder,
        RepoView.scan(repo),
        now=NOW,
        budget=17408,
        terms=frozenset(),
        read_paths=frozenset(),
        manifests={"react": "19.1.0"},
    )
    text = "\n".join(plan.findings)
    assert "react" in text and "18.2" in text
    assert "[[project_gone]]" in text
    assert "src/missing.ts` [ses_1] [unverified]" in (plan.new_index or "")


def test_a_failed_move_is_reported_and_the_memory_stays_linked(tmp_path: Path) -> None:
    """If moving one memory fails, the others move, it stays indexed, the run goes on."""
    repo = tmp_path / "repo"
    write(repo / "src" / "app.py", "x = 1\n")
    memory = repo / ".claude" / "memory"
    topic(memory / "project_a.md", "project", "first", "Old `src/a_gone.py` notes.")
    topic(memory / "project_b.md", "project", "second", "Old `src/b_gone.py` notes.")
    write(memory / "MEMORY.md", "# Memory\n")
    plan = plan_folder(
        load_folder(memory, repo),
        RepoView.scan(repo),
        now=NOW,
        budget=17408,
        terms=frozenset(),
        read_paths=frozenset(),
    )
    assert sorted(m.name for m in plan.trash) == ["project_a.md", "project_b.md"]

    class Stubborn(Executor):
        def trash(self, path: Path) -> Path:
            if path.name == "project_a.md":
                raise PermissionError(13, "Permission denied", str(path))
            return super().trash(path)

    _, notes = apply_plan(
        plan, Stubborn(memory, tmp_path / "run", date(2026, 11, 30), CrashPoint()), None
    )
    assert notes == ["project_a.md: could not move to the trash (Permission denied); kept"]
    assert (memory / "project_a.md").exists() and not (memory / "project_b.md").exists()
    index = (memory / "MEMORY.md").read_text()
    assert "project_a.md" in index and "project_b.md" not in index


def test_housekeeping_hints_are_previews_only(isolated_home: Path, tmp_path: Path) -> None:
    """Gone project paths in ~/.claude.json are counted with a preview command; nothing removed."""
    claude_json = isolated_home / ".claude.json"
    claude_json.write_text(
        json.dumps({"projects": {str(tmp_path / "gone"): {}, str(tmp_path): {}}})
    )
    write(isolated_home / ".claude" / "memory" / "MEMORY.md", "# Memory\n")
    request = DreamRequest(mode="dry-run", now=NOW, budget=17408)
    report = run_dream(
        request, env={}, home=isolated_home, state_dir=tmp_path / "state", sessions=[]
    )
    messages = "\n".join(report.messages)
    assert "1 project path(s) in ~/.claude.json no longer exist" in messages
    assert json.loads(claude_json.read_text())["projects"]


def test_no_op_run_says_so(isolated_home: Path, tmp_path: Path) -> None:
    """A run with nothing to change reports it in words, and exits 0."""
    memory = tmp_path / "repo" / ".claude" / "memory"
    topic(memory / "user_x.md", "user", "prefs", "Prefers tabs.")
    assert run(isolated_home, "dream", "--root", str(memory)).returncode == 0
    before = tree(memory)
    second = run(isolated_home, "dream", "--root", str(memory))
    assert "Nothing to change" in second.stdout
    assert tree(memory) == before
    assert os.environ.get("DREAMD_TEST_CRASH_AT") is None


def test_finding_lines_count_from_the_top_of_the_file(tmp_path: Path) -> None:
    """A relative date on file line 8 (body line 3) is reported at line 8 (issue 12, 15)."""
    memory = tmp_path / "memory"
    topic(memory / "project_log.md", "project", "log", "First line.\nWe shipped it yesterday.")
    # the front matter takes lines 1-5; the body starts with the blank line 6
    folder = load_folder(memory, None)
    assert folder.files[0].body_line == 6
    plan = plan_folder(
        folder, None, now=NOW, budget=17408, terms=frozenset(), read_paths=frozenset()
    )
    assert any(f.startswith("project_log.md:8: relative date 'yesterday'") for f in plan.findings)


def test_read_only_layers_are_never_linked_as_memories(tmp_path: Path) -> None:
    """CLAUDE.md, AGENTS.md beside the memories are layers, not memories (issue 12, 11)."""
    memory = tmp_path / "memory"
    topic(memory / "project_a.md", "project", "a", "Alpha.")
    write(memory / "CLAUDE.md", "# Rules of the world\n")
    write(memory / "AGENTS.md", "# Agents\n")
    write(memory / "MEMORY.md", "# M\n\n- [Rules](CLAUDE.md) -- always loaded\n")
    folder = load_folder(memory, None)
    assert [m.name for m in folder.files] == ["project_a.md"]
    plan = plan_folder(
        folder, None, now=NOW, budget=17408, terms=frozenset(), read_paths=frozenset()
    )
    assert plan.new_index is not None
    assert "(AGENTS.md)" not in plan.new_index
    assert "- [Rules](CLAUDE.md) -- always loaded" in plan.new_index  # the user's line, kept
    assert plan.index.invariant_ok


def test_undecided_and_one_way_duplicates_are_flagged_not_trashed(tmp_path: Path) -> None:
    """Same mtime and no date: both kept, flagged; overlap of the smaller only: flagged (4)."""
    memory = tmp_path / "memory"
    body = "deploy pipeline staging database migration rollback checklist production release"
    topic(memory / "project_deploy_checklist.md", "project", "deploy checklist", body)
    topic(memory / "project_deploy_checklist_v2.md", "project", "deploy checklist", body)
    plan = plan_folder(
        load_folder(memory, None), None, now=NOW, budget=17408, terms=frozenset(),
        read_paths=frozenset(),
    )  # fmt: skip
    decided = {d.file: d for d in plan.decisions}
    assert plan.trash == ()
    for name in ("project_deploy_checklist.md", "project_deploy_checklist_v2.md"):
        assert decided[name].action == "flag"
        assert "which one is newer cannot be told" in str(decided[name].kept_reason)


def test_the_real_round_two_design_note_is_kept(tmp_path: Path) -> None:
    """The 25 KB round-2 brainstorm is no duplicate of the 2.8 KB round-1 note (item 4)."""
    source = SHARED_FIXTURES / "memory" / "BobG1983__breaker__agent-memory-guard-game-design"
    if not source.is_dir():
        pytest.skip("shared memory fixtures not found")
    plan = plan_folder(
        load_folder(source, None), None, now=NOW, budget=17408, terms=frozenset(),
        read_paths=frozenset(),
    )  # fmt: skip
    decided = {d.file: d for d in plan.decisions}
    assert plan.trash == ()
    r2 = decided["evaluation-protocol-brainstorm-r2.md"]
    assert r2.action == "flag" and "of the smaller file only" in str(r2.kept_reason)
