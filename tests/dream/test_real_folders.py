"""The ten real memory folders, dreamed end to end (issue 12, acceptance).

Laid out by ``tests.dream.realfolders`` (where each lived, with the source
trees ``SOURCES.md`` lets us rebuild and mtimes from a fixed plan), then:

- nothing a careful reader keeps is trashed (``KEEP``, one reason each);
- every index fits 200 lines and its byte budget, or the report says why not;
- a dry run then ``--apply-pending`` leaves the same folders as a live run;
- ``dreamd undo`` puts every folder back byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.dream.realfolders import REAL, lay_out, real_folders_present
from tests.dream.test_dream_cli import run, tree

pytestmark = [
    pytest.mark.fixtures,
    pytest.mark.skipif(not real_folders_present(), reason="shared memory fixtures not found"),
]

GUARD = "BobG1983__breaker__agent-memory-guard-game-design"
REVIEWER = "BobG1983__breaker__agent-memory-reviewer-performance"
PARTIAL = "BobG1983__breaker__agent-memory-reviewer-performance-partial"
PIPELINE = "4444J99__application-pipeline__claude-memory"
SSAM = "1000ssam__claude-config__memory"
TRADING = "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading"
RAPP = "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-RApplication"
BGA = "AnotherSava__bga-assistant__claude-memory"
DEATHWATCH = "Aleslammer__deathwatch_foundryvtt__claude-memory"

#: Memories a careful reader keeps, each with why (folder, file, reason).
KEEP: tuple[tuple[str, str, str], ...] = (
    (GUARD, "evaluation-protocol-brainstorm-r2.md", "25 KB round-2 design, 85 % its own words"),
    (GUARD, "evaluation-protocol-brainstorm.md", "round 1: the designs round 2 reclassified"),
    (GUARD, "evaluation-breaker-builder-pattern.md", "templated description, breaker's builder"),
    (GUARD, "evaluation-wall-builder-pattern.md", "templated description, the wall's builder"),
    (GUARD, "open-design-concerns.md", "the open concerns the index sections point to"),
    (REVIEWER, "breaker_builder_spawn_pattern.md", "breaker's spawn pattern, not the wall's"),
    (REVIEWER, "wall_builder_spawn_pattern.md", "the wall's spawn pattern, not the breaker's"),
    (REVIEWER, "bolt_builder_archetype_fragmentation.md", "one path moved; the lesson stands"),
    (REVIEWER, "test_utils_patterns.md", "test helpers moved in a refactor; patterns stand"),
    (REVIEWER, "scenario_runner_patterns.md", "runner file moved; the patterns are the value"),
    (REVIEWER, "volatile_wave1_patterns.md", "wave 1 only: per-wave files are not duplicates"),
    (REVIEWER, "sequence_wave2_patterns.md", "wave 2 only"),
    (REVIEWER, "armored_wave3_patterns.md", "wave 3 only"),
    (REVIEWER, "magnetic_wave5_patterns.md", "wave 5 only"),
    (REVIEWER, "survival_wave6a_patterns.md", "wave 6a only"),
    (PARTIAL, "wall_registry_pattern.md", "one of the four files the partial commit kept"),
    (PARTIAL, "propagate_breaker_changes_hot_reload.md", "kept by the partial commit"),
    (PIPELINE, "feedback_cover_letter_quality.md", "older standards, overlap holds one way"),
    (PIPELINE, "feedback_resume_cover_letter_quality_2026-03-26.md", "the superseding rules"),
    (PIPELINE, "feedback_never_defer_commands.md", "run the commands, a lesson of its own"),
    (PIPELINE, "feedback_never_defer_to_human.md", "no mechanical work for the human"),
    (PIPELINE, "feedback_rules_are_additive.md", "rules accumulate: a rule for rule files"),
    (PIPELINE, "feedback_additive_design.md", "design layers accumulate: another subject"),
    (PIPELINE, "project_session_2026-03-17.md", "a session log of its own day"),
    (PIPELINE, "project_session_2026-03-31-s44.md", "session 44, same day as session 45"),
    (PIPELINE, "project_session_2026-03-31-s45.md", "session 45"),
    (PIPELINE, "project_freshness_gate_2026-03-15.md", "linked twice in the index, one memory"),
    (SSAM, "project_ppt-deck-skill.md", "the deck skill, beside the lab skill"),
    (SSAM, "project_ppt-lab-skill.md", "the lab skill"),
    (SSAM, "project_ppt-lab-rebuild.md", "the lab's rebuild, a later project"),
    (SSAM, "project_wee-linked-deploy.md", "deployment of wee-linked"),
    (SSAM, "project_wee-linked-mock.md", "its mock data, another subject"),
    (SSAM, "notiontalk-landing-strategy.md", "no front matter: nothing can be verified"),
    (SSAM, "feedback_branch-policy-strict.md", "empty name, a firm branch policy"),
    (TRADING, "project_xlf_breakout_screen_20260608.md", "the XLF screen"),
    (TRADING, "project_xlv_breakout_screen_20260608.md", "the XLV screen, another ticker"),
    (TRADING, "ibkr_fx_exposure.md", "no front matter, referenced as text only"),
    (TRADING, "user_trading_framework.md", "an orphan user memory: never pruned"),
    (TRADING, "project_newtrading_remote_todo.md", "linked twice with contradicting hooks"),
    (RAPP, "feedback_stale_tests_are_live_data_not_dates.md", "no type: nothing to judge"),
    (RAPP, "feedback_analyze_neutral_stance.md", "same name as in NewTrading, own project"),
    (BGA, "project_bga_table_type.md", "the largest note; sibling-repo paths are not gone"),
    (BGA, "project_innovation_id_keyed_maps.md", "one symbol unseen; the design stands"),
    (BGA, "feedback_tests_no_gitignored_data.md", "a testing rule, a lesson"),
    (DEATHWATCH, "macro_system.md", "a glob with no match yet; the macro design stands"),
    (DEATHWATCH, "socket_permissions.md", "feedback filed without the prefix"),
    (DEATHWATCH, "architecture.md", "the foundation memory the index opens with"),
)

#: Trashed by rule, and why that is right (folder, file, reason): reported, reviewable, undone
#: by ``dreamd undo``. Anything else trashed fails the test.
TRASHED_BY_RULE: tuple[tuple[str, str, str], ...] = (
    (
        GUARD,
        "audit-chip-evolution-coherence.md",
        "a project memory whose one verifiable reference, the full audit it summarises "
        "(.claude/specs/audit-design-coherence.md), SOURCES.md says is gone from the tree",
    ),
)


def folders_of(root: Path, home: Path) -> dict[str, Path]:
    return dict(zip((real.name for real in REAL), lay_out(root, home), strict=True))


def dream(home: Path, folders: dict[str, Path], *args: str) -> dict[str, object]:
    roots = [arg for path in folders.values() for arg in ("--root", str(path))]
    result = run(home, "dream", "--json", *args, *roots)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    document: dict[str, object] = json.loads(result.stdout)
    return document


def trees(folders: dict[str, Path]) -> dict[str, dict[str, bytes]]:
    return {name: tree(path) for name, path in folders.items()}


@pytest.fixture
def live(tmp_path: Path, isolated_home: Path) -> tuple[dict[str, Path], dict[str, object]]:
    """The ten folders after one live dream by hand, and its report."""
    folders = folders_of(tmp_path / "live", isolated_home)
    return folders, dream(isolated_home, folders)


def test_nothing_a_careful_reader_keeps_is_trashed(
    live: tuple[dict[str, Path], dict[str, object]],
) -> None:
    """Every memory of ``KEEP`` is still in its folder; only ``TRASHED_BY_RULE`` went."""
    folders, report = live
    for name, file, why in KEEP:
        assert (folders[name] / file).is_file(), f"{name}/{file} was trashed ({why})"
    expected = {(name, file) for name, file, _ in TRASHED_BY_RULE}
    by_path = {str(path): name for name, path in folders.items()}
    trashed = {
        (by_path[folder["path"]], d["file"])
        for folder in report["directories"]  # type: ignore[attr-defined]
        for d in folder["files"]
        if d["action"] == "trash"
    }
    assert trashed == expected


def test_every_index_fits_or_says_why(live: tuple[dict[str, Path], dict[str, object]]) -> None:
    """200 lines (trailer included) and the byte budget, or a warning naming what is over."""
    folders, report = live
    for folder in report["directories"]:  # type: ignore[attr-defined]
        index = Path(folder["path"]) / "MEMORY.md"
        text = index.read_text()
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        fits = lines <= 200 and len(text.encode()) <= folder["index"]["budget"]
        assert fits or folder["index"]["warnings"], folder["path"]
        assert folder["index"]["invariant_ok"] and folder["refused"] is None, folder["path"]
    ssam = (folders[SSAM] / "MEMORY.md").read_text().splitlines()
    assert len(ssam) <= 200 and ssam[-1].startswith("> ")  # the real 249-line index


def test_dry_run_then_apply_pending_is_the_live_run(
    live: tuple[dict[str, Path], dict[str, object]], tmp_path: Path, isolated_home: Path
) -> None:
    """A reviewed proposal applied later leaves every folder as the live run left it."""
    folders, _ = live
    reviewed = folders_of(tmp_path / "reviewed", isolated_home / "reviewed-home")
    home = isolated_home / "reviewed-home"
    before = trees(reviewed)
    dry = dream(home, reviewed, "--dry-run")
    assert dry["mode"] == "dry-run" and trees(reviewed) == before
    applied = dream(home, reviewed, "--apply-pending")
    assert all(f["refused"] is None for f in applied["directories"])  # type: ignore[attr-defined]
    assert trees(reviewed) == trees(folders)


def test_undo_is_byte_exact(tmp_path: Path, isolated_home: Path) -> None:
    """After a live dream of all ten, `dreamd undo` restores every folder byte for byte."""
    folders = folders_of(tmp_path / "undo", isolated_home)
    before = trees(folders)
    report = dream(isolated_home, folders)
    assert trees(folders) != before
    result = run(isolated_home, "undo", str(report["run_id"]))
    assert result.returncode == 0, result.stderr
    assert trees(folders) == before
