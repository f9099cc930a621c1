"""`dreamd collect` end to end: planting, idempotence, growth, dry runs, the lock, crashes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.process import run_dreamd

SID = "11111111-2222-4333-8444-555555555555"
PROMPTS = [
    "Always run the linter before committing, from now on.",
    "Fix the flaky test in the parser please.",
    "We decided to use uv instead of pip because it is much faster.",
    "ok thanks",
    "The dashboard is at https://grafana.example.com/d/abc - remember that.",
    "continue",
]


def session(home: Path, prompts: list[str], *, sid: str = SID, project: str = "/work/app") -> Path:
    """A finished Claude Code session (last written two hours ago)."""
    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.time() - 7200
    lines = []
    for index, prompt in enumerate(prompts):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(start + index * 60))
        base = {"sessionId": sid, "cwd": project, "isSidechain": False, "timestamp": stamp}
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": f"u{index}",
                "message": {"role": "user", "content": prompt},
            }
        )
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"a{index}",
                "message": {
                    "id": f"m{index}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Done with step {index}."}],
                },
            }
        )
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (start + 3600, start + 3600))
    return path


def data(home: Path) -> Path:
    return home / ".local" / "share" / "dreamd"


def inbox(home: Path) -> list[str]:
    folder = home / ".claude" / "projects" / "-work-app" / "memory" / ".inbox"
    return sorted(p.name for p in folder.glob("*.md")) if folder.is_dir() else []


def sql_keys(home: Path) -> list[str]:
    database = data(home) / "memory.db"
    if not database.exists():
        return []
    with sqlite3.connect(database) as connection:
        return sorted(row[0] for row in connection.execute("SELECT op_key FROM memory_item"))


def collect(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_dreamd(home, "collect", *args, **env)


def test_plants_what_the_user_established_with_provenance(isolated_home: Path) -> None:
    """Rules, decisions and references go to the inbox and the SQL store; chit-chat does not."""
    session(isolated_home, PROMPTS)
    result = collect(isolated_home, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["selected"] == [f"claude-code:{SID}"]
    assert report["cursor"]["resolved"] == [f"claude-code:{SID}"]
    names = inbox(isolated_home)
    assert len(names) == 3 and len(sql_keys(isolated_home)) == 3
    texts = " ".join(
        (isolated_home / ".claude/projects/-work-app/memory/.inbox" / n).read_text() for n in names
    )
    assert "linter" in texts and "uv instead of pip" in texts and "grafana" in texts
    assert "flaky test" not in texts and "ok thanks" not in texts
    assert "source:claude-code:" in texts and "collected: " in texts


def test_a_second_run_plants_nothing_more(isolated_home: Path) -> None:
    """A resolved session is not read again; the stores stay as they were."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    before = (inbox(isolated_home), sql_keys(isolated_home))
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["selected"] == [] and report["planted"]["total"] == 0
    assert (inbox(isolated_home), sql_keys(isolated_home)) == before


def test_a_grown_session_analyses_only_new_messages(isolated_home: Path) -> None:
    """New prompts are collected; earlier items are not planted twice."""
    session(isolated_home, PROMPTS)
    collect(isolated_home)
    first = set(sql_keys(isolated_home))
    session(isolated_home, [*PROMPTS, "Never commit directly to main, always open a pull request."])
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["windows"] == 1
    added = set(sql_keys(isolated_home)) - first
    assert len(added) == 1 and first <= set(sql_keys(isolated_home))


def test_dry_run_writes_nothing(isolated_home: Path) -> None:
    """--dry-run reports what it would plant and writes no item and no cursor."""
    session(isolated_home, PROMPTS)
    report = json.loads(collect(isolated_home, "--dry-run", "--json").stdout)
    assert len(report["would_plant"]) == 3
    assert inbox(isolated_home) == [] and sql_keys(isolated_home) == []
    assert json.loads(run_dreamd(isolated_home, "cursor", "export").stdout) == {}


def test_live_and_trivial_sessions_are_skipped(isolated_home: Path) -> None:
    """A session named live is not taken; a trivial one is recorded as skipped with a reason."""
    session(isolated_home, PROMPTS)
    session(isolated_home, ["hi"], sid="22222222-2222-4333-8444-555555555555")
    report = json.loads(collect(isolated_home, "--json", "--live", f"claude-code:{SID}").stdout)
    assert report["selected"] == []
    assert report["cursor"]["skipped_trivial"] == [
        "claude-code:22222222-2222-4333-8444-555555555555"
    ]


def test_a_second_collector_is_refused_with_the_pid(isolated_home: Path) -> None:
    """While one collect holds the lock, another exits 1 naming the holder's PID."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time;from pathlib import Path;from dreamd.lock import pipeline_lock;"
         "l=pipeline_lock(Path(sys.argv[1]),'collect');l.acquire();print('held',flush=True);time.sleep(60)",
         str(data(isolated_home))],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = collect(isolated_home)
        assert result.returncode == 1
        assert f"process {holder.pid}" in result.stderr
    finally:
        holder.kill()
        holder.wait()


def test_cursor_export_import_round_trip(isolated_home: Path, tmp_path: Path) -> None:
    """A legacy cursor document imported and exported keeps every field."""
    legacy = {"highWater": "2026-01-01", "sources": {"pi": {"processed": ["a"]}},
              "skipped_trivial": ["pi:b"], "collectorV2": {"sources": {}}}  # fmt: skip
    path = tmp_path / "cursor.json"
    path.write_text(json.dumps(legacy))
    assert run_dreamd(isolated_home, "cursor", "import", str(path)).returncode == 0
    assert json.loads(run_dreamd(isolated_home, "cursor", "export").stdout) == legacy


LONG = [f"Please look at issue number {i} in the tracker." for i in range(60)]
LONG[3] = "Always run the linter before committing, from now on."
LONG[16] = "We decided to use uv instead of pip because it is much faster."
LONG[31] = "Never push directly to main, always open a pull request."


def stores_of(home: Path) -> tuple[list[str], list[str]]:
    """Inbox file contents (without the op-key lines' order) and SQL op keys."""
    folder = home / ".claude" / "projects" / "-work-app" / "memory" / ".inbox"
    files = sorted(p.read_text() for p in folder.glob("*.md")) if folder.is_dir() else []
    return files, sql_keys(home)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    home = tmp_path_factory.mktemp("baseline") / "home"
    home.mkdir()
    session(home, LONG)
    assert collect(home).returncode == 0
    return stores_of(home)


@pytest.mark.parametrize("crash_at", range(1, 24))
def test_killed_at_any_point_a_rerun_plants_exactly_once(
    isolated_home: Path, crash_at: int, uninterrupted: tuple[list[str], list[str]]
) -> None:
    """SIGKILL at any of 23 steps, then a clean rerun: exactly the uninterrupted run's items.

    Four windows of 30 messages, three of them planting one item into two
    stores: the steps are before and after each plan save, before each store
    write, after the writes, after each checkpoint and before completion.
    """
    session(isolated_home, LONG)
    killed = collect(isolated_home, DREAMD_TEST_CRASH_AT=str(crash_at))
    assert killed.returncode == -9, "the crash point was never reached"
    rerun = collect(isolated_home)
    assert rerun.returncode == 0, rerun.stderr
    files, keys = stores_of(isolated_home)
    base_files, base_keys = uninterrupted
    assert keys == base_keys and len(set(keys)) == len(keys)
    assert [f.split("collected:")[0] for f in files] == [
        f.split("collected:")[0] for f in base_files
    ]
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["status"] == "resolved" and entry["intent"] is None
    assert len(entry["acked"]) == len(LONG) * 2


def test_a_b_a_source_changes_are_new_work(isolated_home: Path) -> None:
    """An edited message is analysed again; reverting it is new work again, not a retry."""
    edited = [*PROMPTS]
    edited[1] = "Fix the flaky test in the lexer please."
    windows = []
    for prompts in (PROMPTS, edited, PROMPTS):
        session(isolated_home, prompts)
        report = json.loads(collect(isolated_home, "--json").stdout)
        windows.append(report["windows"])
        assert report["cursor"]["resolved"] == [f"claude-code:{SID}"]
    assert windows == [1, 1, 1]
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["generation"] == 2
    assert len(set(sql_keys(isolated_home))) == len(sql_keys(isolated_home))


def test_dreamds_own_extraction_runs_are_never_collected(isolated_home: Path) -> None:
    """A session run in a dreamd extraction folder is skipped, recorded, and plants nothing."""
    session(isolated_home, PROMPTS, project="/tmp/dreamd-extract-1a2b/work")
    report = json.loads(collect(isolated_home, "--json").stdout)
    assert report["selected"] == []
    assert report["cursor"]["skipped_trivial"] == [f"claude-code:{SID}"]
    assert sql_keys(isolated_home) == []
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["reason"] == "dreamd's own extraction run"


def kill_run(home: Path, kill_at: int) -> subprocess.CompletedProcess[str]:
    """`dreamd collect` killed before its kill_at-th state-changing I/O call (0: not killed)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DREAMD_"))}
    environment["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "tests.collect.killer", str(kill_at), "collect"],
        capture_output=True, text=True, env=environment, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def io_calls(tmp_path_factory: pytest.TempPathFactory) -> int:
    home = tmp_path_factory.mktemp("count") / "home"
    home.mkdir()
    session(home, LONG)
    result = kill_run(home, 0)
    assert result.returncode == 0, result.stderr
    return int(result.stderr.strip().rsplit("io-calls ", 1)[1])


@pytest.mark.parametrize("share", [i / 20 for i in range(20)])
def test_killed_mid_io_anywhere_a_rerun_plants_exactly_once(
    isolated_home: Path, share: float, io_calls: int, uninterrupted: tuple[list[str], list[str]]
) -> None:
    """SIGKILL at 20 points spread over every I/O call (store writes included), then a rerun."""
    session(isolated_home, LONG)
    kill_at = 1 + int(share * (io_calls - 1))
    assert kill_run(isolated_home, kill_at).returncode == -9
    rerun = collect(isolated_home)
    assert rerun.returncode == 0, rerun.stderr
    files, keys = stores_of(isolated_home)
    assert keys == uninterrupted[1]
    assert [f.split("collected:")[0] for f in files] == [
        f.split("collected:")[0] for f in uninterrupted[0]
    ]


def test_a_damaged_session_is_collected_but_never_resolved(isolated_home: Path) -> None:
    """Readable lines are collected; the session stays partial, naming the damaged line, and
    waits for a change instead of taking the budget again; once repaired it resolves."""
    path = session(isolated_home, PROMPTS)
    lines = path.read_text().splitlines(keepends=True)
    damaged = [*lines[:3], '{"type": "user", "message": {not json\n', *lines[3:]]
    stamp = path.stat().st_mtime
    path.write_text("".join(damaged))
    os.utime(path, (stamp, stamp))
    report = json.loads(collect(isolated_home, "--json").stdout)
    key = f"claude-code:{SID}"
    assert report["cursor"]["resolved"] == [] and len(sql_keys(isolated_home)) == 3
    assert any(entry.startswith(f"{key}: damaged line 4") for entry in report["cursor"]["partial"])
    again = json.loads(collect(isolated_home, "--json").stdout)
    assert again["selected"] == []
    listed = json.loads(run_dreamd(isolated_home, "sources", "list", "--json").stdout)
    assert [s["status"] for s in listed if s["id"] == SID] == ["damaged"]
    path.write_text("".join(lines))
    os.utime(path, (stamp, stamp))
    repaired = json.loads(collect(isolated_home, "--json").stdout)
    assert repaired["cursor"]["resolved"] == [key] and len(sql_keys(isolated_home)) == 3
