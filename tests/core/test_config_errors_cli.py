"""Configuration mistakes that used to pass the load and fail later (issue 15, configuration
item 12): each is one line at load from the real ``dreamd``, naming the file and dotted key.

Every case runs ``dreamd cursor export`` (any command loads the settings first) and
asserts the whole of stderr. ``dream --root`` takes the same folder rule as ``dream.roots``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.process import run_dreamd


def config_file(home: Path) -> Path:
    return home / ".config" / "dreamd" / "config.toml"


def load_error(home: Path, text: str, **env: str) -> str:
    """The one line ``dreamd`` prints when it refuses ``text`` as its configuration."""
    path = config_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    result = run_dreamd(home, "cursor", "export", **env)
    assert result.returncode == 1 and result.stdout == "", result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "internal error" not in lines[0]
    return lines[0]


def expected(home: Path, key: str, problem: str) -> str:
    return f"Error: {config_file(home)}: {key}: {problem}"


class TestStoresSql:
    def test_an_unparseable_url(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[stores.sql]\nurl = "not a url"\n')
        assert line == expected(
            isolated_home,
            "stores.sql.url",
            "'not a url' is not a database URL (e.g. sqlite:////path/memory.db)",
        )

    def test_an_unparseable_url_with_a_password_is_not_quoted(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[stores.sql]\nurl = "postgresql://u:s3cr3t@h:abc/db"\n')
        assert line == expected(
            isolated_home,
            "stores.sql.url",
            "the URL is not a database URL (e.g. sqlite:////path/memory.db)",
        )

    @pytest.mark.skipif(
        importlib.util.find_spec("MySQLdb") is not None, reason="mysqlclient is installed"
    )
    def test_a_mysql_url_without_its_driver(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[stores.sql]\nurl = "mysql://dreamd@localhost/memory"\n')
        assert line == expected(
            isolated_home,
            "stores.sql.url",
            "mysql:// needs the MySQLdb driver, which is not installed: pip install "
            "mysqlclient, or name an installed driver (mysql+pymysql://)",
        )

    def test_a_sqlite_file_in_a_folder_that_does_not_exist(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        folder = tmp_path / "no" / "such"
        line = load_error(isolated_home, f'[stores.sql]\nurl = "sqlite:///{folder}/memory.db"\n')
        assert line == expected(
            isolated_home, "stores.sql.url", f"the SQLite file's folder {folder} does not exist"
        )
        assert not folder.exists()


class TestExtractors:
    def test_a_base_url_that_is_no_url(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[extractors.openai]\nbase_url = "ht!tp://bad url"\n')
        assert line == expected(
            isolated_home,
            "extractors.openai.base_url",
            "'ht!tp://bad url' is not an http:// or https:// URL",
        )

    def test_a_missing_extractor_program(self, isolated_home: Path, tmp_path: Path) -> None:
        text = (
            '[collect]\nextractor = "command"\n'
            '[extractors.command]\nargv = ["dreamd-no-such-extractor", "--json"]\n'
        )
        line = load_error(isolated_home, text, PATH=str(tmp_path))
        assert line == expected(
            isolated_home,
            "extractors.command.argv[0]",
            "the program 'dreamd-no-such-extractor' is not on PATH",
        )

    def test_a_preset_whose_program_is_not_installed(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        text = '[collect]\nextractor = "command"\n[extractors.command]\npreset = "gemini"\n'
        line = load_error(isolated_home, text, PATH=str(tmp_path))
        assert line == expected(
            isolated_home, "extractors.command.preset", "the program 'gemini' is not on PATH"
        )


class TestPlaces:
    def test_a_memory_md_repository_that_does_not_exist(self, isolated_home: Path) -> None:
        text = '[stores.memory-md]\npath = "~/notes/MEMORY.md"\nrepo = "~/src/gone"\n'
        line = load_error(isolated_home, text)
        assert line == expected(
            isolated_home, "stores.memory-md.repo", f"{isolated_home}/src/gone is not a folder"
        )

    def test_a_dream_root_that_does_not_exist(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[dream]\nroots = ["~/memory", "~/nowhere"]\n')
        assert line.startswith(expected(isolated_home, "dream.roots[0]", ""))
        (isolated_home / "memory").mkdir()
        line = load_error(isolated_home, '[dream]\nroots = ["~/memory", "~/nowhere"]\n')
        assert line == expected(
            isolated_home, "dream.roots[1]", f"{isolated_home}/nowhere: no such folder"
        )

    def test_a_dream_root_that_is_a_file(self, isolated_home: Path) -> None:
        (isolated_home / "notes.md").write_text("x")
        line = load_error(isolated_home, '[dream]\nroots = ["~/notes.md"]\n')
        assert line == expected(
            isolated_home, "dream.roots[0]", f"{isolated_home}/notes.md: not a folder"
        )

    def test_a_log_file_in_a_folder_that_does_not_exist(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, '[service]\nlog_file = "~/logs/dreamd.log"\n')
        assert line == expected(
            isolated_home,
            "service.log_file",
            f"the folder {isolated_home}/logs does not exist (dreamd does not create it)",
        )
        assert not (isolated_home / "logs").exists()


NAME_RULE = "letters, digits, '.', '_' and '-' (no '/', ':' or spaces), at most 63 characters"


class TestMachine:
    def test_an_empty_machine(self, isolated_home: Path) -> None:
        line = load_error(isolated_home, 'machine = ""\n')
        assert line == expected(
            isolated_home, "machine", "must not be empty (leave it out to use the host name)"
        )

    @pytest.mark.parametrize("name", ["../../evil", "lap:top", "my laptop", "a/b", "-x"])
    def test_a_machine_that_cannot_name_a_host(self, isolated_home: Path, name: str) -> None:
        line = load_error(isolated_home, f'machine = "{name}"\n')
        assert line == expected(
            isolated_home, "machine", f"{name!r} is not a machine name: {NAME_RULE}"
        )

    def test_a_good_machine_collects(self, isolated_home: Path) -> None:
        """The rule refuses only what would break tags and file names."""
        path = config_file(isolated_home)
        path.parent.mkdir(parents=True)
        path.write_text('machine = "lap-top.home_2"\n')
        result = run_dreamd(isolated_home, "collect")
        assert result.returncode == 0, result.stderr


class TestDreamRoot:
    def test_a_root_that_does_not_exist(self, isolated_home: Path) -> None:
        result = run_dreamd(isolated_home, "dream", "--root", "/nonexistent")
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr == "Error: --root /nonexistent: no such folder\n"

    def test_a_file_given_as_root(self, isolated_home: Path) -> None:
        target = isolated_home / "MEMORY.md"
        target.write_text("# Memory\n")
        result = run_dreamd(isolated_home, "dream", "--root", str(target))
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr == f"Error: --root {target}: not a folder\n"
        assert target.read_text() == "# Memory\n"

    def test_the_filesystem_root(self, isolated_home: Path) -> None:
        """``--root /`` used to rebuild ``/MEMORY.md``; now it is refused and nothing written."""
        before = Path("/MEMORY.md").exists()
        result = run_dreamd(isolated_home, "dream", "--root", "/")
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr == "Error: --root /: the root of the filesystem is no memory folder\n"
        assert Path("/MEMORY.md").exists() == before


class TestSchedules:
    """A schedule is checked where it is used: every command that schedules, or tells when
    the next run is, refuses a bad one naming the file and the key, before any work."""

    BAD = '[collect]\nschedule = "30 2 * *"\n[dream]\nschedule = "61 3 * * *"\n'

    @pytest.mark.parametrize(
        ("command", "key"),
        [
            (("status",), "collect.schedule"),
            (("collect", "--dry-run"), "collect.schedule"),
            (("run",), "collect.schedule"),
        ],
        ids=lambda value: " ".join(value) if isinstance(value, tuple) else value,
    )
    def test_a_command_that_schedules_refuses_it(
        self, isolated_home: Path, command: tuple[str, ...], key: str
    ) -> None:
        path = config_file(isolated_home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.BAD)
        result = run_dreamd(isolated_home, *command)
        assert result.returncode == 1 and result.stdout == "", result.stderr
        assert result.stderr.splitlines()[-1] == expected(
            isolated_home,
            key,
            "not a cron schedule: expected 5 cron fields (minute hour day month weekday) or 6 "
            "with leading seconds, got 4",
        )
        assert not (isolated_home / ".local" / "share" / "dreamd" / "plans").exists()

    def test_the_second_schedule_is_checked_too(self, isolated_home: Path) -> None:
        path = config_file(isolated_home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('[dream]\nschedule = "61 3 * * *"\n')
        result = run_dreamd(isolated_home, "status")
        assert result.returncode == 1, result.stderr
        line = result.stderr.splitlines()[-1]
        assert line.startswith(expected(isolated_home, "dream.schedule", "not a cron schedule: "))

    def test_doctor_fails_the_configuration_at_the_key(self, isolated_home: Path) -> None:
        path = config_file(isolated_home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.BAD)
        result = run_dreamd(isolated_home, "doctor", "--json")
        assert result.returncode == 1, result.stderr
        checks = json.loads(result.stdout)["checks"]
        assert [c["status"] for c in checks] == ["fail"]
        assert (
            "collect.schedule" in checks[0]["detail"]
            and "not a cron schedule" in checks[0]["detail"]
        )
        assert checks[0]["fix"] == f"edit {path} at collect.schedule"

    def test_a_command_that_schedules_nothing_still_works(self, isolated_home: Path) -> None:
        path = config_file(isolated_home)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.BAD)
        result = run_dreamd(isolated_home, "sources", "list", "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == []
