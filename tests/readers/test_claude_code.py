"""Claude Code reader: per-session JSONL under ``~/.claude/projects``."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers import READERS, Conversation, SessionRef, Unresolved
from readers._io import stat_version
from readers.claude_code import READER
from tests.readers.layout_claude_code import lay_out
from tests.readers.oracle import strings_in

SESSION = "3f2a9c1e-5b7d-4e2f-9a1c-0d8e7f6a5b4c"
PROJECT = "/home/user/work/shop"
STAMP = "2026-03-01T10:{:02d}:00.000Z"


# ----------------------------------------------------------------------------- builders


def _base(kind: str, uuid: str, minute: int, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": PROJECT,
        "sessionId": SESSION,
        "version": "2.1.30",
        "gitBranch": "main",
        "type": kind,
        "uuid": uuid,
        "timestamp": STAMP.format(minute),
    }
    return record | extra


def user(uuid: str, content: Any, minute: int = 0, **extra: Any) -> dict[str, Any]:
    return _base("user", uuid, minute, message={"role": "user", "content": content}, **extra)


def assistant(
    uuid: str, msg_id: str | None, blocks: Any, minute: int = 0, **extra: Any
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "model": "claude-opus-4-5",
        "type": "message",
        "role": "assistant",
        "content": blocks,
        "stop_reason": None,
        "usage": {"input_tokens": 3, "output_tokens": 5},
    }
    if msg_id is not None:
        message["id"] = msg_id
    return _base("assistant", uuid, minute, message=message, requestId="req_1", **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "c2lnbmF0dXJl"}


def tool_use(tool_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}


def tool_result(tool_id: str, output: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": output}


def system(uuid: str, subtype: str, minute: int = 0, **extra: Any) -> dict[str, Any]:
    return _base("system", uuid, minute, subtype=subtype, level="info", **extra)


def queue(operation: str, minute: int, content: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "queue-operation",
        "operation": operation,
        "timestamp": STAMP.format(minute),
        "sessionId": SESSION,
    }
    if content is not None:
        record["content"] = content
    return record


def queued_command(uuid: str, prompt: str, minute: int, kind: str = "human") -> dict[str, Any]:
    attachment = {
        "type": "queued_command",
        "prompt": prompt,
        "commandMode": "prompt",
        "origin": {"kind": kind},
    }
    return _base("attachment", uuid, minute, attachment=attachment)


def a_turn(n: int) -> list[dict[str, Any]]:
    """One prompt and its reply, as records ``u<n>`` and ``a<n>``."""
    return [
        user(f"u{n}", f"prompt number {n}", n),
        assistant(f"a{n}", f"msg_{n}", [text(f"reply number {n}")], n),
    ]


def encode(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def projects(home: Path) -> Path:
    return home / ".claude" / "projects"


def write_session(
    home: Path,
    records: list[dict[str, Any]] | bytes,
    stem: str = SESSION,
    folder: str = "-home-user-work-shop",
) -> Path:
    """Write a session file where Claude Code would; return its path."""
    path = projects(home) / folder / f"{stem}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(records if isinstance(records, bytes) else encode(records))
    return path


def ref_for(path: Path) -> SessionRef:
    stem = path.name.removesuffix(".jsonl")
    return SessionRef("claude-code", stem, path, stat_version(path))


def read(path: Path) -> Conversation:
    result = READER.read(ref_for(path))
    assert isinstance(result, Conversation), result
    return result


def read_records(home: Path, records: list[dict[str, Any]] | bytes) -> Conversation:
    return read(write_session(home, records))


def texts(conversation: Conversation, role: str | None = None) -> list[str]:
    return [m.text for m in conversation.messages if role is None or m.role == role]


def discovered(root: Path) -> list[SessionRef | Unresolved]:
    return list(READER.discover(root))


# ----------------------------------------------------------------------------- registry, roots


def test_registered_under_its_tool_name() -> None:
    """The reader is registered as ``claude-code``."""
    assert READERS["claude-code"] is READER
    assert READER.tool == "claude-code"


def test_default_root_is_claude_projects(isolated_home: Path) -> None:
    """Without env vars the roots are ``~/.claude/projects`` then the XDG legacy place."""
    roots = READER.default_roots({}, isolated_home)
    assert roots == (
        isolated_home / ".claude" / "projects",
        isolated_home / ".config" / "claude" / "projects",
    )


def test_xdg_config_home_moves_the_legacy_root(isolated_home: Path, tmp_path: Path) -> None:
    """``XDG_CONFIG_HOME`` relocates the 1.0.3x-era ``claude/projects`` root."""
    roots = READER.default_roots({"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, isolated_home)
    assert roots[1] == tmp_path / "xdg" / "claude" / "projects"


def test_claude_config_dir_replaces_the_default(isolated_home: Path, tmp_path: Path) -> None:
    """``CLAUDE_CONFIG_DIR`` makes ``$CLAUDE_CONFIG_DIR/projects`` the only root."""
    roots = READER.default_roots({"CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}, isolated_home)
    assert roots == (tmp_path / "cc" / "projects",)


def test_claude_config_dir_tilde_uses_the_given_home(isolated_home: Path) -> None:
    """A ``~`` in ``CLAUDE_CONFIG_DIR`` expands against the HOME passed in."""
    roots = READER.default_roots({"CLAUDE_CONFIG_DIR": "~/.claude-work"}, isolated_home)
    assert roots == (isolated_home / ".claude-work" / "projects",)


def test_claude_config_dir_comma_list(isolated_home: Path, tmp_path: Path) -> None:
    """A comma-separated list (the ccusage convention) gives one root per directory."""
    value = f"{tmp_path / 'a'}, {tmp_path / 'b'},"
    roots = READER.default_roots({"CLAUDE_CONFIG_DIR": value}, isolated_home)
    assert roots == (tmp_path / "a" / "projects", tmp_path / "b" / "projects")


def test_claude_config_dir_with_comma_in_an_existing_name(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A directory whose own name holds a comma is taken whole."""
    odd = tmp_path / "team,work"
    odd.mkdir()
    roots = READER.default_roots({"CLAUDE_CONFIG_DIR": str(odd)}, isolated_home)
    assert roots == (odd / "projects",)


def test_same_directory_is_listed_once(isolated_home: Path) -> None:
    """A legacy root that is a symlink to the main one is not listed twice."""
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".config").mkdir()
    (isolated_home / ".config" / "claude").symlink_to(isolated_home / ".claude")
    assert READER.default_roots({}, isolated_home) == (isolated_home / ".claude" / "projects",)


# ----------------------------------------------------------------------------- discovery


def test_discovery_lists_sessions_by_file_stem(isolated_home: Path) -> None:
    """Each ``<project>/<session>.jsonl`` is one session whose id is the file stem."""
    write_session(isolated_home, a_turn(1))
    write_session(isolated_home, a_turn(2), stem="not-a-uuid", folder="-tmp-other")
    found = discovered(projects(isolated_home))
    assert sorted(ref.session_id or "" for ref in found) == [SESSION, "not-a-uuid"]
    assert all(isinstance(ref, SessionRef) and ref.tool == "claude-code" for ref in found)


def test_discovery_skips_old_layout_subagent_siblings(isolated_home: Path) -> None:
    """Sibling ``agent-<hex>.jsonl`` files (pre-2.1 subagents) are not sessions."""
    path = write_session(isolated_home, a_turn(1))
    sidechain = [user("s1", "Warmup", 0, isSidechain=True, agentId="36541525")]
    (path.parent / "agent-36541525.jsonl").write_bytes(encode(sidechain))
    assert [ref.session_id for ref in discovered(projects(isolated_home))] == [SESSION]


def test_discovery_skips_new_layout_subagents_folder(isolated_home: Path) -> None:
    """``<session>/subagents/agent-<id>.jsonl`` and its ``.meta.json`` are not sessions."""
    path = write_session(isolated_home, a_turn(1))
    subagents = path.parent / SESSION / "subagents"
    subagents.mkdir(parents=True)
    (subagents / "agent-a0ad4f44468bdf20d.jsonl").write_bytes(encode(a_turn(2)))
    (subagents / "agent-a0ad4f44468bdf20d.meta.json").write_text('{"agentType":"x"}')
    (path.parent / SESSION / "tool-results").mkdir()
    (path.parent / SESSION / "tool-results" / "out.jsonl").write_text("{}\n")
    assert [ref.session_id for ref in discovered(projects(isolated_home))] == [SESSION]


def test_discovery_reports_an_unstatable_file(isolated_home: Path) -> None:
    """A dangling or looping symlink is reported as unresolved, not skipped."""
    folder = projects(isolated_home) / "-tmp-x"
    folder.mkdir(parents=True)
    (folder / "dangling.jsonl").symlink_to(folder / "missing.jsonl")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    found = discovered(projects(isolated_home))
    assert {item.session_id for item in found} == {"dangling", "loop"}
    assert all(isinstance(item, Unresolved) for item in found)


def test_discovery_of_a_missing_root_is_empty(tmp_path: Path) -> None:
    """A root that does not exist yields no sessions."""
    assert discovered(tmp_path / "nowhere") == []


def test_discovery_does_not_open_files(isolated_home: Path) -> None:
    """Discovery only stats: an unreadable-content file is still listed."""
    write_session(isolated_home, b"\x00\xff not json at all")
    [ref] = discovered(projects(isolated_home))
    assert isinstance(ref, SessionRef)


# ----------------------------------------------------------------------------- basic reading


def test_reads_prompts_and_replies_in_order(isolated_home: Path) -> None:
    """Prompts and replies come back in file order with ids, UTC times and the project."""
    conversation = read_records(isolated_home, a_turn(1) + a_turn(2))
    assert [(m.role, m.id, m.text) for m in conversation.messages] == [
        ("user", "u1", "prompt number 1"),
        ("assistant", "msg_1", "reply number 1"),
        ("user", "u2", "prompt number 2"),
        ("assistant", "msg_2", "reply number 2"),
    ]
    assert conversation.messages[0].timestamp == datetime(2026, 3, 1, 10, 1, tzinfo=UTC)
    assert conversation.project == PROJECT
    assert conversation.session_id == SESSION
    assert conversation.automated is False


def test_project_comes_from_cwd_not_folder_name(isolated_home: Path) -> None:
    """The project is the recorded ``cwd``, never the encoded folder name."""
    path = write_session(isolated_home, a_turn(1), folder="-completely-unrelated-name")
    assert read(path).project == PROJECT


def test_project_is_none_without_cwd(isolated_home: Path) -> None:
    """No ``cwd`` in any record gives no project."""
    records = a_turn(1)
    for record in records:
        del record["cwd"]
    assert read_records(isolated_home, records).project is None


# ----------------------------------------------------------------------------- assistant records


def test_streaming_split_reply_appears_once(isolated_home: Path) -> None:
    """Records sharing ``message.id`` merge into one reply, text blocks in order."""
    records = [
        user("u1", "fix the login bug", 1),
        assistant("a1", "msg_x", [thinking("private musing about the bug")], 2),
        assistant("a2", "msg_x", [text("First I will look at the handler.")], 2),
        assistant("a3", "msg_x", [tool_use("t1", "grep -rn login src/")], 2),
        user("r1", [tool_result("t1", "src/login.py:3: def login()")], 3, toolUseResult={}),
        assistant("a4", "msg_x", [text("Found it in login.py.")], 3),
        assistant("a5", "msg_y", [text("Fixed.")], 4),
    ]
    conversation = read_records(isolated_home, records)
    assert [(m.id, m.text) for m in conversation.messages] == [
        ("u1", "fix the login bug"),
        ("msg_x", "First I will look at the handler.\n\nFound it in login.py."),
        ("msg_y", "Fixed."),
    ]
    assert conversation.messages[1].timestamp == datetime(2026, 3, 1, 10, 2, tzinfo=UTC)


def test_reply_without_text_is_dropped(isolated_home: Path) -> None:
    """A reply of only thinking, redacted thinking and tool calls leaves no message."""
    blocks = [thinking("hmm"), {"type": "redacted_thinking", "data": "xx"}, tool_use("t", "ls")]
    records = [user("u1", "list files", 1), assistant("a1", "msg_1", blocks, 1)]
    assert texts(read_records(isolated_home, records)) == ["list files"]


def test_repeated_split_record_is_not_doubled(isolated_home: Path) -> None:
    """The same text block written again under one ``message.id`` counts once."""
    records = [
        user("u1", "hello", 1),
        assistant("a1", "msg_1", [text("Hi there.")], 1),
        assistant("a2", "msg_1", [text("Hi there.")], 1),
    ]
    assert texts(read_records(isolated_home, records), "assistant") == ["Hi there."]


def test_reply_with_string_content_and_no_message_id(isolated_home: Path) -> None:
    """A reply whose content is a plain string and has no ``message.id`` uses its uuid."""
    records = [user("u1", "Open README", 1), assistant("a1", None, "Read the README.", 2)]
    conversation = read_records(isolated_home, records)
    assert [(m.id, m.text) for m in conversation.messages][1] == ("a1", "Read the README.")


def test_generated_replies_are_dropped(isolated_home: Path) -> None:
    """``<synthetic>`` placeholders and API error notices are not model prose."""
    synthetic = assistant("a1", "msg_s", [text("No response requested.")], 1)
    synthetic["message"]["model"] = "<synthetic>"
    error = assistant("a2", "msg_e", [text("API Error: 500 overloaded")], 2)
    error["isApiErrorMessage"] = True
    records = [user("u1", "go on", 1), synthetic, error]
    assert texts(read_records(isolated_home, records)) == ["go on"]


def test_inline_thinking_block_is_stripped_from_reply(isolated_home: Path) -> None:
    """Reasoning written as a closed ``<thinking>`` block inside prose is removed."""
    prose = "<thinking>\nThe user wants tests early.\n</thinking>\n\nGood point, testing now."
    records = [user("u1", "test early", 1), assistant("a1", "msg_1", [text(prose)], 1)]
    assert texts(read_records(isolated_home, records), "assistant") == ["Good point, testing now."]


# ----------------------------------------------------------------------------- user records


def test_tool_results_are_not_prompts(isolated_home: Path) -> None:
    """Tool results, as blocks or as a string on a ``toolUseResult`` record, are dropped."""
    records = [
        user("u1", "run the tests", 1),
        assistant("a1", "msg_1", [tool_use("t1", "pytest")], 1),
        user("r1", [tool_result("t1", "3 passed in 0.1s")], 2, toolUseResult={"stdout": "3"}),
        user("r2", "Error: tool output as a string", 2, toolUseResult="Error: tool output"),
        user("r3", [tool_result("t2", "result without metadata")], 2),
    ]
    assert texts(read_records(isolated_home, records)) == ["run the tests"]


def test_text_typed_beside_a_tool_result_is_kept(isolated_home: Path) -> None:
    """A message typed while a tool ran, stored beside its result, is a prompt."""
    content = [tool_result("t1", "file updated"), text("let's not leave all the tests to the end")]
    records = [user("r1", content, 1, toolUseResult={"filePath": "/x"})]
    conversation = read_records(isolated_home, records)
    assert [(m.id, m.text) for m in conversation.messages] == [
        ("r1", "let's not leave all the tests to the end")
    ]


def test_image_blocks_are_dropped_text_kept(isolated_home: Path) -> None:
    """Images are dropped; the text sent with them stays; an image alone is no prompt."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    records = [
        user("u1", [image, text("[Image #1] why is this red?")], 1),
        user("u2", [image], 2),
    ]
    assert texts(read_records(isolated_home, records)) == ["[Image #1] why is this red?"]


def test_meta_compaction_and_transcript_only_records_are_dropped(isolated_home: Path) -> None:
    """``isMeta``, ``isCompactSummary`` and ``isVisibleInTranscriptOnly`` records are no prompts."""
    records = [
        user("m1", "Base directory for this skill: /x/skills/brainstorm", 1, isMeta=True),
        user(
            "c1",
            "This session is being continued from a previous conversation. Summary: ...",
            2,
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        user("v1", "shown in transcript only", 3, isVisibleInTranscriptOnly=True),
        user("u1", "the real question", 4),
    ]
    assert texts(read_records(isolated_home, records)) == ["the real question"]


def test_system_records_are_dropped(isolated_home: Path) -> None:
    """System records of every subtype are dropped, command envelopes included."""
    records = [
        system("s1", "compact_boundary", 1, content="Conversation compacted"),
        system("s2", "microcompact_boundary", 1, content="Context microcompacted"),
        system("s3", "local_command", 1, content="<command-name>/mcp</command-name>"),
        system("s4", "api_error", 1, content="API error, retrying"),
        system("s5", "stop_hook_summary", 1, hookCount=1),
        system("s6", "turn_duration", 1, durationMs=5),
        system("s7", "session_start", 1, isMeta=True),
        system("s8", "informational", 1, content="UserPromptSubmit operation blocked by hook"),
        *a_turn(2),
    ]
    assert texts(read_records(isolated_home, records)) == ["prompt number 2", "reply number 2"]


@pytest.mark.parametrize(
    "content",
    [
        "<command-name>/clear</command-name>\n  <command-message>clear</command-message>\n"
        "  <command-args></command-args>",
        "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
        "<command-args>keep each commit small</command-args>",
        "<local-command-stdout>Login successful</local-command-stdout>",
        "<local-command-stderr>Error: no such server</local-command-stderr>",
        "<local-command-caveat>Caveat: The messages below were generated by the user while "
        "running local commands.</local-command-caveat>",
        "<bash-input>git status</bash-input>",
        "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
        "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
        "</task-notification>",
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
        "Caveat: The messages below were generated by the user while running local commands. "
        "DO NOT respond to these messages.",
        'Operation stopped by hook: Another session is active: "hi"',
        "UserPromptSubmit operation blocked by hook:\n[check]: blocked\n\nOriginal prompt: hi",
    ],
)
def test_envelopes_and_markers_are_not_prompts(isolated_home: Path, content: str) -> None:
    """Slash commands, shell mode, local output, notifications and markers are dropped."""
    records = [user("x1", content, 1), user("x2", [text(content)], 1), *a_turn(2)]
    assert texts(read_records(isolated_home, records), "user") == ["prompt number 2"]


TASK_NOTIFICATION = (
    "<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n"
    "<summary>Background command finished</summary>\n</task-notification>\n"
    "Full transcript available at: /tmp/claude-1000/-w/tasks/b7.output"
)


@pytest.mark.parametrize("shape", ["string", "block"])
def test_task_notification_and_its_transcript_trailer_are_not_a_prompt(
    isolated_home: Path, shape: str
) -> None:
    """Claude Code 2.1.8x: the block and the ``Full transcript available at`` line both go."""
    content: Any = TASK_NOTIFICATION if shape == "string" else [text(TASK_NOTIFICATION)]
    records = [user("x1", content, 1), *a_turn(2)]
    assert texts(read_records(isolated_home, records), "user") == ["prompt number 2"]


def test_a_typed_line_after_a_task_notification_trailer_is_kept(isolated_home: Path) -> None:
    """Only the trailer line goes: what the person typed after it stays."""
    records = [user("x1", TASK_NOTIFICATION + "\nnow rerun the tests", 1)]
    assert texts(read_records(isolated_home, records), "user") == ["now rerun the tests"]


def test_a_typed_full_transcript_line_without_a_notification_is_kept(isolated_home: Path) -> None:
    """The phrase typed by a person, with no notification block before it, is a prompt."""
    prompt = "Full transcript available at: the wiki, says the README"
    assert texts(read_records(isolated_home, [user("x1", prompt, 1)]), "user") == [prompt]


def test_reminder_appended_to_a_prompt_is_stripped(isolated_home: Path) -> None:
    """A ``<system-reminder>`` (or IDE context) is removed and the typed prompt kept."""
    reminder = "<system-reminder>\nThe user opened file x.py in the IDE.\n</system-reminder>"
    ide = "<ide_opened_file>The user opened the file /a/b.py in the IDE.</ide_opened_file>"
    records = [
        user("u1", f"rename the helper\n\n{reminder}", 1),
        user("u2", [text(ide), text("and add a test")], 2),
    ]
    assert texts(read_records(isolated_home, records)) == ["rename the helper", "and add a test"]


def test_interruption_marker_is_cut_from_a_prompt(isolated_home: Path) -> None:
    """A marker inside a text keeps the words around it."""
    records = [user("u1", [text("[Request interrupted by user]"), text("no, use pathlib")], 1)]
    assert texts(read_records(isolated_home, records)) == ["no, use pathlib"]


def test_machine_origin_prompts_are_dropped(isolated_home: Path) -> None:
    """User records whose ``origin.kind`` is a task notification or a peer are no prompts."""
    records = [
        user("u1", "Background task finished", 1, origin={"kind": "task-notification"}),
        user("u2", "message from another session", 2, origin={"kind": "peer"}),
        user("u3", "typed by me", 3, origin={"kind": "human"}),
    ]
    assert texts(read_records(isolated_home, records)) == ["typed by me"]


def test_sidechain_records_in_a_main_file_are_dropped(isolated_home: Path) -> None:
    """Subagent exchanges written into the main file (``isSidechain``) are dropped."""
    records = [
        user("u1", "delegate a search", 1),
        user("s1", "Search the repo for TODO", 2, isSidechain=True, agentId="a1"),
        assistant("s2", "msg_side", [text("Found 3 TODOs.")], 2, isSidechain=True, agentId="a1"),
        assistant("a1", "msg_main", [text("The subagent found 3 TODOs.")], 3),
    ]
    assert texts(read_records(isolated_home, records)) == [
        "delegate a search",
        "The subagent found 3 TODOs.",
    ]


def test_other_record_types_are_ignored(isolated_home: Path) -> None:
    """Summary, progress, snapshots, pr-link, modes, attachments and unknown types are ignored."""
    progress_message = {"type": "assistant", "message": {"content": [text("agent progress")]}}
    records: list[dict[str, Any]] = [
        {"type": "summary", "summary": "Fix login", "leafUuid": "a1"},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        _base("progress", "p1", 1, data={"type": "agent_progress", "message": progress_message}),
        {"type": "pr-link", "url": "https://example.invalid/pr/1", "sessionId": SESSION},
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": SESSION},
        {"type": "mode", "mode": "normal", "sessionId": SESSION},
        _base("attachment", "att1", 1, attachment={"type": "hook_success", "content": "ok"}),
        {"type": "custom-title", "customTitle": "Login", "sessionId": SESSION},
        {"type": "brand-new-kind", "message": {"role": "user", "content": "not a prompt"}},
        {"type": "tool_result", "output": "drifted tool output", "uuid": "r1"},
        *a_turn(2),
    ]
    assert texts(read_records(isolated_home, records)) == ["prompt number 2", "reply number 2"]


def test_duplicate_records_count_once(isolated_home: Path) -> None:
    """A record written twice with the same uuid gives one message."""
    records = [*a_turn(1), a_turn(1)[0], *a_turn(2)]
    assert texts(read_records(isolated_home, records), "user") == [
        "prompt number 1",
        "prompt number 2",
    ]


# ----------------------------------------------------------------------------- mid-turn messages


def test_prompt_delivered_mid_turn_from_the_queue(isolated_home: Path) -> None:
    """An ``enqueue``d text later ``remove``d was handed to the running turn: a prompt."""
    records = [
        user("u1", "refactor the author lookup", 1),
        assistant("a1", "msg_1", [tool_use("t1", "grep author")], 2),
        queue("enqueue", 3, "there should be only one way to get the git author"),
        user("r1", [tool_result("t1", "x.go:1")], 3, toolUseResult={}),
        queue("remove", 3),
        assistant("a2", "msg_2", [text("Good point, one canonical function.")], 4),
    ]
    conversation = read_records(isolated_home, records)
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "refactor the author lookup"),
        ("user", "there should be only one way to get the git author"),
        ("assistant", "Good point, one canonical function."),
    ]
    assert conversation.messages[1].id == "queued-line-3"
    assert conversation.messages[1].timestamp == datetime(2026, 3, 1, 10, 3, tzinfo=UTC)


def test_dequeued_and_popped_queue_entries_are_not_extra_prompts(isolated_home: Path) -> None:
    """A ``dequeue``d entry returns as a user record; ``popAll`` entries were never sent."""
    records = [
        queue("enqueue", 1, "next question"),
        queue("dequeue", 2),
        user("u1", "next question", 2),
        queue("enqueue", 3, "draft I took back"),
        queue("popAll", 3),
        queue("remove", 4),
        queue("enqueue", 5, "<task-notification>done</task-notification>"),
        queue("remove", 5),
    ]
    assert texts(read_records(isolated_home, records)) == ["next question"]


def test_queued_command_attachment_is_a_prompt_once(isolated_home: Path) -> None:
    """A ``queued_command`` attachment is a prompt; its queue entry does not repeat it."""
    records = [
        queue("enqueue", 1, "also update the docs"),
        queued_command("q1", "also update the docs", 1),
        queue("remove", 1),
        queued_command("q2", "<task-notification>x</task-notification>", 2),
        queued_command("q3", "background job done", 2, kind="task-notification"),
    ]
    conversation = read_records(isolated_home, records)
    assert [(m.id, m.text) for m in conversation.messages] == [("q1", "also update the docs")]


# ----------------------------------------------------------------------------- session-level facts


def test_two_session_ids_in_one_file_are_one_session(isolated_home: Path) -> None:
    """A continued session keeps every record under the file's own id."""
    first = [user("u1", "Implement the following plan:\n\n# Plan", 1, sessionId="old-id")]
    records = [*first, assistant("a1", "msg_1", [text("Implementing.")], 2)]
    path = write_session(isolated_home, records)
    [ref] = discovered(projects(isolated_home))
    assert isinstance(ref, SessionRef) and ref.session_id == SESSION
    assert texts(read(path)) == ["Implement the following plan:\n\n# Plan", "Implementing."]


@pytest.mark.parametrize(
    ("entrypoint", "automated"),
    [
        ("cli", False),
        ("claude-vscode", False),
        ("claude-desktop", False),
        ("sdk-cli", True),
        ("sdk-ts", True),
        ("sdk-py", True),
        ("mcp", True),
        (None, False),
    ],
)
def test_automated_follows_the_first_entrypoint(
    isolated_home: Path, entrypoint: str | None, automated: bool
) -> None:
    """``sdk-*`` (``claude -p`` and the SDKs) and ``mcp`` sessions are automated."""
    records = a_turn(1)
    if entrypoint is not None:
        for record in records:
            record["entrypoint"] = entrypoint
    records.append(_base("user", "u9", 9, entrypoint="cli", message={"content": "later"}))
    assert read_records(isolated_home, records).automated is automated


# ----------------------------------------------------------------------------- damaged input


def test_two_records_on_one_line_are_both_read(isolated_home: Path) -> None:
    """An assistant record and a summary written onto one line are recovered."""
    reply = assistant("a1", "msg_1", [text("Done. All tests pass.")], 2)
    summary = {"type": "summary", "summary": "Logging", "leafUuid": "a1"}
    data = encode([user("u1", "add logging", 1)])
    data += json.dumps(reply).encode() + json.dumps(summary).encode() + b"\n"
    assert texts(read_records(isolated_home, data)) == ["add logging", "Done. All tests pass."]


def test_torn_last_line_is_left_out(isolated_home: Path) -> None:
    """A last line still being written is ignored, the rest read."""
    data = encode(a_turn(1)) + json.dumps(a_turn(2)[0]).encode()[:40]
    assert texts(read_records(isolated_home, data)) == ["prompt number 1", "reply number 1"]


def test_one_garbled_line_among_many_is_skipped(isolated_home: Path) -> None:
    """A bad line in the middle does not lose the rest."""
    data = encode(a_turn(1)) + b"{not json\n" + encode(a_turn(2))
    assert len(read_records(isolated_home, data).messages) == 4


@pytest.mark.parametrize(
    "data",
    [b"", b"  \n\n", b"\x00\x01\x02 garbage \xff", b"not json\nat all\n", b"[" * 5000 + b"\n"],
)
def test_unreadable_content_is_unresolved(isolated_home: Path, data: bytes) -> None:
    """Empty files, garbage and non-JSON-Lines are unresolved with a reason."""
    result = READER.read(ref_for(write_session(isolated_home, data)))
    assert isinstance(result, Unresolved) and result.reason
    assert result.session_id == SESSION


def test_unopenable_file_is_unresolved(isolated_home: Path) -> None:
    """A file that vanished or became a symlink loop is unresolved, not an exception."""
    path = write_session(isolated_home, a_turn(1))
    ref = ref_for(path)
    path.unlink()
    path.symlink_to(path)
    result = READER.read(ref)
    assert isinstance(result, Unresolved) and result.reason == "symlink loop"


@pytest.mark.parametrize(
    "line",
    [
        {"type": "user", "message": "a string, not an object"},
        {"type": "user", "message": {"content": 42}},
        {"type": "user", "message": {"content": ["loose string", 3, None]}},
        {"type": "user", "message": {"content": [{"type": "text", "text": 7}]}},
        {"type": "assistant", "message": {"id": ["x"], "content": {"type": "text"}}},
        {"type": "assistant", "message": None, "uuid": 5},
        {"type": "user", "origin": "human", "message": {"content": None}, "timestamp": "soon"},
        {"type": "attachment", "attachment": "queued_command"},
        {"type": "attachment", "attachment": {"type": "queued_command", "prompt": ["x"]}},
        {"type": "queue-operation", "operation": "enqueue", "content": {"a": 1}},
        {"type": "queue-operation", "operation": "remove"},
        {"type": 3, "cwd": ["x"], "entrypoint": 9},
        ["a", "list", "not", "a", "record"],
        "just a string",
        None,
    ],
)
def test_wrong_shapes_do_not_raise(isolated_home: Path, line: Any) -> None:
    """Records of unexpected shapes are ignored; the good ones around them still count."""
    records = [*a_turn(1), line, *a_turn(2)]
    data = b"".join(json.dumps(item).encode() + b"\n" for item in records)
    conversation = read_records(isolated_home, data)
    assert texts(conversation, "user") == ["prompt number 1", "prompt number 2"]


def test_file_of_only_bookkeeping_is_an_empty_conversation(isolated_home: Path) -> None:
    """A session with records but no conversation (a lone ``/clear``) reads as empty."""
    records = [
        {"type": "summary", "summary": "x", "leafUuid": "y"},
        user("u1", "<command-name>/clear</command-name>", 1),
    ]
    assert read_records(isolated_home, records).messages == ()


# ----------------------------------------------------------------------------- properties


#: The tests write files under the per-test HOME; each example overwrites them.
_FIXTURE_CHECK = [HealthCheck.function_scoped_fixture]


def _transcript() -> bytes:
    split_reply = [
        assistant("a3", "msg_3", [thinking("hidden")], 3),
        assistant("a4", "msg_3", [text("part one")], 3),
        assistant("a5", "msg_3", [text("part two")], 3),
    ]
    return encode([*a_turn(1), queue("enqueue", 2, "also this"), queue("remove", 2), *split_reply])


@settings(max_examples=40, deadline=None, suppress_health_check=_FIXTURE_CHECK)
@given(cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=8))
def test_reading_after_each_appended_chunk_ends_the_same(
    isolated_home: Path, cuts: list[int]
) -> None:
    """Reading after every appended chunk never fails and ends at the one-shot result."""
    data = _transcript()
    path = write_session(isolated_home, b"")
    for cut in sorted({min(cut, len(data)) for cut in cuts} | {len(data)}):
        path.write_bytes(data[:cut])
        result = READER.read(ref_for(path))
        assert isinstance(result, Conversation | Unresolved)
    final = read(path)
    assert final.revision == read_records(isolated_home, data).revision
    assert [m.id for m in final.messages] == ["u1", "msg_1", "queued-line-3", "msg_3"]


@settings(max_examples=60, deadline=None, suppress_health_check=_FIXTURE_CHECK)
@given(data=st.binary(max_size=400))
def test_random_bytes_give_a_result_or_unresolved(isolated_home: Path, data: bytes) -> None:
    """Arbitrary bytes give a conversation or an unresolved reason, nothing else."""
    result = READER.read(ref_for(write_session(isolated_home, data)))
    assert isinstance(result, Conversation | Unresolved)


def test_ids_and_revision_are_stable_across_reads_and_appends(isolated_home: Path) -> None:
    """Re-reading gives the same revision; appending keeps the earlier messages' ids."""
    path = write_session(isolated_home, a_turn(1))
    first, again = read(path), read(path)
    assert first.revision == again.revision
    with path.open("ab") as handle:
        handle.write(encode(a_turn(2)))
    grown = read(path)
    assert grown.messages[:2] == first.messages
    assert grown.revision != first.revision


# ----------------------------------------------------------------------------- real fixtures

_REMINDER = re.compile(r"<system-reminder>(.*?)</system-reminder>", re.DOTALL)
_ENVELOPE_START = ("<", "[Request interrupted", "Caveat:", "Operation stopped by hook")


#: Records the peers' own tests (SOURCES.md) name as rewound and replaced: not the conversation.
ABANDONED = {
    "claudecodelog_dag_compact_after_rewind.jsonl": {"b1u", "b1a"},
    "claudecodelog_dag_compact_after_rewind_preserved.jsonl": {"b1u", "b1a"},
    "agenthistory_forked_session.jsonl": {"fu2a-fork", "fa2a-fork", "fu3a-fork", "fa3a-fork"},
}


def _raw_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every JSON object of a fixture, two objects on one line included (test oracle),
    except the records of a branch the person rewound (``ABANDONED``)."""
    decoder = json.JSONDecoder()
    abandoned = ABANDONED.get(path.name, set())
    for line in path.read_text(encoding="utf-8").splitlines():
        position, line = 0, line.strip()
        while position < len(line):
            try:
                value, position = decoder.raw_decode(line, position)
            except json.JSONDecodeError:
                break
            if isinstance(value, dict) and value.get("uuid") not in abandoned:
                yield value


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = (record.get("message") or {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _is_plan(block: dict[str, Any]) -> bool:
    """A plan-mode plan: it comes back as the next "Implement the following plan" prompt."""
    tool_input = block.get("input") or {}
    path = tool_input.get("file_path", "") if isinstance(tool_input, dict) else ""
    return block.get("name") == "ExitPlanMode" or "/.claude/plans/" in str(path)


def _forbidden_texts(records: list[dict[str, Any]]) -> set[str]:
    """Texts that must never reach a message: reasoning, tool I/O, reminders, meta records."""
    found: set[str] = set()
    for record in records:
        for block in _blocks(record):
            kind = block.get("type")
            if kind == "thinking":
                found.add(str(block.get("thinking", "")))
            elif kind == "tool_use" and not _is_plan(block):
                found.update(s for s in strings_in(block.get("input")) if len(s) >= 200)
            elif kind == "tool_result":
                found.update(strings_in(block.get("content")))
        for string in strings_in(record):
            found.update(_REMINDER.findall(string))
        is_hidden = record.get("isMeta") or record.get("isCompactSummary")
        if record.get("type") == "user" and is_hidden:
            found.update(strings_in((record.get("message") or {}).get("content")))
        if record.get("type") == "system":
            found.update(strings_in(record.get("content")))
    return {text.strip() for text in found if len(text.strip()) >= 60}


def _typed_prompts(records: list[dict[str, Any]]) -> list[str]:
    """Plain typed prompts: string user content with no envelope, flag or tool result."""
    prompts: list[str] = []
    for record in records:
        content = (record.get("message") or {}).get("content")
        flags = ("isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "isSidechain")
        if record.get("type") != "user" or any(record.get(flag) for flag in flags):
            continue
        if (record.get("origin") or {}).get("kind", "human") != "human":
            continue
        if "toolUseResult" in record or not isinstance(content, str):
            continue
        # A plan sent as a prompt carries a pointer to the old transcript: not typed.
        typed = content.partition("If you need specific details from before exiting plan mode")[0]
        if typed.strip() and not typed.strip().startswith(_ENVELOPE_START):
            prompts.append(typed.strip())
    return prompts


def _main_fixtures(folder: Path) -> list[Path]:
    return [
        path
        for path in sorted((folder / "claude-code").rglob("*.jsonl"))
        if not path.name.startswith("agent-")
    ]


@pytest.fixture
def real_sessions(shared_transcripts: Path) -> list[tuple[Path, Conversation]]:
    """Every main session fixture, read."""
    return [(path, read(path)) for path in _main_fixtures(shared_transcripts)]


@pytest.mark.fixtures
def test_real_sessions_all_read(real_sessions: list[tuple[Path, Conversation]]) -> None:
    """Every real main session reads to a conversation with a project and messages."""
    assert len(real_sessions) >= 18
    for path, conversation in real_sessions:
        assert conversation.messages, path.name
        assert conversation.project and conversation.project.startswith("/"), path.name


@pytest.mark.fixtures
def test_real_sessions_hold_no_reasoning_tool_io_or_reminders(
    real_sessions: list[tuple[Path, Conversation]],
) -> None:
    """No thinking, tool input/output, reminder, meta or system text appears in any message."""
    for path, conversation in real_sessions:
        forbidden = _forbidden_texts(list(_raw_records(path)))
        for message in conversation.messages:
            leaked = [text[:60] for text in forbidden if text in message.text]
            assert not leaked, (path.name, message.id, leaked)


@pytest.mark.fixtures
def test_real_typed_prompts_all_appear(real_sessions: list[tuple[Path, Conversation]]) -> None:
    """Every plainly typed prompt of the raw file is a user message of the conversation."""
    for path, conversation in real_sessions:
        users = set(texts(conversation, "user"))
        for prompt in _typed_prompts(list(_raw_records(path))):
            assert prompt in users, (path.name, prompt[:80])


@pytest.mark.fixtures
def test_real_split_replies_appear_once(real_sessions: list[tuple[Path, Conversation]]) -> None:
    """Each ``message.id`` with text is one message holding all its text blocks."""
    for path, conversation in real_sessions:
        by_id = {m.id: m for m in conversation.messages}
        assert len(by_id) == len(conversation.messages)
        for record in _raw_records(path):
            msg_id = str((record.get("message") or {}).get("id") or record.get("uuid"))
            if record.get("type") != "assistant" or record.get("isSidechain"):
                continue
            if (record.get("message") or {}).get("model") == "<synthetic>":
                continue
            for block in _blocks(record):
                if block.get("type") == "text" and "<thinking>" not in block.get("text", ""):
                    assert block["text"].strip() in by_id[msg_id].text, (path.name, msg_id)


@pytest.mark.fixtures
def test_real_split_reply_counts(shared_transcripts: Path) -> None:
    """The 114-record / 48-id file gives at most 48 replies, none repeated."""
    conversation = read(shared_transcripts / "claude-code" / "entire_51-a265047d72-3_full.jsonl")
    replies = [m for m in conversation.messages if m.role == "assistant"]
    assert 0 < len(replies) <= 48
    assert len({m.text for m in replies}) == len(replies)


@pytest.mark.fixtures
def test_real_concatenated_line_keeps_the_assistant_record(shared_transcripts: Path) -> None:
    """The assistant record glued to a summary on one line is read."""
    conversation = read(shared_transcripts / "claude-code" / "entire_37-995ebed6e4-2_full.jsonl")
    assert any(
        m.role == "assistant" and m.text.startswith("Done. I updated `TestLogging_Includes")
        for m in conversation.messages
    )


@pytest.mark.fixtures
def test_real_resumed_session_keeps_both_session_ids(shared_transcripts: Path) -> None:
    """The file with two ``sessionId`` values keeps the prompts of both."""
    path = shared_transcripts / "claude-code" / "entire_8c-fa910f8ef9-5_full.jsonl"
    users = texts(read(path), "user")
    plans = [text.split("\n")[2] for text in users if text.startswith("Implement the following")]
    assert plans[0].startswith("# Review: TokenUsage")
    assert plans[1].startswith("# Add TranscriptUUIDAtStart")


@pytest.mark.fixtures
def test_real_mid_turn_messages_are_prompts(shared_transcripts: Path) -> None:
    """Queued messages handed over mid-turn appear as prompts before their answers."""
    path = shared_transcripts / "claude-code" / "entire_f4-49058a5889-0_full.jsonl"
    messages = read(path).messages
    [index] = [i for i, m in enumerate(messages) if m.text.startswith("there should be only")]
    assert messages[index].role == "user"
    assert messages[index + 1].text.startswith("Good point")


@pytest.mark.fixtures
def test_real_subagent_files_are_not_discovered(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Laid out as Claude Code stores them, exactly the main sessions are discovered."""
    expected = lay_out(shared_transcripts, isolated_home)
    [root, *_] = READER.default_roots(dict(os.environ), isolated_home)
    found = discovered(root)
    assert all(isinstance(item, SessionRef) for item in found)
    assert sorted(item.key for item in found) == sorted(expected)
    assert not any("agent-" in key for key in expected)
    assert "claude-code:4c2ddfdc-b619-4525-8d03-1950fb1b0257" in expected
    assert "claude-code:turn-2" in expected
