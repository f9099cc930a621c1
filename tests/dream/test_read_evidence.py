"""The consult gate's transcript evidence, cached per transcript version (issue 13).

The cache must never change what the dream decides: a rewritten transcript,
a new session and a deleted session are all seen on the next dream.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.dream.gardener import _parents
from dreamd.dream.readevidence import reads_in, recent_reads, to_rescan
from dreamd.statedb import StateDB, open_state
from tests.process import run_dreamd

DAY = 86400
NOW = time.time()
CUTOFF = NOW - 14 * DAY


def write(path: Path, text: str, *, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


def reading(target: str, session: str = "s1") -> str:
    """One Claude Code line whose tool call reads ``target``."""
    line = {
        "type": "assistant",
        "sessionId": session,
        "uuid": "a1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "name": "Read", "input": {"file_path": target}}],
        },
    }
    return json.dumps(line) + "\n"


def rows(state: StateDB) -> dict[str, str]:
    with state.transaction() as connection:
        found = connection.execute("SELECT path, memory_paths FROM transcript_reads").fetchall()
    return dict(found)


# --------------------------------------------------------------------------- the cache itself


def test_an_unchanged_transcript_is_answered_from_the_cache(tmp_path: Path) -> None:
    """The second dream reads the row, not the file: a doctored row shows through."""
    state = open_state(tmp_path / "state.db")
    one = write(tmp_path / "t" / "one.jsonl", reading("/h/p/memory/a.md"), mtime=NOW - DAY)
    assert recent_reads([one], CUTOFF, state) == {Path("/h/p/memory/a.md")}
    assert rows(state) == {str(one): "/h/p/memory/a.md"}
    with state.transaction() as connection:
        connection.execute("UPDATE transcript_reads SET memory_paths = '/h/p/memory/cached.md'")
    assert recent_reads([one], CUTOFF, state) == {Path("/h/p/memory/cached.md")}


def test_a_rewritten_transcript_is_scanned_again(tmp_path: Path) -> None:
    """New bytes (even of the same size) are a new version: the old evidence goes."""
    state = open_state(tmp_path / "state.db")
    one = write(tmp_path / "one.jsonl", reading("/h/p/memory/a.md"), mtime=NOW - 2 * DAY)
    assert recent_reads([one], CUTOFF, state) == {Path("/h/p/memory/a.md")}
    write(one, reading("/h/p/memory/b.md"), mtime=NOW - DAY)  # same length, new mtime
    assert recent_reads([one], CUTOFF, state) == {Path("/h/p/memory/b.md")}
    assert rows(state) == {str(one): "/h/p/memory/b.md"}


def test_new_gone_and_old_transcripts(tmp_path: Path) -> None:
    """A new session is scanned; a deleted one, or one past the window, loses its row."""
    state = open_state(tmp_path / "state.db")
    one = write(tmp_path / "one.jsonl", reading("/h/p/memory/a.md"), mtime=NOW - DAY)
    assert recent_reads([one], CUTOFF, state) == {Path("/h/p/memory/a.md")}
    two = write(tmp_path / "two.jsonl", reading("/h/p/memory/b.md"), mtime=NOW - DAY)
    assert recent_reads([one, two], CUTOFF, state) == {
        Path("/h/p/memory/a.md"),
        Path("/h/p/memory/b.md"),
    }
    one.unlink()
    assert recent_reads([one, two], CUTOFF, state) == {Path("/h/p/memory/b.md")}
    assert set(rows(state)) == {str(two)}
    os.utime(two, (NOW - 20 * DAY, NOW - 20 * DAY))
    assert recent_reads([two], CUTOFF, state) == frozenset()
    assert rows(state) == {}


def test_an_unreadable_transcript_gives_no_evidence_and_no_row(tmp_path: Path) -> None:
    """A path that cannot be read (here a directory) is skipped, as without the cache."""
    state = open_state(tmp_path / "state.db")
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    assert recent_reads([folder], CUTOFF, state) == frozenset()
    assert rows(state) == {}


def test_without_a_state_database_every_recent_transcript_is_scanned(tmp_path: Path) -> None:
    one = write(tmp_path / "one.jsonl", reading("/h/p/memory/a.md"), mtime=NOW - DAY)
    old = write(tmp_path / "old.jsonl", reading("/h/p/memory/o.md"), mtime=NOW - 30 * DAY)
    assert recent_reads([one, old, one], CUTOFF) == {Path("/h/p/memory/a.md")}


def test_to_rescan_names_missing_and_changed_versions() -> None:
    from dreamd.dream.readevidence import Scanned

    cached = {"a": Scanned((1, 1, 10, 5), ()), "b": Scanned((1, 2, 10, 5), ())}
    versions = {"a": (1, 1, 10, 5), "b": (1, 2, 11, 6), "c": (1, 3, 1, 1)}
    assert to_rescan(versions, cached) == ["b", "c"]


def test_reads_in_keeps_each_path_once_in_order() -> None:
    data = b'"/x/memory/b.md" "/x/memory/a.md" "/x/memory/b.md"'
    assert reads_in(data) == ("/x/memory/b.md", "/x/memory/a.md")


# --------------------------------------------------------------------------- whole dreams


def gone_decision(home: Path, memory: Path) -> dict[str, object]:
    result = run_dreamd(home, "dream", "--dry-run", "--json", "--root", str(memory))
    assert result.returncode == 0, result.stderr
    (folder,) = json.loads(result.stdout)["directories"]
    return next(f for f in folder["files"] if f["file"] == "project_gone.md")


def test_each_dream_sees_what_the_transcripts_say_now(isolated_home: Path, tmp_path: Path) -> None:
    """Rewritten, new and deleted sessions change the consult gate's verdict on the next dream."""
    repo = tmp_path / "work" / "app"
    write(repo / "src" / "app.py", "def main():\n    pass\n", mtime=NOW - 90 * DAY)
    projects = isolated_home / ".claude" / "projects" / "-work-app"
    memory = projects / "memory"
    front = "---\nname: gone\ndescription: gone\ntype: project\n---\n\nSee `src/removed.py`.\n"
    write(memory / "project_gone.md", front, mtime=NOW - 90 * DAY)
    target = str(memory / "project_gone.md")
    opening = {
        "type": "user",
        "sessionId": "s1",
        "cwd": str(repo),
        "uuid": "u1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    first = projects / "s1.jsonl"
    write(first, json.dumps(opening) + "\n" + reading(target), mtime=NOW - DAY)
    kept = "consult-gate: read by an agent in the last 14 days (transcripts)"
    assert gone_decision(isolated_home, memory)["kept_reason"] == kept

    write(first, json.dumps(opening) + "\n" + reading(str(repo / "src" / "app.py")), mtime=NOW)
    assert gone_decision(isolated_home, memory)["action"] == "trash"  # rewritten

    second = projects / "s2.jsonl"
    write(second, json.dumps(opening | {"sessionId": "s2"}) + "\n" + reading(target), mtime=NOW)
    assert gone_decision(isolated_home, memory)["kept_reason"] == kept  # a new session

    second.unlink()
    assert gone_decision(isolated_home, memory)["action"] == "trash"  # a deleted session


@settings(max_examples=2000)
@given(st.lists(st.text(alphabet="/.ab", max_size=12), max_size=8))
def test_session_folders_are_what_path_says(paths: list[str]) -> None:
    """The folders of the sessions' transcripts, one ``Path`` per folder, are exactly
    ``Path(path).parent`` for every shape of path (``//``, ``/.``, ``..``, relative)."""
    assert _parents(paths) == {path: Path(path).parent for path in paths}
