"""Gemini CLI reader: legacy JSON and JSON Lines chat recordings."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readers import READERS, Conversation, SessionRef, Unresolved
from readers._io import stat_version
from readers.gemini import READER, recorded_session_id
from tests.readers.layout_gemini import lay_out
from tests.readers.oracle import strings_in

SESSION = "2026-01-01T10-00-abcd1234"  # the file-name id: an alias
SESSION_ID = "abcd1234-0000-4000-8000-000000000000"  # the CLI's own id, shown and cited
STAMP = "2026-01-01T10:00:{:02d}.000Z"


# ----------------------------------------------------------------------------- builders


def user(mid: str, content: Any, second: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": STAMP.format(second),
        "type": "user",
        "content": content,
    } | extra


def gemini(mid: str, content: Any, second: int = 0, **extra: Any) -> dict[str, Any]:
    record = {"id": mid, "timestamp": STAMP.format(second), "type": "gemini", "content": content}
    return record | {"thoughts": [], "tokens": {"input": 1, "output": 1, "total": 2}} | extra


def system(mid: str, kind: str, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": STAMP.format(59), "type": kind, "content": text}


def tool_call(name: str, args: dict[str, Any], output: str) -> dict[str, Any]:
    call_id = f"{name}-1"
    response = {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}
    return {
        "id": call_id,
        "name": name,
        "args": args,
        "result": [response],
        "status": "success",
        "timestamp": STAMP.format(30),
        "resultDisplay": output,
    }


def header(**extra: Any) -> dict[str, Any]:
    return {
        "sessionId": SESSION_ID,
        "projectHash": "0" * 64,
        "startTime": STAMP.format(0),
        "lastUpdated": STAMP.format(0),
    } | extra


def legacy(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return header(**extra) | {"messages": messages}


def chats_dir(home: Path, project: str = "proj") -> Path:
    folder = home / ".gemini" / "tmp" / project / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_document(home: Path, doc: Any, *, name: str = f"session-{SESSION}.json") -> Path:
    path = chats_dir(home) / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def write_lines(home: Path, records: list[Any], *, name: str = f"session-{SESSION}.jsonl") -> Path:
    path = chats_dir(home) / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def root(home: Path) -> Path:
    return READER.default_roots({}, home)[0]


def ref_of(path: Path) -> SessionRef:
    return SessionRef("gemini", SESSION, path, stat_version(path))


def read(path: Path) -> Conversation:
    result = READER.read(ref_of(path))
    assert isinstance(result, Conversation), result
    return result


def texts(conversation: Conversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


# ----------------------------------------------------------------------------- legacy JSON


def test_legacy_document_keeps_only_prompts_and_replies(isolated_home: Path) -> None:
    """A legacy session keeps user and gemini text and drops thoughts, tools and notices."""
    thought = {"subject": "Planning the listing", "description": "I will call ls first."}
    call = tool_call("run_shell_command", {"command": "ls -la /srv"}, "drwxr-xr-x SECRET-OUTPUT")
    doc = legacy(
        [
            user("u1", "list the files", 1),
            gemini("g1", "", 2, thoughts=[thought], toolCalls=[call]),
            system("i1", "info", "Gemini CLI update available! 0.1 -> 0.2"),
            system("e1", "error", "Request failed: quota"),
            system("w1", "warning", "Slow response"),
            gemini("g2", "There are two folders.", 3, thoughts=[thought]),
        ]
    )
    conversation = read(write_document(isolated_home, doc))
    assert texts(conversation) == [
        ("user", "list the files"),
        ("assistant", "There are two folders."),
    ]
    assert [m.id for m in conversation.messages] == ["u1", "g2"]
    first = conversation.messages[0].timestamp
    assert first == datetime(2026, 1, 1, 10, 0, 1, tzinfo=UTC)
    joined = " ".join(m.text for m in conversation.messages)
    for leaked in ("Planning", "ls -la", "SECRET-OUTPUT", "update available", "quota", "Slow"):
        assert leaked not in joined


def test_pretty_document_under_jsonl_name_is_read_as_legacy(isolated_home: Path) -> None:
    """A pretty-printed single document named ``.jsonl`` is recognised by its content."""
    doc = legacy([user("u1", "hello", 1), gemini("g1", "Hi there.", 2)])
    path = write_document(isolated_home, doc, name=f"session-{SESSION}.jsonl")
    assert texts(read(path)) == [("user", "hello"), ("assistant", "Hi there.")]


def test_one_line_legacy_document_is_read(isolated_home: Path) -> None:
    """A legacy document written on a single line is read like the pretty one."""
    doc = legacy([user("u1", [{"text": "hello"}], 1), gemini("g1", "Hi.", 2)])
    path = write_lines(isolated_home, [doc])
    assert texts(read(path)) == [("user", "hello"), ("assistant", "Hi.")]


def test_torn_pretty_document_is_unresolved(isolated_home: Path) -> None:
    """A legacy document cut off mid-write is reported, not read as empty."""
    path = write_document(isolated_home, legacy([user("u1", "hello", 1)]))
    path.write_bytes(path.read_bytes()[:-20])
    result = READER.read(ref_of(path))
    assert isinstance(result, Unresolved)
    assert result.reason.startswith("not JSON")


# ----------------------------------------------------------------------------- JSON Lines


def test_later_line_with_same_id_replaces_the_earlier_in_place(isolated_home: Path) -> None:
    """A message rewritten by a later line appears once, where it first appeared."""
    records = [
        header(kind="main"),
        user("u1", [{"text": "explain the build"}], 1),
        {"$set": {"lastUpdated": STAMP.format(1)}},
        gemini("g1", "Draft", 2),
        gemini("g1", "The build uses make.", 2, toolCalls=[tool_call("read_file", {}, "x")]),
        {"$set": {"lastUpdated": STAMP.format(3), "summary": "Build talk"}},
        user("u2", "thanks", 4),
    ]
    conversation = read(write_lines(isolated_home, records))
    assert texts(conversation) == [
        ("user", "explain the build"),
        ("assistant", "The build uses make."),
        ("user", "thanks"),
    ]


def test_rewind_drops_the_message_and_everything_after(isolated_home: Path) -> None:
    """``$rewindTo`` removes the named message and all later ones, then writing resumes."""
    records = [
        header(),
        user("u1", "first", 1),
        gemini("g1", "one", 2),
        user("u2", "abandoned", 3),
        gemini("g2", "abandoned reply", 4),
        {"$rewindTo": "u2"},
        user("u3", "second try", 5),
    ]
    conversation = read(write_lines(isolated_home, records))
    assert [m.id for m in conversation.messages] == ["u1", "g1", "u3"]


def test_rewind_to_an_unknown_id_clears_the_conversation(isolated_home: Path) -> None:
    """A rewind to a message the file does not hold clears it, as the CLI does."""
    records = [header(), user("u1", "first", 1), {"$rewindTo": "missing"}, user("u2", "after", 2)]
    assert [m.id for m in read(write_lines(isolated_home, records)).messages] == ["u2"]


def test_compression_checkpoint_keeps_history_and_drops_summary(isolated_home: Path) -> None:
    """After ``/compress`` the summary and its acknowledgement are dropped, history kept."""
    env = user("env", [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}])
    summary = user("s1", [{"text": "<state_snapshot><goal>ship</goal></state_snapshot>"}], 6)
    ack = gemini("a1", [{"text": "Got it. Thanks for the additional context!"}], 6)
    kept = user("u2", [{"text": "and now the docs"}], 5)
    records = [
        header(),
        {"$set": {"messages": [env], "lastUpdated": STAMP.format(0)}},
        user("u1", "fix the tests", 1),
        gemini("g1", "Fixed.", 2),
        kept,
        {"$set": {"messages": [env, summary, ack, kept]}},
        gemini("g2", "Docs updated.", 7),
    ]
    conversation = read(write_lines(isolated_home, records))
    assert texts(conversation) == [
        ("user", "fix the tests"),
        ("assistant", "Fixed."),
        ("user", "and now the docs"),
        ("assistant", "Docs updated."),
    ]


def test_tool_results_recorded_as_user_turns_are_dropped(isolated_home: Path) -> None:
    """User turns carrying ``functionResponse`` parts are tool results, not prompts."""
    response = {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a b"}}}
    hint = {"text": "User steering update:\n<user_input>hurry</user_input>"}
    records = [
        header(),
        user("u1", "look around", 1),
        gemini("g1", [{"functionCall": {"name": "ls", "args": {}}}], 2),
        user("t1", [hint, response], 3),
        gemini("g2", "Two files.", 4),
    ]
    assert texts(read(write_lines(isolated_home, records))) == [
        ("user", "look around"),
        ("assistant", "Two files."),
    ]


def test_thought_parts_in_model_content_are_dropped(isolated_home: Path) -> None:
    """Model parts flagged ``thought`` and function calls never reach the text."""
    parts = [
        {"text": "Let me think about caching.", "thought": True},
        {"text": "Use an LRU cache."},
        {"functionCall": {"name": "write_file", "args": {"content": "SECRET"}}},
        {"text": "Binary content received. Proceeding with analysis.", "thought": True},
    ]
    records = [header(), user("u1", "how to cache?", 1), gemini("g1", parts, 2)]
    assert texts(read(write_lines(isolated_home, records)))[1] == ("assistant", "Use an LRU cache.")


def test_display_content_is_preferred_to_the_expanded_prompt(isolated_home: Path) -> None:
    """When the CLI kept what the person typed (``displayContent``), that is the prompt."""
    expanded = [
        {"text": "summarise @notes.md"},
        {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @notes.md:\n"},
        {"text": "PRIVATE NOTES"},
    ]
    records = [header(), user("u1", expanded, 1, displayContent=[{"text": "summarise @notes.md"}])]
    assert texts(read(write_lines(isolated_home, records))) == [("user", "summarise @notes.md")]


def test_injected_blocks_are_stripped_from_user_text(isolated_home: Path) -> None:
    """File expansions and hook, session and agent notes are cut out of a prompt."""
    content = [
        {"text": "<hook_context>branch: main</hook_context>\n\nreview @a.py"},
        {"text": "\n<system_note>\nUse the agent.\n</system_note>\n"},
        {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @a.py:\n"},
        {"text": "print('secret')"},
        {"text": "\n--- End of content ---"},
    ]
    records = [header(), user("u1", content, 1)]
    assert texts(read(write_lines(isolated_home, records))) == [("user", "review @a.py")]


@pytest.mark.parametrize(
    "text",
    [
        "Here is the user's editor context as a JSON object. This is for your information only.",
        "Here is a summary of changes in the user's editor context, in JSON format.",
        "- **Workspace Directories:**\n  - /srv/app",
        "I ran the following shell command:\n```sh\nls\n```",
        "System: Potential loop detected. Details: repeated calls.",
        "User has manually exited Plan Mode. Switching to Default.",
        "Plan approved. Switching to Auto Edit.",
        "Please continue.",
        "System: Please continue.",
        "<hook_context>session started</hook_context>",
        "<session_context>\nThis is the Gemini CLI.\n</session_context>",
    ],
)
def test_turns_the_cli_injects_are_dropped(isolated_home: Path, text: str) -> None:
    """User turns the CLI writes itself (context, nudges, notices) are not prompts."""
    records = [header(), user("x1", [{"text": text}], 1), user("u1", "real prompt", 2)]
    assert texts(read(write_lines(isolated_home, records))) == [("user", "real prompt")]


def test_a_continuation_whose_display_content_is_a_tool_result_is_not_a_prompt(
    isolated_home: Path,
) -> None:
    """``System: Please continue.`` shown as a tool result is machine text."""
    shown = [{"functionResponse": {"name": "run_shell_command", "response": {"output": "ok"}}}]
    nudge = user("x1", [{"text": "System: Please continue."}], 1, displayContent=shown)
    records = [header(), nudge, user("u1", "real prompt", 2)]
    assert texts(read(write_lines(isolated_home, records))) == [("user", "real prompt")]


def test_any_turn_displayed_as_a_tool_result_is_not_a_prompt(isolated_home: Path) -> None:
    """Whatever its text, a user turn whose display content is a tool result is the CLI's."""
    shown = [{"functionResponse": {"name": "read_file", "response": {"output": "x"}}}]
    records = [header(), user("x1", "file contents follow", 1, displayContent=shown)]
    assert texts(read(write_lines(isolated_home, records))) == []


def test_torn_last_line_keeps_the_earlier_messages(isolated_home: Path) -> None:
    """A line still being written is ignored; the complete ones are read."""
    path = write_lines(isolated_home, [header(), user("u1", "hello", 1), gemini("g1", "Hi.", 2)])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "u2", "type": "user", "conte')
    assert [m.id for m in read(path).messages] == ["u1", "g1"]


def test_appending_keeps_ids_and_ends_at_the_full_read(isolated_home: Path) -> None:
    """Reading after each appended line keeps earlier ids and ends where one read ends."""
    records = [
        header(),
        user("u1", "a", 1),
        gemini("g1", "b", 2),
        gemini("g1", "b, revised", 2),
        {"$set": {"lastUpdated": STAMP.format(3)}},
        user("u2", "c", 3),
        gemini("g2", "d", 4),
    ]
    path = chats_dir(isolated_home) / f"session-{SESSION}.jsonl"
    seen: list[str] = []
    for record in records:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        ids = [m.id for m in read(path).messages]
        assert ids[: len(seen)] == seen
        seen = ids
    final = read(path)
    assert (
        final.revision == read(write_lines(isolated_home, records, name="session-x.jsonl")).revision
    )


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b"\x00\xff\xfe garbage \x81", "not JSON"),
        (b"[1, 2, 3]", "no Gemini CLI session records"),
        (b'{"foo": 1}', "no Gemini CLI session records"),
        (b'{\n  "sessionId": "x",\n  "messages": [\n', "not JSON"),
        (b"not json\nstill not\nnope\n", "not JSON"),
    ],
)
def test_bad_files_are_unresolved_with_a_reason(
    isolated_home: Path, data: bytes, reason: str
) -> None:
    """Empty, garbage and wrong-shaped files give ``Unresolved`` naming the problem."""
    path = chats_dir(isolated_home) / f"session-{SESSION}.json"
    path.write_bytes(data)
    result = READER.read(ref_of(path))
    assert isinstance(result, Unresolved)
    assert result.reason.startswith(reason)


def test_wrong_shapes_inside_records_never_raise(isolated_home: Path) -> None:
    """Odd values (non-dict parts, numbers, missing keys) are skipped without raising."""
    doc = legacy(
        [
            "not a dict",
            {"id": 7, "type": "user", "content": "numeric id"},
            {"id": "", "type": "user", "content": "empty id"},
            {"id": "u1", "type": "user", "content": 42},
            {
                "id": "u2",
                "type": "user",
                "content": [None, 3, {"text": 5}, {"text": "ok"}],
                "timestamp": "yesterday",
            },
            {"id": "g1", "type": "gemini", "content": {"text": "single part"}, "thoughts": "x"},
            {"id": "g2", "type": ["gemini"], "content": "bad type"},
            {"id": "u3", "type": "user", "content": "fine", "displayContent": {"oops": 1}},
        ],
        directories="not a list",
        kind=None,
    )
    conversation = read(write_document(isolated_home, doc))
    assert texts(conversation) == [
        ("user", "ok"),
        ("assistant", "single part"),
        ("user", "fine"),
    ]
    assert conversation.messages[0].timestamp is None
    assert conversation.project is None


def test_messages_that_are_not_a_list_are_unresolved(isolated_home: Path) -> None:
    """A valid header with a broken ``messages`` value is reported, never read as empty."""
    result = READER.read(ref_of(write_document(isolated_home, header() | {"messages": "nope"})))
    assert isinstance(result, Unresolved)
    assert "messages field is a string, not a list" in result.reason


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of mode")
def test_unreadable_file_is_unresolved(isolated_home: Path) -> None:
    """A file without read permission is reported, not skipped."""
    path = write_document(isolated_home, legacy([user("u1", "hi")]))
    path.chmod(0)
    result = READER.read(ref_of(path))
    assert isinstance(result, Unresolved)
    assert "permission" in result.reason


def test_symlink_loop_is_unresolved_at_discovery(isolated_home: Path) -> None:
    """A session name that is a symlink loop is listed as unresolved."""
    folder = chats_dir(isolated_home)
    (folder / f"session-{SESSION}.json").symlink_to(folder / f"session-{SESSION}.json")
    found = list(READER.discover(root(isolated_home)))
    assert len(found) == 1
    assert isinstance(found[0], Unresolved)
    assert found[0].reason == "symlink loop"


def test_file_replaced_by_a_directory_is_unresolved(isolated_home: Path) -> None:
    """Reading a ref whose file became a directory gives ``Unresolved``."""
    path = write_document(isolated_home, legacy([user("u1", "hi")]))
    ref = ref_of(path)
    path.unlink()
    path.mkdir()
    assert isinstance(READER.read(ref), Unresolved)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_give_a_conversation_or_unresolved(isolated_home: Path, data: bytes) -> None:
    """Any bytes give a conversation or ``Unresolved``, never an exception."""
    path = chats_dir(isolated_home) / f"session-{SESSION}.jsonl"
    path.write_bytes(data)
    assert isinstance(READER.read(ref_of(path)), Conversation | Unresolved)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=10_000))
def test_every_prefix_of_a_session_reads_safely(isolated_home: Path, cut: int) -> None:
    """A file cut at any byte reads as a conversation or ``Unresolved``."""
    records = [header(), user("u1", "hello", 1), gemini("g1", "Hi.", 2), {"$rewindTo": "g1"}]
    blob = "".join(json.dumps(r) + "\n" for r in records).encode()
    path = chats_dir(isolated_home) / f"session-{SESSION}.jsonl"
    path.write_bytes(blob[: cut % (len(blob) + 1)])
    assert isinstance(READER.read(ref_of(path)), Conversation | Unresolved)


# ----------------------------------------------------------------------------- discovery


def keys(home: Path) -> dict[str, Path]:
    found = list(READER.discover(root(home)))
    return {item.key: item.path for item in found}


def test_discovery_finds_only_chat_session_files(isolated_home: Path) -> None:
    """Only ``chats/session-*.json(l)`` count; logs, subagents and side files do not."""
    base = isolated_home / ".gemini" / "tmp" / "proj"
    write_document(isolated_home, legacy([user("u1", "hi")]))
    extra = {
        base / "logs" / f"session-{SESSION}.jsonl": "{}",
        base / "chats" / "abcd1234-parent" / "sub-1.jsonl": "{}",
        base / "chats" / "abcd1234-parent" / "session-2026-01-01T10-00-sub00000.jsonl": "{}",
        base / "checkpoint-mytag.json": "[]",
        base / "chats" / "notes.json": "{}",
        base / "chats" / f"session-{SESSION}.jsonl.tmp-123": "{}",
        base / "chats" / f"session-{SESSION}.jsonl.unreadable-17": "{}",
        isolated_home / ".gemini" / "tmp" / "bin" / "rg": "",
    }
    for path, text in extra.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert list(keys(isolated_home)) == [f"gemini:{SESSION_ID}"]


def test_legacy_file_and_its_jsonl_migration_are_one_session(isolated_home: Path) -> None:
    """Resuming ``X.json`` writes ``X.jsonl`` beside it; discovery keeps the JSONL."""
    write_document(isolated_home, legacy([user("u1", "hi")]))
    jsonl = write_lines(isolated_home, [header(), user("u1", "hi"), user("u2", "more")])
    assert keys(isolated_home) == {f"gemini:{SESSION_ID}": jsonl}


def test_copied_hash_folder_yields_the_newest_copy(isolated_home: Path) -> None:
    """A session copied from a hash folder into a slug folder is found once, newest copy."""
    old = chats_dir(isolated_home, "a" * 64) / f"session-{SESSION}.json"
    new = chats_dir(isolated_home, "app") / f"session-{SESSION}.json"
    for path, when in ((old, 1_700_000_000), (new, 1_700_000_500)):
        path.write_text(json.dumps(legacy([user("u1", "hi")])))
        os.utime(path, (when, when))
    assert keys(isolated_home) == {f"gemini:{SESSION_ID}": new}


def test_the_session_id_is_the_one_the_cli_recorded(isolated_home: Path) -> None:
    """The id shown and cited is ``sessionId`` (what ``--resume`` takes), not the file stem."""
    write_lines(isolated_home, [header(), user("u1", "hi")])
    (found,) = list(READER.discover(root(isolated_home)))
    assert isinstance(found, SessionRef)
    assert (found.session_id, found.aliases) == (SESSION_ID, (SESSION,))


def test_a_pretty_printed_legacy_document_gives_its_session_id(isolated_home: Path) -> None:
    """The legacy JSON document's leading ``sessionId`` is found by a small read."""
    write_document(isolated_home, legacy([user("u1", "hi")]))
    (found,) = list(READER.discover(root(isolated_home)))
    assert found.session_id == SESSION_ID


def test_a_file_that_records_no_session_id_keeps_its_file_name_id(isolated_home: Path) -> None:
    """Without a recorded ``sessionId`` the file stem stays the id."""
    write_lines(isolated_home, [{"projectHash": "0" * 64}, user("u1", "hi")])
    (found,) = list(READER.discover(root(isolated_home)))
    assert (found.session_id, getattr(found, "aliases", ())) == (SESSION, ())


def test_recorded_session_id_reads_only_the_first_occurrence() -> None:
    """A later ``sessionId`` (inside a message) never replaces the header's."""
    head = b'{"sessionId": "first", "messages": [{"sessionId": "second"}]}'
    assert recorded_session_id(head) == "first"
    assert recorded_session_id(b'{"messages": []}') is None


def test_an_unreadable_copy_counts_as_the_session_of_its_file_name(isolated_home: Path) -> None:
    """A copy that cannot be read is not listed beside the readable one of the same name."""
    write_lines(isolated_home, [header(), user("u1", "hi")])
    link = chats_dir(isolated_home, "a" * 64) / f"session-{SESSION}.json"
    link.symlink_to(isolated_home / "gone.json")
    found = list(READER.discover(root(isolated_home)))
    assert [(type(item).__name__, item.session_id) for item in found] == [
        ("SessionRef", SESSION_ID)
    ]


def test_a_session_is_looked_up_by_its_file_name_id_too(isolated_home: Path) -> None:
    """``sources show gemini:<stem>`` finds the session listed under its ``sessionId``."""
    from dreamd.catalog import Catalog
    from dreamd.statedb import open_state

    write_lines(isolated_home, [header(), user("u1", "hi there")])
    catalog = Catalog(open_state(isolated_home / "state.db"), {"gemini": [root(isolated_home)]})
    by_stem = catalog.read("gemini", SESSION)
    assert by_stem.session_id == SESSION_ID
    assert catalog.read("gemini", SESSION_ID).revision == by_stem.revision


def test_dangling_symlink_is_unresolved_at_discovery(isolated_home: Path) -> None:
    """A session file that cannot be stat'ed is reported with its session id."""
    link = chats_dir(isolated_home) / f"session-{SESSION}.json"
    link.symlink_to(isolated_home / "gone.json")
    (found,) = list(READER.discover(root(isolated_home)))
    assert isinstance(found, Unresolved)
    assert found.session_id == SESSION  # nothing can be read: the file-name id


def test_missing_root_discovers_nothing(isolated_home: Path) -> None:
    """Without a ``.gemini/tmp`` folder there is nothing to find."""
    assert list(READER.discover(root(isolated_home))) == []


def test_default_roots_honour_gemini_cli_home(isolated_home: Path, tmp_path: Path) -> None:
    """``GEMINI_CLI_HOME`` replaces the home folder that holds ``.gemini``."""
    elsewhere = tmp_path / "job"
    assert READER.default_roots({"GEMINI_CLI_HOME": str(elsewhere)}, isolated_home) == (
        elsewhere / ".gemini" / "tmp",
    )
    assert READER.default_roots({"GEMINI_CLI_HOME": ""}, isolated_home) == (
        isolated_home / ".gemini" / "tmp",
    )


def test_reader_is_registered() -> None:
    """The registry holds this reader under ``gemini``."""
    assert READERS["gemini"] is READER


# ----------------------------------------------------------------------------- project and kind


def test_project_comes_from_the_project_root_marker(isolated_home: Path) -> None:
    """Newer CLIs write the working directory to ``<project>/.project_root``."""
    path = write_document(isolated_home, legacy([user("u1", "hi")]))
    (path.parent.parent / ".project_root").write_text("/home/me/app")
    assert read(path).project == "/home/me/app"


def test_project_comes_from_a_directory_matching_the_hash(isolated_home: Path) -> None:
    """A workspace directory whose sha256 is the recorded ``projectHash`` is the project."""
    digest = hashlib.sha256(b"/srv/app").hexdigest()
    doc = legacy([user("u1", "hi")], projectHash=digest, directories=["/srv/other", "/srv/app"])
    assert read(write_document(isolated_home, doc)).project == "/srv/app"


def test_project_is_none_when_only_a_hash_is_recorded(isolated_home: Path) -> None:
    """A bare ``projectHash`` cannot be turned into a path, so the project is unknown."""
    doc = legacy([user("u1", "hi")], directories=["/srv/unrelated"])
    assert read(write_document(isolated_home, doc)).project is None


def test_subagent_transcript_has_no_messages_and_is_automated(isolated_home: Path) -> None:
    """A ``kind: subagent`` chat is another session's tool call: no messages, automated."""
    records = [
        header(kind="subagent"),
        user("u1", "investigate the repo", 1),
        gemini("g1", "Done."),
    ]
    conversation = read(write_lines(isolated_home, records))
    assert conversation.messages == ()
    assert conversation.automated is True


def test_main_sessions_are_not_marked_automated(isolated_home: Path) -> None:
    """The format does not mark headless runs, so sessions count as interactive."""
    records = [header(kind="main"), user("u1", "hi", 1)]
    assert read(write_lines(isolated_home, records)).automated is False


# ----------------------------------------------------------------------------- real fixtures


def _raw_records(path: Path) -> list[dict[str, Any]]:
    """Message records of a real fixture, decoded independently of the reader."""
    text = path.read_text(encoding="utf-8")
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    records: list[dict[str, Any]] = []
    for doc in docs:
        records.extend(doc.get("messages", []))
        if "id" in doc:
            records.append(doc)
    return records


def _plain(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def _hiddenstrings_in(records: list[dict[str, Any]]) -> list[str]:
    """Long thought, tool and notice strings that no kept turn says itself."""
    said = [_plain(r["content"]) for r in records if r["type"] in ("user", "gemini")]
    candidates: list[str] = []
    for record in records:
        candidates.extend(strings_in([record.get("thoughts"), record.get("toolCalls")]))
        if record["type"] not in ("user", "gemini"):
            candidates.extend(strings_in(record["content"]))
    return [s for s in candidates if len(s) >= 30 and not any(s in text for text in said)]


def _real_paths(shared: Path) -> list[Path]:
    return sorted((shared / "gemini").iterdir())


@pytest.mark.fixtures
def test_real_fixtures_keep_prompts_and_replies_only(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Real sessions keep every typed prompt and reply once and no thought, tool or notice."""
    for source in _real_paths(shared_transcripts):
        records = _raw_records(source)
        conversation = read(source)
        expected = [
            ("user" if r["type"] == "user" else "assistant", _plain(r["content"]).strip())
            for r in records
            if r["type"] in ("user", "gemini") and _plain(r["content"]).strip()
        ]
        assert texts(conversation) == expected, source.name
        hidden = _hiddenstrings_in(records)
        joined = "\n".join(m.text for m in conversation.messages)
        for secret in hidden:
            assert secret not in joined, (source.name, secret[:60])


@pytest.mark.fixtures
def test_real_pretty_document_under_jsonl_name(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The real pretty-printed session stored as ``full.jsonl`` reads as one document."""
    source = shared_transcripts / "gemini" / "entire_ab-2b9748b105-0_full.jsonl.json"
    path = chats_dir(isolated_home) / f"session-{SESSION}.jsonl"
    path.write_bytes(source.read_bytes())
    conversation = read(path)
    assert conversation.messages[0].text.startswith("run an agent that creates a color file")
    assert conversation.user_messages == 1
    assert "update available" not in " ".join(m.text for m in conversation.messages)


@pytest.mark.fixtures
def test_real_fixtures_laid_out_are_discovered_and_read(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Fixtures laid out under HOME are found by their keys and read cleanly."""
    expected = lay_out(shared_transcripts, isolated_home)
    found = list(READER.discover(root(isolated_home)))
    assert sorted(item.key for item in found) == sorted(expected)
    for item in found:
        assert isinstance(item, SessionRef)
        conversation = READER.read(item)
        assert isinstance(conversation, Conversation)
        assert conversation.messages
        assert conversation.project is None
