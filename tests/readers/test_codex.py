"""Codex CLI reader: discovery, cleaning, ids, robustness, and the real rollouts."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.readers import Conversation, SessionRef, Unresolved
from dreamd.readers.codex import READER

from .layout_codex import lay_out

SID = "019e1625-789d-76c0-80ab-3724b5ddb799"
OTHER_SID = "019e1695-0522-7c83-8b39-0dd379793f80"
T0 = "2026-05-11T08:27:17.493Z"

# ------------------------------------------------------------------ record builders


def env(kind: str, payload: dict[str, Any], ts: str = T0) -> dict[str, Any]:
    """One rollout line: the ``{timestamp, type, payload}`` envelope."""
    return {"timestamp": ts, "type": kind, "payload": payload}


def meta(sid: str = SID, **fields: Any) -> dict[str, Any]:
    """A ``session_meta`` line of an interactive TUI session unless overridden."""
    payload = {
        "id": sid,
        "timestamp": T0,
        "cwd": "/home/dev/project",
        "originator": "codex_cli_rs",
        "cli_version": "0.125.0",
        "source": "cli",
        "base_instructions": {"text": "You are Codex, a coding agent. BASE-INSTRUCTIONS"},
    }
    payload.update(fields)
    return env("session_meta", payload)


def message(role: str, *texts: str, item_id: str | None = None, ts: str = T0) -> dict[str, Any]:
    """A ``response_item`` message with one text block per ``texts``."""
    block = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": [{"type": block, "text": text} for text in texts],
    }
    if item_id is not None:
        payload["id"] = item_id
    return env("response_item", payload, ts)


def user_event(text: str, ts: str = T0, **fields: Any) -> dict[str, Any]:
    """A ``user_message`` event."""
    return env("event_msg", {"type": "user_message", "message": text, "images": [], **fields}, ts)


def agent_event(text: str, ts: str = T0, phase: str = "final_answer") -> dict[str, Any]:
    """An ``agent_message`` event."""
    return env("event_msg", {"type": "agent_message", "message": text, "phase": phase}, ts)


def turn_item(kind: str, text: str, item_id: str) -> dict[str, Any]:
    """An ``item_completed`` event carrying a ``UserMessage``/``AgentMessage`` turn item."""
    block = "text" if kind == "UserMessage" else "Text"
    item = {"type": kind, "id": item_id, "content": [{"type": block, "text": text}]}
    return env("event_msg", {"type": "item_completed", "turn_id": "t1", "item": item})


def tool_traffic() -> list[dict[str, Any]]:
    """Reasoning, tool calls, tool outputs and UI events that never reach a conversation."""
    item = "response_item"
    return [
        env(item, {"type": "reasoning", "summary": [{"type": "summary_text", "text": "THINK-1"}]}),
        env(item, {"type": "reasoning", "summary": [], "content": None, "encrypted_content": "x"}),
        env(
            item, {"type": "function_call", "name": "shell", "arguments": "ARGS-1", "call_id": "c1"}
        ),
        env(item, {"type": "function_call_output", "call_id": "c1", "output": "OUTPUT-1"}),
        env(item, {"type": "custom_tool_call", "name": "apply_patch", "input": "PATCH-1"}),
        env(item, {"type": "custom_tool_call_output", "call_id": "c2", "output": "PATCHED-1"}),
        env(item, {"type": "web_search_call", "action": {"type": "search", "query": "QUERY-1"}}),
        env(item, {"type": "local_shell_call", "action": {"command": ["SHELL-1"]}}),
        env(item, {"type": "agent_message", "author": "a", "content": [{"text": "PEER-1"}]}),
        env("event_msg", {"type": "agent_reasoning", "text": "THINK-2"}),
        env("event_msg", {"type": "exec_command_end", "stdout": "STDOUT-1", "exit_code": 0}),
        env("event_msg", {"type": "patch_apply_end", "stdout": "APPLIED-1", "success": True}),
        env("event_msg", {"type": "token_count", "info": None}),
        env("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        env("event_msg", {"type": "task_complete", "last_agent_message": None}),
        env("world_state", {"full": True, "state": {"agents_md": {"text": "WORLD-1"}}}),
    ]


TOOL_MARKERS = (
    "THINK-",
    "ARGS-",
    "OUTPUT-",
    "PATCH",
    "QUERY-",
    "SHELL-",
    "PEER-",
    "STDOUT-",
    "APPLIED-",
    "WORLD-",
    "BASE-INSTRUCTIONS",
)


def tui_rollout() -> list[dict[str, Any]]:
    """An interactive TUI session: injected context, two turns, every kind of noise."""
    return [
        meta(),
        env("event_msg", {"type": "task_started", "turn_id": "t1"}),
        message("developer", "<permissions instructions>\nsandbox</permissions instructions>"),
        message(
            "user", "# AGENTS.md instructions for /home/dev\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>"
        ),
        message(
            "user", "<environment_context>\n  <cwd>/home/dev/project</cwd>\n</environment_context>"
        ),
        env("turn_context", {"turn_id": "t1", "cwd": "/home/dev/project", "model": "gpt-5"}),
        message("user", "Fix the failing test", ts="2026-05-11T08:27:18.000Z"),
        user_event("Fix the failing test", ts="2026-05-11T08:27:18.001Z"),
        *tool_traffic(),
        agent_event("Looking at the test first.", phase="commentary"),
        message("assistant", "Looking at the test first."),
        *tool_traffic(),
        agent_event("Fixed: the fixture path was wrong."),
        message("assistant", "Fixed: the fixture path was wrong."),
        env("event_msg", {"type": "task_complete", "last_agent_message": "Fixed"}),
        message("user", "<turn_aborted>\nThe user interrupted.\n</turn_aborted>"),
        message("user", "Now run the linter"),
        user_event("Now run the linter"),
        message("assistant", "Linter is clean."),
        agent_event("Linter is clean."),
    ]


# --------------------------------------------------------------------- file helpers


def rollout_path(root: Path, sid: str = SID, day: str = "2026/05/11") -> Path:
    """Where Codex would keep the rollout of ``sid`` under ``root``."""
    return root / day / f"rollout-2026-05-11T11-26-55-{sid}.jsonl"


def write_rollout(path: Path, records: list[Any]) -> Path:
    """Write ``records`` as JSON Lines to ``path`` (creating folders)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def read_path(path: Path) -> Conversation | Unresolved:
    """Discover ``path`` in its folder and read it."""
    for found in READER.discover(path.parent):
        if found.path == path:
            return found if isinstance(found, Unresolved) else READER.read(found)
    raise AssertionError(f"{path} was not discovered")


def read_records(tmp_path: Path, records: list[Any], sid: str = SID) -> Conversation:
    """Write a rollout and read it, expecting a conversation."""
    result = read_path(write_rollout(rollout_path(tmp_path / "sessions", sid), records))
    assert isinstance(result, Conversation), result
    return result


def pairs(conversation: Conversation) -> list[tuple[str, str]]:
    """``(role, text)`` of every message."""
    return [(m.role, m.text) for m in conversation.messages]


# ------------------------------------------------------------------ roots/discovery


def test_default_roots_are_under_dot_codex(isolated_home: Path) -> None:
    """Without CODEX_HOME the roots are ~/.codex/sessions and ~/.codex/archived_sessions."""
    roots = READER.default_roots({}, isolated_home)
    base = isolated_home / ".codex"
    assert roots == (base / "sessions", base / "archived_sessions")


def test_default_roots_honour_codex_home(tmp_path: Path, isolated_home: Path) -> None:
    """CODEX_HOME moves both roots; an empty value means the default."""
    roots = READER.default_roots({"CODEX_HOME": str(tmp_path / "ch")}, isolated_home)
    assert roots == (tmp_path / "ch" / "sessions", tmp_path / "ch" / "archived_sessions")
    assert READER.default_roots({"CODEX_HOME": ""}, isolated_home)[0].parent.name == ".codex"
    tilde = READER.default_roots({"CODEX_HOME": "~/alt"}, tmp_path / "h")
    assert tilde[0] == tmp_path / "h" / "alt" / "sessions"


def test_discover_finds_dated_and_archived_copies(tmp_path: Path) -> None:
    """Rollouts in YYYY/MM/DD folders and in archived_sessions are found; both copies kept."""
    sessions, archived = tmp_path / "sessions", tmp_path / "archived_sessions"
    write_rollout(rollout_path(sessions), tui_rollout())
    write_rollout(rollout_path(sessions, OTHER_SID, "2026/05/12"), tui_rollout())
    write_rollout(archived / rollout_path(sessions).name, tui_rollout())
    (sessions / "2026" / "05" / "11" / "notes.jsonl").write_text("{}\n")
    (tmp_path / "state_5.sqlite").write_bytes(b"SQLite format 3\x00")
    found = [*READER.discover(sessions), *READER.discover(archived)]
    assert all(isinstance(ref, SessionRef) for ref in found)
    assert sorted(ref.key for ref in found) == sorted(
        [f"codex:{SID}", f"codex:{OTHER_SID}", f"codex:{SID}"]
    )


def test_session_id_is_the_uuid_ending_the_file_name(tmp_path: Path) -> None:
    """The session id is the uuid in the rollout's name, whatever session_meta says."""
    path = write_rollout(rollout_path(tmp_path), [meta(sid="something-else")])
    (ref,) = READER.discover(tmp_path)
    assert isinstance(ref, SessionRef)
    assert ref.session_id == SID and ref.path == path


def test_discover_reports_a_dangling_rollout_link(tmp_path: Path) -> None:
    """A rollout that cannot be stat'ed is reported as unresolved, not skipped."""
    tmp_path.joinpath("2026").mkdir()
    link = tmp_path / "2026" / f"rollout-2026-05-11T11-26-55-{SID}.jsonl"
    link.symlink_to(tmp_path / "gone.jsonl")
    (found,) = READER.discover(tmp_path)
    assert isinstance(found, Unresolved) and found.session_id == SID


def test_discover_reports_a_symlink_loop(tmp_path: Path) -> None:
    """A rollout name caught in a symlink loop is unresolved with that reason."""
    loop = tmp_path / f"rollout-2026-05-11T11-26-55-{SID}.jsonl"
    other = tmp_path / "rollout-other.jsonl.tmp"
    loop.symlink_to(other)
    other.symlink_to(loop)
    (found,) = READER.discover(tmp_path)
    assert isinstance(found, Unresolved) and found.reason == "symlink loop"


def test_rollout_that_became_a_folder_is_unresolved(tmp_path: Path) -> None:
    """A discovered rollout replaced by a folder is unresolved, not an exception."""
    path = write_rollout(rollout_path(tmp_path), tui_rollout())
    (ref,) = READER.discover(path.parent)
    assert isinstance(ref, SessionRef)
    path.unlink()
    path.mkdir()
    assert isinstance(READER.read(ref), Unresolved)


def test_discover_of_a_missing_root_is_empty(tmp_path: Path) -> None:
    """A root that does not exist yields nothing."""
    assert list(READER.discover(tmp_path / "nope")) == []


# ----------------------------------------------------------------------- cleaning


def test_tui_rollout_keeps_each_prompt_and_reply_once(tmp_path: Path) -> None:
    """Prompts and replies recorded both as items and as events appear once, in order."""
    conversation = read_records(tmp_path, tui_rollout())
    assert pairs(conversation) == [
        ("user", "Fix the failing test"),
        ("assistant", "Looking at the test first."),
        ("assistant", "Fixed: the fixture path was wrong."),
        ("user", "Now run the linter"),
        ("assistant", "Linter is clean."),
    ]


def test_reasoning_tool_traffic_and_context_never_appear(tmp_path: Path) -> None:
    """No reasoning, tool input/output, injected context or instructions reach the text."""
    conversation = read_records(tmp_path, tui_rollout())
    for text in (m.text for m in conversation.messages):
        assert not any(marker in text for marker in TOOL_MARKERS), text
        assert "<" not in text and "AGENTS.md" not in text


@pytest.mark.parametrize(
    "injected",
    [
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
        "<user_instructions>\nbe nice\n</user_instructions>",
        "  <environment_context>\n<cwd>/repo</cwd>\n</environment_context>",
        "<skill>\n<name>demo</name>\nbody\n</skill>",
        "<user_shell_command>\n<command>ls</command>\n</user_shell_command>",
        "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>",
        "<subagent_notification>\n{}\n</subagent_notification>",
        '<codex_internal_context source="goal">\nkeep going\n</codex_internal_context>',
        '<hook_prompt hook_run_id="h1">continue</hook_prompt>',
        "<user_action>\n<action>review</action>\n</user_action>",
        "<external_ticket>ABC-1</external_ticket>",
        "Another language model started to solve this problem and produced a summary.",
        "You were originally given instructions from a user over one or more turns.",
        "Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead.",
    ],
)
def test_injected_user_messages_are_not_prompts(tmp_path: Path, injected: str) -> None:
    """User-role text that Codex injects is dropped, in items and in events alike."""
    records = [meta(), message("user", injected), user_event(injected), message("user", "real")]
    assert pairs(read_records(tmp_path, records)) == [("user", "real")]


def test_developer_and_system_messages_are_dropped(tmp_path: Path) -> None:
    """Developer and system messages are instructions, never conversation."""
    records = [meta(), message("developer", "Plain developer text"), message("system", "Sys")]
    records.append(message("user", "hello"))
    assert pairs(read_records(tmp_path, records)) == [("user", "hello")]


def test_injected_block_beside_a_typed_block_keeps_the_typed_one(tmp_path: Path) -> None:
    """Within one message only the injected blocks go; typed text stays."""
    context = "<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"
    records = [meta(), message("user", context, "What does main do?")]
    assert pairs(read_records(tmp_path, records)) == [("user", "What does main do?")]


def test_desktop_rollout_with_prompts_only_as_events(tmp_path: Path) -> None:
    """Desktop rollouts keep prompts only as events and replies only as items: both read."""
    envelope = (
        "\n# Files mentioned by the user:\n\n## notes.vtt: /Users/me/notes.vtt\n\n"
        "## My request for Codex:\nsummarize the action items\n"
    )
    records = [
        meta(originator="Codex Desktop", source="vscode"),
        user_event(envelope),
        *tool_traffic(),
        message("assistant", "Here are the action items."),
        user_event("thanks, shorter please"),
        message("assistant", "Shorter: ship it."),
    ]
    assert pairs(read_records(tmp_path, records)) == [
        ("user", "summarize the action items"),
        ("assistant", "Here are the action items."),
        ("user", "thanks, shorter please"),
        ("assistant", "Shorter: ship it."),
    ]


def test_ide_context_envelope_keeps_only_the_request(tmp_path: Path) -> None:
    """The IDE's open-tabs envelope is cut away from item and event alike, leaving one prompt."""
    wrapped = (
        "# Context from my IDE setup:\n\n## Active file: app.py\n\n## Open tabs:\n- app.py\n\n"
        "## My request for Codex:\nrename the helper"
    )
    records = [meta(source="vscode"), message("user", wrapped), user_event(wrapped)]
    assert pairs(read_records(tmp_path, records)) == [("user", "rename the helper")]


def test_image_placeholders_do_not_split_a_prompt(tmp_path: Path) -> None:
    """Image tags around an attached picture are dropped, so item and event still match."""
    item = env(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "<image name=[Image #1]>"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                {"type": "input_text", "text": "</image>"},
                {"type": "input_text", "text": "what is in [Image #1]?"},
            ],
        },
    )
    records = [meta(), item, user_event("what is in [Image #1]?", local_images=["/tmp/a.png"])]
    assert pairs(read_records(tmp_path, records)) == [("user", "what is in [Image #1]?")]


def test_turn_items_fold_into_the_same_messages(tmp_path: Path) -> None:
    """Newer rollouts add item_completed turn items: item, event and turn item make one."""
    records = [
        meta(cli_version="0.146.0", session_id=SID, thread_source="cli"),
        user_event("List the files"),
        message("user", "List the files", item_id="msg-1"),
        turn_item("UserMessage", "List the files", "u-1"),
        message("assistant", "Found 2 files.", item_id="msg-2"),
        turn_item("AgentMessage", "Found 2 files.", "a-1"),
        agent_event("Found 2 files."),
    ]
    conversation = read_records(tmp_path, records)
    assert pairs(conversation) == [("user", "List the files"), ("assistant", "Found 2 files.")]
    assert [m.id for m in conversation.messages] == ["line-2", "msg-2"]


def test_paginated_rollout_with_turn_items_only(tmp_path: Path) -> None:
    """A rollout that records prose only as turn items still yields the conversation."""
    records = [
        meta(history_mode="paginated"),
        turn_item("UserMessage", "Plan the migration", "u-1"),
        turn_item("AgentMessage", "Here is the plan.", "a-1"),
    ]
    conversation = read_records(tmp_path, records)
    assert pairs(conversation) == [
        ("user", "Plan the migration"),
        ("assistant", "Here is the plan."),
    ]
    assert [m.id for m in conversation.messages] == ["u-1", "a-1"]


def test_repeated_identical_prompts_stay_separate(tmp_path: Path) -> None:
    """The same words typed in two turns are two prompts, even without a reply between."""
    records = [meta()]
    for _ in range(2):
        records += [message("user", "continue"), user_event("continue")]
        records += [env("event_msg", {"type": "turn_aborted", "reason": "interrupted"})]
    records += [message("user", "continue"), user_event("continue"), agent_event("Done.")]
    records += [message("assistant", "Done."), message("user", "continue")]
    records += [user_event("continue"), message("assistant", "Done."), agent_event("Done.")]
    texts = pairs(read_records(tmp_path, records))
    assert texts == [("user", "continue")] * 3 + [
        ("assistant", "Done."),
        ("user", "continue"),
        ("assistant", "Done."),
    ]


def test_compacted_records_and_their_history_are_dropped(tmp_path: Path) -> None:
    """A compaction's summary and replacement history never become messages."""
    compacted = env(
        "compacted",
        {
            "message": "SUMMARY of earlier work",
            "replacement_history": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "OLD"}],
                }
            ],
        },
    )
    records = [meta(), message("user", "first"), agent_event("one"), compacted]
    records += [env("event_msg", {"type": "context_compacted"}), message("user", "second")]
    assert pairs(read_records(tmp_path, records)) == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ]


def test_rollback_drops_the_last_turns(tmp_path: Path) -> None:
    """A thread_rolled_back event removes its turns; the edited prompt replaces them."""
    rollback = env("event_msg", {"type": "thread_rolled_back", "num_turns": 1})
    records = [meta(), user_event("one"), agent_event("first answer")]
    records += [user_event("two"), agent_event("second answer"), rollback]
    records += [user_event("two, edited"), agent_event("better answer")]
    assert pairs(read_records(tmp_path, records)) == [
        ("user", "one"),
        ("assistant", "first answer"),
        ("user", "two, edited"),
        ("assistant", "better answer"),
    ]


def test_old_user_message_events_of_other_kinds_are_dropped(tmp_path: Path) -> None:
    """Older events sent injected context as user_message with a non-plain kind."""
    records = [meta(), user_event("be nice", kind="user_instructions")]
    records += [user_event("<cwd>/r</cwd>", kind="environment_context")]
    records += [user_event("hello", kind="plain")]
    assert pairs(read_records(tmp_path, records)) == [("user", "hello")]


# ------------------------------------------------------------------ session facts


def test_project_is_the_session_meta_cwd(tmp_path: Path) -> None:
    """The project is the working directory recorded in session_meta."""
    assert read_records(tmp_path, tui_rollout()).project == "/home/dev/project"


def test_project_falls_back_to_turn_context(tmp_path: Path) -> None:
    """Without a cwd in session_meta, the first turn_context's cwd is the project."""
    records = [meta(cwd=None), env("turn_context", {"cwd": "/srv/app"}), user_event("hi")]
    assert read_records(tmp_path, records).project == "/srv/app"


def test_project_falls_back_to_environment_context(tmp_path: Path) -> None:
    """Without any cwd field, the environment context's <cwd> is the project."""
    context = "<environment_context>\n  <cwd>/srv/env</cwd>\n</environment_context>"
    records = [meta(cwd=None), message("user", context), user_event("hi")]
    assert read_records(tmp_path, records).project == "/srv/env"


def test_project_is_none_when_unrecorded(tmp_path: Path) -> None:
    """A rollout that records no directory has no project."""
    assert read_records(tmp_path, [meta(cwd=None), user_event("hi")]).project is None


@pytest.mark.parametrize(
    "fields",
    [
        {"originator": "codex_exec", "source": "exec"},
        {"originator": "codex_sdk_ts", "source": "exec"},
        {"originator": "codex-tui", "source": "mcp"},
        {"originator": "codex_exec", "source": "cli"},
    ],
)
def test_headless_sessions_are_automated(tmp_path: Path, fields: dict[str, str]) -> None:
    """codex exec, SDK and MCP-server sessions are marked as started by a program."""
    records = [meta(**fields), user_event("do the thing"), agent_event("done")]
    conversation = read_records(tmp_path, records)
    assert conversation.automated and len(conversation.messages) == 2


@pytest.mark.parametrize(
    "fields",
    [
        {"originator": "codex_cli_rs", "source": "cli"},
        {"originator": "codex-tui", "source": "cli"},
        {"originator": "codex_vscode", "source": "vscode"},
        {"originator": "Codex Desktop", "source": "vscode"},
    ],
)
def test_interactive_sessions_are_not_automated(tmp_path: Path, fields: dict[str, str]) -> None:
    """TUI, IDE and Desktop sessions are a person's."""
    assert not read_records(tmp_path, [meta(**fields), user_event("hi")]).automated


@pytest.mark.parametrize(
    "fields",
    [
        {"source": {"subagent": {"thread_spawn": {"parent_thread_id": OTHER_SID, "depth": 1}}}},
        {"source": {"subagent": "review"}},
        {"thread_source": "subagent"},
        {"parent_thread_id": OTHER_SID},
    ],
)
def test_subagent_rollout_is_an_empty_machine_conversation(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    """A subagent's own rollout is a sidechain: no messages, marked automated."""
    records = [meta(**fields), user_event("inspect module X"), agent_event("module X is fine")]
    conversation = read_records(tmp_path, records)
    assert conversation.messages == () and conversation.automated
    assert conversation.project == "/home/dev/project"


def test_fork_uses_its_own_session_meta(tmp_path: Path) -> None:
    """A fork repeats its ancestors' session_meta; the one naming this file counts."""
    records = [
        meta(forked_from_id=OTHER_SID),
        meta(sid=OTHER_SID, cwd="/elsewhere", originator="codex_exec", source="exec"),
        user_event("parent prompt"),
        agent_event("parent answer"),
        user_event("child prompt"),
    ]
    conversation = read_records(tmp_path, records)
    assert conversation.project == "/home/dev/project" and not conversation.automated
    assert [t for _, t in pairs(conversation)] == ["parent prompt", "parent answer", "child prompt"]


def test_own_session_meta_found_even_when_not_first(tmp_path: Path) -> None:
    """When an ancestor's meta comes first, the meta matching the file name still wins."""
    records = [meta(sid=OTHER_SID, source={"subagent": "review"}), meta(), user_event("hi")]
    conversation = read_records(tmp_path, records)
    assert pairs(conversation) == [("user", "hi")] and not conversation.automated


def test_pre_envelope_rollout_is_read(tmp_path: Path) -> None:
    """Mid-2025 rollouts (bare header, state markers, bare items) are read too."""
    records: list[Any] = [
        {"id": SID, "timestamp": "2025-08-20T13:20:47.060Z", "instructions": None},
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "<environment_context>\n<cwd>/old/repo</cwd>\n</environment_context>",
                }
            ],
        },
        {
            "type": "message",
            "id": None,
            "role": "user",
            "content": [{"type": "input_text", "text": "index it"}],
        },
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "name": "shell", "arguments": "ARGS-1", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "OUTPUT-1"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "indexed"}],
        },
        {"record_type": "state"},
    ]
    conversation = read_records(tmp_path, records)
    assert pairs(conversation) == [("user", "index it"), ("assistant", "indexed")]
    assert conversation.project == "/old/repo"
    assert all(m.timestamp is None for m in conversation.messages)


def test_timestamps_are_utc_aware(tmp_path: Path) -> None:
    """Message times come from the envelope, as timezone-aware UTC."""
    conversation = read_records(tmp_path, tui_rollout())
    first = conversation.messages[0].timestamp
    assert first is not None and first.utcoffset() is not None
    assert first.isoformat().startswith("2026-05-11T08:27:18")


# --------------------------------------------------------------------------- ids


def test_message_ids_prefer_item_ids_and_stay_unique(tmp_path: Path) -> None:
    """Codex item ids are used when present; a repeated one falls back to the line."""
    records = [
        meta(),
        message("user", "a", item_id="msg-1"),
        message("assistant", "b", item_id="msg-1"),
        message("user", "c"),
        message("assistant", "d", item_id="msg-9"),
    ]
    conversation = read_records(tmp_path, records)
    assert [m.id for m in conversation.messages] == ["msg-1", "line-3", "line-4", "msg-9"]


def test_item_id_shaped_like_a_line_id_does_not_collide(tmp_path: Path) -> None:
    """An item id that reads like a line id still leaves every id unique."""
    records = [meta(), message("user", "a", item_id="line-3"), message("assistant", "b")]
    conversation = read_records(tmp_path, records)
    assert [m.id for m in conversation.messages] == ["line-3", "line-3+"]


def test_two_objects_on_one_line_get_distinct_ids(tmp_path: Path) -> None:
    """Two records written onto one line are both read, with distinct ids."""
    path = rollout_path(tmp_path)
    write_rollout(path, [meta()])
    glued = json.dumps(user_event("one")) + json.dumps(agent_event("two")) + "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(glued)
    conversation = read_path(path)
    assert isinstance(conversation, Conversation)
    assert [(m.id, m.text) for m in conversation.messages] == [
        ("line-2", "one"),
        ("line-2-1", "two"),
    ]


def test_ids_and_texts_survive_appends(tmp_path: Path) -> None:
    """Appending a turn leaves every earlier message unchanged, id and text."""
    records = tui_rollout()
    path = write_rollout(rollout_path(tmp_path), records[:12])
    before = read_path(path)
    write_rollout(path, records)
    after = read_path(path)
    assert isinstance(before, Conversation) and isinstance(after, Conversation)
    assert after.messages[: len(before.messages)] == before.messages
    assert len(after.messages) > len(before.messages)


def test_torn_last_line_waits_for_the_rest(tmp_path: Path) -> None:
    """A half-written last line is ignored until it is complete."""
    path = write_rollout(rollout_path(tmp_path), tui_rollout())
    whole = read_path(path)
    line = json.dumps(user_event("a new prompt"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line[: len(line) // 2])
    torn = read_path(path)
    assert isinstance(whole, Conversation) and isinstance(torn, Conversation)
    assert torn.messages == whole.messages and torn.revision == whole.revision


def _chunks_of(data: bytes, cuts: list[int]) -> Iterator[bytes]:
    """``data`` split at the sorted, de-duplicated ``cuts``."""
    start = 0
    for cut in sorted(set(cuts)):
        yield data[start:cut]
        start = cut
    yield data[start:]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=1, max_value=5000), max_size=8))
def test_reading_after_each_appended_chunk_ends_at_the_same_conversation(cuts: list[int]) -> None:
    """Reading once or after every appended chunk ends equal; no step contradicts the end."""
    data = "".join(json.dumps(r) + "\n" for r in tui_rollout()).encode()
    with tempfile.TemporaryDirectory() as folder:
        path = rollout_path(Path(folder))
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
        seen: list[tuple[str, str]] = []
        for chunk in _chunks_of(data, [c for c in cuts if c < len(data)]):
            with path.open("ab") as handle:
                handle.write(chunk)
            step = read_path(path)
            if isinstance(step, Conversation):
                seen += [(m.id, m.text) for m in step.messages]
        final = read_path(path)
        path.write_bytes(data)
        once = read_path(path)
    assert isinstance(final, Conversation) and isinstance(once, Conversation)
    assert final.revision == once.revision
    assert set(seen) <= {(m.id, m.text) for m in final.messages}


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=400))
def test_random_bytes_give_a_result_or_unresolved(data: bytes) -> None:
    """Arbitrary bytes read to a conversation or an unresolved source, never an exception."""
    with tempfile.TemporaryDirectory() as folder:
        path = rollout_path(Path(folder))
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        assert isinstance(read_path(path), Conversation | Unresolved)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["type", "payload", "role", "content", "text", "message", "item", "id"]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(
    kinds=st.lists(
        st.sampled_from(["session_meta", "response_item", "event_msg", "x"]), max_size=5
    ),
    payloads=st.lists(_JSON, min_size=5, max_size=5),
)
def test_wrong_shapes_never_raise(kinds: list[str], payloads: list[Any]) -> None:
    """Records of the right kinds with arbitrary payload shapes never make read raise."""
    records = [meta(), *(env(k, p) for k, p in zip(kinds, payloads, strict=False)), *payloads]
    with tempfile.TemporaryDirectory() as folder:
        path = write_rollout(rollout_path(Path(folder)), records)
        assert isinstance(read_path(path), Conversation | Unresolved)


def test_hand_picked_wrong_shapes_never_raise(tmp_path: Path) -> None:
    """Lists for dicts, numbers for text, missing keys: read still answers."""
    records: list[Any] = [
        [1, 2],
        meta(cwd=42, source=["exec"], originator=None, parent_thread_id=7),
        env("response_item", {"type": "message", "role": "user", "content": {"text": "x"}}),
        env(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": 5}]},
        ),
        env("response_item", {"type": "message", "role": ["user"], "content": []}),
        env("response_item", {"type": "message", "role": "user", "content": [{"type": ["x"]}]}),
        env(
            "event_msg",
            {"type": "item_completed", "item": {"type": "UserMessage", "content": [{"type": {}}]}},
        ),
        env("event_msg", {"type": "user_message", "message": ["hi"]}),
        env("event_msg", {"type": "item_completed", "item": "UserMessage"}),
        env("event_msg", {"type": "item_completed", "item": {"type": 3, "content": None}}),
        env("event_msg", {"type": "thread_rolled_back", "num_turns": "2"}),
        env("event_msg", {"type": "thread_rolled_back", "num_turns": True}),
        {
            "timestamp": [],
            "type": "event_msg",
            "payload": {"type": "agent_message", "message": "ok"},
        },
        {"type": "event_msg", "payload": "not a dict"},
        "a string",
    ]
    conversation = read_records(tmp_path, records)
    assert pairs(conversation) == [("assistant", "ok")]
    assert conversation.project is None and not conversation.automated


def test_empty_file_is_unresolved(tmp_path: Path) -> None:
    """An empty rollout is reported, never read as an empty conversation."""
    path = rollout_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    result = read_path(path)
    assert isinstance(result, Unresolved) and result.reason == "empty file"


def test_garbage_file_is_unresolved(tmp_path: Path) -> None:
    """A rollout of undecodable lines is unresolved."""
    path = rollout_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\xff garbage\nmore garbage {\n")
    assert isinstance(read_path(path), Unresolved)


def test_json_lines_that_are_not_codex_records_are_unresolved(tmp_path: Path) -> None:
    """Valid JSON Lines with nothing a rollout holds are unresolved."""
    records: list[Any] = [{"hello": "world"}, [1, 2, 3], {"type": "session_meta"}]
    result = read_path(write_rollout(rollout_path(tmp_path), records))
    assert isinstance(result, Unresolved) and "Codex" in result.reason


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_unresolved(tmp_path: Path) -> None:
    """A rollout without read permission is unresolved with the reason."""
    path = write_rollout(rollout_path(tmp_path), tui_rollout())
    path.chmod(0)
    try:
        result = read_path(path)
    finally:
        path.chmod(0o644)
    assert isinstance(result, Unresolved) and "permission" in result.reason


def test_file_deleted_after_discovery_is_unresolved(tmp_path: Path) -> None:
    """A rollout deleted after discovery is unresolved."""
    path = write_rollout(rollout_path(tmp_path), tui_rollout())
    (ref,) = READER.discover(path.parent)
    assert isinstance(ref, SessionRef)
    path.unlink()
    assert isinstance(READER.read(ref), Unresolved)


# ------------------------------------------------------------------ real fixtures

#: Real (not sanitized) rollouts, where exact counts are meaningful.
_REAL = ("codemie_rollout-", "codemie_turn-2")


def _real_records(path: Path) -> list[dict[str, Any]]:
    """The fixture's decoded lines (all are valid JSON objects)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _strings(value: Any) -> Iterator[str]:
    """Every string anywhere inside a decoded JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _prose_texts(record: dict[str, Any]) -> list[str]:
    """Oracle: raw texts of records that hold a person's or the assistant's words."""
    payload = record.get("payload") or {}
    kind = payload.get("type")
    if record.get("type") == "event_msg" and kind in {"user_message", "agent_message"}:
        return [payload.get("message") or ""]
    if record.get("type") == "event_msg" and kind == "item_completed":
        item = payload.get("item") or {}
        if item.get("type") in {"UserMessage", "AgentMessage"}:
            return list(_strings(item.get("content")))
    is_message = record.get("type") == "response_item" and kind == "message"
    if is_message and payload.get("role") in {"user", "assistant"}:
        return list(_strings(payload.get("content")))
    if record.get("type") == "event_msg" and kind == "task_complete":
        return [payload.get("last_agent_message") or ""]
    return []


def _typed_prompts(records: list[dict[str, Any]]) -> list[str]:
    """Oracle: what the person typed, from user_message events (after any envelope)."""
    prompts = []
    for record in records:
        payload = record.get("payload") or {}
        if record.get("type") != "event_msg" or payload.get("type") != "user_message":
            continue
        if payload.get("kind") not in (None, "plain"):
            continue
        text = payload.get("message") or ""
        prompts.append(text.split("## My request for Codex:", 1)[-1].strip())
    return prompts


def _replies(records: list[dict[str, Any]]) -> list[str]:
    """Oracle: every assistant reply text as items and events recorded it."""
    replies = []
    for record in records:
        payload = record.get("payload") or {}
        if record.get("type") == "event_msg" and payload.get("type") == "agent_message":
            replies.append(payload["message"].strip())
        elif record.get("type") == "response_item" and payload.get("role") == "assistant":
            blocks = payload.get("content") or []
            replies.append("".join(b["text"] for b in blocks if "text" in b).strip())
    return replies


def _fixtures(shared: Path) -> list[Path]:
    """Every Codex fixture."""
    return sorted((shared / "codex").glob("*.jsonl"))


@pytest.fixture
def laid_out(shared_transcripts: Path, isolated_home: Path) -> dict[str, Conversation]:
    """The fixtures laid out under HOME and read through discovery, by fixture name."""
    lay_out(shared_transcripts, isolated_home)
    by_bytes = {path.read_bytes(): path.name for path in _fixtures(shared_transcripts)}
    read: dict[str, Conversation] = {}
    for root in READER.default_roots({}, isolated_home):
        for ref in READER.discover(root):
            assert isinstance(ref, SessionRef), ref
            conversation = READER.read(ref)
            assert isinstance(conversation, Conversation), conversation
            read[by_bytes[ref.path.read_bytes()]] = conversation
    return read


@pytest.mark.fixtures
def test_real_rollouts_are_discovered_where_codex_keeps_them(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Laid out under ~/.codex/sessions, every fixture is found under its session key."""
    expected = lay_out(shared_transcripts, isolated_home)
    found = [
        ref.key for root in READER.default_roots({}, isolated_home) for ref in READER.discover(root)
    ]
    assert sorted(found) == sorted(expected) and len(found) == len(_fixtures(shared_transcripts))


@pytest.mark.fixtures
def test_real_rollouts_hold_no_tool_traffic_reasoning_or_context(
    shared_transcripts: Path, laid_out: dict[str, Conversation]
) -> None:
    """No string of a non-prose record (tool I/O, reasoning, instructions) is in any message."""
    for fixture in _fixtures(shared_transcripts):
        records = _real_records(fixture)
        prose = "\n".join(t for r in records for t in _prose_texts(r))
        forbidden = {
            s.strip()
            for r in records
            if not _prose_texts(r)
            for s in _strings(r)
            if len(s.strip()) >= 24 and s.strip() not in prose
        }
        injected = {
            t.strip()
            for r in records
            if r.get("type") == "response_item"
            for t in _prose_texts(r)
            if t.lstrip().startswith(("<", "# AGENTS.md"))
        }
        for message in laid_out[fixture.name].messages:
            assert not [s for s in forbidden | injected if s in message.text], fixture.name


@pytest.mark.fixtures
def test_real_rollouts_keep_every_typed_prompt(
    shared_transcripts: Path, laid_out: dict[str, Conversation]
) -> None:
    """Every prompt the person typed is a user message; real rollouts have no others."""
    for fixture in _fixtures(shared_transcripts):
        conversation = laid_out[fixture.name]
        prompts = _typed_prompts(_real_records(fixture))
        user_texts = [m.text for m in conversation.messages if m.role == "user"]
        assert set(prompts) <= set(user_texts), fixture.name
        if fixture.name.startswith(_REAL):
            assert user_texts == prompts, fixture.name


@pytest.mark.fixtures
def test_real_rollouts_show_each_reply_once(
    shared_transcripts: Path, laid_out: dict[str, Conversation]
) -> None:
    """Replies recorded as both item and event appear exactly once each, in order."""
    for fixture in _fixtures(shared_transcripts):
        if not fixture.name.startswith(_REAL):
            continue
        replies = _replies(_real_records(fixture))
        distinct = list(dict.fromkeys(replies))
        texts = [m.text for m in laid_out[fixture.name].messages if m.role == "assistant"]
        assert texts == distinct, fixture.name


@pytest.mark.fixtures
def test_real_rollout_facts(shared_transcripts: Path, laid_out: dict[str, Conversation]) -> None:
    """Projects, automation and counts of the real rollouts match what their records say."""
    by_prefix = {
        "codemie_rollout-2026-05-11T11": (
            "/Users/Sample_User/repos/codemie-ai/codemie-code",
            False,
            2,
            13,
        ),
        "codemie_rollout-2026-05-11T13": ("/Users/Sample_User/naya", False, 3, 3),
        "codemie_turn-2": ("/home/user/project", True, 2, 2),
        "agentsessions_codex_small": ("/tmp/repo", False, None, None),
    }
    for fixture in _fixtures(shared_transcripts):
        ((project, automated, users, replies),) = [
            v for k, v in by_prefix.items() if fixture.name.startswith(k)
        ]
        conversation = laid_out[fixture.name]
        assert (conversation.project, conversation.automated) == (project, automated)
        roles = [m.role for m in conversation.messages]
        if users is not None:
            assert (roles.count("user"), roles.count("assistant")) == (users, replies)
        assert len({m.id for m in conversation.messages}) == len(conversation.messages)
        assert all(
            m.timestamp is None or m.timestamp.utcoffset() is not None
            for m in conversation.messages
        )


@pytest.mark.fixtures
def test_newest_schema_fixture_reads_its_first_turn(laid_out: dict[str, Conversation]) -> None:
    """The cli 0.146 sample yields its prompt and reply once, compaction and world state dropped."""
    (conversation,) = [
        c for c in laid_out.values() if c.session_id == "019fc8be-3658-7ca3-9e29-000000000000"
    ]
    assert pairs(conversation)[:2] == [("user", "List the files"), ("assistant", "Found 2 files.")]
    assert not any("[trimmed for fixture]" in t and "List" in t for _, t in pairs(conversation))
