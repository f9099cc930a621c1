"""What a command or the idle service loads: only what its work needs (issue 13, start-up).

Each probe is a fresh interpreter, so the modules it reports are exactly what
the command imported. SQLAlchemy, the collector, the dream and structlog's rich
integration cost a reading command several times its whole budget and the idle
service tens of megabytes; these tests keep them out where they are not used.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.test_catalog import write_claude
from tests.process import modules_loaded, run_dreamd
from tests.service.daemon import write_config

#: The machinery of the jobs: a command that runs neither job must not load it.
JOBS = ("sqlalchemy", "alembic", "yaml", "dreamd.collect.collector", "dreamd.dream.gardener")
#: The transcript parsers (``dreamd.readers.READERS``): only what reads a transcript loads them.
PARSERS = ("dreamd.readers._registry", "dreamd.readers.claude_code", "dreamd.readers.codex")
#: The store adapters and their item codec: reading the configuration needs only their specs.
ADAPTERS = (
    "dreamd.stores._heldfile",
    "dreamd.stores._codec",
    "dreamd.stores.claude_memory",
    "dreamd.stores.memory_md",
    "dreamd.stores.graph_jsonl",
    "dreamd.stores.gemini_md",
    "dreamd.stores.sql",
)


def loaded(modules: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {m for m in modules if m.startswith(prefixes)}


@pytest.fixture
def used_home(isolated_home: Path) -> Path:
    """A home whose state database exists and holds a run, as a user's does."""
    write_config(isolated_home, '[collect]\nschedule = "30 2 * * *"\nstores = ["claude-memory"]\n')
    assert run_dreamd(isolated_home, "collect").returncode == 0
    return isolated_home


@pytest.mark.parametrize(
    "command",
    [("status",), ("status", "--json"), ("log",), ("log", "--json"), ("--help",)],
    ids=" ".join,
)
def test_reading_commands_load_neither_job_nor_the_sql_layer(
    used_home: Path, command: tuple[str, ...]
) -> None:
    """``status`` and ``log`` read the state database through sqlite3, parse no transcript
    and log nothing; a JSON document draws no table either."""
    modules = modules_loaded(used_home, *command)
    assert loaded(modules, JOBS) == set()
    assert loaded(modules, PARSERS) == set()
    assert modules.isdisjoint(ADAPTERS)
    assert loaded(modules, ("structlog",)) == set()
    if "--json" in command:
        assert loaded(modules, ("rich",)) == set()


@pytest.mark.parametrize("command", [("status",), ("status", "--json")], ids=" ".join)
def test_status_loads_no_message_model(used_home: Path, command: tuple[str, ...]) -> None:
    """``status`` reads the session cache's file versions and times (``readers._stamps``),
    never a message: neither the reader model nor its hashing is imported."""
    modules = modules_loaded(used_home, *command)
    assert "dreamd.readers._stamps" in modules
    assert "dreamd.readers._model" not in modules


def test_listing_sources_loads_neither_the_scheduler_nor_structlog(used_home: Path) -> None:
    """A command that schedules nothing checks no schedule (APScheduler brings asyncio and
    a scan of the installed packages), and its ``info`` lines are below its level."""
    modules = modules_loaded(used_home, "sources", "list", "--json")
    assert "dreamd.catalog" in modules
    assert loaded(modules, ("apscheduler", "structlog", "asyncio")) == set()


#: The extraction rules and what only an item to plant needs: a few hundred patterns.
EXTRACTION = (
    "dreamd.collect.heuristic",
    "dreamd.collect.llm",
    "dreamd.secrets",
    "dreamd.collect.bans",
)


def test_a_collect_with_nothing_to_collect_compiles_no_extraction_rule(used_home: Path) -> None:
    """With every session taken care of, a collect scans and plants nothing: neither the
    heuristic's rules, the LLM package nor the secret filter's patterns are imported."""
    modules = modules_loaded(used_home, "collect")
    assert "dreamd.collect.collector" in modules
    assert loaded(modules, EXTRACTION) == set()


def test_a_collect_that_extracts_loads_the_heuristic_with_its_first_window(
    isolated_home: Path,
) -> None:
    """A session waiting: its window goes through the heuristic, loaded then (the LLM
    package is still not needed)."""
    write_config(isolated_home, '[collect]\nstores = ["claude-memory"]\n')
    write_claude(isolated_home, "s1", ["Use uv for installs here.", "Why?", "Because it is fast."])
    modules = modules_loaded(isolated_home, "collect")
    assert "dreamd.collect.heuristic" in modules
    assert loaded(modules, ("dreamd.collect.llm",)) == set()
    done = run_dreamd(isolated_home, "sources", "list", "--json")
    assert [row["status"] for row in json.loads(done.stdout)] == ["resolved"]


def test_the_idle_service_loads_no_job_until_one_runs(isolated_home: Path) -> None:
    """The service's own modules hold neither job: they load on the first run."""
    code = (
        "import json, sys\n"
        "import dreamd.cli.service, dreamd.service.runner, dreamd.jobs\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    modules = modules_loaded(isolated_home, code=code)
    assert "dreamd.service.runner" in modules
    assert loaded(modules, (*JOBS, "dreamd.dream", "dreamd.collect.run", "rich")) == set()


def test_logging_loads_structlog_on_the_first_line_without_rich(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Configuring logging costs nothing; the first line loads structlog (not its rich
    integration), is the usual JSON, and rich still imports afterwards for tables."""
    code = (
        "import io, json, sys\n"
        "from dreamd.logs import configure_logging, get_logger\n"
        "stream = io.StringIO()\n"
        "configure_logging('info', stream=stream)\n"
        "log = get_logger('dreamd.probe')\n"
        "before = 'structlog' in sys.modules\n"
        "log.info('probe.logged', answer=42)\n"
        "after_line = sorted(m for m in sys.modules if m.split('.')[0] in ('structlog', 'rich'))\n"
        "import rich.table\n"
        "found = [before, after_line, json.loads(stream.getvalue())]\n"
        "open(sys.argv[1], 'w').write(json.dumps(found))\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    found = tmp_path / "found.json"
    modules = modules_loaded(isolated_home, str(found), code=code)
    before, after_line, line = json.loads(found.read_text())
    assert before is False
    assert "structlog" in after_line and not [m for m in after_line if m.startswith("rich")]
    assert "rich.table" in modules
    assert (line["event"], line["level"], line["answer"], line["logger"]) == (
        "probe.logged",
        "info",
        42,
        "dreamd.probe",
    )


def test_a_line_below_the_level_loads_no_structlog(isolated_home: Path, tmp_path: Path) -> None:
    """At ``warning`` (every one-shot command's level) an ``info`` or ``debug`` line is
    dropped before structlog is imported; the first line the level keeps loads it and is
    written."""
    code = (
        "import io, json, sys\n"
        "from dreamd.logs import configure_logging, get_logger\n"
        "stream = io.StringIO()\n"
        "configure_logging('warning', stream=stream)\n"
        "log = get_logger('dreamd.probe')\n"
        "log.info('probe.quiet', answer=1)\n"
        "get_logger().debug('probe.quieter')\n"
        "quiet = ['structlog' in sys.modules, stream.getvalue()]\n"
        "log.warning('probe.loud', answer=2)\n"
        "found = [quiet, 'structlog' in sys.modules, stream.getvalue().splitlines()]\n"
        "open(sys.argv[1], 'w').write(json.dumps(found))\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    found = tmp_path / "found.json"
    modules_loaded(isolated_home, str(found), code=code)
    quiet, loaded_after, lines = json.loads(found.read_text())
    assert quiet == [False, ""]
    assert loaded_after is True
    assert [json.loads(line)["event"] for line in lines] == ["probe.loud"]


def test_a_first_command_creates_the_state_database_without_alembic(isolated_home: Path) -> None:
    """A new user's first command creates the state database at the newest schema directly:
    neither Alembic nor SQLAlchemy is loaded for it."""
    modules = modules_loaded(isolated_home, "status", "--json")
    assert (isolated_home / ".local" / "share" / "dreamd" / "state.db").is_file()
    assert loaded(modules, ("alembic", "sqlalchemy")) == set()


def test_showing_a_session_loads_only_its_readers_parser(isolated_home: Path) -> None:
    """``sources show`` reads one session: the other tools' parsers stay unloaded, and the
    session is still found and shown."""
    sid = "5e55104e-0000-4000-8000-000000000001"
    folder = isolated_home / ".claude" / "projects" / "-home-user-src-app"
    folder.mkdir(parents=True)
    record = {
        "type": "user",
        "uuid": "u1",
        "sessionId": sid,
        "cwd": "/home/user/src/app",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "Always run the linter before committing."},
    }
    (folder / f"{sid}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    shown = run_dreamd(isolated_home, "sources", "show", f"claude-code:{sid}", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["messages"][0]["text"].startswith("Always run the linter")
    modules = modules_loaded(isolated_home, "sources", "show", f"claude-code:{sid}", "--json")
    assert "dreamd.readers.claude_code" in modules
    others = ("dreamd.readers.codex", "dreamd.readers.pi", "dreamd.readers.opencode")
    assert loaded(modules, (*others, "dreamd.readers.gemini", "dreamd.readers.cursor")) == set()
