"""Aider's chat log format: chats, records, prompts and replies of ``.aider.chat.history.md``.

Only parsing lives here, on bytes and text already read; finding and reading
the files is ``dreamd.readers.aider``'s part. One file holds many chats, each
opened by ``# aider chat started at YYYY-MM-DD HH:MM:SS`` in the machine's
local time. Aider logs three kinds of writes (``aider/io.py``): typed input as
``#### `` lines, every line ending in two spaces; its own notices as ``> ``
lines ending in two spaces (a multi-line notice from ``tool_output`` has the
``> `` on its first line only and the two spaces on its last); assistant
replies as plain text set off by blank lines. Format rules, one function each:

- chats are found by a bytes search, never a Markdown parse: ``find_chats``;
  header times are naive local time, read in this machine's zone:
  ``chat_started_at``; ids hash what the file itself says: its path
  relative to the project root (found by ``dreamd.readers.aider``), the
  header and how many earlier headers in the file carry the same time, so
  that moving a home or a checkout changes no id: ``chat_id``;
- lines are typed by prefix, trailing spaces and neighbours so that a reply's
  own ``#### Heading`` or ``> quote`` stays prose: ``split_records``;
- notices (banners, ``Tokens:``, ``Applied edit``, ``Commit``, errors, edit
  failure echoes, ``^C`` noise) are dropped whole;
- input that is not a prompt (confirm answers, commands, relogged prompts,
  editor handoffs) is told apart by ``dreamd.readers._aider_input``;
- replies are cleaned by ``dreamd.readers._aider_replies``;
- a ``--message``/``--message-file`` launch is a scripted run:
  ``launched_by_program``.

``chat_messages`` puts them together: the cleaned prompts and replies of one
chat, in order.

Invariants: only the chat's start time is logged, so every message carries
it. Message ids are ``line-<n>``, the chat line where the prompt or reply
begins (the file is append-only, so they stay put). A closed chat's
``Chat.marker`` (offset and length) no longer changes when later chats are
appended. Nothing here opens a file.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import msgspec

from ._aider_input import (
    SENT_COMMANDS,
    Relog,
    command_prompt,
    is_command,
    is_confirm_answer,
    is_editor_handoff,
    normalized,
)
from ._aider_replies import clean_reply, strip_reasoning
from ._model import Message

__all__ = [
    "Chat",
    "Record",
    "chat_id",
    "chat_messages",
    "chat_started_at",
    "find_chats",
    "launched_by_program",
    "legacy_session_id",
    "split_records",
]

_HEADER = b"# aider chat started at "
_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})")

#: Aider's own program in a logged command line, and the flags that make the launch scripted.
_PROGRAM = re.compile(r"(?:^|[/\\])aider(?:\.exe)?$|aider[/\\]__main__\.py$", re.IGNORECASE)
_MESSAGE_FLAGS = ("--message", "--msg", "--message-file")


# --------------------------------------------------------------------------- chats


class Chat(msgspec.Struct, frozen=True):
    """One ``# aider chat started at`` segment of a history file (byte offsets)."""

    offset: int
    end: int
    stamp: str
    ordinal: int
    closed: bool

    @property
    def marker(self) -> str:
        """``<offset>+<length>``: fixed once the chat is closed, growing while it is open."""
        return f"{self.offset}+{self.end - self.offset}"


def find_chats(data: bytes) -> list[Chat]:
    """Every chat of a history file, in file order, found by a bytes search."""
    offsets = _header_offsets(data)
    chats: list[Chat] = []
    seen: dict[str, int] = {}
    for index, offset in enumerate(offsets):
        stamp = _header_stamp(data, offset)
        ordinal = seen.get(stamp, 0)
        seen[stamp] = ordinal + 1
        closed = index + 1 < len(offsets)
        end = _segment_end(data, offsets[index + 1]) if closed else len(data)
        chats.append(Chat(offset, end, stamp, ordinal, closed))
    return chats


def _header_offsets(data: bytes) -> list[int]:
    """Offsets of header lines: the header text at the start of a line."""
    offsets: list[int] = []
    position = data.find(_HEADER)
    while position >= 0:
        if position == 0 or data[position - 1] == 0x0A:
            offsets.append(position)
        position = data.find(_HEADER, position + 1)
    return offsets


def _header_stamp(data: bytes, offset: int) -> str:
    """The header's text after ``started at``."""
    line_end = data.find(b"\n", offset)
    if line_end < 0:
        line_end = len(data)
    return data[offset + len(_HEADER) : line_end].decode("utf-8", "replace").strip()


def _segment_end(data: bytes, next_offset: int) -> int:
    """Where a chat ends: Aider writes ``\\n# aider chat ...``, so the blank
    line before a header belongs to the new chat and a closed chat keeps the
    length it had while it was the last one."""
    if data[next_offset - 4 : next_offset] == b"\r\n\r\n":
        return next_offset - 2
    if data[next_offset - 2 : next_offset] == b"\n\n":
        return next_offset - 1
    return next_offset


def chat_started_at(stamp: str) -> datetime | None:
    """The header time in UTC. Aider writes ``datetime.now()`` without a zone,
    so it is read as local time of this machine (right when the reader runs
    where Aider ran, in the same zone)."""
    found = _STAMP.match(stamp)
    if found is None:
        return None
    try:
        year, month, day, hour, minute, second = (int(part) for part in found.groups())
        return datetime(year, month, day, hour, minute, second).astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None


def legacy_session_id(path: Path, stamp: str, ordinal: int) -> str:
    """The id readers gave a chat before ids stopped depending on where the file
    is: the hash covered the file's real (absolute) path. Kept as an alias."""
    return chat_id(os.path.realpath(path), stamp, ordinal)


def chat_id(where: str, stamp: str, ordinal: int) -> str:
    """``<YYYYMMDDTHHMMSS>-<hash>`` of one chat: the hash covers ``where`` (the file's
    path relative to its project root), the header text and the count of earlier
    same-time headers."""
    key = f"{where}\n{stamp}\n{ordinal}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(key).hexdigest()[:12]
    found = _STAMP.match(stamp)
    label = "{}{}{}T{}{}{}".format(*found.groups()) if found else "undated"
    return f"{label}-{digest}"


# --------------------------------------------------------------------------- records

Kind = Literal["user", "tool", "text"]
#: How each line kind groups into records.
_GROUP: dict[str, Kind] = {
    "user": "user",
    "tool": "tool",
    "open": "tool",
    "text": "text",
    "blank": "text",
}


class Record(msgspec.Struct):
    """Consecutive lines of one kind; ``line`` is where it starts (header = 1)."""

    kind: Kind
    line: int
    lines: list[str] = msgspec.field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def first_text_line(self) -> int:
        """Line number of the record's first non-blank line (a reply opens blank)."""
        blanks = next((i for i, line in enumerate(self.lines) if line.strip()), 0)
        return self.line + blanks


def split_records(text: str) -> list[Record]:
    """The records of one chat segment (its first line is the header)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    hard = _uses_hard_breaks(lines)
    records: list[Record] = []
    previous = "blank"
    for number, line in enumerate(lines[1:], start=2):
        kind = _line_kind(line, previous, hard)
        group = _GROUP[kind]
        if records and records[-1].kind == group:
            records[-1].lines.append(line)
        else:
            records.append(Record(group, number, [line]))
        previous = kind
    return records


def _uses_hard_breaks(lines: list[str]) -> bool:
    """True when Aider's two trailing spaces survive (nobody stripped them)."""
    return any(_ends_hard(line) for line in lines if _is_input_line(line) or _is_notice(line))


def _line_kind(line: str, previous: str, hard: bool) -> str:
    """``user``, ``tool``, ``open`` (inside a multi-line notice), ``text`` or ``blank``.

    Input always follows a blank line and every input line ends in two
    spaces; a notice line ends in two spaces unless it opens a multi-line
    notice, which only follows another notice or input. A reply line never
    follows a record directly, so ``#### Heading`` or ``> quote`` in a reply
    stays text.
    """
    if previous == "open":
        if _is_input_line(line) and _ends_hard(line):
            return "user"
        return "tool" if _ends_hard(line) else "open"
    if not line.strip():
        return "blank"
    if _is_input_line(line) and previous in ("blank", "user") and (_ends_hard(line) or not hard):
        return "user"
    if _is_notice(line) and previous != "text":
        if _ends_hard(line) or not hard:
            return "tool"
        if previous in ("user", "tool"):
            return "open"
    return "text"


def _is_input_line(line: str) -> bool:
    return line.startswith("#### ") or line.rstrip() == "####"


def _is_notice(line: str) -> bool:
    return line.startswith("> ") or line == ">"


def _ends_hard(line: str) -> bool:
    return line.endswith("  ")


def input_text(lines: Iterable[str]) -> str:
    """What was typed: ``#### `` prefixes and Aider's trailing spaces removed."""
    body = [(line[5:] if line.startswith("#### ") else line[4:]).rstrip() for line in lines]
    return "\n".join(body).strip()


# --------------------------------------------------------------------------- conversation


class _Turns(msgspec.Struct):
    """Messages built so far from a chat's records, and what the next input may repeat."""

    started: datetime | None
    messages: list[Message] = msgspec.field(default_factory=list)
    prompted: bool = False
    relog: Relog | None = None
    last_reply: str = ""

    def add_input(self, record: Record) -> None:
        """One input record: a prompt, a prompt-carrying command, or nothing."""
        self.prompted = True
        text = input_text(record.lines)
        relog, self.relog = self.relog, None
        last_reply, self.last_reply = self.last_reply, ""
        if relog is not None and relog.repeated_by(text):
            return
        if not text or text == "<blank>" or is_confirm_answer(text):
            self.last_reply = last_reply
            return
        if is_editor_handoff(text, last_reply):
            return
        if is_command(text):
            carried = command_prompt(text)
            if carried is None:
                return
            if carried[0] in SENT_COMMANDS:
                self.relog = Relog(*carried)
            text = carried[1]
        self._append(record, "user", text)

    def add_reply(self, record: Record) -> None:
        """One text record: the reply's prose (text before any input is a notice)."""
        raw = record.text
        if not self.prompted or not raw.strip():
            return
        self.last_reply = normalized(strip_reasoning(raw))
        reply = clean_reply(raw)
        if reply:
            self._append(record, "assistant", reply)

    def _append(self, record: Record, role: Literal["user", "assistant"], text: str) -> None:
        message = Message.build(f"line-{record.first_text_line}", role, text, self.started)
        if message is not None:
            self.messages.append(message)


def chat_messages(records: Iterable[Record], started: datetime | None) -> list[Message]:
    """The cleaned prompts and replies of one chat."""
    turns = _Turns(started)
    for record in records:
        if record.kind == "user":
            turns.add_input(record)
        elif record.kind == "text":
            turns.add_reply(record)
    return turns.messages


def launched_by_program(records: Iterable[Record]) -> bool:
    """True when the logged command line (a notice before the first input) has
    ``--message``/``-m``/``--message-file``/``-f``: one scripted prompt, then exit."""
    for record in records:
        if record.kind == "user":
            return False
        if record.kind == "tool" and any(_is_scripted_launch(line) for line in record.lines):
            return True
    return False


def _is_scripted_launch(line: str) -> bool:
    words = line[2:].split()
    if not words or _PROGRAM.search(words[0]) is None:
        return False
    return any(_is_message_flag(word) for word in words[1:])


def _is_message_flag(word: str) -> bool:
    name = word.split("=", 1)[0]
    if name in _MESSAGE_FLAGS:
        return True
    return not word.startswith("--") and word[:2] in ("-m", "-f")
