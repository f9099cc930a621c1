"""The command line loads a command's code only when that command runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from dreamd.cli import COMMANDS, LazyGroup, cli
from tests.process import run_dreamd

PROBE = """
import json, sys
from dreamd.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="dreamd", standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_loaded_by(*args: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``dreamd ARGS``."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [("--help",), ("--version",)])
def test_help_and_version_load_no_job_and_no_database(args: tuple[str, ...]) -> None:
    """``--help`` and ``--version`` never pay for SQLAlchemy, the jobs or the dream."""
    loaded = modules_loaded_by(*args)
    assert "sqlalchemy" not in loaded
    heavy = ("dreamd.jobs", "dreamd.dream", "dreamd.collect", "dreamd.statedb", "rich")
    assert not {module for module in loaded if module.startswith(heavy)}


def test_a_command_loads_only_its_own_module() -> None:
    """``dreamd facts --help`` imports the facts command, not the service or the dream."""
    loaded = modules_loaded_by("facts", "--help")
    assert "dreamd.cli.facts" in loaded
    assert not {m for m in loaded if m.startswith(("dreamd.cli.service", "dreamd.cli.dream"))}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_listed_command_resolves_to_itself(name: str) -> None:
    """The table names a real command under the same name, with the line its help starts with."""
    command = cli.get_command(click.Context(cli), name)
    assert isinstance(command, click.Command)
    assert command.name == name
    first_paragraph = " ".join((command.help or "").split("\n\n")[0].split())
    assert first_paragraph == COMMANDS[name].short_help


def test_the_group_is_lazy_and_unknown_commands_are_usage_errors(tmp_path: Path) -> None:
    """An unknown command exits 2 with click's message; the help lists every command."""
    assert isinstance(cli, LazyGroup)
    unknown = run_dreamd(tmp_path, "nonsense")
    assert unknown.returncode == 2
    assert "No such command 'nonsense'" in unknown.stderr
    listed = run_dreamd(tmp_path, "--help").stdout
    assert all(f"  {name} " in listed for name in COMMANDS)


def test_status_loads_the_proposal_code_only_when_a_proposal_waits(isolated_home: Path) -> None:
    """``dreamd status`` with no proposal stored reads no proposal; with one, it lists it."""
    from tests.process import modules_loaded

    assert run_dreamd(isolated_home, "status").returncode == 0
    loaded = modules_loaded(isolated_home, "status")
    assert "dreamd.dream.pendingdir" in loaded
    assert not {
        m for m in loaded if m.startswith(("dreamd.dream.pending", "dreamd.dream.model"))
    } - {"dreamd.dream.pendingdir"}
    pending = isolated_home / ".local" / "share" / "dreamd" / "pending"
    pending.mkdir(parents=True)
    (pending / "folder.json").write_text("{}")  # a damaged sidecar still lists as waiting
    assert "dreamd.dream.pending" in modules_loaded(isolated_home, "status")
    shown = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert [p["proposal"] for p in shown["pending_proposals"]] == [str(pending / "folder.md")]
