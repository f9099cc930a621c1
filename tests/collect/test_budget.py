"""The per-run budget follows the extractor's cost; the report says what ended a run."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger

from dreamd.collect.budget import (
    COLLECT_NICENESS,
    DEFAULT_TIME_BUDGET_SECONDS,
    Deadline,
    collect_on_quiet,
    drain_estimate,
    ended_by,
    nth_fire_time,
    run_budget,
)
from dreamd.config import parse_config
from dreamd.schedule import parse_schedule
from tests.collect.backlog import backlog
from tests.collect.test_collect_cli import collect
from tests.process import run_dreamd

LLM = '[collect]\nextractor = "command"\n[extractors.command]\npreset = "claude"\n'


def test_the_heuristic_takes_every_session_until_its_time_budget() -> None:
    """No session or message budget by default; twenty minutes of work a run."""
    budget = run_budget(parse_config(""))
    assert (budget.sessions, budget.messages, budget.seconds) == (
        None,
        None,
        DEFAULT_TIME_BUDGET_SECONDS,
    )


def test_an_llm_with_a_token_cap_takes_sessions_until_the_cap() -> None:
    """The token cap is the budget: no session budget, no time budget."""
    capped = LLM.replace("[collect]\n", "[collect]\nmax_tokens_per_run = 50000\n", 1)
    budget = run_budget(parse_config(capped))
    assert (budget.sessions, budget.messages, budget.seconds, budget.tokens) == (
        None,
        None,
        0,
        50000,
    )


def test_an_llm_without_a_cap_keeps_the_seed_budget() -> None:
    """Nothing else bounds what it spends: seed 002's 3 sessions / 150 messages."""
    budget = run_budget(parse_config(LLM))
    assert (budget.sessions, budget.messages) == (3, 150)


def test_the_seed_budget_stays_one_setting_away() -> None:
    """``budget_sessions`` / ``budget_messages`` apply to the heuristic too when set."""
    config = parse_config("[collect]\nbudget_sessions = 3\nbudget_messages = 150\n")
    assert (run_budget(config).sessions, run_budget(config).messages) == (3, 150)


def test_a_budget_given_by_hand_lifts_the_default_message_budget() -> None:
    """``--budget N`` takes N sessions; only a configured message budget still applies."""
    by_hand = run_budget(parse_config(LLM), 1000)
    assert (by_hand.sessions, by_hand.messages) == (1000, None)
    configured = parse_config("[collect]\nbudget_messages = 40\n")
    assert run_budget(configured, 1000).messages == 40


def test_collect_on_quiet_is_on_for_the_heuristic_only() -> None:
    """Unset: the free heuristic collects when sessions settle, an LLM waits for the night."""
    assert collect_on_quiet(parse_config("")) is True
    assert collect_on_quiet(parse_config(LLM)) is False
    assert collect_on_quiet(parse_config("[service]\ncollect_on_quiet = false\n")) is False


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"deadline_reached": True}, "time"),
        ({"tokens_exhausted": True}, "tokens"),
        ({"stopped": "stop requested"}, "stop"),
        ({"stopped": "openai: the request timed out"}, "extractor"),
        ({"deferred_reasons": ["new; deferred: session budget reached"]}, "sessions"),
        ({"deferred_reasons": ["new; deferred: message budget reached"]}, "messages"),
        ({}, "none"),
    ],
)
def test_which_budget_ended_the_run(kwargs: dict[str, object], expected: str) -> None:
    """Time, tokens, a stop, the extractor, the session or message budget, else nothing left."""
    arguments: dict[str, object] = {
        "stopped": None,
        "deadline_reached": False,
        "tokens_exhausted": False,
        "deferred_reasons": [],
        **kwargs,
    }
    assert ended_by(**arguments) == expected  # type: ignore[arg-type]


def test_the_drain_estimate_counts_scheduled_runs_and_dates_the_last() -> None:
    """250 left at 100 a run: three more nightly runs, the last two nights after the next."""
    trigger = parse_schedule("30 2 * * *", UTC)
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    drain = drain_estimate(250, 100, trigger, now)
    assert (drain.runs, drain.until) == (3, datetime(2026, 12, 4, 2, 30, tzinfo=UTC))
    assert drain_estimate(0, 100, trigger, now).runs == 0
    assert drain_estimate(5, 0, trigger, now).runs is None


def _fire_by_fire(trigger: CronTrigger, now: datetime, count: int) -> datetime | None:
    """The ``count``-th fire time asked of the trigger one fire after another."""
    moment = trigger.get_next_fire_time(None, now)
    for _ in range(count - 1):
        if moment is None:
            return None
        moment = trigger.get_next_fire_time(moment, moment + timedelta(seconds=1))
    return moment


def _fires(trigger: CronTrigger, now: datetime, count: int) -> list[datetime | None]:
    """The first ``count`` fire times, stepped through one by one (None past the last)."""
    fires = [trigger.get_next_fire_time(None, now)]
    while len(fires) < count:
        last = fires[-1]
        fires.append(None if last is None else trigger.get_next_fire_time(last, last + _SECOND))
    return fires


_SECOND = timedelta(seconds=1)


@pytest.mark.parametrize(
    "expression",
    ["0 0 1 1 *", "30 2 * * *", "15 9 * * 1-5", "0 */6 * * *", "*/20 * * * *",
     "0 3 29 2 *", "0 4 31 * *", "0 1 * * 0", "10 10 10 10 * *", "0 5 1-7 * 1",
     "0 0 1 * *", "0 6 28 2 *", "0 0 1-28/9 * *", "0 0 5,20 1,7 *", "0 0 29 * *"],
)  # fmt: skip
def test_the_nth_fire_time_is_the_one_the_schedule_reaches_fire_by_fire(
    expression: str,
) -> None:
    """Jumping whole periods (a day, a week, a year, 400 years) lands on the same fire time as
    stepping through every fire, in fixed-offset zones, at and across period ends."""
    for zone in (timezone(timedelta(hours=-7)), timezone(timedelta(hours=5, minutes=30))):
        trigger = parse_schedule(expression, zone)
        for now in (datetime(2026, 12, 2, 4, 41, 7, 5, tzinfo=zone),
                    datetime(2028, 2, 29, 2, 30, tzinfo=zone)):  # fmt: skip
            stepped = _fires(trigger, now, 1234)
            for count in (1, 5, 6, 72, 73, 400, 401, 1234):
                assert nth_fire_time(trigger, now, count) == stepped[count - 1]


def test_the_nth_fire_time_ends_with_the_schedule() -> None:
    """Past year 9999 there is no fire time, jumped to or stepped to."""
    trigger = parse_schedule("0 0 1 1 *", UTC)
    now = datetime(9000, 6, 1, tzinfo=UTC)
    assert nth_fire_time(trigger, now, 999) == datetime(9999, 1, 1, tzinfo=UTC)
    assert nth_fire_time(trigger, now, 1000) is None
    assert _fire_by_fire(trigger, now, 1000) is None


def test_a_zone_with_daylight_saving_is_stepped_through() -> None:
    """No period is assumed where clocks change: the answer is the trigger's own."""
    zone = ZoneInfo("Europe/Berlin")
    trigger = parse_schedule("30 2 * * *", zone)
    now = datetime(2026, 12, 2, tzinfo=zone)
    assert nth_fire_time(trigger, now, 400) == _fire_by_fire(trigger, now, 400)


def test_a_deadline_expires_on_its_clock_and_stays_expired() -> None:
    """The time budget reads an injected clock; zero seconds is no budget."""
    ticks = iter([0.0, 10.0, 30.0, 5.0])
    deadline = Deadline(20, lambda: next(ticks))
    assert not deadline.expired() and deadline.expired() and deadline.expired()
    assert not Deadline(0, lambda: 1e9).expired()


def test_a_collect_job_runs_at_low_priority(tmp_path: Path, isolated_home: Path) -> None:
    """``os.nice``: the collect job's thread ends at ``COLLECT_NICENESS`` at least."""
    script = (
        "import os, sys\n"
        "from dreamd.collect.budget import lower_priority\n"
        "print(lower_priority(), os.nice(0), lower_priority())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    first, now, again = map(int, done.stdout.split())
    assert first >= COLLECT_NICENESS and now == first == again


def test_collect_with_a_large_budget_takes_every_session(isolated_home: Path) -> None:
    """``--budget 1000`` over 12 sessions of 20 messages: all taken, nothing left, said so."""
    backlog(isolated_home, 12, messages=20)
    done = collect(isolated_home, "--budget", "1000", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["budget"]["sessions"] == 12 and report["budget"]["max"] == 1000
    assert report["budget"]["ended_by"] == "none"
    assert report["drain"]["remaining"] == 0


def test_the_seed_budget_ends_a_run_and_the_drain_is_estimated(isolated_home: Path) -> None:
    """``budget_sessions = 3`` over 10 sessions: ended by the session budget, 3 more runs."""
    backlog(isolated_home, 10)
    config = isolated_home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[collect]\nbudget_sessions = 3\n")
    done = collect(isolated_home, "--json")
    report = json.loads(done.stdout)
    assert report["budget"]["ended_by"] == "sessions"
    assert (report["drain"]["remaining"], report["drain"]["runs"]) == (7, 3)
    text = collect(isolated_home).stdout
    assert "ended by the session budget" in text and "Drain: 4 session(s) left" in text


def test_status_says_what_ended_the_last_run_and_how_long_the_backlog_takes(
    isolated_home: Path,
) -> None:
    """After a run ended by the session budget: the drain line of ``dreamd status``."""
    backlog(isolated_home, 10)
    config = isolated_home / ".config" / "dreamd" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[collect]\nbudget_sessions = 4\n")
    assert collect(isolated_home).returncode == 0
    status = run_dreamd(isolated_home, "status")
    assert status.returncode == 0, status.stderr
    assert "6 session(s) left: about 2 more scheduled run(s) at 4 a run" in status.stdout
    assert "the last collect ended by the session budget" in status.stdout
    document = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert (document["drain"]["remaining"], document["drain"]["runs"]) == (6, 2)


def test_the_deferred_sessions_are_the_selectable_ones_the_pass_did_not_begin() -> None:
    """Deferred: unselected selectable sessions and a selected one never reached; never a
    session the pass began, never one that was not selectable."""
    from dreamd.collect.collector import CollectResult
    from dreamd.selection import Decision, Selection
    from tests.core.test_selection import info

    begun, unreached, waiting, partial, live = (info(f"s{n}") for n in range(5))
    decisions = (
        Decision(begun, "eligible", "new; selected (1 of 2)", selected=True),
        Decision(unreached, "eligible", "new; selected (2 of 2)", selected=True),
        Decision(waiting, "eligible", "new; deferred: session budget reached"),
        Decision(partial, "partial", "damaged line 3; deferred: session budget reached"),
        Decision(live, "live", "written in the last 30 min"),
    )
    result = CollectResult(selection=Selection(decisions, decisions[:2]), taken=[begun.key])
    assert [d.session.session_id for d in result.deferred()] == ["s1", "s2", "s3"]
    assert CollectResult().deferred() == []
