"""``dreamd status``: last and next runs, backlog per source, waiting work, lock holder, logs."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
from pathlib import Path

from dreamd.collect.cursordoc import export_cursor, import_cursor
from dreamd.collect.cursorstate import Intent, SessionState
from dreamd.statedb import open_state
from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.process import run_dreamd
from tests.service.daemon import write_config
from tests.service.test_run import _hold_pipeline


def status(home: Path) -> dict[str, object]:
    result = run_dreamd(home, "status", "--json")
    assert result.returncode == 0, result.stderr
    document: dict[str, object] = json.loads(result.stdout)
    return document


def test_status_of_a_machine_that_never_ran(isolated_home: Path) -> None:
    write_config(isolated_home, '[collect]\nschedule = "30 2 * * *"\n')
    document = status(isolated_home)
    jobs = document["jobs"]
    assert isinstance(jobs, dict)
    assert jobs["collect"]["last_run"] is None
    assert jobs["collect"]["schedule"] == "30 2 * * *"
    upcoming = datetime.fromisoformat(jobs["collect"]["next_run"])
    assert upcoming > datetime.now(UTC)
    assert (upcoming.astimezone().hour, upcoming.minute) == (2, 30)  # local time
    service = document["service"]
    assert isinstance(service, dict)
    assert (service["running"], service["pid"], service["installed"]) == (False, None, False)
    assert document["lock"] is None
    assert document["pending_plans"] == [] and document["pending_proposals"] == []
    assert document["sessions_known"] == 0
    text = run_dreamd(isolated_home, "status").stdout
    assert "Backlog: unknown, nothing scanned yet" in text
    assert "collect has never run" in text and "dream has never run" in text
    # Not installed, not running: no next runs, and no journal named that nothing writes to.
    assert "Next runs" not in text and "Service: not installed" in text
    assert "journalctl" not in text and document["logs"]["follow"] is None  # type: ignore[index]


def test_status_names_the_journal_and_next_runs_once_the_unit_is_installed(
    isolated_home: Path,
) -> None:
    unit = isolated_home / ".config" / "systemd" / "user" / "dreamd.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\n")
    text = run_dreamd(isolated_home, "status").stdout
    assert "Next runs:" in text and "[30 2 * * *]" in text
    assert "journalctl --user -u dreamd -f -o cat | jq" in text


def test_status_after_runs_with_backlog_plans_and_the_lock_holder(isolated_home: Path) -> None:
    session(isolated_home, PROMPTS)
    session(isolated_home, PROMPTS[:3], sid="22222222-2222-4333-8444-555555555555")
    assert run_dreamd(isolated_home, "collect", "--budget", "1").returncode == 0
    # An open window the next collect must reconcile first (as a crash would leave it).
    state = open_state(data(isolated_home) / "state.db")
    machine = _machine()
    version, document = state.load_cursor(machine)
    key = "claude-code:99999999-2222-4333-8444-555555555555"
    cursor = import_cursor(document, machine).with_state(
        key, SessionState(intent=Intent("w1", "plan-1", ("m1",)))
    )
    state.save_cursor(machine, export_cursor(cursor), expected=version, now=datetime.now(UTC))
    holder = _hold_pipeline(isolated_home, "dream")
    try:
        document = status(isolated_home)
        text = run_dreamd(isolated_home, "status").stdout
    finally:
        holder.kill()
        holder.wait()
    jobs = document["jobs"]
    assert isinstance(jobs, dict)
    last = jobs["collect"]["last_run"]
    assert last["outcome"] == "ok" and last["summary"]["planted"]["total"] > 0
    assert document["backlog"] == {"claude-code": 1}  # budget 1: one session left
    assert document["pending_plans"] == [{"session": key, "plan_id": "plan-1"}]
    assert document["lock"] == {"pid": holder.pid, "job": "dream"}
    assert f"Busy: dream is running now (pid {holder.pid})" in text
    assert "Backlog: 1 session(s) to collect: claude-code 1." in text
    assert f"1 half-planted collect window(s) of an interrupted run ({key})" in text
    assert "the next 'dreamd collect' finishes them" in text
    assert "collect ran " in text and ", applied, " in text


def test_status_names_the_configured_log_file(isolated_home: Path) -> None:
    write_config(isolated_home, '[service]\nlog_file = "~/logs/dreamd.log"\n')
    (isolated_home / "logs").mkdir()  # a configured log folder must exist (issue 15, item 12)
    logs = status(isolated_home)["logs"]
    assert logs == {
        "location": str(isolated_home / "logs" / "dreamd.log"),
        "follow": f"tail -F {isolated_home / 'logs' / 'dreamd.log'} | jq",
    }


def _machine() -> str:
    """The default machine name (the host name), as the subprocesses see it."""
    return socket.gethostname().split(".")[0] or "localhost"
