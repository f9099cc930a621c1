"""``dreamd log``, ``dreamd show`` and ``dreamd status`` tell what each run did, in sentences.

Real runs in subprocesses: a collect, a dry run, an applied dream and a refused
``--apply-pending``; what a person then reads names the files, the counts and
whether each run was a dry run or applied (issue 14's acceptance).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.dream.test_dream_cli import repo_memory  # noqa: F401  (a fixture)
from tests.process import run_dreamd


def ok(home: Path, *args: str) -> str:
    result = run_dreamd(home, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def log_runs(home: Path) -> list[dict[str, object]]:
    document = json.loads(ok(home, "log", "--json"))
    assert document["schema"] == 1
    runs: list[dict[str, object]] = document["runs"]
    return runs


def four_runs(isolated_home: Path, memory: Path) -> list[dict[str, object]]:
    """collect; dream --dry-run; dream (applied); a refused dream --apply-pending."""
    session(isolated_home, PROMPTS)
    ok(isolated_home, "collect")
    inbox_folder = isolated_home / ".claude" / "projects" / "-work-app" / "memory"
    roots = ("--root", str(memory), "--root", str(inbox_folder))
    ok(isolated_home, "dream", "--dry-run", *roots)
    ok(isolated_home, "dream", *roots)
    refused = run_dreamd(isolated_home, "dream", "--apply-pending", *roots)
    assert refused.returncode == 1
    runs = log_runs(isolated_home)
    assert [(r["job"], r["mode"], r["outcome"]) for r in runs] == [
        ("dream", "apply-pending", "refused"),
        ("dream", "apply", "ok"),
        ("dream", "dry-run", "ok"),
        ("collect", "apply", "ok"),
    ]
    return runs


def test_log_show_and_status_tell_what_happened(
    isolated_home: Path,
    repo_memory: Path,  # noqa: F811  (the fixture)
) -> None:
    """The issue's acceptance: four real runs, then what each command says about them."""
    runs = four_runs(isolated_home, repo_memory)
    log_says_what_each_run_did(isolated_home, runs)
    show_names_every_file_and_the_undo_command(isolated_home, runs)
    status_tells_last_night_and_keeps_the_change_a_refusal_followed(isolated_home, runs)
    reports_are_private_files_in_a_private_folder(isolated_home, runs)


def log_says_what_each_run_did(isolated_home: Path, four_runs: list[dict[str, object]]) -> None:
    lines = ok(isolated_home, "log").splitlines()
    assert lines[0].split() == [
        "RUN",
        "JOB",
        "STARTED",
        "TOOK",
        "MODE",
        "OUTCOME",
        "WHAT",
        "IT",
        "DID",
    ]
    text = "\n".join(lines)
    refused, applied, dry, collect = (str(run["run_id"]) for run in four_runs)
    row = {
        run_id: next(line for line in lines if line.startswith(run_id))
        for run_id in (refused, applied, dry, collect)
    }
    assert "DRY RUN" in row[dry] and "would trash 2 memories" in row[dry]
    assert "would accept 3 new memories in 1 folder and 3 in the other stores" in row[dry]
    assert "APPLIED" in row[applied] and "trashed 2 memories" in row[applied]
    assert "accepted 3 new memories in 1 folder and 3 in the other stores" in row[applied]
    assert "would" not in row[applied]
    assert "refused" in row[refused] and "refused in" in text
    assert "planted 3 new memories into 2 stores from 1 session" in row[collect]
    # newest first
    assert lines.index(row[refused]) < lines.index(row[applied]) < lines.index(row[collect])


def show_names_every_file_and_the_undo_command(
    isolated_home: Path, four_runs: list[dict[str, object]]
) -> None:
    refused, applied, dry, collect = (str(run["run_id"]) for run in four_runs)
    shown = ok(isolated_home, "show", applied[:5])  # a unique prefix, as git takes short hashes
    assert shown.startswith(f"Run {applied}: dream, APPLIED, ok")
    assert "trashed project_gone.md: fully stale: every verifiable reference is gone" in shown
    assert (
        "trashed project_deploy_checklist.md: duplicate of project_deploy_checklist_v2.md" in shown
    )
    assert "index entry removed project_gone.md: its memory was moved to the trash" in shown
    assert shown.count("accepted .inbox/") == 3
    assert f"Undo it: dreamd undo {applied}" in shown

    dry_shown = ok(isolated_home, "show", dry)
    assert dry_shown.startswith("DRY RUN: nothing was changed.")
    assert "would trash project_gone.md" in dry_shown and "dreamd undo" not in dry_shown
    assert "dreamd dream --apply-pending --root" in dry_shown or "waits for review" not in dry_shown

    collected = ok(isolated_home, "show", collect)
    assert "We decided to use uv instead of pip → claude-memory:" in collected
    assert "→ sql: memory_item/" in collected and "dreamd undo" not in collected

    refused_shown = json.loads(ok(isolated_home, "show", refused, "--json"))
    assert refused_shown["schema"] == 1 and refused_shown["outcome"] == "refused"
    assert refused_shown["report"]["directories"][0]["refused"]
    assert refused_shown["undo"] is None


def status_tells_last_night_and_keeps_the_change_a_refusal_followed(
    isolated_home: Path, four_runs: list[dict[str, object]]
) -> None:
    refused, applied = (str(run["run_id"]) for run in four_runs[:2])
    text = ok(isolated_home, "status")
    assert "collect ran " in text and "planted 3 new memories into 2 stores from 1 session" in text
    assert f"dreamd show {refused}" in text and "applying reviewed proposals" in text
    # The applied dream stays visible after the refused apply-pending that followed it.
    assert "The last dream that changed files: dream ran" in text
    assert "trashed 2 memories" in text and f"(undo: dreamd undo {applied})" in text
    assert "Next runs" not in text  # the service is neither installed nor running


def reports_are_private_files_in_a_private_folder(
    isolated_home: Path, four_runs: list[dict[str, object]]
) -> None:
    folder = data(isolated_home) / "reports"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = sorted(folder.iterdir())
    assert {f"{run['job']}-{run['run_id']}.json" for run in four_runs} == {p.name for p in files}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


def test_an_unknown_run_or_a_bad_since_is_an_error(isolated_home: Path) -> None:
    ok(isolated_home, "dream", "--dry-run")
    missing = run_dreamd(isolated_home, "show", "zzzz")
    assert missing.returncode == 1 and "no run 'zzzz'" in missing.stderr
    empty = run_dreamd(isolated_home, "show", "")
    assert empty.returncode == 1
    since = run_dreamd(isolated_home, "log", "--since", "soon")
    assert since.returncode == 2 and "7d" in since.stderr
    (only,) = log_runs(isolated_home)
    assert only["mode"] == "dry-run" and only["what"] == "no memory folders found"
    assert "DRY RUN" in ok(isolated_home, "log")
    assert "No runs recorded in that time." in ok(isolated_home, "log", "--since", "2999-01-01")


def test_an_ambiguous_prefix_lists_the_candidates(tmp_path: Path) -> None:
    """As git does with a short hash that names two commits."""
    from datetime import UTC, datetime

    from dreamd.errors import Refused
    from dreamd.runlog import resolve_run
    from dreamd.statedb import open_state

    state = open_state(tmp_path / "state.db")
    now = datetime.now(UTC)
    for run_id in ("abc111", "abc222", "abd333"):
        state.start_run(run_id, "dream", "apply", now)
    with pytest.raises(Refused, match="'abc' is ambiguous: it names abc111, abc222"):
        resolve_run(state, "abc")
    assert resolve_run(state, "abd").run_id == "abd333"
    assert resolve_run(state, "abc222").run_id == "abc222"


def test_reports_past_the_retention_are_pruned(tmp_path: Path) -> None:
    import os
    from datetime import UTC, datetime

    from dreamd.runlog import RETENTION_DAYS, prune_reports, save_report

    now = datetime.now(UTC)
    old = save_report(tmp_path, "collect", "old", {"run_id": "old"})
    new = save_report(tmp_path, "dream", "new", {"run_id": "new"})
    stamp = now.timestamp() - (RETENTION_DAYS + 1) * 86400
    os.utime(old, (stamp, stamp))
    assert prune_reports(tmp_path, now) == [old]
    assert not old.exists() and new.exists()


def test_a_report_that_does_not_read_back_as_written_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that lands other bytes (a full disk, a filesystem that lies) is an error,
    even when the bytes decode to the same document."""
    from dreamd import runlog
    from dreamd.errors import StateError

    real = runlog.atomic_write

    def reformatted(path: Path, data: bytes, **kwargs: object) -> None:
        real(path, data.replace(b",", b", "), **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runlog, "atomic_write", reformatted)
    with pytest.raises(StateError, match="did not read back as written"):
        runlog.save_report(tmp_path, "dream", "r1", {"run_id": "r1", "files": [1, 2]})
    monkeypatch.setattr(runlog, "atomic_write", real)
    kept = runlog.save_report(tmp_path, "dream", "r2", {"run_id": "r2", "files": [1, 2]})
    assert kept.read_bytes() == b'{"run_id":"r2","files":[1,2]}'


def test_an_applied_proposal_reports_the_files_it_trashed(
    isolated_home: Path,
    repo_memory: Path,  # noqa: F811  (the fixture)
) -> None:
    """``--apply-pending`` carries out a dry run's proposal: its report (and so ``log`` and
    ``show``) names every file it trashed with the dry run's reason, as an applied dream's
    does, and the survivor of a duplicate."""
    roots = ("--root", str(repo_memory))
    ok(isolated_home, "dream", "--dry-run", *roots)
    ok(isolated_home, "dream", "--apply-pending", *roots)
    run = log_runs(isolated_home)[0]
    assert (run["mode"], run["outcome"]) == ("apply-pending", "ok")
    run_id = str(run["run_id"])
    row = next(line for line in ok(isolated_home, "log").splitlines() if line.startswith(run_id))
    assert "APPLIED" in row and "trashed 2 memories" in row
    shown = ok(isolated_home, "show", run_id)
    assert "trashed project_gone.md: fully stale: every verifiable reference is gone" in shown
    assert (
        "trashed project_deploy_checklist.md: duplicate of project_deploy_checklist_v2.md" in shown
    )
    assert f"Undo it: dreamd undo {run_id}" in shown
    files = json.loads(ok(isolated_home, "show", run_id, "--json"))["report"]["directories"][0][
        "files"
    ]
    duplicate = next(f for f in files if f["file"] == "project_deploy_checklist.md")
    assert (duplicate["action"], duplicate["of"]) == ("trash", "project_deploy_checklist_v2.md")
    assert not (repo_memory / "project_gone.md").exists()
