"""``dreamd log``, ``dreamd show`` and ``dreamd status`` tell what each run did, in sentences.

Real runs in subprocesses: a collect, a dry run, a refused ``--apply-pending`` and an
applied dream; then what a person reads about them names the files, the counts and
whether each was a dry run or applied.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

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


def test_every_run_is_told_in_sentences(isolated_home: Path, repo_memory: Path) -> None:  # noqa: F811
    session(isolated_home, PROMPTS)
    ok(isolated_home, "collect")
    ok(isolated_home, "dream", "--dry-run", "--root", str(repo_memory))
    ok(isolated_home, "dream", "--root", str(repo_memory))  # applied: trashes two memories
    refused = run_dreamd(isolated_home, "dream", "--apply-pending", "--root", str(repo_memory))
    assert refused.returncode == 1

    runs = log_runs(isolated_home)
    assert [(r["job"], r["mode"], r["outcome"]) for r in runs] == [
        ("dream", "apply-pending", "refused"),
        ("dream", "apply", "ok"),
        ("dream", "dry-run", "ok"),
        ("collect", "apply", "ok"),
    ]
    text = ok(isolated_home, "log")
    print(text)
    print(ok(isolated_home, "show", str(runs[1]["run_id"])[:6]))
    print(ok(isolated_home, "show", str(runs[3]["run_id"])[:6]))
    print(ok(isolated_home, "show", str(runs[2]["run_id"])[:6]))
    print(ok(isolated_home, "status"))
    assert False
