"""A resume from sleep, in process: the wall clock jumps ahead of the monotonic one."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

from dreamd.config import load_settings
from dreamd.logs import configure_logging
from dreamd.service.runner import Service, ServiceTiming
from dreamd.statedb import open_state
from tests.collect.test_collect_cli import PROMPTS, session
from tests.service.daemon import write_config


class JumpingClock:
    """Real time, plus two hours from the moment ``sleep()`` is called (a lid closed)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def sleep(self) -> None:
        self.offset += 7200.0


def test_a_resume_wakes_the_scheduler_and_reconciles(isolated_home: Path) -> None:
    session(isolated_home, PROMPTS)
    write_config(isolated_home, '[collect]\nschedule = "0 0 1 1 *"\n')
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    settings = load_settings(home=isolated_home)
    clock = JumpingClock()
    service = Service(
        settings,
        open_state(settings.data_dir / "state.db"),
        env={},
        home=isolated_home,
        timing=ServiceTiming(tick=0.05),
        wall_clock=clock,
    )

    def events() -> list[dict[str, object]]:
        return [json.loads(line) for line in stream.getvalue().splitlines()]

    def wait_for(reason: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(e.get("event") == "service.reconciled" and e.get("reason") == reason
                   for e in events()):  # fmt: skip
                return
            time.sleep(0.05)
        raise AssertionError(f"no {reason} reconcile in {events()}")

    service._start(installed_since=None)
    loop = threading.Thread(target=service._loop)
    loop.start()
    try:
        wait_for("start-up")
        assert not [e for e in events() if e["event"] == "service.resumed"]
        clock.sleep()
        wait_for("resume")
        (resumed,) = [e for e in events() if e["event"] == "service.resumed"]
        assert 7100 <= int(str(resumed["slept_seconds"])) <= 7200
    finally:
        service.stop_requested.set()
        loop.join(timeout=10)
        service._stop()
    assert not loop.is_alive()


def test_work_submitted_while_the_same_work_runs_is_not_lost(isolated_home: Path) -> None:
    """A reconcile asked for while one is finishing runs after it (not dropped as a duplicate);
    asked for twice while it waits, it runs once."""
    write_config(isolated_home, '[collect]\nschedule = "0 0 1 1 *"\n[service]\nwatch = false\n')
    settings = load_settings(home=isolated_home)
    service = Service(
        settings, open_state(settings.data_dir / "state.db"), env={}, home=isolated_home
    )
    running, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def first(label: str) -> None:
        running.set()
        release.wait(10)
        ran.append(label)

    service.scheduler.start()
    try:
        service._submit(first, "reconcile", "first")
        assert running.wait(10)
        service._submit(ran.append, "reconcile", "second")  # the first still runs
        service._submit(ran.append, "reconcile", "third")  # "reconcile" already waits
        release.set()
        deadline = time.monotonic() + 10
        while len(ran) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
    finally:
        service.scheduler.shutdown(wait=True)
    assert ran == ["first", "second"]
