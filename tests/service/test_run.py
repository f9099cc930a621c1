"""``dreamd run`` as a real process: schedules fire, jobs log with run ids, SIGTERM stops it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamd.statedb import open_state
from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.process import run_dreamd
from tests.service.daemon import Daemon, write_config

pytestmark = pytest.mark.slow

#: Far from any test run: these schedules never fire on their own.
NEVER = 'schedule = "0 0 1 1 *"'


def test_collect_then_dream_each_with_a_run_id_then_sigterm_exits_0(isolated_home: Path) -> None:
    """Schedules firing within the test: a collect, then a dream, both with run ids; clean exit."""
    session(isolated_home, PROMPTS)
    write_config(
        isolated_home,
        '[collect]\nschedule = "*/4 * * * * *"\n[dream]\nschedule = "2-59/4 * * * * *"\n',
    )
    daemon = Daemon(isolated_home)
    try:
        daemon.event("service.started", timeout=30)
        planted = daemon.wait_for(
            lambda line: line.get("event") == "collect.window.planted", timeout=30
        )
        collected = daemon.event("collect.completed", run_id=planted["run_id"])
        dreamed = daemon.event("dream.completed", timeout=30)
        assert collected["outcome"] == "ok" and dreamed["outcome"] == "ok"
        assert dreamed["run_id"] != collected["run_id"]
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
    # Every line a job logs carries its run id, from "job.starting" to "job.*.finished".
    job_lines = [
        line
        for line in daemon.lines
        if str(line.get("event", "")).startswith(("collect.", "dream.", "job."))
    ]
    assert {"job.starting", "job.collect.finished", "job.dream.finished"} <= {
        str(line["event"]) for line in job_lines
    }
    assert [line for line in job_lines if not line.get("run_id")] == []
    assert daemon.lines[-1]["event"] == "service.stopped"
    # The runs are on record with their outcomes, as `dreamd status` shows them.
    status = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert status["jobs"]["collect"]["last_run"]["outcome"] == "ok"
    assert status["jobs"]["dream"]["last_run"]["outcome"] == "ok"
    assert status["service"]["running"] is False
    assert status["lock"] is None


def test_sigterm_during_a_collect_checkpoints_and_exits_0(isolated_home: Path) -> None:
    """A long collect is stopped between windows: what was planted stays acknowledged."""
    prompts = [f"From now on always name branch {i} after its ticket." for i in range(110)]
    session(isolated_home, prompts)  # 220 messages, one a minute, the last 10 minutes ago
    write_config(
        isolated_home,
        "[collect]\nwindow_messages = 20\nbudget_messages = 100000\nlive_guard_minutes = 0\n"
        f'schedule = "*/2 * * * * *"\n[dream]\n{NEVER}\n',
    )
    daemon = Daemon(isolated_home)
    try:
        daemon.event("collect.window.planted", timeout=30)
        started = time.monotonic()
        assert daemon.terminate(timeout=10) == 0
        assert time.monotonic() - started < 10
    finally:
        daemon.kill()
    events = [line["event"] for line in daemon.lines]
    assert "collect.stopping" in events
    # The next pass resumes: it finishes the session without planting anything twice.
    report = json.loads(run_dreamd(isolated_home, "collect", "--json").stdout)
    assert report["selected"], report
    again = json.loads(run_dreamd(isolated_home, "collect", "--json").stdout)
    assert again["planted"]["total"] == 0


def test_a_written_transcript_is_marked_changed_without_a_full_rescan(
    isolated_home: Path,
) -> None:
    """The watcher reports the changed file; the next scan discovers only that tool again."""
    path = session(isolated_home, PROMPTS[:2])
    (isolated_home / ".codex" / "sessions").mkdir(parents=True)  # a second watched tool
    write_config(
        isolated_home,
        f"[collect]\n{NEVER}\nlive_guard_minutes = 0\n[dream]\n{NEVER}\n"
        "[service]\ncollect_on_quiet = true\n",
    )
    daemon = Daemon(isolated_home)
    try:
        daemon.event("service.reconciled", timeout=30)
        line = json.loads(path.read_text().splitlines()[0])
        line.update(uuid="u-new", timestamp=datetime.now(UTC).isoformat())
        text = "Remember: the staging database is read-only."
        line["message"] = {"role": "user", "content": text}
        with path.open("a") as transcript:
            transcript.write(json.dumps(line) + "\n")
        changed = daemon.event("watch.changed", timeout=30)
        assert changed["path"] == str(path)
        assert "claude-code" in changed["tools"]
        scanned = daemon.event("catalog.scanned", timeout=30)
        assert "codex" in scanned["reused"]  # nothing happened there: not discovered again
        assert "codex" not in scanned["tools"] and "claude-code" in scanned["tools"]
        assert scanned["read"] == 1  # just the session that changed
        daemon.event("collect.completed", timeout=30)
        assert daemon.terminate() == 0
    finally:
        daemon.kill()


def test_systemd_notifications_arrive_on_a_real_datagram_socket(
    isolated_home: Path, tmp_path: Path
) -> None:
    """READY after start-up, WATCHDOG from the main loop, STOPPING on the way out."""
    write_config(isolated_home, f"[collect]\n{NEVER}\n[dream]\n{NEVER}\n")
    address = tmp_path / "notify.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(address))
    receiver.settimeout(30)
    daemon = Daemon(isolated_home, NOTIFY_SOCKET=str(address), WATCHDOG_USEC="2000000")
    try:
        fields: list[str] = []
        while not {"READY=1", "WATCHDOG=1"} <= set(fields):  # pings start with the main loop
            fields += receiver.recv(4096).decode().splitlines()
        daemon.process.send_signal(15)
        while "STOPPING=1" not in fields:
            fields += receiver.recv(4096).decode().splitlines()
        assert fields.count("READY=1") == 1
        assert daemon.process.wait(timeout=10) == 0
    finally:
        daemon.kill()
        receiver.close()


def _seed_history(home: Path, days_ago: int) -> None:
    """A service installed ``days_ago`` days ago, whose last runs were then."""
    state = open_state(data(home) / "state.db")
    then = datetime.now(UTC) - timedelta(days=days_ago)
    for job in ("service", "collect", "dream"):
        state.start_run(f"old-{job}", job, "apply", then)
        state.finish_run(f"old-{job}", outcome="ok", mode="apply", summary={}, now=then)


def _runs(home: Path, job: str) -> list[str]:
    state = open_state(data(home) / "state.db")
    return [run.run_id for run in state.runs(job) if not run.run_id.startswith("old-")]


def test_missed_runs_are_made_up_once_in_order_and_never_again(isolated_home: Path) -> None:
    """Three nights asleep: one collect, then one dream, at start; a restart adds nothing."""
    session(isolated_home, PROMPTS)
    _seed_history(isolated_home, days_ago=3)
    write_config(
        isolated_home, '[collect]\nschedule = "0 0 * * *"\n[dream]\nschedule = "5 0 * * *"\n'
    )
    daemon = Daemon(isolated_home)
    try:
        daemon.event("scheduler.catch_up", job="collect", timeout=30)
        daemon.event("scheduler.catch_up", job="dream", timeout=30)
        collected = daemon.event("collect.completed", timeout=30)
        dreamed = daemon.event("dream.completed", timeout=30)
        assert collected["ts"] < dreamed["ts"]
        daemon.drain(3)
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
    assert len(_runs(isolated_home, "collect")) == 1
    assert len(_runs(isolated_home, "dream")) == 1
    again = Daemon(isolated_home)
    try:
        daemon_lines = [again.event("service.started", timeout=30), *again.drain(4)]
        assert "scheduler.catch_up" not in [line["event"] for line in daemon_lines]
        assert again.terminate() == 0
    finally:
        again.kill()
    assert len(_runs(isolated_home, "collect")) == 1


def test_a_fresh_install_makes_nothing_up(isolated_home: Path) -> None:
    """No record at all: the schedule's past fire times were not missed, nothing runs at start."""
    session(isolated_home, PROMPTS)
    write_config(
        isolated_home, '[collect]\nschedule = "0 0 * * *"\n[dream]\nschedule = "5 0 * * *"\n'
    )
    daemon = Daemon(isolated_home)
    try:
        lines = [daemon.event("service.started", timeout=30), *daemon.drain(4)]
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
    events = [line["event"] for line in daemon.lines + lines]
    assert "scheduler.catch_up" not in events and "job.starting" not in events


def _hold_pipeline(home: Path, job: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time;from pathlib import Path;from dreamd.lock import pipeline_lock;"
         f"l=pipeline_lock(Path(sys.argv[1]),{job!r});l.acquire();print('held',flush=True);"
         "sys.stdin.readline()",
         str(data(home))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_scheduled_jobs_wait_for_a_run_started_by_hand(isolated_home: Path) -> None:
    """A collect started by hand holds the pipeline: the service's runs wait, then run."""
    session(isolated_home, PROMPTS)
    write_config(isolated_home, f'[collect]\nschedule = "* * * * * *"\n[dream]\n{NEVER}\n')
    holder = _hold_pipeline(isolated_home, "collect")
    daemon = Daemon(isolated_home)
    try:
        daemon.event("job.starting", job="collect", timeout=30)
        waited = daemon.drain(3)
        assert "collect.completed" not in [line["event"] for line in waited]
        # While the hand run holds the lock, a hand dream is refused, naming it.
        refused = run_dreamd(isolated_home, "dream")
        assert refused.returncode == 1
        assert f"dreamd collect is already running in process {holder.pid}" in refused.stderr
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=10)
        daemon.event("collect.completed", timeout=30)
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
        holder.kill()


def test_a_second_service_is_refused(isolated_home: Path) -> None:
    write_config(isolated_home, f"[collect]\n{NEVER}\n[dream]\n{NEVER}\n")
    daemon = Daemon(isolated_home)
    try:
        daemon.event("service.started", timeout=30)
        second = run_dreamd(isolated_home, "run")
        assert second.returncode == 1
        assert f"process {daemon.process.pid}" in second.stderr
        status = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
        assert status["service"]["running"] is True
        assert status["service"]["pid"] == daemon.process.pid
        assert daemon.terminate() == 0
    finally:
        daemon.kill()
