"""Issue 11 item 5 acceptance: a backlog of 500 sessions is collected within two nights.

The real service (its cron triggers, its catch-up rule, its job thread) runs
the default configuration's scheduled collects; only the clocks are the
test's: ``clock`` says which night it is, and each reading of the job's time
budget clock costs 1.5 s, so a night's twenty minutes cover some hundreds of
sessions whatever this machine's speed.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamd.config import load_settings
from dreamd.service.runner import Service
from dreamd.service.status import status_document
from dreamd.statedb import StateDB, open_state
from tests.collect.backlog import backlog

#: Seconds one reading of the job's clock costs (sessions are checked twice each).
STEP = 1.5


class Night:
    """The service's wall-clock "now", set by the test to the night it plays."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def stepping() -> Iterator[float]:
    return itertools.count(0.0, STEP)


def wait_for_runs(state: StateDB, count: int) -> None:
    """Until ``count`` collect runs have finished (the job thread works in the background)."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        runs = state.runs("collect", limit=count + 1)
        if len(runs) >= count and all(run.finished_at is not None for run in runs):
            return
        time.sleep(0.2)
    raise AssertionError(f"{count} collect run(s) did not finish")


@pytest.mark.slow
def test_500_sessions_are_collected_by_two_nights_of_the_default_schedule(
    isolated_home: Path,
) -> None:
    """Night one ends on the time budget with a backlog left; night two leaves none."""
    keys = backlog(isolated_home, 500)
    settings = load_settings(home=isolated_home)  # no configuration file: every default
    state = open_state(settings.data_dir / "state.db")
    ticks = stepping()
    first_night = datetime.now(UTC).replace(hour=2, minute=31, second=0, microsecond=0)
    night = Night(first_night + timedelta(days=1))
    service = Service(
        settings,
        state,
        env={},
        home=isolated_home,
        timezone=UTC,
        clock=night,
        job_clock=lambda: next(ticks),
    )
    assert service.triggers["collect"].get_next_fire_time(None, night() - timedelta(minutes=2))
    service.scheduler.start()
    reports = []
    try:
        for count in (1, 2):
            service._submit(service._scheduled, "collect-night", "collect")
            wait_for_runs(state, count)
            run_id = state.runs("collect", limit=1)[0].run_id
            report = settings.data_dir / "reports" / f"collect-{run_id}.json"
            reports.append(json.loads(report.read_text()))
            night.moment += timedelta(days=1)
    finally:
        service.scheduler.shutdown(wait=True)
    first, second = reports
    assert first["budget"]["ended_by"] == "time" and first["drain"]["remaining"] > 0
    assert first["drain"]["runs"] == 1
    assert second["budget"]["ended_by"] == "none" and second["drain"]["remaining"] == 0
    resolved = set(first["cursor"]["resolved"]) | set(second["cursor"]["resolved"])
    assert resolved == set(keys)
    status = status_document(settings, state, env={}, now=night(), timezone=UTC)
    assert status["backlog"] == {} and status["drain"]["remaining"] == 0
    assert status["drain"]["ended_by"] == "none"


def test_a_scheduled_run_that_already_ran_tonight_is_skipped(isolated_home: Path) -> None:
    """The injected night is the service's clock: a second scheduled call the same night
    does nothing (the real skip rule), so nights never stack."""
    backlog(isolated_home, 3)
    settings = load_settings(home=isolated_home)
    state = open_state(settings.data_dir / "state.db")
    night = Night(datetime.now(UTC).replace(hour=2, minute=40) + timedelta(days=1))
    service = Service(settings, state, env={}, home=isolated_home, timezone=UTC, clock=night)
    service._scheduled("collect")
    service._scheduled("collect")
    assert len(state.runs("collect", limit=5)) == 1
