"""Privacy controls end to end: excluded projects and ``<private>`` spans leave no trace.

A real HOME with three finished Claude Code sessions, every store configured,
``dreamd collect``, ``dreamd dream``, ``sources list`` and ``sources show`` run
as subprocesses; then every file under HOME (the data dir included) but the
transcripts themselves, and everything the commands printed, is searched for
words only the excluded sessions and the private spans held.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dreamd.privacy import IGNORE_FILE
from tests.collect.test_memory_folder_cli import transcript
from tests.process import run_dreamd

EXCLUDED_WORD = "ZEBRAEXCLUDED7731"
IGNORED_WORD = "OKAPIIGNORED5520"
PRIVATE_WORD = "QUOKKAPRIVATE9914"


def rules(word: str) -> list[str]:
    """Prompts the heuristic extractor plants from, each naming ``word``."""
    return [
        f"Always run the {word} linter before committing, from now on.",
        "Fix the flaky test in the parser please.",
        f"We decided to use {word} instead of pip because it is much faster.",
        "ok thanks",
    ]


def configure(home: Path) -> None:
    """Every store, and ``~/clients/*`` excluded."""
    config = home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[collect]\nstores = ["claude-memory", "sql", "memory-md", "graph", "gemini"]\n'
        'exclude_projects = ["~/clients/*"]\n'
        f'[stores.memory-md]\npath = "{home}/notes/MEMORY.md"\n'
        f'[stores.graph]\npath = "{home}/kg/memory.jsonl"\n'
    )


def sessions(home: Path) -> tuple[Path, Path, Path]:
    """An excluded project, an ignored repository's subfolder, and an open project."""
    excluded = home / "clients" / "acme"
    excluded.mkdir(parents=True)
    ignored = home / "src" / "app"
    (ignored / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=ignored, check=True, capture_output=True)
    (ignored / IGNORE_FILE).touch()
    open_project = home / "work" / "open"
    open_project.mkdir(parents=True)
    transcript(home, excluded, "11111111-0000-4000-8000-00000000000a", rules(EXCLUDED_WORD))
    transcript(home, ignored / "pkg", "11111111-0000-4000-8000-00000000000b", rules(IGNORED_WORD))
    private = [
        f"Always run the linter before committing <private>{PRIVATE_WORD}</private>, from now on.",
        "Fix the flaky test in the parser please.",
        "We decided to use uv instead of pip because it is much faster.",
        f"<private>my login is {PRIVATE_WORD}</private>",
        "ok thanks",
    ]
    transcript(home, open_project, "11111111-0000-4000-8000-00000000000c", private)
    return excluded, ignored, open_project


def traces(home: Path, printed: str) -> list[str]:
    """Where any of the three words appears: files under HOME but the transcripts, or output."""
    words = (EXCLUDED_WORD, IGNORED_WORD, PRIVATE_WORD)
    found = [f"output: {w}" for w in words if w in printed]
    for path in home.rglob("*"):
        if not path.is_file() or (
            path.suffix == ".jsonl" and path.parent.parent.name == "projects"
        ):
            continue
        data = path.read_bytes()
        found += [f"{path.relative_to(home)}: {w}" for w in words if w.encode() in data]
    return found


def test_excluded_and_private_text_reaches_no_store_plan_report_or_log(
    isolated_home: Path,
) -> None:
    """After collect, dream, list and show, only the transcripts hold the words."""
    configure(isolated_home)
    sessions(isolated_home)
    debug = {"DREAMD_LOG_LEVEL": "debug"}
    collected = run_dreamd(isolated_home, "collect", "--json", **debug)
    assert collected.returncode == 0, collected.stderr
    report = json.loads(collected.stdout)
    assert report["selected"] == ["claude-code:11111111-0000-4000-8000-00000000000c"]
    assert report["planted"]["total"] > 0
    dreamed = run_dreamd(isolated_home, "dream", "--json", **debug)
    assert dreamed.returncode == 0, dreamed.stderr
    listed = run_dreamd(isolated_home, "sources", "list", "--json", **debug)
    shown = run_dreamd(
        isolated_home,
        "sources",
        "show",
        "claude-code:11111111-0000-4000-8000-00000000000c",
        **debug,
    )
    assert shown.returncode == 0, shown.stderr
    printed = "".join(r.stdout + r.stderr for r in (collected, dreamed, listed, shown))
    assert traces(isolated_home, printed) == []


def test_excluded_sessions_are_listed_as_excluded_with_the_reason(isolated_home: Path) -> None:
    """``sources list`` shows both kept-out sessions as ``excluded``, saying which control."""
    configure(isolated_home)
    sessions(isolated_home)
    listed = run_dreamd(isolated_home, "sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    by_id = {entry["id"][-1]: entry for entry in json.loads(listed.stdout)}
    assert (by_id["a"]["status"], by_id["b"]["status"], by_id["c"]["status"]) == (
        "excluded",
        "excluded",
        "eligible",
    )
    assert "collect.exclude_projects" in by_id["a"]["reason"]
    assert IGNORE_FILE in by_id["b"]["reason"]
    assert not by_id["a"]["selected"] and not by_id["b"]["selected"]
