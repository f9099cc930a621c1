"""`dreamd sources list/show` as a user runs them: a real subprocess on a temporary HOME."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.core.test_listing_json import FIELDS
from tests.process import run_dreamd

SESSION = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"


def run(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_dreamd(home, *args, **(env or {}))


def claude_session(home: Path, sid: str, prompts: list[str], *, hours_ago: float = 3) -> Path:
    """Write a small Claude Code transcript with one assistant answer per prompt."""
    folder = home / ".claude" / "projects" / "-work-repo"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.time() - hours_ago * 3600
    lines = []
    parent = None
    for index, prompt in enumerate(prompts):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(start + index * 60))
        user_id, reply_id = f"u{index}-{sid}", f"a{index}-{sid}"
        common = {
            "sessionId": sid,
            "cwd": "/work/repo",
            "isSidechain": False,
            "userType": "external",
        }
        lines.append(
            {
                **common,
                "type": "user",
                "uuid": user_id,
                "parentUuid": parent,
                "timestamp": stamp,
                "message": {"role": "user", "content": prompt},
            }
        )
        lines.append(
            {
                **common,
                "type": "assistant",
                "uuid": reply_id,
                "parentUuid": user_id,
                "timestamp": stamp,
                "message": {
                    "id": f"msg_{index}{sid[:4]}",
                    "role": "assistant",
                    "type": "message",
                    "content": [{"type": "text", "text": f"Answer {index}: done."}],
                },
            }
        )
        parent = reply_id
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (start, start + len(prompts) * 60))
    return path


def test_empty_home_lists_nothing(isolated_home: Path) -> None:
    """With no agent sessions the JSON list is an empty array and the exit code 0."""
    result = run(isolated_home, "sources", "list", "--json")
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


def test_list_json_contract(isolated_home: Path) -> None:
    """Each listed session carries every field of the JSON contract."""
    claude_session(
        isolated_home, SESSION, ["Refactor the loader", "Add tests please", "Now the docs"]
    )
    result = run(isolated_home, "sources", "list", "--json")
    assert result.returncode == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    assert list(entry) == FIELDS  # the contract's fields, in its order
    assert (entry["tool"], entry["id"], entry["project"]) == ("claude-code", SESSION, "/work/repo")
    assert (entry["messages"], entry["user_messages"], entry["status"]) == (6, 3, "eligible")
    assert entry["last_message_at"].endswith("Z")
    assert set(entry["file_version"]) >= {"device", "inode", "size", "mtime_ns"}


def test_list_statuses_paging_and_tool_filter(isolated_home: Path) -> None:
    """Live and trivial sessions are labelled; --limit/--offset page; --tool filters."""
    claude_session(isolated_home, "aaaa-live", ["one", "two", "three"], hours_ago=0.1)
    claude_session(isolated_home, "bbbb-tiny", ["only this"], hours_ago=2)
    claude_session(isolated_home, "cccc-real", ["fix the bug", "and the other one"], hours_ago=3)
    listed = json.loads(run(isolated_home, "sources", "list", "--json").stdout)
    assert [(e["id"], e["status"]) for e in listed] == [
        ("aaaa-live", "live"),
        ("bbbb-tiny", "trivial"),
        ("cccc-real", "eligible"),
    ]
    page = json.loads(
        run(isolated_home, "sources", "list", "--json", "--limit", "1", "--offset", "1").stdout
    )
    assert [e["id"] for e in page] == ["bbbb-tiny"]
    assert (
        json.loads(run(isolated_home, "sources", "list", "--json", "--tool", "codex").stdout) == []
    )


def test_list_text_table(isolated_home: Path) -> None:
    """The text listing shows each session and a summary line."""
    claude_session(isolated_home, SESSION, ["Refactor the loader", "Add tests", "Docs"])
    result = run(isolated_home, "sources", "list")
    assert result.returncode == 0
    assert SESSION in result.stdout
    assert "1 sessions (1 eligible); 1 selected" in result.stdout


def test_show_json_contract(isolated_home: Path) -> None:
    """`sources show --json` prints the cleaned conversation with message fingerprints."""
    claude_session(isolated_home, SESSION, ["Refactor the loader", "Add tests please"])
    result = run(isolated_home, "sources", "show", f"claude-code:{SESSION}", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert set(document) == {"schema", "tool", "id", "project", "revision", "messages"}
    assert [m["role"] for m in document["messages"]] == ["user", "assistant", "user", "assistant"]
    assert document["messages"][0]["text"] == "Refactor the loader"
    assert all(
        set(m) == {"id", "role", "text", "timestamp", "fingerprint"} for m in document["messages"]
    )
    listed = json.loads(run(isolated_home, "sources", "list", "--json").stdout)
    assert listed[0]["revision"] == document["revision"]


def test_show_text(isolated_home: Path) -> None:
    """The text form shows the project and every message."""
    claude_session(isolated_home, SESSION, ["Refactor the loader"])
    result = run(isolated_home, "sources", "show", f"claude-code:{SESSION}")
    assert "project:  /work/repo" in result.stdout
    assert "Refactor the loader" in result.stdout and "Answer 0: done." in result.stdout


def test_show_unknown_session_fails_with_hint(isolated_home: Path) -> None:
    """A missing session exits 1 and says how to list the ids."""
    result = run(isolated_home, "sources", "show", "claude-code:nope")
    assert result.returncode == 1
    assert "no session claude-code:nope" in result.stderr and "sources list" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argument", ["nocolon", "vim:abc", "claude-code:"])
def test_show_bad_argument_is_usage_error(isolated_home: Path, argument: str) -> None:
    """A malformed TOOL:SESSION_ID is a usage error (exit 2)."""
    assert run(isolated_home, "sources", "show", argument).returncode == 2


def test_unknown_tool_filter_is_usage_error(isolated_home: Path) -> None:
    """--tool with an unknown name exits 2."""
    assert run(isolated_home, "sources", "list", "--tool", "vim").returncode == 2


def test_bad_config_names_key_without_traceback(isolated_home: Path, tmp_path: Path) -> None:
    """A bad config value exits 1 with a line naming file and key."""
    config = tmp_path / "bad.toml"
    config.write_text("[collect]\nbudget_sessions = 'many'\n")
    result = run(isolated_home, "sources", "list", "--config", str(config))
    assert result.returncode == 1
    assert f"{config}: collect.budget_sessions: expected int" in result.stderr
    assert "Traceback" not in result.stderr


def test_transcripts_are_never_written(isolated_home: Path) -> None:
    """Listing and showing leave transcript bytes, mtime and folder contents untouched."""
    path = claude_session(isolated_home, SESSION, ["Refactor the loader", "More"])

    def snapshot() -> tuple[bytes, int, list[str]]:
        names = sorted(entry.name for entry in path.parent.iterdir())
        return path.read_bytes(), path.stat().st_mtime_ns, names

    before = snapshot()
    run(isolated_home, "sources", "list", "--json")
    run(isolated_home, "sources", "show", f"claude-code:{SESSION}", "--json")
    assert snapshot() == before


def test_rescan_uses_cache_and_sees_changes(isolated_home: Path) -> None:
    """A second listing reuses cached metadata; an appended file is re-read."""
    path = claude_session(isolated_home, SESSION, ["Refactor the loader", "More", "Even more"])
    first = json.loads(run(isolated_home, "sources", "list", "--json").stdout)[0]
    second = json.loads(run(isolated_home, "sources", "list", "--json").stdout)[0]
    assert first == second
    claude_session(isolated_home, SESSION, ["Refactor the loader", "More", "Even more", "Last one"])
    third = json.loads(run(isolated_home, "sources", "list", "--json").stdout)[0]
    assert (third["messages"], third["revision"] != first["revision"]) == (8, True)
    assert path.exists()


def test_module_and_version(isolated_home: Path) -> None:
    """`python -m dreamd --version` works."""
    result = run(isolated_home, "--version")
    assert result.returncode == 0 and "dreamd, version" in result.stdout


def test_bad_sources_are_listed_unresolved_without_traceback(isolated_home: Path) -> None:
    """Garbage, empty, looping and fake-database sources are listed with reasons; exit 0."""
    folder = isolated_home / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    (folder / "garbage.jsonl").write_bytes(bytes(range(256)) * 8)
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    database = isolated_home / ".local" / "share" / "opencode" / "opencode.db"
    database.parent.mkdir(parents=True)
    database.write_text("not a database")
    result = run(isolated_home, "sources", "list", "--json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    reasons = {
        entry["id"]: (entry["status"], entry["reason"]) for entry in json.loads(result.stdout)
    }
    assert reasons["garbage"][0] == "unresolved" and "JSON" in reasons["garbage"][1]
    assert reasons["empty"] == ("unresolved", "empty file")
    assert reasons["loop"] == ("unresolved", "symlink loop")
    assert any(
        status == "unresolved" and "database" in reason for status, reason in reasons.values()
    )
