"""The jobs tell a progress callback how far they got: sessions read and collected, folders
dreamed, stores checked (what the service shows as STATUS= and counts as alive)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from dreamd.config import load_settings
from dreamd.jobs import JobContext, collect_request, dream_request, run_collect, run_dream
from dreamd.progress import JobProgress
from dreamd.statedb import open_state
from tests.collect.test_collect_cli import PROMPTS, session
from tests.dream.test_unattended import stale_folder

Heard = list[tuple[str, int, int]]


def _recorder(heard: Heard) -> JobProgress:
    def progress(stage: str, done: int, total: int) -> None:
        heard.append((stage, done, total))

    return progress


def test_a_collect_reports_sessions_read_and_each_session_and_window(isolated_home: Path) -> None:
    """Two sessions: read 1/2 and 2/2, then collecting 1/2 and 2/2, once per window at least."""
    session(isolated_home, PROMPTS, sid="11111111-1111-1111-1111-111111111111")
    session(isolated_home, PROMPTS, sid="22222222-2222-2222-2222-222222222222")
    settings = load_settings(home=isolated_home)
    context = JobContext(settings, open_state(settings.state_db), {}, isolated_home)
    heard: Heard = []
    request = collect_request(settings, {}, now=datetime.now(UTC), progress=_recorder(heard))
    result, _ = run_collect(context, request)
    assert result.windows >= 2
    assert ("reading sessions", 2, 2) in heard
    collecting = [entry for entry in heard if entry[0] == "collecting sessions"]
    assert ("collecting sessions", 1, 2) in collecting and (
        "collecting sessions",
        2,
        2,
    ) in collecting
    # Asked before each session and again before each of its windows: never fewer beats.
    assert len(collecting) >= 2 + result.windows


def test_a_dream_reports_each_repository_folder_and_store(
    isolated_home: Path, tmp_path: Path
) -> None:
    """One folder in one repository, the SQL store a collect made: each is a step."""
    memory = stale_folder(tmp_path / "repo", stale=1)
    session(isolated_home, PROMPTS)
    settings = load_settings(home=isolated_home)
    context = JobContext(settings, open_state(settings.state_db), os.environ, isolated_home)
    run_collect(context, collect_request(settings, {}, now=datetime.now(UTC)))
    heard: Heard = []
    request = dream_request(
        settings,
        os.environ,
        now=datetime.now(UTC),
        roots=(memory,),
        progress=_recorder(heard),
    )
    run_dream(context, request)
    assert ("dreaming folders", 1, 1) in heard
    assert heard.index(("checking repositories", 1, 1)) < heard.index(("dreaming folders", 1, 1))
    assert ("checking stores", 1, 1) in heard  # the SQL store, gated after the folders
    assert heard[-1] == ("checking stores", 1, 1)
