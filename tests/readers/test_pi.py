"""Pi and OMP reader: roots, discovery, active-branch reading, cleaning, robustness."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.readers import Conversation, SessionRef, Unresolved
from dreamd.readers._io import stat_version
from dreamd.readers.pi import OMP_READER, PI_READER, PiSessionReader

from .layout_pi import lay_out, session_file_name, session_folder

CWD = "/work/proj"
Record = dict[str, Any]
T0 = "2026-05-01T10:00:00.000Z"

# --------------------------------------------------------------------------
# Record builders (the project's own synthetic sessions)
# --------------------------------------------------------------------------


def header(sid: str, *, version: int | None = 3, cwd: Any = CWD, **extra: Any) -> Record:
    """A session header; ``version=None`` gives the v1 shape."""
    record: dict[str, Any] = {"type": "session", "id": sid, "timestamp": T0, "cwd": cwd}
    if version is not None:
        record["version"] = version
    record.update(extra)
    return record


def stamp(second: int) -> str:
    """An ISO time ``second`` seconds after 10:00 (minutes roll over)."""
    return f"2026-05-01T10:{second // 60:02d}:{second % 60:02d}.000Z"


def entry(kind: str, eid: str | None, parent: str | None, second: int, **fields: Any) -> Record:
    """A tree entry (``eid=None`` gives a v1 entry without id/parentId)."""
    record: dict[str, Any] = {"type": kind, "timestamp": stamp(second), **fields}
    if eid is not None:
        record["id"] = eid
        record["parentId"] = parent
    return record


def user(eid: str | None, parent: str | None, second: int, content: Any, **extra: Any) -> Record:
    """A user message entry."""
    message = {"role": "user", "content": content, "timestamp": 1777629600000, **extra}
    return entry("message", eid, parent, second, message=message)


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


def assistant(
    eid: str | None, parent: str | None, second: int, blocks: list[dict[str, Any]], **extra: Any
) -> Record:
    """An assistant message entry."""
    message = {
        "role": "assistant",
        "content": blocks,
        "provider": "anthropic",
        "model": "claude",
        "stopReason": "stop",
        **extra,
    }
    return entry("message", eid, parent, second, message=message)


def role_message(
    eid: str | None, parent: str | None, second: int, role: str, **fields: Any
) -> Record:
    """A message entry of any other role (toolResult, bashExecution, custom...)."""
    return entry("message", eid, parent, second, message={"role": role, **fields})


def write_lines(path: Path, records: Iterable[Any]) -> Path:
    """Write records as JSON Lines, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def pi_session(home: Path, sid: str, records: Iterable[Any], cwd: str = CWD) -> Path:
    """Write a session where Pi would: ``~/.pi/agent/sessions/<cwd>/<ts>_<id>.jsonl``."""
    return write_lines(session_folder(home, cwd) / session_file_name(sid, T0), records)


def ref_for(path: Path, tool: str = "pi", sid: str = "s1") -> SessionRef:
    return SessionRef(tool, sid, path, stat_version(path))


def read(path: Path, reader: PiSessionReader = PI_READER) -> Conversation:
    """Read one file and insist that it is a conversation."""
    result = reader.read(ref_for(path, reader.tool))
    assert isinstance(result, Conversation), result
    return result


def texts(conversation: Conversation) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in conversation.messages]


def keys(found: Iterable[SessionRef | Unresolved]) -> set[str]:
    return {item.key for item in found}


# --------------------------------------------------------------------------
# Default roots
# --------------------------------------------------------------------------


def test_pi_default_root_is_agent_sessions(isolated_home: Path) -> None:
    """Without env vars Pi's sessions are in ~/.pi/agent/sessions."""
    assert PI_READER.default_roots({}, isolated_home) == (isolated_home / ".pi/agent/sessions",)


def test_pi_agent_dir_env_moves_the_sessions(isolated_home: Path) -> None:
    """PI_CODING_AGENT_DIR (absolute or ~-based) replaces ~/.pi/agent."""
    env = {"PI_CODING_AGENT_DIR": "~/custom/agent"}
    assert PI_READER.default_roots(env, isolated_home) == (isolated_home / "custom/agent/sessions",)
    env = {"PI_CODING_AGENT_DIR": "/srv/pi"}
    assert PI_READER.default_roots(env, isolated_home) == (Path("/srv/pi/sessions"),)


def test_pi_session_dir_env_comes_first_and_old_sessions_stay_listed(isolated_home: Path) -> None:
    """PI_CODING_AGENT_SESSION_DIR is listed before the agent dir's own sessions folder."""
    env = {"PI_CODING_AGENT_SESSION_DIR": "/data/pi-sessions"}
    assert PI_READER.default_roots(env, isolated_home) == (
        Path("/data/pi-sessions"),
        isolated_home / ".pi/agent/sessions",
    )


def test_pi_settings_session_dir_is_honoured_when_absolute(isolated_home: Path) -> None:
    """sessionDir in ~/.pi/agent/settings.json counts; a cwd-relative one cannot be placed."""
    settings_file = isolated_home / ".pi/agent/settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps({"sessionDir": "~/pi-logs"}), encoding="utf-8")
    roots = PI_READER.default_roots({}, isolated_home)
    assert roots == (isolated_home / "pi-logs", isolated_home / ".pi/agent/sessions")
    settings_file.write_text(json.dumps({"sessionDir": "relative/dir"}), encoding="utf-8")
    assert PI_READER.default_roots({}, isolated_home) == (isolated_home / ".pi/agent/sessions",)
    settings_file.write_text("[not json", encoding="utf-8")
    assert PI_READER.default_roots({}, isolated_home) == (isolated_home / ".pi/agent/sessions",)


def test_pi_env_var_wins_over_settings_session_dir(isolated_home: Path) -> None:
    """PI_CODING_AGENT_SESSION_DIR overrides the settings file, as in Pi."""
    settings_file = isolated_home / ".pi/agent/settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps({"sessionDir": "/from/settings"}), encoding="utf-8")
    env = {"PI_CODING_AGENT_SESSION_DIR": "/from/env"}
    assert PI_READER.default_roots(env, isolated_home)[0] == Path("/from/env")


def test_pi_relative_env_values_are_ignored(isolated_home: Path) -> None:
    """A relative path depends on the tool's start directory, so it is not followed."""
    env = {"PI_CODING_AGENT_DIR": "agent", "PI_CODING_AGENT_SESSION_DIR": " "}
    assert PI_READER.default_roots(env, isolated_home) == (isolated_home / ".pi/agent/sessions",)


def test_omp_default_root_is_omp_agent_sessions(isolated_home: Path) -> None:
    """Without env vars OMP's sessions are in ~/.omp/agent/sessions."""
    assert OMP_READER.default_roots({}, isolated_home) == (isolated_home / ".omp/agent/sessions",)


def test_omp_legacy_agent_dir_env_comes_first(isolated_home: Path) -> None:
    """OMP_CODING_AGENT_DIR (older OMP releases) is honoured."""
    roots = OMP_READER.default_roots({"OMP_CODING_AGENT_DIR": "/opt/omp"}, isolated_home)
    assert roots == (Path("/opt/omp/sessions"), isolated_home / ".omp/agent/sessions")


def test_omp_leaves_pi_shared_variables_to_the_pi_reader(isolated_home: Path) -> None:
    """PI_CODING_AGENT_DIR/PI_CODING_AGENT_SESSION_DIR are not listed twice under omp."""
    env = {"PI_CODING_AGENT_DIR": "/x/agent", "PI_CODING_AGENT_SESSION_DIR": "/x/sessions"}
    assert OMP_READER.default_roots(env, isolated_home) == (isolated_home / ".omp/agent/sessions",)


@pytest.mark.parametrize(
    ("env", "profile"),
    [
        ({"OMP_PROFILE": "work"}, "work"),
        ({"PI_PROFILE": "home"}, "home"),
        ({"OMP_PROFILE": "work", "PI_PROFILE": "home"}, "work"),
        ({"OMP_PROFILE": "", "PI_PROFILE": "home"}, None),
        ({"OMP_PROFILE": "default"}, None),
        ({"OMP_PROFILE": "Bad Name"}, None),
        ({"OMP_PROFILE": "dots."}, None),
    ],
)
def test_omp_profile_selects_its_own_agent_dir(
    isolated_home: Path, env: dict[str, str], profile: str | None
) -> None:
    """OMP_PROFILE (even empty) beats PI_PROFILE; invalid names fall back to the default."""
    roots = OMP_READER.default_roots(env, isolated_home)
    if profile is None:
        assert roots == (isolated_home / ".omp/agent/sessions",)
    else:
        assert roots == (
            isolated_home / ".omp/profiles" / profile / "agent/sessions",
            isolated_home / ".omp/agent/sessions",
        )


def test_omp_config_dir_rename(isolated_home: Path) -> None:
    """PI_CONFIG_DIR renames ~/.omp."""
    roots = OMP_READER.default_roots({"PI_CONFIG_DIR": ".omp-dev"}, isolated_home)
    assert roots == (isolated_home / ".omp-dev/agent/sessions",)


def test_omp_xdg_data_home_is_used_once_it_exists(isolated_home: Path, tmp_path: Path) -> None:
    """$XDG_DATA_HOME/omp/sessions comes first only after OMP migrated there."""
    xdg = tmp_path / "xdg"
    env = {"XDG_DATA_HOME": str(xdg)}
    assert OMP_READER.default_roots(env, isolated_home) == (isolated_home / ".omp/agent/sessions",)
    (xdg / "omp").mkdir(parents=True)
    assert OMP_READER.default_roots(env, isolated_home)[0] == xdg / "omp/sessions"
    (xdg / "omp/profiles/work").mkdir(parents=True)
    roots = OMP_READER.default_roots({**env, "OMP_PROFILE": "work"}, isolated_home)
    assert roots[0] == xdg / "omp/profiles/work/sessions"


def test_omp_lists_every_existing_profile(isolated_home: Path) -> None:
    """Sessions of profiles that are not active are still the user's sessions."""
    for name in ("beta", "alpha"):
        (isolated_home / ".omp/profiles" / name / "agent").mkdir(parents=True)
    assert OMP_READER.default_roots({}, isolated_home) == (
        isolated_home / ".omp/agent/sessions",
        isolated_home / ".omp/profiles/alpha/agent/sessions",
        isolated_home / ".omp/profiles/beta/agent/sessions",
    )


# --------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------


def test_discover_takes_session_ids_from_file_names(isolated_home: Path) -> None:
    """Each <ts>_<id>.jsonl in a per-cwd folder is one session keyed by its id."""
    pi_session(isolated_home, "0199-aaaa", [header("0199-aaaa")])
    pi_session(isolated_home, "custom_id.with-dots", [header("x")], cwd="/other")
    root = PI_READER.default_roots({}, isolated_home)[0]
    found = list(PI_READER.discover(root))
    assert keys(found) == {"pi:0199-aaaa", "pi:custom_id.with-dots"}
    assert all(isinstance(item, SessionRef) for item in found)


def test_discover_uses_the_stem_of_other_file_names(tmp_path: Path) -> None:
    """A session file opened with --session <name>.jsonl keeps its name as id."""
    write_lines(tmp_path / "notes.jsonl", [header("abc")])
    write_lines(tmp_path / "notes.txt", ["ignored"])
    write_lines(tmp_path / ".hidden.jsonl", [header("h")])
    assert keys(PI_READER.discover(tmp_path)) == {"pi:notes"}


def test_discover_skips_omp_subagent_transcripts(tmp_path: Path) -> None:
    """<session>/<agent>.jsonl beside <session>.jsonl is a subagent, not a session."""
    flat = tmp_path / "flat"
    parent = write_lines(flat / session_file_name("p1", T0), [header("p1")])
    write_lines(flat / parent.stem / "Agent1.jsonl", [header("sub")])
    nested = tmp_path / "nested"
    parent = write_lines(nested / "--w--" / session_file_name("p2", T0), [header("p2")])
    write_lines(parent.with_suffix("") / "Agent2.jsonl", [header("sub2")])
    assert keys(OMP_READER.discover(flat)) == {"omp:p1"}
    assert keys(OMP_READER.discover(nested)) == {"omp:p2"}


def test_discover_reports_a_dangling_link_as_unresolved(tmp_path: Path) -> None:
    """A session file that cannot be stat'ed is reported, not skipped."""
    folder = tmp_path / "--w--"
    folder.mkdir()
    (folder / session_file_name("gone", T0)).symlink_to(tmp_path / "missing.jsonl")
    found = list(PI_READER.discover(tmp_path))
    assert len(found) == 1
    assert isinstance(found[0], Unresolved)
    assert found[0].key == "pi:gone"


def test_discover_survives_a_symlink_loop_and_a_missing_root(tmp_path: Path) -> None:
    """A folder linking to its parent is walked once; a missing root yields nothing."""
    folder = tmp_path / "--w--"
    write_lines(folder / session_file_name("s", T0), [header("s")])
    (folder / "loop").symlink_to(tmp_path)
    assert keys(PI_READER.discover(tmp_path)) == {"pi:s"}
    assert list(PI_READER.discover(tmp_path / "nope")) == []


# --------------------------------------------------------------------------
# Tree sessions: the active branch only
# --------------------------------------------------------------------------


def two_branch_session() -> list[dict[str, Any]]:
    """u1 -> a1 -> (u2a -> a2a, abandoned) | (u2b -> a2b, written later, active)."""
    return [
        header("tree"),
        entry("model_change", "m0000001", None, 0, provider="anthropic", modelId="claude"),
        entry("thinking_level_change", "t0000001", "m0000001", 0, thinkingLevel="off"),
        user("u1000001", "t0000001", 1, text("Plan the parser.")),
        assistant("a1000001", "u1000001", 2, text("Here is a plan.")),
        user("u2a00001", "a1000001", 3, text("Use regexes everywhere.")),
        assistant("a2a00001", "u2a00001", 4, text("Regex plan, abandoned.")),
        user("u2b00001", "a1000001", 5, text("Use a real tokenizer instead.")),
        assistant("a2b00001", "u2b00001", 6, text("Tokenizer plan.")),
    ]


def test_tree_reads_only_the_active_branch(isolated_home: Path) -> None:
    """The path from the last entry to the root is read; the other branch is not."""
    conversation = read(pi_session(isolated_home, "tree", two_branch_session()))
    assert texts(conversation) == [
        ("user", "Plan the parser."),
        ("assistant", "Here is a plan."),
        ("user", "Use a real tokenizer instead."),
        ("assistant", "Tokenizer plan."),
    ]
    assert [m.id for m in conversation.messages] == ["u1000001", "a1000001", "u2b00001", "a2b00001"]
    assert conversation.project == CWD
    assert all(
        m.timestamp is not None and m.timestamp.utcoffset() is not None
        for m in conversation.messages
    )


def test_tree_leaf_is_the_last_entry_even_when_it_is_metadata(isolated_home: Path) -> None:
    """Navigating back to the old branch and labelling it makes that branch active."""
    records = [
        *two_branch_session(),
        entry("label", "l0000001", "a2a00001", 7, targetId="a2a00001", label="keep"),
    ]
    conversation = read(pi_session(isolated_home, "tree", records))
    assert [m.id for m in conversation.messages] == ["u1000001", "a1000001", "u2a00001", "a2a00001"]


def test_branch_summary_is_dropped_and_its_branch_is_active(isolated_home: Path) -> None:
    """branchWithSummary starts a branch at a1; its summary text is not a message."""
    records = [
        *two_branch_session(),
        entry("branch_summary", "b0000001", "a1000001", 7, fromId="a1000001", summary="SUMMARY"),
        user("u3000001", "b0000001", 8, text("Third try.")),
        assistant("a3000001", "u3000001", 9, text("Third answer.")),
    ]
    conversation = read(pi_session(isolated_home, "tree", records))
    assert texts(conversation) == [
        ("user", "Plan the parser."),
        ("assistant", "Here is a plan."),
        ("user", "Third try."),
        ("assistant", "Third answer."),
    ]


def test_reset_leaf_starts_a_new_root(isolated_home: Path) -> None:
    """After re-editing the first prompt the new root's chain is the conversation."""
    records = [
        *two_branch_session(),
        user("r0000001", None, 7, text("Start over.")),
        assistant("r0000002", "r0000001", 8, text("Fresh start.")),
    ]
    conversation = read(pi_session(isolated_home, "tree", records))
    assert texts(conversation) == [("user", "Start over."), ("assistant", "Fresh start.")]


def test_compaction_keeps_earlier_messages_and_drops_the_summary(isolated_home: Path) -> None:
    """A compaction hides older turns from the model, not from the conversation."""
    records = [
        header("c"),
        user("u1000001", None, 1, text("First question.")),
        assistant("a1000001", "u1000001", 2, text("First answer.")),
        entry(
            "compaction",
            "c0000001",
            "a1000001",
            3,
            summary="COMPACTED SUMMARY",
            firstKeptEntryId="a1000001",
            tokensBefore=100,
        ),
        user("u2000001", "c0000001", 4, text("Second question.")),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert [t for _r, t in texts(conversation)] == [
        "First question.",
        "First answer.",
        "Second question.",
    ]


def test_parent_cycles_and_missing_parents_end_the_branch(isolated_home: Path) -> None:
    """A broken parent chain stops the walk instead of looping or failing."""
    cycle = [
        header("cy"),
        user("u1000001", "a1000001", 1, text("Loop prompt.")),
        assistant("a1000001", "u1000001", 2, text("Loop answer.")),
    ]
    conversation = read(pi_session(isolated_home, "cy", cycle))
    assert texts(conversation) == [("user", "Loop prompt."), ("assistant", "Loop answer.")]
    orphan = [header("or"), assistant("a2000001", "nowhere1", 1, text("Orphan answer."))]
    assert texts(read(pi_session(isolated_home, "or", orphan))) == [("assistant", "Orphan answer.")]


def test_ids_and_revision_are_stable_across_reads_and_appends(isolated_home: Path) -> None:
    """Re-reading gives the same revision; appending keeps earlier ids and fingerprints."""
    path = pi_session(isolated_home, "tree", two_branch_session())
    first = read(path)
    assert read(path).revision == first.revision
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(user("u4000001", "a2b00001", 9, text("More."))) + "\n")
    after = read(path)
    assert after.messages[: len(first.messages)] == first.messages
    assert after.revision != first.revision


# --------------------------------------------------------------------------
# Linear v1 sessions
# --------------------------------------------------------------------------


def v1_session() -> list[dict[str, Any]]:
    """A v1 file with every entry kind the real v1 sessions show."""
    thinking = {"type": "thinking", "thinking": "SECRET THOUGHT", "thinkingSignature": "sig"}
    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "TOOL ARG"}}
    return [
        header("v1", version=None, provider="anthropic", branchedFrom="/old/file.jsonl"),
        user(None, None, 1, text("/mode")),
        assistant(None, None, 2, [], stopReason="aborted", errorMessage="Request was aborted"),
        entry("model_change", None, None, 3, provider="anthropic", modelId="claude"),
        entry("thinking_level_change", None, None, 3, thinkingLevel="high"),
        user(None, None, 4, text("Read the file.")),
        assistant(None, None, 5, [thinking, {"type": "text", "text": "Reading it."}, call]),
        role_message(None, None, 6, "toolResult", toolCallId="t1", content=text("TOOL OUTPUT")),
        assistant(None, None, 7, [{"type": "text", "text": "Done reading."}]),
        role_message(None, None, 8, "bashExecution", command="ls", output="BASH OUTPUT"),
        entry("compaction", None, None, 9, summary="V1 SUMMARY", firstKeptEntryIndex=5),
        user(None, None, 10, text("After compaction.")),
    ]


def test_v1_linear_session_keeps_only_prose_with_line_ids(isolated_home: Path) -> None:
    """Every v1 line is on the branch; tool I/O, thinking, summaries and aborts are dropped."""
    conversation = read(pi_session(isolated_home, "v1", v1_session()))
    assert [(m.id, m.role, m.text) for m in conversation.messages] == [
        ("L2", "user", "/mode"),
        ("L6", "user", "Read the file."),
        ("L7", "assistant", "Reading it."),
        ("L9", "assistant", "Done reading."),
        ("L12", "user", "After compaction."),
    ]
    joined = "\n".join(m.text for m in conversation.messages)
    for hidden in ("SECRET", "TOOL", "BASH", "SUMMARY", "aborted"):
        assert hidden not in joined
    assert not conversation.automated


def test_v1_ids_survive_appends(isolated_home: Path) -> None:
    """Line-number ids do not move when the tool appends."""
    path = pi_session(isolated_home, "v1", v1_session())
    before = read(path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(assistant(None, None, 11, text("Appended."))) + "\n")
    after = read(path)
    assert after.messages[:-1] == before.messages
    assert after.messages[-1].id == "L13"


def test_message_time_falls_back_to_the_message_epoch(isolated_home: Path) -> None:
    """Without an entry timestamp the message's epoch-millisecond time is used."""
    record = user("u1000001", None, 1, text("Hi."))
    del record["timestamp"]
    conversation = read(pi_session(isolated_home, "t", [header("t"), record]))
    stamp_ = conversation.messages[0].timestamp
    assert stamp_ is not None
    assert stamp_.isoformat() == "2026-05-01T10:00:00+00:00"


# --------------------------------------------------------------------------
# Cleaning user and assistant text
# --------------------------------------------------------------------------


def test_user_prompt_loses_attached_files_and_skill_text(isolated_home: Path) -> None:
    """@file attachments and an expanded /skill: body are not what the person typed."""
    files = '<file name="/w/a.md">\nFILE BODY\n</file>\n<file name="/w/pic.png"></file>\n'
    skill = '<skill name="review" location="/s/SKILL.md">\nSKILL BODY\n</skill>\n\nCheck this PR.'
    records = [
        header("c"),
        user("u1000001", None, 1, [{"type": "text", "text": files + "Summarise a.md."}]),
        user("u2000001", "u1000001", 2, text(skill)),
        user(
            "u3000001", "u2000001", 3, text('<skill name="x" location="/y">\nONLY SKILL\n</skill>')
        ),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert texts(conversation) == [("user", "Summarise a.md."), ("user", "Check this PR.")]


def test_plain_string_content_counts_and_images_do_not(isolated_home: Path) -> None:
    """User content may be a string; image blocks add no text."""
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    records = [
        header("c"),
        user("u1000001", None, 1, "Plain string prompt."),
        user("u2000001", "u1000001", 2, [image, {"type": "text", "text": "With a picture."}]),
        user("u3000001", "u2000001", 3, [image]),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert texts(conversation) == [("user", "Plain string prompt."), ("user", "With a picture.")]


def test_prompts_written_by_the_program_are_dropped(isolated_home: Path) -> None:
    """synthetic or agent-attributed user prompts go; steering typed by the person stays."""
    records = [
        header("c"),
        user("u1000001", None, 1, text("Auto continue."), synthetic=True),
        user("u2000001", "u1000001", 2, text("Agent hand-off."), attribution="agent"),
        user("u3000001", "u2000001", 3, text("Steer: stop that."), steering=True),
        user("u4000001", "u3000001", 4, text("Typed by me."), attribution="user"),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert [t for _r, t in texts(conversation)] == ["Steer: stop that.", "Typed by me."]


def test_extension_and_tool_messages_are_dropped(isolated_home: Path) -> None:
    """custom_message entries and every non user/assistant role carry no conversation."""
    records = [
        header("c"),
        user("u1000001", None, 1, text("Real prompt.")),
        entry(
            "custom_message",
            "x0000001",
            "u1000001",
            2,
            customType="ext",
            content="EXT",
            display=True,
        ),
        role_message("x0000002", "x0000001", 3, "custom", customType="e", content="CUSTOM"),
        role_message("x0000003", "x0000002", 4, "hookMessage", content="HOOK"),
        role_message("x0000004", "x0000003", 5, "fileMention", content=text("MENTION")),
        role_message("x0000005", "x0000004", 6, "pythonExecution", code="1", output="PY"),
        role_message("x0000006", "x0000005", 7, "branchSummary", summary="BRANCH"),
        role_message("x0000007", "x0000006", 8, "compactionSummary", summary="COMPACT"),
        role_message("x0000008", "x0000007", 9, "developer", content="DEV"),
        entry("custom", "x0000009", "x0000008", 10, customType="state", data={"text": "STATE"}),
        entry("session_info", "x000000a", "x0000009", 11, name="NAME"),
        assistant("a1000001", "x000000a", 12, text("Real answer.")),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert texts(conversation) == [("user", "Real prompt."), ("assistant", "Real answer.")]


def test_assistant_text_blocks_join_and_error_text_stays_out(isolated_home: Path) -> None:
    """Several text blocks make one message; a provider error message is not prose."""
    blocks: list[Record] = [
        {"type": "text", "text": "Part one."},
        {"type": "toolCall", "id": "t", "name": "bash", "arguments": {}},
        {"type": "text", "text": "  "},
        {"type": "text", "text": "Part two."},
    ]
    records = [
        header("c"),
        assistant("a1000001", None, 1, blocks, stopReason="error", errorMessage="HTTP 500"),
    ]
    conversation = read(pi_session(isolated_home, "c", records))
    assert texts(conversation) == [("assistant", "Part one.\n\nPart two.")]


# --------------------------------------------------------------------------
# OMP
# --------------------------------------------------------------------------


def omp_records(sid: str) -> list[Any]:
    """An OMP session: title slot, titled header, OMP-only entry kinds."""
    slot = {"type": "title", "v": 1, "title": "Fix build", "updatedAt": T0, "pad": "    "}
    return [
        slot,
        header(sid, title="Fix build", titleSource="auto"),
        entry("model_change", "m0000001", None, 0, model="anthropic/claude", role="default"),
        user("u1000001", "m0000001", 1, text("Why does the build fail?")),
        role_message("f0000001", "u1000001", 2, "fileMention", files=[{"path": "/w/b"}]),
        assistant("a1000001", "f0000001", 3, text("A missing import.")),
        entry("ttsr_injection", "i0000001", "a1000001", 4, injectedRules=["r"]),
        entry(
            "compaction",
            "c0000001",
            "i0000001",
            5,
            summary="OMP SUMMARY",
            shortSummary="SHORT",
            firstKeptEntryId="a1000001",
            tokensBefore=9,
        ),
        entry("reset_boundary", "r0000001", "c0000001", 6),
        entry("model_usage", "g0000001", "r0000001", 7, usage={"input": 1}),
        user("u2000001", "g0000001", 8, text("Thanks, and the tests?")),
        assistant("a2000001", "u2000001", 9, text("They pass now.")),
    ]


def test_omp_session_reads_past_title_slot_and_skips_subagents(isolated_home: Path) -> None:
    """An OMP session under ~/.omp is read whole; its subagent transcript is not a session."""
    folder = isolated_home / ".omp/agent/sessions/--work-proj--"
    parent = write_lines(folder / session_file_name("0199-omp", T0), omp_records("0199-omp"))
    subagent = [
        header("sub"),
        entry("session_init", "s0000001", None, 0, systemPrompt="SYS", task="TASK", tools=[]),
        user("u1000001", "s0000001", 1, text("Subagent task prompt.")),
    ]
    write_lines(parent.with_suffix("") / "0-Explore.jsonl", subagent)
    (root,) = OMP_READER.default_roots({}, isolated_home)
    (found,) = list(OMP_READER.discover(root))
    assert isinstance(found, SessionRef)
    assert found.key == "omp:0199-omp"
    conversation = OMP_READER.read(found)
    assert isinstance(conversation, Conversation)
    assert conversation.tool == "omp"
    assert conversation.project == CWD
    assert texts(conversation) == [
        ("user", "Why does the build fail?"),
        ("assistant", "A missing import."),
        ("user", "Thanks, and the tests?"),
        ("assistant", "They pass now."),
    ]
    assert not conversation.automated


def test_a_session_spawned_by_an_agent_is_automated(tmp_path: Path) -> None:
    """A session_init entry says an agent, not a person, started the session."""
    records = [
        header("sub"),
        entry("session_init", "s0000001", None, 0, systemPrompt="SYS", task="Do it", tools=[]),
        user("u1000001", "s0000001", 1, text("Do it.")),
        assistant("a1000001", "u1000001", 2, text("Done.")),
    ]
    conversation = read(write_lines(tmp_path / "s.jsonl", records), OMP_READER)
    assert conversation.automated
    assert [t for _r, t in texts(conversation)] == ["Do it.", "Done."]


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b"\x00\xff\xfe garbage\n\x01\x02\n", "not JSON Lines"),
        (b"[1, 2]\n[3]\n", "no session header"),
        (json.dumps(user("u", None, 1, "hi")).encode() + b"\n", "no session header"),
        (
            b'{"type": "model_change"}\n' + json.dumps(header("h")).encode() + b"\n",
            "no session header",
        ),
    ],
)
def test_unreadable_content_is_unresolved(tmp_path: Path, content: bytes, reason: str) -> None:
    """Empty, garbage and header-less files are reported with a reason."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    result = PI_READER.read(ref_for(path))
    assert isinstance(result, Unresolved)
    assert reason in result.reason


def test_header_only_session_is_an_empty_conversation(tmp_path: Path) -> None:
    """A valid session without messages yet is read, not reported."""
    conversation = read(write_lines(tmp_path / "h.jsonl", [header("h")]))
    assert conversation.messages == ()


def test_a_torn_last_line_is_left_for_later(tmp_path: Path) -> None:
    """A line still being written does not spoil the lines before it."""
    path = write_lines(tmp_path / "t.jsonl", [header("t"), user("u1000001", None, 1, "Hi.")])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "message", "id": "a1000001", "parentId": "u10')
    assert texts(read(path)) == [("user", "Hi.")]


def test_wrong_shapes_never_raise(tmp_path: Path) -> None:
    """Lists, numbers and missing keys where objects are expected are skipped."""
    records: list[Any] = [
        header("w", cwd=42),
        [1, 2, 3],
        "a string",
        {"type": "message"},
        {"type": "message", "message": [1]},
        {"type": "message", "message": {"role": 7, "content": "x"}},
        {"type": "message", "message": {"role": "user", "content": {"text": "dict"}}},
        {"type": "message", "message": {"role": "user", "content": [1, None, {"type": "text"}]}},
        {
            "type": "message",
            "id": ["x"],
            "parentId": 5,
            "message": {"role": "user", "content": "A."},
        },
        {
            "type": "message",
            "timestamp": "not a time",
            "message": {"role": "assistant", "content": 3},
        },
        {"type": "message", "timestamp": 1e30, "message": {"role": "user", "content": "B."}},
        {"type": 5, "id": 5},
    ]
    conversation = read(write_lines(tmp_path / "w.jsonl", records))
    assert conversation.project is None
    assert [t for _r, t in texts(conversation)] == ["A.", "B."]
    assert conversation.messages[1].timestamp is None


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_file_is_unresolved(tmp_path: Path) -> None:
    """Permission denied is a reason, not an exception."""
    path = write_lines(tmp_path / "p.jsonl", [header("p")])
    ref = ref_for(path)
    path.chmod(0)
    try:
        result = PI_READER.read(ref)
    finally:
        path.chmod(0o600)
    assert isinstance(result, Unresolved)
    assert "permission" in result.reason


def test_a_file_replaced_after_discovery_is_unresolved(tmp_path: Path) -> None:
    """A different file at the same path is not read as the discovered one."""
    path = write_lines(tmp_path / "r.jsonl", [header("r")])
    ref = ref_for(path)
    fresh = write_lines(tmp_path / "r.tmp", [header("r"), user("u", None, 1, "new")])
    fresh.replace(path)  # an atomic rewrite, as OMP does
    assert isinstance(PI_READER.read(ref), Unresolved)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_give_a_conversation_or_unresolved(tmp_path: Path, data: bytes) -> None:
    """No input makes read raise."""
    path = tmp_path / "random.jsonl"
    path.write_bytes(data)
    assert isinstance(PI_READER.read(ref_for(path)), Conversation | Unresolved)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
entry_like = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["message", "label", "compaction", "custom"]),
        "id": st.sampled_from(["a0000001", "a0000002", "a0000003", None, 4]),
        "parentId": st.sampled_from(["a0000001", "a0000002", None, []]),
        "message": st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "toolResult", 1]),
                "content": json_values,
            }
        )
        | json_values,
    }
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(entry_like | json_values, max_size=8))
def test_random_entries_after_a_header_never_raise(tmp_path: Path, records: list[Any]) -> None:
    """Arbitrary entry shapes give a conversation (the header is valid) and never raise."""
    path = write_lines(tmp_path / "e.jsonl", [header("e"), *records])
    assert isinstance(PI_READER.read(ref_for(path)), Conversation)


def chunks(data: bytes, cut_points: list[int]) -> Iterator[bytes]:
    """The prefixes of ``data`` at the given cut points, then the whole."""
    for cut in sorted(set(cut_points)):
        yield data[: cut % (len(data) + 1)]
    yield data


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=6))
def test_reading_while_the_tool_appends_ends_at_the_same_conversation(
    tmp_path: Path, cuts: list[int]
) -> None:
    """Reads of growing prefixes never raise and the last equals a one-shot read."""
    whole = "".join(json.dumps(r) + "\n" for r in two_branch_session()).encode()
    path = tmp_path / "grow.jsonl"
    results = []
    for prefix in chunks(whole, cuts):
        path.write_bytes(prefix)
        results.append(PI_READER.read(ref_for(path)))
    assert all(isinstance(r, Conversation | Unresolved) for r in results)
    final = results[-1]
    assert isinstance(final, Conversation)
    assert final.revision == read(path).revision
    assert len(final.messages) == 4


# --------------------------------------------------------------------------
# Real sessions (shared fixtures)
# --------------------------------------------------------------------------

REAL = [
    "agentsessions_pi_small.jsonl",
    "pimono_before-compaction.jsonl",
    "pimono_large-session.jsonl",
]


def raw_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def raw_blocks(records: list[dict[str, Any]], role: str, kind: str, field: str) -> list[str]:
    """Every ``field`` of ``kind`` blocks in messages of ``role``, straight from the file."""
    found = []
    for record in records:
        message = record.get("message") or {}
        if record.get("type") == "message" and message.get("role") == role:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == kind:
                    found.append(str(block.get(field, "")).strip())
    return [value for value in found if value]


@pytest.mark.fixtures
def test_real_layout_is_found_under_the_default_roots(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Fixtures laid out like Pi writes them are discovered under the default roots."""
    expected = lay_out(shared_transcripts, isolated_home)
    found = [
        item
        for root in PI_READER.default_roots({}, isolated_home)
        for item in PI_READER.discover(root)
    ]
    assert keys(found) == set(expected)
    assert all(isinstance(item, SessionRef) for item in found)


@pytest.mark.fixtures
@pytest.mark.parametrize("name", REAL)
def test_real_session_keeps_prose_and_nothing_else(shared_transcripts: Path, name: str) -> None:
    """Typed prompts and reply prose survive; thinking, tool I/O and summaries do not."""
    source = shared_transcripts / "pi" / name
    records = raw_records(source)
    conversation = read(source)
    user_texts = [m.text for m in conversation.messages if m.role == "user"]
    reply_texts = [m.text for m in conversation.messages if m.role == "assistant"]
    prompts = raw_blocks(records, "user", "text", "text")
    prose = raw_blocks(records, "assistant", "text", "text")
    assert user_texts == prompts
    assert all(any(p in reply for reply in reply_texts) for p in prose)
    replies_with_text = [
        r
        for r in records
        if r.get("type") == "message"
        and r["message"].get("role") == "assistant"
        and any(b.get("type") == "text" and b["text"].strip() for b in r["message"]["content"])
    ]
    assert len(reply_texts) == len(replies_with_text)
    everything_said = "\n".join(prompts + prose)
    hidden = [
        *raw_blocks(records, "assistant", "thinking", "thinking"),
        *raw_blocks(records, "toolResult", "text", "text"),
        *(json.dumps(b) for b in raw_blocks(records, "assistant", "toolCall", "arguments")),
        *(str(r.get("summary", "")) for r in records if r.get("type") == "compaction"),
        *(
            str(r["message"].get("output", ""))
            for r in records
            if r.get("type") == "message" and r["message"].get("role") == "bashExecution"
        ),
    ]
    leaks = [h for h in hidden if len(h) >= 20 and h not in everything_said]
    joined = "\n".join(m.text for m in conversation.messages)
    assert not [h for h in leaks if h in joined]
    assert conversation.project == records[0]["cwd"]
    assert not conversation.automated
    assert read(source).revision == conversation.revision


@pytest.mark.fixtures
def test_real_v1_sessions_use_line_ids(shared_transcripts: Path) -> None:
    """v1 files have no entry ids, so messages are keyed by line."""
    conversation = read(shared_transcripts / "pi" / "pimono_large-session.jsonl")
    assert conversation.messages[0].id == "L2"
    assert conversation.messages[0].text == "/mode"
    assert all(m.id.startswith("L") for m in conversation.messages)


@pytest.mark.fixtures
def test_real_v3_session_uses_entry_ids_along_the_branch(shared_transcripts: Path) -> None:
    """The v3 file's messages carry its 8-hex entry ids in branch order."""
    conversation = read(shared_transcripts / "pi" / "agentsessions_pi_small.jsonl")
    assert [m.id for m in conversation.messages] == ["30c6a75f", "22a2720e", "ddd2179a", "4a666296"]


@pytest.mark.fixtures
def test_real_session_copied_into_a_flat_session_dir(
    shared_transcripts: Path, tmp_path: Path
) -> None:
    """A custom session folder holds files directly; they are found and read."""
    shutil.copy2(shared_transcripts / "pi" / "agentsessions_pi_small.jsonl", tmp_path / "x.jsonl")
    (found,) = list(PI_READER.discover(tmp_path))
    assert isinstance(found, SessionRef)
    assert isinstance(PI_READER.read(found), Conversation)
