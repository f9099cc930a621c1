"""Cursor reader: agent-transcript JSONL files and the IDE's state.vscdb databases."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.readers import READERS, Conversation, SessionRef, Unresolved
from dreamd.readers import _cursor_vscdb as vscdb
from dreamd.readers._io import stat_version
from dreamd.readers.cursor import READER, cursor_home, ide_user_dir

from . import layout_cursor

# ----------------------------------------------------------------------- helpers


def _write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}


def _assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "message": {"content": list(blocks)}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _make_db(
    path: Path,
    items: dict[str, Any] | None = None,
    kv: dict[str, Any] | None = None,
    *,
    as_blob: bool = False,
) -> Path:
    """A state.vscdb with Cursor's key/value tables; values are JSON-encoded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute(
            "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
        )
        if kv is not None:
            connection.execute(
                "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
            )
        for table, rows in (("ItemTable", items or {}), ("cursorDiskKV", kv or {})):
            for key, value in rows.items():
                encoded = value if isinstance(value, str) else json.dumps(value)
                stored: Any = encoded.encode() if as_blob else encoded
                connection.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, stored))
        connection.commit()
    return path


def _discover(root: Path) -> list[SessionRef | Unresolved]:
    return list(READER.discover(root))


def _refs(root: Path) -> dict[str, SessionRef]:
    return {ref.session_id: ref for ref in _discover(root) if isinstance(ref, SessionRef)}


def _read(ref: SessionRef) -> Conversation:
    result = READER.read(ref)
    assert isinstance(result, Conversation), result
    return result


def _texts(conversation: Conversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


def _user_dir(home: Path) -> Path:
    return ide_user_dir({}, home)


# ------------------------------------------------------------------------- roots


def test_registry_has_the_cursor_reader() -> None:
    """The registry maps the tool name ``cursor`` to this reader."""
    assert READERS["cursor"] is READER
    assert READER.tool == "cursor"


def test_default_roots_are_agent_projects_and_ide_user_dir(isolated_home: Path) -> None:
    """By default the roots are ~/.cursor/projects and the IDE's User directory."""
    roots = READER.default_roots({}, isolated_home)
    assert roots == (isolated_home / ".cursor" / "projects", ide_user_dir({}, isolated_home))


def test_linux_user_dir_honours_xdg_config_home(isolated_home: Path, tmp_path: Path) -> None:
    """On Linux the User dir is under $XDG_CONFIG_HOME, ~/.config when unset or relative."""
    assert ide_user_dir({}, isolated_home, "linux") == isolated_home / ".config/Cursor/User"
    xdg = tmp_path / "xdg"
    assert ide_user_dir({"XDG_CONFIG_HOME": str(xdg)}, isolated_home, "linux") == (
        xdg / "Cursor" / "User"
    )
    relative = ide_user_dir({"XDG_CONFIG_HOME": "rel"}, isolated_home, "linux")
    assert relative == isolated_home / ".config/Cursor/User"


def test_macos_and_windows_user_dirs(isolated_home: Path, tmp_path: Path) -> None:
    """macOS uses Application Support, Windows %APPDATA%."""
    mac = ide_user_dir({}, isolated_home, "darwin")
    assert mac == isolated_home / "Library" / "Application Support" / "Cursor" / "User"
    appdata = tmp_path / "roaming"
    windows = ide_user_dir({"APPDATA": str(appdata)}, isolated_home, "win32")
    assert windows == appdata / "Cursor" / "User"


def test_cursor_config_dir_moves_the_agent_folder(isolated_home: Path, tmp_path: Path) -> None:
    """CURSOR_CONFIG_DIR's projects folder is listed first, ~/.cursor/projects still after it."""
    moved = tmp_path / "cursor-config"
    env = {"CURSOR_CONFIG_DIR": str(moved)}
    assert cursor_home(env, isolated_home) == moved
    roots = READER.default_roots(env, isolated_home)
    assert roots[:2] == (moved / "projects", isolated_home / ".cursor" / "projects")
    assert cursor_home({"CURSOR_CONFIG_DIR": "~/cfg"}, isolated_home) == isolated_home / "cfg"


# ------------------------------------------------------------- agent transcripts


def _projects(home: Path) -> Path:
    return home / ".cursor" / "projects"


def test_discovery_finds_both_transcript_layouts_and_skips_subagents(isolated_home: Path) -> None:
    """Flat and per-session-folder transcripts are sessions; subagent files and strays are not."""
    transcripts = _projects(isolated_home) / "home-u-proj" / "agent-transcripts"
    _write_jsonl(transcripts / "flat-1.jsonl", [_user("<user_query>a</user_query>")])
    _write_jsonl(transcripts / "s-2" / "s-2.jsonl", [_user("<user_query>b</user_query>")])
    _write_jsonl(transcripts / "s-2" / "subagents" / "sub-3.jsonl", [_user("x")])
    _write_jsonl(transcripts / "s-2" / "notes.jsonl", [_user("x")])
    _write_jsonl(_projects(isolated_home) / "home-u-proj" / "other.jsonl", [_user("x")])
    found = _discover(_projects(isolated_home))
    assert sorted(ref.key for ref in found) == ["cursor:flat-1", "cursor:s-2"]
    assert all(isinstance(ref, SessionRef) and ref.locator == "" for ref in found)


def test_discovery_accepts_the_cursor_home_as_root(isolated_home: Path) -> None:
    """A root pointing at ~/.cursor finds the transcripts in its projects folder."""
    transcripts = _projects(isolated_home) / "p" / "agent-transcripts"
    _write_jsonl(transcripts / "s-1" / "s-1.jsonl", [_user("<user_query>a</user_query>")])
    assert [ref.key for ref in _discover(isolated_home / ".cursor")] == ["cursor:s-1"]


def test_transcript_keeps_typed_prompts_and_assistant_prose(isolated_home: Path) -> None:
    """User text is the <user_query> content; tool calls, results, thinking and placeholders go."""
    records = [
        _user(
            "<user_info>OS: linux, Workspace Path: /home/u/proj</user_info>\n"
            "<timestamp>2026-01-01</timestamp>\n<user_query>\nfix the build\n</user_query>"
        ),
        _assistant(
            {"type": "thinking", "thinking": "SECRET-THOUGHT"},
            _text("I will run the tests."),
            {"type": "tool_use", "name": "Shell", "input": {"command": "pytest -x SECRET-CMD"}},
        ),
        {
            "role": "user",
            "message": {"content": [{"type": "tool_result", "content": "SECRET-OUTPUT"}]},
        },
        _assistant(_text("[REDACTED]"), {"type": "tool_use", "name": "Read", "input": {}}),
        _assistant(_text("All tests pass now.")),
        {"type": "turn_ended"},
        {"role": "system", "message": {"content": [_text("SECRET-SYSTEM")]}},
        _user("<user_query>thanks</user_query>"),
    ]
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "s" / "s.jsonl"
    _write_jsonl(path, records)
    conversation = _read(_refs(_projects(isolated_home))["s"])
    assert _texts(conversation) == [
        ("user", "fix the build"),
        ("assistant", "I will run the tests."),
        ("assistant", "All tests pass now."),
        ("user", "thanks"),
    ]
    assert [m.id for m in conversation.messages] == ["line-1", "line-2", "line-5", "line-8"]
    assert conversation.project is None
    assert not conversation.automated
    assert all(m.timestamp is None for m in conversation.messages)


def test_user_record_without_query_wrapper_keeps_text_minus_envelopes(
    isolated_home: Path,
) -> None:
    """Without <user_query>, the user text is kept with Cursor's context blocks removed."""
    records = [
        _user("<attached_files>big file body</attached_files>\nplease review this"),
        _user("<system_reminder>only a reminder</system_reminder>"),
        {"role": "user", "message": {"content": "plain string content"}},
    ]
    _write_jsonl(_projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl", records)
    conversation = _read(_refs(_projects(isolated_home))["s"])
    assert _texts(conversation) == [
        ("user", "please review this"),
        ("user", "plain string content"),
    ]


def test_two_records_on_one_line_and_torn_tail_are_recovered(isolated_home: Path) -> None:
    """Concatenated records get distinct ids and a torn last line is ignored."""
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl"
    path.parent.mkdir(parents=True)
    first = json.dumps(_user("<user_query>one</user_query>"))
    second = json.dumps(_assistant(_text("two")))
    path.write_text(first + second + "\n" + '{"role": "assistant", "mess', encoding="utf-8")
    conversation = _read(_refs(_projects(isolated_home))["s"])
    assert [(m.id, m.text) for m in conversation.messages] == [
        ("line-1", "one"),
        ("line-1-1", "two"),
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty"),
        (b"\x00\xff garbage \x01\n\x02\x03 more garbage\n", "not JSON Lines"),
        (b'{"type": "session_meta"}\n[1, 2]\n"text"\n', "not a Cursor agent transcript"),
    ],
)
def test_bad_transcripts_are_unresolved(isolated_home: Path, content: bytes, reason: str) -> None:
    """Empty, garbage and foreign JSONL files are Unresolved with a reason."""
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    result = READER.read(_refs(_projects(isolated_home))["s"])
    assert isinstance(result, Unresolved)
    assert reason in result.reason
    assert result.session_id == "s"


def test_wrong_shapes_never_raise(isolated_home: Path) -> None:
    """Records with wrong JSON shapes are skipped, not fatal."""
    records = [
        {"role": "user", "message": ["not", "a", "dict"]},
        {"role": "user", "message": {"content": [1, None, {"type": "text", "text": 5}]}},
        {"role": "assistant", "message": {"content": {"type": "text"}}},
        {"role": ["user"]},
        _assistant(_text("still here")),
    ]
    _write_jsonl(_projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl", records)
    assert _texts(_read(_refs(_projects(isolated_home))["s"])) == [("assistant", "still here")]


def test_ids_stay_stable_when_the_transcript_grows(isolated_home: Path) -> None:
    """Appending records keeps the ids and texts of earlier messages."""
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl"
    _write_jsonl(path, [_user("<user_query>q1</user_query>"), _assistant(_text("a1"))])
    before = _read(_refs(_projects(isolated_home))["s"])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_user("<user_query>q2</user_query>")) + "\n")
    after = _read(_refs(_projects(isolated_home))["s"])
    assert after.messages[:2] == before.messages
    assert after.revision != before.revision


def test_symlink_loop_is_unresolved(isolated_home: Path) -> None:
    """A transcript that is a symlink loop is reported at discovery, not skipped."""
    transcripts = _projects(isolated_home) / "p" / "agent-transcripts"
    transcripts.mkdir(parents=True)
    loop = transcripts / "loop.jsonl"
    loop.symlink_to(loop)
    (found,) = _discover(_projects(isolated_home))
    assert isinstance(found, Unresolved)
    assert found.key == "cursor:loop" and "symlink loop" in found.reason


def test_unreadable_transcript_is_unresolved(isolated_home: Path) -> None:
    """A transcript without read permission is Unresolved at read."""
    if os.geteuid() == 0:
        pytest.skip("root can read any file")
    transcripts = _projects(isolated_home) / "p" / "agent-transcripts"
    locked = _write_jsonl(transcripts / "locked.jsonl", [_user("x")])
    locked.chmod(0)
    try:
        result = READER.read(_refs(_projects(isolated_home))["locked"])
        assert isinstance(result, Unresolved)
        assert "permission" in result.reason
    finally:
        locked.chmod(0o644)


_JSONL_CHUNKS = st.lists(
    st.sampled_from(
        [
            json.dumps(_user("<user_query>hi</user_query>")) + "\n",
            json.dumps(_assistant(_text("hello"))) + "\n",
            json.dumps(_assistant({"type": "tool_use", "name": "x", "input": {}})) + "\n",
            "{broken\n",
            "\n",
        ]
    ),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300))
def test_random_bytes_give_a_result_or_unresolved(isolated_home: Path, data: bytes) -> None:
    """Any bytes in a transcript file give a Conversation or Unresolved, never an exception."""
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    ref = SessionRef("cursor", "s", path, stat_version(path))
    assert isinstance(READER.read(ref), Conversation | Unresolved)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chunks=_JSONL_CHUNKS)
def test_reading_after_each_append_ends_at_the_same_conversation(
    isolated_home: Path, chunks: list[str]
) -> None:
    """Reading once, or after every appended chunk, ends at the same conversation."""
    path = _projects(isolated_home) / "p" / "agent-transcripts" / "grow.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    last: Conversation | Unresolved | None = None
    for chunk in chunks:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(chunk)
        last = READER.read(SessionRef("cursor", "grow", path, stat_version(path)))
    whole = READER.read(SessionRef("cursor", "grow", path, stat_version(path)))
    if isinstance(whole, Conversation):
        assert isinstance(last, Conversation)
        assert last.messages == whole.messages
    else:
        assert isinstance(last, Unresolved)


# ------------------------------------------------------------ IDE: old composer


def _workspace(home: Path, name: str = "ws1", folder: str | None = "file:///home/u/proj") -> Path:
    directory = _user_dir(home) / "workspaceStorage" / name
    directory.mkdir(parents=True, exist_ok=True)
    if folder is not None:
        (directory / "workspace.json").write_text(json.dumps({"folder": folder}))
    return directory


_OLD_COMPOSER: dict[str, Any] = {
    "composerId": "c-old",
    "createdAt": 1731784818255,
    "lastUpdatedAt": 1731785000000,
    "context": {"fileSelections": [{"uri": "SECRET-CONTEXT"}]},
    "conversation": [
        {
            "type": 1,
            "bubbleId": "b1",
            "text": "add a settings page",
            "richText": '{"root": "SECRET-RICH"}',
            "context": {"selections": [{"text": "SECRET-SELECTION"}]},
        },
        {
            "type": 2,
            "bubbleId": "b2",
            "text": "Here is the page:\n\n```ts\nexport class Settings {}\n```",
            "codeBlocks": [{"uri": {"path": "/SECRET-BLOCK"}, "content": "SECRET-CODE"}],
        },
        {"type": 1, "bubbleId": "b3", "text": "", "isCapabilityIteration": False},
        {"type": 1, "bubbleId": "b4", "text": "SECRET-LOOP", "isCapabilityIteration": True},
        {"type": 2, "bubbleId": "b5", "text": "thinking...", "isThought": True},
        {"type": 2, "bubbleId": "b2", "text": "duplicate of b2"},
        {"type": True, "bubbleId": "b6", "text": "bool type"},
        "not a bubble",
    ],
}


def test_old_inline_composer_is_one_session_with_prose_only(isolated_home: Path) -> None:
    """An inline composer gives user and AI text only, with the workspace folder as project."""
    db = _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER, {"composerId": "c-empty"}]}},
    )
    refs = _refs(_user_dir(isolated_home))
    assert list(refs) == ["c-old"]
    ref = refs["c-old"]
    assert ref.path == db
    assert ref.locator == "composer:c-old"
    assert ref.updated_at is not None and ref.updated_at.year == 2024
    conversation = _read(ref)
    assert conversation.project == "/home/u/proj"
    assert _texts(conversation) == [
        ("user", "add a settings page"),
        ("assistant", "Here is the page:\n\n```ts\nexport class Settings {}\n```"),
    ]
    assert [m.id for m in conversation.messages] == ["b1", "b2"]
    assert "SECRET" not in repr(conversation.messages)


def test_windows_folder_uri_becomes_a_drive_path(isolated_home: Path) -> None:
    """A percent-encoded Windows folder URI in workspace.json gives a drive-letter path."""
    directory = _workspace(isolated_home, folder="file:///c%3A/Users/me/My%20App")
    _make_db(
        directory / "state.vscdb", {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}}
    )
    assert _read(_refs(_user_dir(isolated_home))["c-old"]).project == "c:/Users/me/My App"


def test_missing_workspace_json_means_no_project(isolated_home: Path) -> None:
    """Without workspace.json the project is None."""
    directory = _workspace(isolated_home, folder=None)
    _make_db(
        directory / "state.vscdb", {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}}
    )
    assert _read(_refs(_user_dir(isolated_home))["c-old"]).project is None


def test_legacy_chat_tabs_are_sessions(isolated_home: Path) -> None:
    """Each chat-pane tab is a session; AI text falls back to rawText; empty bubbles go."""
    chat = {
        "tabs": [
            {
                "tabId": "t1",
                "lastSendTime": 1731818231743,
                "bubbles": [
                    {"type": "user", "id": "u1", "text": "why does it fail?", "selections": ["S"]},
                    {"type": "ai", "id": "a1", "text": "", "rawText": "Because of X."},
                    {"type": "user", "id": "u2", "text": ""},
                ],
            },
            {"tabId": "t2", "bubbles": []},
            {"tabId": 7, "bubbles": [{"type": "user", "text": "no id"}]},
        ]
    }
    _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"workbench.panel.aichat.view.aichat.chatdata": chat},
    )
    refs = _refs(_user_dir(isolated_home))
    assert list(refs) == ["t1"]
    assert refs["t1"].locator == "chat:t1"
    conversation = _read(refs["t1"])
    assert _texts(conversation) == [("user", "why does it fail?"), ("assistant", "Because of X.")]
    assert conversation.project == "/home/u/proj"


def _composer(cid: str, created: int, *texts: str) -> dict[str, Any]:
    bubbles = [
        {"type": 1 if n % 2 == 0 else 2, "bubbleId": f"{cid}-{n}", "text": text}
        for n, text in enumerate(texts)
    ]
    return {"composerId": cid, "createdAt": created, "conversation": bubbles}


def _tab(tab_id: str, *texts: str) -> dict[str, Any]:
    bubbles = [
        {"type": "user" if n % 2 == 0 else "ai", "id": f"{tab_id}-{n}", "text": text}
        for n, text in enumerate(texts)
    ]
    return {"tabId": tab_id, "bubbles": bubbles}


def _item_db(home: Path, composers: list[Any], tabs: list[Any]) -> None:
    _make_db(
        _workspace(home) / "state.vscdb",
        {
            "composer.composerData": {"allComposers": composers},
            "workbench.panel.aichat.view.aichat.chatdata": {"tabs": tabs},
        },
    )


def test_identical_composers_are_one_session_under_the_first_created(isolated_home: Path) -> None:
    """Two composers with the same messages: one session, the other id its alias."""
    _item_db(
        isolated_home,
        [
            _composer("later", 20, "add a page", "done"),
            _composer("first", 10, "add a page", "done"),
        ],
        [],
    )
    refs = _refs(_user_dir(isolated_home))
    assert list(refs) == ["first"]
    assert refs["first"].aliases == ("later",)


def test_composers_that_only_share_a_prompt_stay_apart(isolated_home: Path) -> None:
    """A prompt re-run with another answer is another conversation."""
    _item_db(
        isolated_home,
        [_composer("a", 1, "add a page", "done"), _composer("b", 2, "add a page", "which page?")],
        [],
    )
    assert sorted(_refs(_user_dir(isolated_home))) == ["a", "b"]


def test_a_chat_tab_repeating_composers_is_not_a_session(isolated_home: Path) -> None:
    """The legacy chat pane logging the composers' exchanges is not listed again."""
    _item_db(
        isolated_home,
        [_composer("a", 1, "add a page", "done"), _composer("b", 2, "now a menu", "added")],
        [_tab("pane", "add a page", "done", "now a menu", "added")],
    )
    assert sorted(_refs(_user_dir(isolated_home))) == ["a", "b"]


def test_a_chat_tab_with_its_own_messages_is_a_session(isolated_home: Path) -> None:
    """A tab holding anything no composer holds is a conversation of its own."""
    _item_db(
        isolated_home,
        [_composer("a", 1, "add a page", "done")],
        [_tab("pane", "add a page", "done", "why?", "because")],
    )
    assert sorted(_refs(_user_dir(isolated_home))) == ["a", "pane"]


def test_composer_marker_changes_only_with_its_own_conversation(isolated_home: Path) -> None:
    """Editing one composer changes its marker; the other composer keeps its marker."""
    other = {
        **_OLD_COMPOSER,
        "composerId": "c-other",
        "conversation": [{"type": 1, "bubbleId": "o1", "text": "another prompt"}],
    }
    path = _workspace(isolated_home) / "state.vscdb"
    _make_db(path, {"composer.composerData": {"allComposers": [_OLD_COMPOSER, other]}})
    before = {sid: ref.file_version.marker for sid, ref in _refs(_user_dir(isolated_home)).items()}
    path.unlink()
    grown = {
        **_OLD_COMPOSER,
        "conversation": [*_OLD_COMPOSER["conversation"], {"type": 1, "text": "more"}],
    }
    _make_db(path, {"composer.composerData": {"allComposers": [grown, other]}})
    after = {sid: ref.file_version.marker for sid, ref in _refs(_user_dir(isolated_home)).items()}
    assert after["c-other"] == before["c-other"]
    assert after["c-old"] != before["c-old"]


# ------------------------------------------------------------- IDE: cursorDiskKV


def _kv_composer(cid: str, bubbles: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    headers = [{"bubbleId": b["bubbleId"], "type": b.get("type", 2)} for b in bubbles]
    return {
        "_v": 10,
        "composerId": cid,
        "createdAt": 1766691308486,
        "lastUpdatedAt": 1766692125731,
        "fullConversationHeadersOnly": headers,
        **extra,
    }


_KV_BUBBLES: list[dict[str, Any]] = [
    {
        "_v": 3,
        "type": 1,
        "bubbleId": "k1",
        "text": "refactor the parser",
        "createdAt": "2025-12-25T19:35:08.486Z",
        "context": {"fileSelections": [{"uri": "SECRET-ATTACHED"}]},
    },
    {
        "type": 2,
        "bubbleId": "k2",
        "text": "",
        "capabilityType": 30,
        "thinking": {"text": "SECRET-THINKING", "signature": "sig"},
    },
    {
        "type": 2,
        "bubbleId": "k3",
        "text": "",
        "capabilityType": 15,
        "toolFormerData": {"name": "read_file", "rawArgs": "SECRET-ARGS", "result": "SECRET-RES"},
    },
    {"type": 2, "bubbleId": "k4", "text": "SECRET-TOOL-TEXT", "toolFormerData": {"name": "x"}},
    {"type": 2, "bubbleId": "k5", "text": "SECRET-SUMMARY", "capabilityType": 22},
    {
        "type": 2,
        "bubbleId": "k6",
        "text": "The parser is split into two modules.",
        "createdAt": "2025-12-25T19:36:00.000Z",
        "thinking": {"text": "SECRET-INLINE-THINKING"},
    },
]


def _kv_rows(cid: str, bubbles: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    rows: dict[str, Any] = {f"composerData:{cid}": _kv_composer(cid, bubbles, **extra)}
    rows.update({f"bubbleId:{cid}:{b['bubbleId']}": b for b in bubbles})
    return rows


def _global_db(home: Path, kv: dict[str, Any], **kwargs: Any) -> Path:
    return _make_db(_user_dir(home) / "globalStorage" / "state.vscdb", {}, kv, **kwargs)


@pytest.mark.parametrize("as_blob", [False, True])
def test_kv_composer_reads_bubbles_in_header_order(isolated_home: Path, as_blob: bool) -> None:
    """A cursorDiskKV composer keeps user and AI prose; tool, thinking and summary bubbles go."""
    kv = _kv_rows("c-kv", _KV_BUBBLES)
    kv["bubbleId:c-kv:zz-rewound"] = {"type": 1, "bubbleId": "zz", "text": "SECRET-REWOUND"}
    kv["composerData:c-kv"]["fullConversationHeadersOnly"].append({"bubbleId": "missing"})
    _global_db(isolated_home, kv, as_blob=as_blob)
    refs = _refs(_user_dir(isolated_home))
    assert list(refs) == ["c-kv"]
    assert refs["c-kv"].locator == "kv:c-kv"
    conversation = _read(refs["c-kv"])
    assert _texts(conversation) == [
        ("user", "refactor the parser"),
        ("assistant", "The parser is split into two modules."),
    ]
    assert [m.id for m in conversation.messages] == ["k1", "k6"]
    first = conversation.messages[0].timestamp
    assert first is not None and first.isoformat() == "2025-12-25T19:35:08.486000+00:00"
    assert "SECRET" not in repr(conversation.messages)
    assert conversation.project is None


def test_kv_composer_with_inline_conversation(isolated_home: Path) -> None:
    """A cursorDiskKV composer with an inline conversation and no headers is read inline."""
    composer = {
        "composerId": "c-inline",
        "createdAt": 1731784818255,
        "conversation": [{"type": 1, "bubbleId": "i1", "text": "hello"}],
    }
    _global_db(isolated_home, {"composerData:c-inline": composer})
    assert _texts(_read(_refs(_user_dir(isolated_home))["c-inline"])) == [("user", "hello")]


def test_subagent_and_empty_kv_composers_are_not_sessions(isolated_home: Path) -> None:
    """Composers spawned by a Task call, and composers without turns, are not sessions."""
    kv = {
        **_kv_rows("c-main", _KV_BUBBLES[:1]),
        **_kv_rows("c-sub", _KV_BUBBLES[:1], subagentInfo={"parentComposerId": "c-main"}),
        **_kv_rows("task-toolu_01", _KV_BUBBLES[:1]),
        "composerData:c-empty": {"composerId": "c-empty", "fullConversationHeadersOnly": []},
        "composerData:c-bare": {"composerId": "c-bare"},
    }
    _global_db(isolated_home, kv)
    assert list(_refs(_user_dir(isolated_home))) == ["c-main"]


def test_kv_project_from_workspace_identifier(isolated_home: Path) -> None:
    """A composer's own workspaceIdentifier gives its project."""
    identifier = {"uri": {"fsPath": "/srv/app", "path": "/srv/app", "scheme": "file"}}
    _global_db(isolated_home, _kv_rows("c-kv", _KV_BUBBLES, workspaceIdentifier=identifier))
    assert _read(_refs(_user_dir(isolated_home))["c-kv"]).project == "/srv/app"


def test_kv_project_from_the_workspace_that_lists_it(isolated_home: Path) -> None:
    """A composer listed by a workspace database takes that workspace's folder."""
    heads = {"allComposers": [{"composerId": "c-kv", "name": "Refactor", "createdAt": 1}]}
    _make_db(_workspace(isolated_home, "wsA") / "state.vscdb", {"composer.composerData": heads})
    _global_db(isolated_home, _kv_rows("c-kv", _KV_BUBBLES))
    ref = _refs(_user_dir(isolated_home))["c-kv"]
    assert ref.locator == "kv:c-kv|wsA"
    assert _read(ref).project == "/home/u/proj"


def test_composer_in_both_layouts_is_reported_once(isolated_home: Path) -> None:
    """A composer both inline in a workspace and in cursorDiskKV is read from cursorDiskKV."""
    inline = {**_OLD_COMPOSER, "composerId": "c-kv"}
    _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [inline]}},
    )
    _global_db(isolated_home, _kv_rows("c-kv", _KV_BUBBLES))
    refs = list(_refs(_user_dir(isolated_home)).values())
    assert len(_discover(_user_dir(isolated_home))) == 1
    assert [(ref.session_id, ref.locator) for ref in refs] == [("c-kv", "kv:c-kv|ws1")]


def test_kv_marker_follows_the_composer_record(isolated_home: Path) -> None:
    """The marker of a cursorDiskKV composer changes when its record changes."""
    path = _global_db(isolated_home, _kv_rows("c-kv", _KV_BUBBLES))
    before = _refs(_user_dir(isolated_home))["c-kv"].file_version.marker
    path.unlink()
    _global_db(isolated_home, _kv_rows("c-kv", [*_KV_BUBBLES, {"bubbleId": "k7", "text": "x"}]))
    assert _refs(_user_dir(isolated_home))["c-kv"].file_version.marker != before


def test_kv_composer_that_is_not_json_is_unresolved(isolated_home: Path) -> None:
    """A composerData row holding garbage is reported as Unresolved for that composer."""
    _global_db(isolated_home, {"composerData:c-bad": "{not json"})
    (found,) = _discover(_user_dir(isolated_home))
    assert isinstance(found, Unresolved)
    assert found.key == "cursor:c-bad"


def test_database_roots_of_every_kind_are_recognised(isolated_home: Path) -> None:
    """The User dir, workspaceStorage, globalStorage and a single database file all work."""
    _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}},
    )
    global_db = _global_db(isolated_home, _kv_rows("c-kv", _KV_BUBBLES))
    user = _user_dir(isolated_home)
    assert sorted(_refs(user)) == ["c-kv", "c-old"]
    assert list(_refs(user / "workspaceStorage")) == ["c-old"]
    assert list(_refs(user / "globalStorage")) == ["c-kv"]
    assert list(_refs(global_db)) == ["c-kv"]


# --------------------------------------------------------- IDE: damaged databases


def test_not_a_database_is_unresolved(isolated_home: Path) -> None:
    """Garbage named state.vscdb is Unresolved at discovery and at read."""
    path = _workspace(isolated_home, "wsX") / "state.vscdb"
    path.write_bytes(b"this is not sqlite" * 100)
    (found,) = _discover(_user_dir(isolated_home))
    assert isinstance(found, Unresolved)
    assert found.key == "cursor:wsX/state.vscdb"
    ref = SessionRef("cursor", "c1", path, stat_version(path), locator="composer:c1")
    result = READER.read(ref)
    assert isinstance(result, Unresolved) and result.session_id == "c1"


def test_unreadable_databases_each_keep_their_own_key(isolated_home: Path) -> None:
    """Two broken workspace databases are two Unresolved entries with distinct keys."""
    for name in ("wsA", "wsB"):
        (_workspace(isolated_home, name) / "state.vscdb").write_bytes(b"\x00" * 600)
    keys = {found.key for found in _discover(_user_dir(isolated_home))}
    assert keys == {"cursor:wsA/state.vscdb", "cursor:wsB/state.vscdb"}


def test_missing_tables_are_unresolved(isolated_home: Path) -> None:
    """A database without Cursor's tables, or that lost them, is Unresolved."""
    path = _workspace(isolated_home) / "state.vscdb"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE other (x)")
        connection.commit()
    (found,) = _discover(_user_dir(isolated_home))
    assert isinstance(found, Unresolved) and "no ItemTable" in found.reason
    for locator in ("composer:c1", "chat:t1", "kv:c1"):
        ref = SessionRef("cursor", "c1", path, stat_version(path), locator=locator)
        result = READER.read(ref)
        assert isinstance(result, Unresolved), locator
        assert "no such table" in result.reason


def test_vanished_conversation_is_unresolved(isolated_home: Path) -> None:
    """A locator naming a conversation no longer in the database gives Unresolved."""
    path = _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}},
    )
    for locator in ("composer:gone", "chat:gone", "nonsense"):
        ref = SessionRef("cursor", "gone", path, stat_version(path), locator=locator)
        assert isinstance(READER.read(ref), Unresolved), locator


def test_wrong_json_shapes_in_databases_never_raise(isolated_home: Path) -> None:
    """Lists where dicts belong, scalars and bad types give sessions or Unresolved only."""
    items = {
        "composer.composerData": [1, 2, 3],
        "workbench.panel.aichat.view.aichat.chatdata": {"tabs": {"t": 1}},
    }
    kv = {
        "composerData:c1": {"fullConversationHeadersOnly": [1, {"bubbleId": 5}, {"bubbleId": "b"}]},
        "bubbleId:c1:b": ["not", "a", "bubble"],
        "composerData:c2": [1, 2],
        "composerData:c3": {"conversation": [{"type": 2, "text": None}, {"type": 9, "text": "x"}]},
    }
    _make_db(_workspace(isolated_home) / "state.vscdb", items, kv)
    for found in _discover(_user_dir(isolated_home)):
        if isinstance(found, SessionRef):
            assert isinstance(READER.read(found), Conversation | Unresolved)


def test_item_value_that_is_not_json_is_unresolved(isolated_home: Path) -> None:
    """A composer list that is not JSON is reported, and reading it gives Unresolved."""
    path = _make_db(_workspace(isolated_home) / "state.vscdb", {"composer.composerData": "{oops"})
    (found,) = _discover(_user_dir(isolated_home))
    assert isinstance(found, Unresolved) and "not JSON" in found.reason
    ref = SessionRef("cursor", "c1", path, stat_version(path), locator="composer:c1")
    result = READER.read(ref)
    assert isinstance(result, Unresolved) and "not JSON" in result.reason


def test_locked_database_is_unresolved(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database SQLite reports as locked is Unresolved at discovery and at read."""
    path = _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}},
    )
    (ref,) = _discover(_user_dir(isolated_home))
    assert isinstance(ref, SessionRef)

    def locked(_path: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(vscdb, "connect_sqlite_readonly", locked)
    (found,) = _discover(_user_dir(isolated_home))
    assert isinstance(found, Unresolved) and "locked" in found.reason
    result = READER.read(ref)
    assert isinstance(result, Unresolved) and "locked" in result.reason
    assert result.locator == "composer:c-old" and result.path == path


def test_really_locked_wal_database_is_unresolved(isolated_home: Path) -> None:
    """A WAL database held under an exclusive lock by a writer is Unresolved, not an error."""
    path = _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}},
    )
    (ref,) = _discover(_user_dir(isolated_home))
    assert isinstance(ref, SessionRef)
    writer = sqlite3.connect(path, timeout=0)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA locking_mode=EXCLUSIVE")
        writer.execute("INSERT INTO ItemTable VALUES ('x', 'y')")
        writer.commit()
        result = READER.read(ref)
        assert isinstance(result, Unresolved)
        assert "locked" in result.reason
    finally:
        writer.close()


def test_reading_databases_writes_nothing(isolated_home: Path) -> None:
    """Discovery and reads leave the database bytes alone and create no side files."""
    path = _make_db(
        _workspace(isolated_home) / "state.vscdb",
        {"composer.composerData": {"allComposers": [_OLD_COMPOSER]}},
        _kv_rows("c-kv", _KV_BUBBLES),
    )
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    for found in _discover(_user_dir(isolated_home)):
        assert isinstance(found, SessionRef)
        _read(found)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.vscdb", "workspace.json"]


# ---------------------------------------------------------------- real fixtures


def _raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _blocks(records: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    for record in records:
        yield from record["message"]["content"]


@pytest.mark.fixtures
def test_layout_puts_every_real_fixture_where_discovery_finds_it(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Laid out under HOME, the default roots discover exactly the expected sessions."""
    expected = layout_cursor.lay_out(shared_transcripts, isolated_home)
    found = [
        item for root in READER.default_roots({}, isolated_home) for item in READER.discover(root)
    ]
    assert all(isinstance(item, SessionRef) for item in found)
    assert sorted(item.key for item in found) == sorted(expected)
    # 26 composers of which 5 repeat another's messages, 5 tabs of which 1 repeats composers.
    assert len(expected) == 1 + 21 + 4


@pytest.mark.fixtures
def test_real_database_lists_each_conversation_once(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """No two sessions of the real workspace database hold the same messages."""
    layout_cursor.lay_out(shared_transcripts, isolated_home)
    refs = [r for r in _discover(_user_dir(isolated_home)) if isinstance(r, SessionRef)]
    contents = [tuple(_texts(_read(ref))) for ref in refs]
    assert len(set(contents)) == len(contents) == 25


@pytest.mark.fixtures
def test_real_agent_transcript_keeps_prompts_and_drops_tools(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The real transcript keeps each typed prompt and no tool input; the subagent is separate."""
    layout_cursor.lay_out(shared_transcripts, isolated_home)
    source = shared_transcripts / "cursor"
    records = _raw_records(source / "agentsessions_test-session.jsonl")
    prompts = [
        match.strip()
        for block in _blocks([r for r in records if r["role"] == "user"])
        for match in re.findall(r"<user_query>(.*?)</user_query>", block["text"], re.S)
    ]
    raw_text = "\n".join(b["text"] for b in _blocks(records) if b["type"] == "text")
    tool_inputs = [
        value
        for block in _blocks(records)
        if block["type"] == "tool_use"
        for value in block["input"].values()
        if value not in raw_text  # only inputs that could not come from prose
    ]
    assert tool_inputs
    sub_records = _raw_records(source / "agentsessions_subagent-session.jsonl")
    sub_texts = [b["text"] for b in _blocks(sub_records) if b["type"] == "text"]
    ref = _refs(isolated_home / ".cursor" / "projects")[layout_cursor.SESSION_ID]
    conversation = _read(ref)
    users = [m.text for m in conversation.messages if m.role == "user"]
    assert users == prompts
    everything = "\n".join(m.text for m in conversation.messages)
    assert not any(value in everything for value in tool_inputs)
    assert "<user_query>" not in everything and "[REDACTED]" not in everything
    assert not any(re.sub(r"</?user_query>", "", t).strip() in everything for t in sub_texts)
    assert conversation.project is None


def _raw_item(path: Path, key: str) -> Any:
    uri = f"file:{quote(str(path))}?mode=ro&immutable=1"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        (value,) = connection.execute(
            "SELECT value FROM ItemTable WHERE key = ?", (key,)
        ).fetchone()
    return json.loads(value)


@pytest.mark.fixtures
def test_real_workspace_database_matches_an_independent_oracle(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Every non-empty bubble of a listed conversation appears once, in order, with its role."""
    layout_cursor.lay_out(shared_transcripts, isolated_home)
    database = layout_cursor.workspace_db(isolated_home)
    (database.parent / "workspace.json").write_text(
        json.dumps({"folder": "file:///c%3A/Users/ydebray/Documents/mobilechat"})
    )
    digest = hashlib.sha256(database.read_bytes()).hexdigest()
    expected: dict[str, list[tuple[str, str]]] = {}
    for composer in _raw_item(database, "composer.composerData")["allComposers"]:
        expected[composer["composerId"]] = [
            ("user" if b["type"] == 1 else "assistant", b["text"].strip())
            for b in composer["conversation"]
            if b["text"].strip()
        ]
    chat = _raw_item(database, "workbench.panel.aichat.view.aichat.chatdata")
    for tab in chat["tabs"]:
        expected[tab["tabId"]] = [
            ("user" if b["type"] == "user" else "assistant", b["text"].strip())
            for b in tab["bubbles"]
            if b["text"].strip()
        ]
    refs = _refs(_user_dir(isolated_home))
    # One session per conversation: the listed ids are those the layout's own oracle keeps.
    assert sorted(refs) == sorted(layout_cursor.database_session_ids(database))
    assert set(refs) <= set(expected)
    for sid, ref in refs.items():
        conversation = _read(ref)
        assert _texts(conversation) == expected[sid], sid
        assert conversation.project == "c:/Users/ydebray/Documents/mobilechat"
        assert all(not m.text.startswith('{"root"') for m in conversation.messages)
    assert hashlib.sha256(database.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in database.parent.iterdir()) == ["state.vscdb", "workspace.json"]
