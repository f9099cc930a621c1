"""A dream loads neither the collector nor SQLAlchemy unless a store needs them (issue 13)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
import dreamd.cli.dream, dreamd.jobs, dreamd.dream.run, dreamd.dream.stores
print(json.dumps(sorted(sys.modules)))
"""


def test_the_dream_command_loads_no_collector_and_no_database_library() -> None:
    """``dreamd dream``'s modules (jobs, gates, stores) import neither ``dreamd.collect.run``
    nor SQLAlchemy: a dream without a SQL store never pays for them."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert {"dreamd.jobs", "dreamd.dream.run"} <= loaded
    assert "dreamd.dream.gates.registry" in loaded
    assert not {module for module in loaded if module.split(".")[0] == "sqlalchemy"}
    heavy = {"dreamd.collect.run", "dreamd.collect.collector", "dreamd.stores.sql"}
    assert not loaded & heavy


def test_the_sql_gate_still_answers_through_the_registry(tmp_path: Path) -> None:
    """The rows gate's undo reaches the SQL gate when it runs: a run that moved rows cannot
    be undone without a SQL store, one that moved none can."""
    from dreamd.dream.gates import sql
    from dreamd.dream.gates.registry import GATES, UNDO

    assert "rows" in GATES
    assert UNDO["rows"].conflicts(None, tmp_path) == []
    assert UNDO["rows"].restore(None, tmp_path) == []
    (tmp_path / sql.SQL_MOVES).write_text('[["op-1", "new", "accepted"]]')
    assert UNDO["rows"].conflicts(None, tmp_path) == [
        "the run changed SQL store items, but no SQL store is configured"
    ]


def test_a_dream_with_nothing_to_gate_loads_no_yaml_secret_filter_or_structlog(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Plain front matters, no inbox, nothing logged: the dream imports no YAML, no secret
    filter (its patterns take long to compile) and no structlog; a front matter only YAML
    can read still loads it."""
    from tests.process import modules_loaded

    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "feedback_tests.md").write_text(
        "---\nname: Real database\ndescription: tests hit a real one\ntype: feedback\n---\n"
        "Tests hit a real database, never mocks.\n"
    )
    (memory / "MEMORY.md").write_text("- [Real database](feedback_tests.md) — tests\n")
    args = ("dream", "--dry-run", "--root", str(memory))
    loaded = modules_loaded(isolated_home, *args)
    assert "dreamd.dream.folder.inventory" in loaded
    top = {module.split(".")[0] for module in loaded}
    assert not top & {"yaml", "structlog"}
    assert not {module for module in loaded if module.startswith("dreamd.secrets")}
    (memory / "project_nested.md").write_text(
        "---\nname: Nested\ndescription: a list\ntype: project\ntags: [a, b]\n---\nBody.\n"
    )
    assert "yaml" in modules_loaded(isolated_home, *args)
