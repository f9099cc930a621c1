"""The watcher: events mark paths dirty, debounced; roots too broad to watch are skipped."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import time
from pathlib import Path

import pytest

from dreamd.service.watcher import (
    DirtyPaths,
    TranscriptWatcher,
    is_transcript_event,
    too_broad,
    tools_for_path,
)
from tests.collect.test_collect_cli import PROMPTS, session
from tests.service.daemon import Daemon, write_config


def test_tools_for_path_by_root_prefix_not_by_string_prefix() -> None:
    roots = {"claude-code": [Path("/h/.claude/projects")], "codex": [Path("/h/.codex/sessions")]}
    assert tools_for_path("/h/.claude/projects/-a/s.jsonl", roots) == ["claude-code"]
    assert tools_for_path("/h/.claude/projects-old/s.jsonl", roots) == []
    assert tools_for_path("/h/.codex/sessions", roots) == ["codex"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/h/.claude/projects/-w-app/0a1b.jsonl", True),
        ("/h/.claude/projects/-w-app/0a1b/subagents/agent-1.jsonl", True),
        ("/h/.claude/projects/-w-app/memory/MEMORY.md", False),
        ("/h/.claude/projects/-w-app/memory/.inbox/x.md", False),
        ("/h/.claude/projects/-w-app/memory/.trash/2026-11-30/x.md", False),
        ("/h/.claude/projects/-w-app/.x.jsonl.1a2b.tmp", False),
        ("/h/.claude/projects/-w-app/.lock", False),
        ("/h/.local/share/opencode/storage/message/ses_1/msg_2.json", True),
    ],
)
def test_memory_folders_and_temporary_files_are_not_transcripts(path: str, expected: bool) -> None:
    assert is_transcript_event(path) is expected


def test_a_root_holding_other_roots_or_dreamds_data_is_too_broad() -> None:
    home = Path("/h")
    others = [Path("/h/.local/share/dreamd"), Path("/h/.claude/projects"), home]
    assert too_broad(home, others)
    assert not too_broad(Path("/h/.claude/projects"), others)


def test_dirty_paths_settle_once_quiet_and_report_each_path_once() -> None:
    dirty = DirtyPaths(debounce=2.0)
    dirty.mark("/r/a.jsonl", ["claude-code"], at=10.0)
    dirty.mark("/r/a.jsonl", ["claude-code"], at=11.0)  # still being written
    dirty.mark("/r/b.jsonl", ["codex"], at=10.5)
    assert dirty.settled(12.0) == []
    assert dirty.settled(12.6) == [("/r/b.jsonl", ("codex",))]
    assert dirty.settled(13.0) == [("/r/a.jsonl", ("claude-code",))]
    assert dirty.settled(100.0) == []
    assert dirty.take_tools() == {"claude-code", "codex"}
    assert dirty.take_tools() == set()  # taken: the next scan starts clean


def test_real_inotify_events_mark_the_written_file(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "-w-app").mkdir(parents=True)
    dirty = DirtyPaths(debounce=0.0)
    watcher = TranscriptWatcher({"claude-code": [root]}, dirty, tmp_path / "data")
    watcher.start()
    try:
        assert watcher.unchanged_tools() == {"claude-code"}
        target = root / "-w-app" / "s.jsonl"
        target.write_text('{"a": 1}\n')
        for _ in range(100):
            if any(path == str(target) for path, _ in dirty.settled(time.monotonic() + 1)):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("no event for the written transcript")
        assert watcher.unchanged_tools() == set()  # changed since the last scan
        assert watcher.unchanged_tools() == {"claude-code"}
    finally:
        watcher.stop()


def _exhaust_inotify_instances() -> list[int]:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    held: list[int] = []
    for _ in range(100_000):
        descriptor = libc.inotify_init()
        if descriptor < 0:
            if ctypes.get_errno() != errno.EMFILE:
                break
            return held
        held.append(descriptor)
    for descriptor in held:
        os.close(descriptor)
    pytest.skip("could not reach the inotify instance limit here")


@pytest.mark.slow
def test_at_the_inotify_limit_the_service_falls_back_to_polling(isolated_home: Path) -> None:
    """The kernel refuses an inotify instance: the service says so, polls, and keeps working."""
    session(isolated_home, PROMPTS)
    write_config(isolated_home, '[collect]\nschedule = "*/2 * * * * *"\n')
    held = _exhaust_inotify_instances()
    try:
        daemon = Daemon(isolated_home)
        try:
            fallback = daemon.event("watch.fallback_polling", timeout=30)
            assert fallback["level"] == "warning"
            assert daemon.event("watch.started", timeout=30)["observer"] == "polling"
        finally:
            for descriptor in held:
                os.close(descriptor)
            held = []
        scanned = daemon.event("catalog.scanned", timeout=30)
        assert scanned["reused"] == []  # polling may lag: every scan discovers everything
        daemon.event("collect.completed", timeout=30)
        assert daemon.terminate() == 0
    finally:
        for descriptor in held:
            os.close(descriptor)
        daemon.kill()
