"""Readers hand on valid text only: NULs, lone surrogates and impossible working directories.

JavaScript writes a string cut inside an emoji as a lone surrogate escape
(``"\\ud83d"``); crashes leave NULs. Neither may reach the state database, the
JSON output or a store, and a working directory that cannot be a folder is
an unknown project with a note, never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dreamd.readers import READERS, Conversation, Message, SessionRef, Unresolved
from dreamd.readers._io import stat_version
from dreamd.readers._text import clean_id, clean_text, project_problem
from tests.process import run_dreamd

LONE = "\ud83d"
STAMP = "2026-03-01T10:00:0{}.000Z"

IMPOSSIBLE_CWDS = {
    "nul": "/home/user/pro\x00ject",
    "surrogate": f"/home/user/pro{LONE}ject",
    "relative": "work/project",
    "long": "/" + "x" * 5000,
}


def encode(records: list[Any]) -> bytes:
    """JSON Lines as a JavaScript writer leaves them: lone surrogates as escapes."""
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def claude_records(cwd: str, prompt: str = "please fix the parser") -> list[Any]:
    common = {"cwd": cwd, "sessionId": "s1", "isSidechain": False, "version": "2.1.30"}
    return [
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": STAMP.format(0),
            "message": {"role": "user", "content": prompt},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": STAMP.format(1),
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
            },
        },
    ]


CODEX_SID = "019e1625-789d-76c0-80ab-3724b5ddb799"


def codex_records(cwd: str, prompt: str = "please fix the parser") -> list[Any]:
    def message(role: str, kind: str, value: str) -> dict[str, Any]:
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": value}]}
        return {"timestamp": STAMP.format(1), "type": "response_item", "payload": payload}

    meta = {"id": CODEX_SID, "timestamp": STAMP.format(0), "cwd": cwd, "source": "cli"}
    return [
        {"timestamp": STAMP.format(0), "type": "session_meta", "payload": meta},
        message("user", "input_text", prompt),
        message("assistant", "output_text", "ok"),
    ]


def pi_records(cwd: str, prompt: str = "please fix the parser") -> list[Any]:
    return [
        {"type": "session", "version": 3, "id": "p1", "timestamp": STAMP.format(0), "cwd": cwd},
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "timestamp": STAMP.format(1),
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "message",
            "id": "e2",
            "parentId": "e1",
            "timestamp": STAMP.format(2),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        },
    ]


#: tool -> (records builder, where the file goes under HOME)
SOURCES = {
    "claude-code": (claude_records, ".claude/projects/-x/s1.jsonl"),
    "codex": (
        codex_records,
        f".codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{CODEX_SID}.jsonl",
    ),
    "pi": (pi_records, ".pi/agent/sessions/--x--/2026-03-01T10-00-00-000Z_p1.jsonl"),
}


def write_session(home: Path, tool: str, **fields: str) -> Path:
    build, place = SOURCES[tool]
    path = home / place
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(build(**fields)))
    return path


def read_only(home: Path, tool: str) -> Conversation | Unresolved:
    reader = READERS[tool]
    found = [item for root in reader.default_roots({}, home) for item in reader.discover(root)]
    assert len(found) == 1, found
    item = found[0]
    return reader.read(item) if isinstance(item, SessionRef) else item


def utf8_strict(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


# --------------------------------------------------------------------- the rules


def test_clean_text_drops_nuls_and_replaces_lone_surrogates() -> None:
    """Message text loses NULs; a lone surrogate becomes U+FFFD."""
    assert clean_text(f"a\x00b{LONE}c") == "ab\ufffdc"


def test_clean_text_keeps_valid_text_as_it_is() -> None:
    """Emoji, U+FFFF, U+2028, a BOM and CRLF are valid text and stay."""
    text = "ok 😀 \uffff \u2028 \ufeff line\r\n"
    assert clean_text(text) is text


def test_clean_id_keeps_two_damaged_ids_apart() -> None:
    """Ids get a visible escape, so two different damaged ids stay different."""
    assert clean_id("a\ud83d") == "a\\ud83d"
    assert clean_id("a\ud83d") != clean_id("a\ud83e")
    assert clean_id("x\x00") == "x\\u0000"


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE_CWDS))
def test_project_problem_names_each_impossible_working_directory(name: str) -> None:
    """NUL, invalid text, a relative path and a 5,000-character path are not folders."""
    assert project_problem(IMPOSSIBLE_CWDS[name]) is not None


@pytest.mark.parametrize("path", ["/home/user/work", "C:\\Users\\me\\proj", "\\\\srv\\share\\p"])
def test_project_problem_accepts_absolute_paths(path: str) -> None:
    """POSIX paths and Windows paths with a drive or a share are plausible folders."""
    assert project_problem(path) is None


def test_a_message_of_nuls_only_is_no_message() -> None:
    """``Message.build`` gives None when nothing but NULs was written."""
    assert Message.build("m1", "user", "\x00\x00 \x00", None) is None


def test_a_message_is_made_valid_on_construction() -> None:
    """However a reader builds it, a message's text and id are valid text."""
    message = Message(f"id{LONE}", "user", f"hi{LONE}\x00", None)
    assert utf8_strict(message.text) and utf8_strict(message.id)


# ------------------------------------------------------------ through the readers


@pytest.mark.parametrize("tool", sorted(SOURCES))
@pytest.mark.parametrize("name", sorted(IMPOSSIBLE_CWDS))
def test_an_impossible_cwd_is_an_unknown_project_with_a_note(
    isolated_home: Path, tool: str, name: str
) -> None:
    """The session still reads; its project is None and a note says why."""
    write_session(isolated_home, tool, cwd=IMPOSSIBLE_CWDS[name])
    result = read_only(isolated_home, tool)
    assert isinstance(result, Conversation), result
    assert result.project is None
    assert any("project unknown" in note for note in result.notes)
    assert all(utf8_strict(note) for note in result.notes)


@pytest.mark.parametrize("tool", sorted(SOURCES))
def test_a_plausible_cwd_is_the_project_without_a_note(isolated_home: Path, tool: str) -> None:
    """A normal absolute working directory is kept and nothing is noted."""
    write_session(isolated_home, tool, cwd="/home/user/work")
    result = read_only(isolated_home, tool)
    assert isinstance(result, Conversation)
    assert (result.project, result.notes) == ("/home/user/work", ())


@pytest.mark.parametrize("tool", sorted(SOURCES))
def test_message_text_with_nuls_and_lone_surrogates_is_valid(
    isolated_home: Path, tool: str
) -> None:
    """A prompt cut inside an emoji and padded with NULs reads as valid text."""
    write_session(isolated_home, tool, cwd="/w", prompt=f"fix the parser {LONE}\x00now")
    result = read_only(isolated_home, tool)
    assert isinstance(result, Conversation), result
    prompt = next(m for m in result.messages if m.role == "user")
    assert prompt.text == "fix the parser \ufffdnow"


@pytest.mark.parametrize("tool", sorted(SOURCES))
def test_a_prompt_of_nuls_only_is_dropped(isolated_home: Path, tool: str) -> None:
    """A prompt that is only NULs leaves no message and no error."""
    write_session(isolated_home, tool, cwd="/w", prompt="\x00\x00")
    result = read_only(isolated_home, tool)
    assert isinstance(result, Conversation), result
    assert [m.role for m in result.messages] == ["assistant"]


def test_a_file_name_that_is_not_utf8_is_reported_as_valid_text(isolated_home: Path) -> None:
    """A transcript whose name is not valid UTF-8 is unresolved, shown with an escape."""
    folder = isolated_home / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    raw = bytes(folder) + b"/bad\xff.jsonl"
    with open(raw, "wb") as handle:
        handle.write(encode(claude_records("/w")))
    result = read_only(isolated_home, "claude-code")
    assert isinstance(result, Unresolved)
    assert "not valid UTF-8" in result.reason
    assert utf8_strict(str(result.path)) and utf8_strict(result.key)


def test_stat_version_of_a_session_is_unchanged_by_cleaning(isolated_home: Path) -> None:
    """Cleaning never touches the file: its version is the same after a read."""
    path = write_session(isolated_home, "claude-code", cwd="/w", prompt=f"x{LONE}\x00y")
    before = stat_version(path)
    read_only(isolated_home, "claude-code")
    assert stat_version(path) == before


# ------------------------------------------------------------------ the commands


@pytest.fixture
def hostile_home(isolated_home: Path) -> Path:
    """A HOME with one session per tool whose cwd and prompt are damaged."""
    for tool in SOURCES:
        write_session(isolated_home, tool, cwd=f"/h/a{LONE}\x00", prompt=f"do it {LONE}\x00 now")
    return isolated_home


def test_sources_list_json_survives_damaged_text(hostile_home: Path) -> None:
    """``sources list --json`` exits 0 and lists every session with an unknown project."""
    done = run_dreamd(hostile_home, "sources", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert sorted(entry["tool"] for entry in listed) == sorted(SOURCES)
    assert all(entry["project"] is None for entry in listed)
    assert all("project unknown" in entry["reason"] for entry in listed)


def test_sources_show_json_survives_damaged_text(hostile_home: Path) -> None:
    """``sources show --json`` prints the damaged prompt as valid text."""
    done = run_dreamd(hostile_home, "sources", "show", "--json", "claude-code:s1")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["messages"][0]["text"] == "do it \ufffd now"
