"""Schedules, missed runs and resume detection: pure functions over times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from dreamd.config import Settings, parse_config
from dreamd.errors import ConfigError
from dreamd.schedule import (
    crontab_weekdays,
    is_missed,
    parse_schedule,
    previous_fire,
    resumed,
)

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("*", "*"),
        ("1-5", "mon-fri"),
        ("0", "sun"),
        ("7", "sun"),
        ("0,6", "sun,sat"),
        ("0-6", "sun,mon-sat"),
        ("0-2", "sun,mon-tue"),
        ("5-7", "fri-sun"),
        ("mon-fri", "mon-fri"),
        ("*/2", "*/2"),
    ],
)
def test_crontab_weekday_numbers_mean_what_crontab_means(field: str, expected: str) -> None:
    assert crontab_weekdays(field) == expected


def test_sunday_is_zero_as_in_crontab() -> None:
    """``0 9 * * 0`` fires on Sundays (APScheduler alone would take 0 for Monday)."""
    trigger = parse_schedule("0 9 * * 0", UTC)
    fire = trigger.get_next_fire_time(None, MONDAY)
    assert fire is not None and fire.strftime("%A %H:%M") == "Sunday 09:00"


def test_five_fields_and_six_with_seconds() -> None:
    assert previous_fire(parse_schedule("30 2 * * *", UTC), MONDAY) == MONDAY.replace(
        hour=2, minute=30
    )
    every_five = parse_schedule("*/5 * * * * *", UTC)
    assert previous_fire(every_five, MONDAY + timedelta(seconds=7)) == MONDAY + timedelta(seconds=5)


def test_schedules_are_local_time() -> None:
    """02:30 in Berlin is 01:30 UTC in winter."""
    fire = previous_fire(parse_schedule("30 2 * * *", BERLIN), MONDAY)
    assert fire is not None and fire.astimezone(UTC) == MONDAY.replace(hour=1, minute=30)


def test_previous_fire_looks_back_far_enough() -> None:
    yearly = parse_schedule("0 0 1 1 *", UTC)
    assert previous_fire(yearly, MONDAY) == datetime(2026, 1, 1, tzinfo=UTC)
    assert previous_fire(parse_schedule("0 0 29 2 *", UTC), MONDAY) is None  # not within a year


@pytest.mark.parametrize(
    "expression", ["61 * * * *", "* * *", "* * * * * * *", "0 0 * * 9", "every day"]
)
def test_bad_schedules_are_refused(expression: str) -> None:
    with pytest.raises(ValueError):
        parse_schedule(expression, UTC)


def _settings(text: str) -> Settings:
    path = Path("/home/u/.config/dreamd/config.toml")
    return Settings(parse_config(text, path), path, Path("/home/u/.local/share/dreamd"), "m")


def test_a_bad_schedule_in_the_config_names_the_file_and_the_key() -> None:
    """The configuration parses (a command that schedules nothing never asks); the trigger
    and the check refuse it, naming the file and the key."""
    settings = _settings('[dream]\nschedule = "30 25 * * *"\n')
    expected = r"^/home/u/\.config/dreamd/config\.toml: dream\.schedule: not a cron schedule: "
    with pytest.raises(ConfigError, match=expected):
        settings.check_schedules()
    with pytest.raises(ConfigError, match=expected):
        settings.trigger("dream", BERLIN)
    assert settings.trigger("collect", BERLIN).get_next_fire_time(None, MONDAY) == datetime(
        2026, 12, 1, 2, 30, tzinfo=BERLIN
    )


def test_a_trigger_keeps_the_jitter_it_is_given() -> None:
    settings = _settings('[collect]\nschedule = "0 4 * * *"\n')
    assert settings.trigger("collect", UTC, 90).jitter == 90
    assert settings.trigger("collect", UTC).jitter is None


def test_missed_only_when_installed_before_the_fire_time_and_no_run_since() -> None:
    due = MONDAY.replace(hour=2, minute=30)
    before, after = due - timedelta(days=3), due + timedelta(minutes=5)
    assert is_missed(due, last_started=before, installed_since=before)
    assert is_missed(due, last_started=None, installed_since=before)
    assert not is_missed(due, last_started=after, installed_since=before)  # ran (by hand too)
    assert not is_missed(due, last_started=None, installed_since=after)  # a fresh install
    assert not is_missed(due, last_started=None, installed_since=None)
    assert not is_missed(None, last_started=None, installed_since=before)


def test_resume_is_the_wall_clock_running_ahead_of_the_monotonic_one() -> None:
    assert not resumed(wall_elapsed=1.0, monotonic_elapsed=1.0)
    assert not resumed(wall_elapsed=30.5, monotonic_elapsed=30.0)  # jitter, NTP slew
    assert resumed(wall_elapsed=3600.0, monotonic_elapsed=1.0)  # an hour asleep
    assert not resumed(wall_elapsed=-3600.0, monotonic_elapsed=1.0)  # clock set back
