"""``dreamd doctor`` as a user runs it: real temp homes, real stores, real ports and servers."""

from __future__ import annotations

import http.server
import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from dreamd.service.servicefiles import render_unit
from dreamd.stores.sql import SqlStore
from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.process import run_dreamd
from tests.service.daemon import write_config
from tests.stores.postgres import fresh_schema


def doctor(home: Path, **env: str) -> tuple[int, list[dict[str, Any]], str]:
    """Exit code, the checks of ``--json``, and the text output of a second run."""
    as_json = run_dreamd(home, "doctor", "--json", **env)
    document = json.loads(as_json.stdout)
    assert document["schema"] == 1 and document["ok"] is (as_json.returncode == 0)
    text_run = run_dreamd(home, "doctor", **env)
    assert text_run.returncode == as_json.returncode
    return as_json.returncode, document["checks"], text_run.stdout


def only(checks: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [check for check in checks if check["check"] == kind]


def free_port() -> int:
    """A port nothing listens on: bound once by the test, then closed (connections refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_bad_config_names_the_file_and_the_key_and_exits_1(isolated_home: Path) -> None:
    """The configuration comes first; when it does not load, that is the one line."""
    write_config(isolated_home, "[collect]\nbudget_sessions = 0\n")
    code, checks, text_out = doctor(isolated_home)
    assert code == 1
    (check,) = checks
    config = isolated_home / ".config" / "dreamd" / "config.toml"
    assert check["status"] == "fail" and check["subject"] == str(config)
    assert "collect.budget_sessions" in check["detail"]
    assert check["fix"] == f"edit {config} at collect.budget_sessions"
    assert text_out.startswith(f"FAIL  config {config}: ")


def test_a_healthy_home_passes_with_one_line_per_check(isolated_home: Path) -> None:
    """A collected session: its source readable, the SQLite store at this schema version."""
    session(isolated_home, PROMPTS)
    assert run_dreamd(isolated_home, "collect").returncode == 0
    code, checks, text_out = doctor(isolated_home)
    assert code == 0, text_out
    claude = [c for c in only(checks, "source") if c["subject"].startswith("claude-code ")]
    assert claude[0]["status"] == "ok" and claude[0]["detail"] == "readable"
    assert {c["status"] for c in only(checks, "source")} <= {"ok", "absent"}
    (sql,) = [c for c in only(checks, "store") if c["subject"].startswith("sql ")]
    assert sql["status"] == "ok" and "schema version 1" in sql["detail"]
    assert str(data(isolated_home) / "memory.db") in sql["subject"]
    assert only(checks, "extractor")[0]["status"] == "ok"
    assert len(text_out.splitlines()) == len(checks) + 1  # and the summary line
    assert text_out.splitlines()[-1] == "no check failed"


def test_a_configured_root_that_is_missing_fails_with_its_fix(isolated_home: Path) -> None:
    """A default root that is missing is only absent; one the user configured fails."""
    write_config(isolated_home, '[sources.codex]\nroots = ["~/gone/sessions"]\n')
    code, checks, text_out = doctor(isolated_home)
    assert code == 1
    (codex,) = [c for c in only(checks, "source") if c["subject"].startswith("codex ")]
    assert codex["status"] == "fail" and codex["detail"] == "not found"
    assert "[sources.codex] roots" in codex["fix"]
    assert f"FAIL  source codex {isolated_home}/gone/sessions: not found — fix: " in text_out


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes whatever the modes say")
def test_an_unreadable_root_and_an_unwritable_store_fail(isolated_home: Path) -> None:
    """Permissions as the kernel applies them to this user."""
    locked = isolated_home / "locked"
    locked.mkdir(mode=0o000)
    write_config(isolated_home, f'[sources.codex]\nroots = ["{locked}"]\n')
    try:
        code, checks, _ = doctor(isolated_home)
    finally:
        locked.chmod(0o700)
    assert code == 1
    (codex,) = [c for c in only(checks, "source") if c["subject"].startswith("codex ")]
    assert codex["status"] == "fail" and "chmod" in codex["fix"]


def test_the_sqlite_store_newer_than_this_dreamd_fails(isolated_home: Path) -> None:
    """A store another host upgraded: this dreamd would write rows it cannot read."""
    database = data(isolated_home) / "memory.db"
    SqlStore(f"sqlite:///{database}").engine.dispose()  # the real tables, at this version
    with create_engine(f"sqlite:///{database}").begin() as connection:
        connection.execute(text("UPDATE dreamd_schema SET version = 99"))
    code, checks, _ = doctor(isolated_home)
    assert code == 1
    (sql,) = [c for c in only(checks, "store") if c["subject"].startswith("sql ")]
    assert sql["status"] == "fail" and "version 99, newer" in sql["detail"]
    assert sql["fix"] == "upgrade dreamd on this host"


def test_postgresql_reachable_then_at_its_schema_version(isolated_home: Path) -> None:
    """The server at 127.0.0.1:5432: no tables yet is fine; then the version the tables carry."""
    with fresh_schema() as url:
        write_config(isolated_home, f"[stores.sql]\nurl = '{url}'\n")
        code, checks, _ = doctor(isolated_home)
        (sql,) = [c for c in only(checks, "store") if c["subject"].startswith("sql ")]
        assert (code, sql["status"]) == (0, "ok")
        assert "no tables yet" in sql["detail"]
        SqlStore(url).engine.dispose()
        code, checks, _ = doctor(isolated_home)
        (sql,) = [c for c in only(checks, "store") if c["subject"].startswith("sql ")]
        assert (code, sql["status"]) == (0, "ok")
        assert sql["detail"] == "reachable, writable, schema version 1"


def test_postgresql_on_a_port_nothing_listens_on_fails(isolated_home: Path) -> None:
    """A real refused connection, named with the fix."""
    port = free_port()
    write_config(isolated_home, f"[stores.sql]\nurl = 'postgresql://nobody@127.0.0.1:{port}/x'\n")
    code, checks, _ = doctor(isolated_home)
    assert code == 1
    (sql,) = [c for c in only(checks, "store") if c["subject"].startswith("sql ")]
    assert sql["status"] == "fail" and sql["detail"].startswith("cannot be reached")
    assert sql["fix"] == "start the server, or fix [stores.sql] url"


def test_an_openai_compatible_server_that_is_not_there_fails_twice(isolated_home: Path) -> None:
    """No key set and nothing on the port: two failed lines, each with its fix."""
    port = free_port()
    write_config(
        isolated_home,
        '[collect]\nextractor = "openai"\n[extractors.openai]\nmodel = "m"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\napi_key_env = "DOCTOR_TEST_KEY"\n',
    )
    code, checks, _ = doctor(isolated_home)
    assert code == 1
    key, server = only(checks, "extractor")
    assert key["status"] == "fail" and key["detail"] == "DOCTOR_TEST_KEY is not set"
    assert "Environment=DOCTOR_TEST_KEY" in key["fix"]
    assert server["subject"] == f"openai http://127.0.0.1:{port}/v1/models"
    assert server["status"] == "fail" and server["detail"].startswith("cannot be reached")


class _Models(http.server.BaseHTTPRequestHandler):
    """A real server answering ``GET /v1/models``: a list, or 401 without the right key."""

    def do_GET(self) -> None:
        if self.headers.get("Authorization") != "Bearer sk-doctor-test":
            self.send_response(401, "Unauthorized")
            self.end_headers()
            return
        body = json.dumps({"data": [{"id": "small"}, {"id": "large"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def models_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def test_a_server_that_answers_checks_the_key_and_the_model(
    isolated_home: Path, models_server: int
) -> None:
    """The right key: ok, and a model it does not serve is a warning; a wrong key fails."""
    write_config(
        isolated_home,
        '[collect]\nextractor = "openai"\n[extractors.openai]\nmodel = "medium"\n'
        f'base_url = "http://127.0.0.1:{models_server}/v1"\napi_key_env = "DOCTOR_TEST_KEY"\n',
    )
    code, checks, text_out = doctor(isolated_home, DOCTOR_TEST_KEY="sk-doctor-test")
    key, server = only(checks, "extractor")
    assert (code, key["status"], server["status"]) == (0, "ok", "warn")
    assert "small, large" in server["fix"]
    assert "sk-doctor-test" not in text_out  # the key's name only, never its value
    code, checks, _ = doctor(isolated_home, DOCTOR_TEST_KEY="sk-wrong")
    _, server = only(checks, "extractor")
    assert code == 1 and server["detail"] == "answers HTTP 401 (Unauthorized)"
    assert server["fix"] == "check DOCTOR_TEST_KEY: the server refused it"


def test_a_command_extractor_needs_its_program_on_path(isolated_home: Path) -> None:
    """A program that is not there fails already at the config (naming the key); one that is
    passes."""
    write_config(
        isolated_home,
        '[collect]\nextractor = "command"\n[extractors.command]\nargv = ["no-such-agent-cli"]\n',
    )
    code, checks, _ = doctor(isolated_home)
    (config,) = only(checks, "config")
    assert (code, config["status"]) == (1, "fail")
    assert (
        "extractors.command.argv[0]: the program 'no-such-agent-cli' is not on PATH"
        in (config["detail"])
    )
    write_config(
        isolated_home, '[collect]\nextractor = "command"\n[extractors.command]\nargv = ["sh"]\n'
    )
    code, checks, _ = doctor(isolated_home)
    assert (code, only(checks, "extractor")[0]["status"]) == (0, "ok")


def test_the_service_installed_not_running_and_a_unit_whose_program_is_gone(
    isolated_home: Path,
) -> None:
    """Installed and stopped is a warning with the start command; a vanished program fails."""
    installed = run_dreamd(isolated_home, "install-service", "--no-enable", "--platform", "linux")
    assert installed.returncode == 0, installed.stderr
    _, checks, _ = doctor(isolated_home)
    program, running = only(checks, "service")
    assert program["status"] in {"ok", "warn"}  # warn: this test runs from a checkout's .venv
    assert running["status"] == "warn" and running["fix"] == "systemctl --user start dreamd.service"
    unit = isolated_home / ".config" / "systemd" / "user" / "dreamd.service"
    unit.write_text(render_unit("/nonexistent/bin/dreamd"))
    code, checks, _ = doctor(isolated_home)
    program, _ = only(checks, "service")
    assert code == 1 and program["detail"] == "its program /nonexistent/bin/dreamd is gone"
