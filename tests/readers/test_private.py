"""``<private>…</private>`` spans never leave a reader (issue 11 item 3, privacy controls)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamd.readers import READERS, Conversation, Message
from dreamd.readers._text import strip_private


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("use uv <private>my key is 1234</private> always", "use uv  always"),
        ("a <PRIVATE>x\ny\nz</Private> b", "a  b"),
        ("<private>one</private> mid <private>two</private>", " mid "),
        ("before <private>never closed\nstill private", "before "),
        ("a stray </private> tag", "a stray  tag"),
        ("no tags at all <b>bold</b>", "no tags at all <b>bold</b>"),
    ],
)
def test_private_spans_are_cut_out(text: str, kept: str) -> None:
    """The span goes with its tags; an unclosed one hides the rest; a stray closer is dropped."""
    assert strip_private(text) == kept


def test_a_message_holds_no_private_text_and_its_fingerprint_ignores_it() -> None:
    """A message's text and fingerprint are those of the text without the private span."""
    message = Message("m1", "user", "Deploy with make <private>p4ssw0rd</private>", None)
    assert message.text == "Deploy with make "
    assert message.fingerprint == Message("m1", "user", "Deploy with make ", None).fingerprint


def test_a_wholly_private_message_is_no_message() -> None:
    """Nothing but a private span: the reader gets no message at all."""
    assert Message.build("m1", "user", "<private>all of it</private>", None) is None


def test_the_claude_code_reader_hands_on_no_private_text(tmp_path: Path) -> None:
    """Read from a real transcript file: the cleaned conversation has no private words."""
    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    base = {"sessionId": "s", "cwd": "/p", "isSidechain": False}
    reply = [{"type": "text", "text": "Sure <private>SECRET-WORD</private>."}]
    lines = [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "Keep <private>SECRET-WORD</private>it short."}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-01-01T00:01:00Z",
         "message": {"role": "user", "content": "<private>only SECRET-WORD</private>"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:02:00Z",
         "message": {"id": "m", "role": "assistant", "content": reply}},
    ]  # fmt: skip
    (folder / "s.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    reader = READERS["claude-code"]
    (ref,) = list(reader.discover(tmp_path / "projects"))
    conversation = reader.read(ref)
    assert isinstance(conversation, Conversation)
    assert [m.text for m in conversation.messages] == ["Keep it short.", "Sure ."]
