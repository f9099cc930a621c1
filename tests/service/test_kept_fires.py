"""Fire times ``status`` keeps: the trigger's own answers for as long as they hold."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.collect.budget import nth_fire_time
from dreamd.config import load_settings
from dreamd.schedule import (
    KeptFires,
    decode_fires,
    encode_fires,
    parse_schedule,
    schedule_key,
)
from dreamd.service.status import status_document
from dreamd.statedb import open_state
from tests.process import modules_loaded, run_dreamd
from tests.service.daemon import write_config

START = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
EXPRESSIONS = ("30 2 * * *", "*/7 * * * *", "0 9 * * 1-5", "0 0 1 1 *", "15 3 29 2 *", "0 0 31 4 *")
ZONES = (UTC, timezone(timedelta(hours=-5), "EST"), ZoneInfo("Europe/Berlin"))


def counted(expression: str, zone: object, at: datetime, count: int) -> KeptFires:
    """What ``status`` keeps after asking the trigger at ``at``."""
    trigger = parse_schedule(expression, zone)  # type: ignore[arg-type]
    upcoming = trigger.get_next_fire_time(None, at)
    nth = nth_fire_time(trigger, at, count) if count else None
    return KeptFires(
        schedule_key(expression, zone),  # type: ignore[arg-type]
        at.timestamp(),
        upcoming.timestamp() if upcoming else None,
        count,
        nth.timestamp() if nth else None,
    )


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(EXPRESSIONS),
    st.sampled_from(ZONES),
    st.integers(min_value=0, max_value=400 * 86400),
    st.integers(min_value=0, max_value=40),
    st.floats(min_value=0, max_value=1),
)
def test_kept_fire_times_are_the_triggers_answers_wherever_they_hold(
    expression: str, zone: object, offset: int, count: int, fraction: float
) -> None:
    """Counted at one moment, the next fire time and the ``count``-th are what the trigger
    says at any later moment up to that next fire time, the fire time itself included."""
    at = START + timedelta(seconds=offset)
    kept = decode_fires(encode_fires(counted(expression, zone, at, count)))
    assert kept is not None
    key = schedule_key(expression, zone)  # type: ignore[arg-type]
    end = datetime.fromtimestamp(kept.next, UTC) if kept.next else at + timedelta(days=800)
    for moment in (at + (end - at) * fraction, end):
        assert kept.holds_at(key, moment, count)
        fresh = counted(expression, zone, moment, count)
        assert kept.times(UTC) == fresh.times(UTC)  # type: ignore[arg-type]
    if kept.next is not None:
        assert not kept.holds_at(key, end + timedelta(seconds=1), count)


def test_kept_fire_times_hold_only_for_their_schedule_count_and_span() -> None:
    kept = counted("30 2 * * *", UTC, START, 3)
    key = schedule_key("30 2 * * *", UTC)
    assert kept.holds_at(key, START, 3)
    assert not kept.holds_at(schedule_key("30 3 * * *", UTC), START, 3)
    assert not kept.holds_at(schedule_key("30 2 * * *", timezone(timedelta(hours=1))), START, 3)
    assert not kept.holds_at(key, START, 4)
    assert not kept.holds_at(key, START - timedelta(seconds=1), 3)  # a clock set back
    assert kept.times(UTC)[0] == datetime(2026, 12, 4, 2, 30, tzinfo=UTC)
    assert kept.times(UTC)[1] == datetime(2026, 12, 6, 2, 30, tzinfo=UTC)
    assert decode_fires(b"\x01") is None


def test_status_asks_the_scheduler_once_and_again_when_the_schedule_changes(
    isolated_home: Path,
) -> None:
    """The second ``status`` loads no scheduler and shows the same next runs; a new
    schedule in the configuration is asked again."""
    write_config(isolated_home, '[collect]\nschedule = "10 4 * * *"\n')
    first = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    loaded = modules_loaded(isolated_home, "status", "--json")
    assert not {m for m in loaded if m.split(".")[0] == "apscheduler"}
    again = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert again["jobs"] == first["jobs"]
    assert datetime.fromisoformat(first["jobs"]["collect"]["next_run"]).strftime("%H:%M") == (
        "04:10"
    )
    write_config(isolated_home, '[collect]\nschedule = "20 5 * * *"\n')
    changed = json.loads(run_dreamd(isolated_home, "status", "--json").stdout)
    assert datetime.fromisoformat(changed["jobs"]["collect"]["next_run"]).strftime("%H:%M") == (
        "05:20"
    )


def test_status_past_the_kept_next_run_asks_again(isolated_home: Path) -> None:
    """The kept next run is shown up to its own moment; once it passed, the following one."""
    write_config(isolated_home, '[collect]\nschedule = "0 6 * * *"\n')
    config = load_settings(home=isolated_home)
    state = open_state(config.data_dir / "state.db")

    def next_collect(hour: int) -> str:
        now = datetime(2026, 12, 3, hour, 0, tzinfo=UTC)
        document = status_document(config, state, env={}, now=now, timezone=UTC)
        return str(document["jobs"]["collect"]["next_run"])

    assert next_collect(5) == "2026-12-03T06:00:00+00:00"
    assert next_collect(6) == "2026-12-03T06:00:00+00:00"  # due now: still the next
    assert next_collect(7) == "2026-12-04T06:00:00+00:00"
    assert next_collect(5) == "2026-12-03T06:00:00+00:00"  # a clock set back: asked again
