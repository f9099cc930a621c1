"""docs/json.md documents every field of every ``--json`` document, and only those.

Real runs print the documents (a dry and a real collect, an applied dream with
an index rebuilt and collected items accepted, then ``log``, ``show`` and
``status``); each field they hold must be in that page's list for that
document, and each listed field must appear (or sit under a null or empty
parent). Adding a field without a line there, or a line for a field
that went away, fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.jsonpaths import documented, undocumented, unseen
from tests.collect.test_collect_cli import PROMPTS, session
from tests.dream.test_dream_cli import repo_memory  # noqa: F401  (a fixture)
from tests.process import run_dreamd


def document(home: Path, *args: str) -> Any:
    result = run_dreamd(home, *args, "--json")
    assert result.stdout, result.stderr
    printed = json.loads(result.stdout)
    assert printed["schema"] == 1
    return printed


def check(heading: str, documents: list[Any]) -> None:
    fields = documented(heading)
    assert fields, heading
    for printed in documents:
        assert undocumented(printed, fields) == [], heading
    assert unseen(documents, fields) == [], heading


def test_the_json_page_lists_every_field_of_every_document(
    isolated_home: Path,
    repo_memory: Path,  # noqa: F811  (the fixture)
) -> None:
    session(isolated_home, PROMPTS)
    dry = document(isolated_home, "collect", "--dry-run")
    assert dry["dry_run"] is True and dry["would_plant"]
    collected = document(isolated_home, "collect")
    inbox = isolated_home / ".claude" / "projects" / "-work-app" / "memory"
    dreamed = document(isolated_home, "dream", "--root", str(repo_memory), "--root", str(inbox))
    check("## `dreamd collect --json`", [dry, collected])
    check("## `dreamd dream --json`", [dreamed])
    check("## `dreamd log --json`", [document(isolated_home, "log")])
    shown = [document(isolated_home, "show", run) for run in (dreamed["run_id"], dry["run_id"])]
    check("## `dreamd show RUN_ID --json`", shown)
    assert shown[0]["report"] == dreamed  # the kept report is the document the run printed
    check("## `dreamd status --json`", [document(isolated_home, "status")])


def test_the_check_notices_a_missing_or_a_stale_line() -> None:
    """The comparison itself: an unlisted field and a listed field no document has."""
    fields = ["a", "b[].c", "m.<key>", "free.*"]
    printed = {"a": 1, "b": [{"c": 2, "d": 3}], "m": {"x": 1}, "free": {"y": {"z": 1}}}
    assert undocumented(printed, fields) == ["b[].d"]
    assert unseen([printed], [*fields, "gone"]) == ["gone"]
    assert unseen([{"b": []}], ["b[].c"]) == []  # under an empty list: cannot be seen
