"""The Claude Code reader's fast paths read exactly what its careful paths read.

A well-formed transcript is decoded in one pass, every line as a full record;
the careful path decodes line by line and reads a line without a user,
assistant or queue mark as a bare link. Both must give the same records, or
a scan and a ``sources show`` would disagree with what earlier versions
cached. The revision is pinned: if it changed, every user's sessions would
all be collected again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from readers import Conversation, Message
from readers._claude_records import Link, Record, decode_transcript
from readers._claude_records import _decode_line_by_line as careful_decode
from readers._claude_records import _decode_well_formed as fast_decode
from readers._model import FileVersion, SessionRef
from tests.readers.test_claude_code import (
    a_turn,
    assistant,
    encode,
    queued_command,
    read_records,
    system,
    text,
    texts,
    thinking,
    tool_result,
    tool_use,
    user,
)


def _attachment(uuid: str, minute: int, kind: str = "hook_success") -> dict[str, Any]:
    """An attachment record that holds no user, assistant or queue mark on its line."""
    record = system(uuid, "x", minute)
    record.update(type="attachment", attachment={"type": kind, "content": "ok"})
    del record["subtype"], record["level"]
    return record


def _escaped(record: dict[str, Any]) -> bytes:
    """``record`` as a JSON line whose ``type`` and ``role`` are written with escapes."""
    line = json.dumps(record)
    for word in ("user", "assistant"):
        line = line.replace(f'"{word}"', '"\\u00' + f"{ord(word[0]):x}" + word[1:] + '"')
    return line.encode() + b"\n"


TRANSCRIPTS: dict[str, bytes] = {
    "turns": encode([*a_turn(1), *a_turn(2)]),
    "tools and thinking": encode(
        [
            user("u1", "run the tests", 1),
            assistant("a1", "m1", [thinking("hmm")], 1, parentUuid="u1"),
            assistant("a2", "m1", [tool_use("t1", "pytest")], 1, parentUuid="a1"),
            user("r1", [tool_result("t1", "2 passed")], 2, parentUuid="a2"),
            assistant("a3", "m2", [text("All green.")], 2, parentUuid="r1"),
        ]
    ),
    "unmarked attachment before a prompt of the same uuid": encode(
        [_attachment("dup", 1), user("dup", "the real prompt", 2), *a_turn(3)]
    ),
    "queued prompt": encode([*a_turn(1), queued_command("q1", "also do this", 2), *a_turn(3)]),
    "kinds written with escapes": encode(a_turn(1))
    + _escaped(user("u2", "hidden prompt", 2))
    + _escaped(assistant("a2", "m2", [text("hidden reply")], 2)),
    "no final newline": encode(a_turn(1)).rstrip(b"\n"),
}


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_one_pass_gives_the_records_of_the_line_by_line_path(name: str) -> None:
    data = TRANSCRIPTS[name]
    fast = fast_decode(data.split(b"\n"))
    assert fast is not None, "a well-formed transcript takes the one-pass path"
    careful = careful_decode(data.split(b"\n"))
    assert list(fast.numbered()) == list(careful.numbered())
    assert [type(r) for r in fast.records] == [type(r) for r in careful.records]
    assert (fast.good_lines, fast.bad_lines) == (careful.good_lines, careful.bad_lines)


def test_a_line_without_a_mark_is_read_as_a_link_on_both_paths() -> None:
    decoded = decode_transcript(TRANSCRIPTS["kinds written with escapes"])
    kinds = [(r.type, type(r)) for r in decoded.records]
    assert kinds[-2:] == [("user", Link), ("assistant", Link)]
    assert all(kind is Record for _, kind in kinds[:-2])


@pytest.mark.parametrize(
    "data",
    [
        encode(a_turn(1)) + b"\n" + encode(a_turn(2)),  # a blank line
        encode(a_turn(1)) + b'{"type": "user"',  # torn last line
        encode(a_turn(1)) + encode(a_turn(2))[:-1] + b"{}\n",  # two records on one line
        b"\xef\xbb\xbf" + encode(a_turn(1)),  # byte-order mark
    ],
)
def test_anything_not_well_formed_takes_the_line_by_line_path(data: bytes) -> None:
    assert fast_decode(data.split(b"\n")) is None
    assert decode_transcript(data) == careful_decode(data.split(b"\n"))


def test_an_unmarked_attachment_does_not_hide_a_later_prompt_with_its_uuid(
    isolated_home: Path,
) -> None:
    raw = TRANSCRIPTS["unmarked attachment before a prompt of the same uuid"]
    conversation = read_records(isolated_home, raw)
    assert "the real prompt" in texts(conversation, "user")


def test_prompts_written_with_escapes_are_not_read(isolated_home: Path) -> None:
    conversation = read_records(isolated_home, TRANSCRIPTS["kinds written with escapes"])
    assert texts(conversation) == ["prompt number 1", "reply number 1"]


# --- The revision ---------------------------------------------------------------------------

_REF = SessionRef("claude-code", "s1", "/tmp/s1.jsonl", FileVersion(1, 2, 3, 4))
_MESSAGES = (
    ("u1", "user", "Fix the flaky test, please.\x00", datetime(2026, 1, 1, tzinfo=UTC)),
    ("a1", "assistant", "Done <private>key</private>: the retry was the cause.", None),
    ("u2", "user", "Thanks \ud83d!", None),
)
#: Computed by the reader before the fast paths; a change here re-collects every session.
_REVISION = "6037ff22585c9df02f58e5d9e1782f5c"
_FINGERPRINTS = [
    "05a20dc0da5e0fd147fd8e5d4ce032c5",
    "62ec07c5d8a5255e0a478b516dac0b76",
    "7eb22abe6bd36479942a6205a7c14b61",
]


def test_the_revision_of_a_conversation_is_what_earlier_versions_computed() -> None:
    direct = tuple(Message(*fields) for fields in _MESSAGES)
    built = tuple(Message.build(*fields) for fields in _MESSAGES)
    assert direct == built
    for messages in (direct, tuple(m for m in built if m is not None)):
        conversation = Conversation(_REF, "/home/user/src/p", messages)
        assert conversation.revision == _REVISION
        assert [m.fingerprint for m in messages] == _FINGERPRINTS
        assert [m.text for m in messages] == [
            "Fix the flaky test, please.",
            "Done : the retry was the cause.",
            "Thanks \ufffd!",
        ]


def test_build_refuses_a_message_with_nothing_left_and_the_constructor_raises() -> None:
    assert Message.build("u3", "user", " <private>only</private> \x00", None) is None
    with pytest.raises(ValueError, match="u3 has no text"):
        Message("u3", "user", " <private>only</private> ", None)
    with pytest.raises(ValueError, match="role must be"):
        Message.build("u3", "system", "text", None)  # type: ignore[arg-type]
