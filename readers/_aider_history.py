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
- answers to confirm prompts that Aider logs as input are not prompts:
  ``is_confirm_answer``; slash and ``!`` commands are dropped, except that
  ``/ask``, ``/code``, ``/architect``, ``/context``, ``/help`` and ``/ok`` keep
  the prompt they carry, and ``/copy-context`` the question it copies for
  another model: ``command_prompt``; Aider logs a sent prompt again as input,
  and the copy is skipped: ``_Relog``;
- in architect mode the architect's reply is handed to the editor model and
  logged again as input: ``is_editor_handoff``;
- replies lose reasoning blocks (``strip_reasoning``), SEARCH/REPLACE edit
  blocks (``drop_search_replace``), whole-file, unified-diff and patch edits
  (``drop_file_edits``, ``drop_patches``) and leaked notice lines
  (``is_notice_line``);
- a ``--message``/``--message-file`` launch is a scripted run:
  ``launched_by_program``.

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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from dreamd.markdown import closes, opening, opening_with_info

from ._model import Message

__all__ = [
    "Chat",
    "Record",
    "chat_id",
    "chat_messages",
    "chat_started_at",
    "clean_reply",
    "command_prompt",
    "find_chats",
    "is_confirm_answer",
    "launched_by_program",
    "legacy_session_id",
    "split_records",
]

_HEADER = b"# aider chat started at "
_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})")

#: Every command of Aider 0.86, for its own prefix matching (``/cha`` is ``/chat-mode``).
_COMMAND_NAMES = (
    "add architect ask chat-mode clear code commit context copy copy-context diff drop edit"
    " editor editor-model exit git help lint load ls map map-refresh model models"
    " multiline-mode ok paste quit read-only reasoning-effort report reset run save settings"
    " test think-tokens tokens undo voice weak-model web"
)
_COMMANDS = frozenset(_COMMAND_NAMES.split())
#: Commands whose arguments Aider sends to the model as the user's message.
_SENT_COMMANDS = frozenset({"ask", "code", "architect", "context", "help", "ok"})
#: Commands whose arguments are the person's question though Aider sends nothing:
#: ``/copy-context <question>`` puts the context and the question on the clipboard,
#: for a model outside Aider.
_QUESTION_COMMANDS = frozenset({"copy-context"})
_PROMPT_COMMANDS = _SENT_COMMANDS | _QUESTION_COMMANDS
_OK_PROMPT = "Ok, please go ahead and make those changes."

_CONFIRM = re.compile(r"\(Y\)es/\(N\)o.*\[[^\]\n]*\]:\s*\S*\s*$")
_PROGRAM = re.compile(r"(?:^|[/\\])aider(?:\.exe)?$|aider[/\\]__main__\.py$", re.IGNORECASE)
_MESSAGE_FLAGS = ("--message", "--msg", "--message-file")

_REASONING = re.compile(
    r"<(thinking-content-[0-9a-fA-F]+|think|thinking)>.*?(?:</\1\s*>|\Z)"
    r"|-{5,}\n► \*\*THINKING\*\*.*?(?:-{5,}\n► \*\*ANSWER\*\*|\Z)",
    re.DOTALL,
)
_SEARCH = re.compile(r"^<{5,9} (?:SEARCH>?|ORIGINAL)\s*$")
_REPLACE = re.compile(r"^>{5,9} (?:REPLACE|UPDATED)\s*$")
_DIFF_LANGS = frozenset({"diff", "patch", "udiff"})
_PATCH_BEGIN, _PATCH_END = "*** Begin Patch", "*** End Patch"

#: Lines of Aider's own messages that reach reply text when a file lost its
#: trailing spaces (an editor or hook stripped them): interrupts, edit failures.
_NOTICE_LINE = re.compile(
    r"^(?:\^C KeyboardInterrupt|\^C again to exit"
    r"|# \d+ SEARCH/REPLACE blocks? failed to match!"
    r"|## SearchReplaceNoExactMatch:"
    r"|The SEARCH section must exactly match an existing block"
    r"|Did you mean to match some of these actual lines from "
    r"|Are you sure you need this SEARCH/REPLACE block\?"
    r"|The REPLACE lines are already in "
    r"|# The other \d+ SEARCH/REPLACE blocks? w(?:ere|as) applied successfully"
    r"|Don't re-send them\.$"
    r"|Just reply with fixed versions of the blocks? above that failed to match"
    r"|The LLM did not conform to the edit format\.)"
)


# --------------------------------------------------------------------------- chats


@dataclass(frozen=True, slots=True)
class Chat:
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


@dataclass(slots=True)
class Record:
    """Consecutive lines of one kind; ``line`` is where it starts (header = 1)."""

    kind: Kind
    line: int
    lines: list[str] = field(default_factory=list)

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


# --------------------------------------------------------------------------- input


def is_confirm_answer(text: str) -> bool:
    """``Add file to the chat? (Y)es/(N)o/... [Yes]: skip``: Aider logs the answer
    to a grouped confirm question as input; it is not a prompt."""
    return "\n" not in text and _CONFIRM.search(text) is not None


def is_command(text: str) -> bool:
    """Aider runs any input starting with ``/`` or ``!`` as a command, never as chat."""
    return text[:1] in ("/", "!")


def resolve_command(word: str) -> str | None:
    """The command Aider runs for ``/word``: the exact name, else the only one it prefixes."""
    name = word[1:]
    if name in _COMMANDS:
        return name
    matches = [command for command in _COMMANDS if command.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def command_prompt(text: str) -> tuple[str, str] | None:
    """``(command, prompt)`` for a command that sends its arguments to the model.

    ``/ask q``, ``/code q``, ``/architect q``, ``/context q``, ``/help q`` send
    ``q``; ``/ok x`` sends ``Ok, please go ahead and make those changes. x``;
    ``/copy-context q`` sends nothing but ``q`` is the person's question all
    the same. Every other command, an ambiguous or unknown one and ``!shell``
    carry no prompt.
    """
    if not text.startswith("/"):
        return None
    word = text.split(maxsplit=1)[0]
    name = resolve_command(word)
    if name not in _PROMPT_COMMANDS:
        return None
    rest = text[len(word) :].strip()
    if name == "ok":
        return name, f"{_OK_PROMPT} {rest}".strip()
    return (name, rest) if rest else None


@dataclass(frozen=True, slots=True)
class _Relog:
    """A prompt sent through a command, which Aider logs once more as input."""

    command: str
    prompt: str

    def repeated_by(self, text: str) -> bool:
        """True for the logged copy (``/help`` logs its docs-laden question)."""
        if self.command == "help":
            return text.startswith("# Question:")
        return _normalized(text) == _normalized(self.prompt)


def is_editor_handoff(text: str, last_reply: str) -> bool:
    """True when the input is the architect's reply that Aider passed to the editor
    model, which it logs as input right after that reply."""
    return bool(last_reply) and _normalized(text) == last_reply


def _normalized(text: str) -> str:
    """Text compared line by line without trailing spaces or outer blank lines."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines()).strip()


# --------------------------------------------------------------------------- replies


def clean_reply(text: str) -> str:
    """A reply's prose: reasoning, edit blocks and leaked notices removed."""
    lines = strip_reasoning(text).split("\n")
    lines = drop_search_replace(lines)
    lines = drop_patches(lines)
    lines = drop_file_edits(lines)
    return _tidy(line for line in lines if not is_notice_line(line))


def strip_reasoning(text: str) -> str:
    """Remove ``<thinking-content-<hex>>`` blocks (Aider's tag for model reasoning),
    raw ``<think>``/``<thinking>`` blocks and Aider's THINKING/ANSWER framing."""
    return _REASONING.sub("", text)


def drop_search_replace(lines: list[str]) -> list[str]:
    """Remove ``<<<<<<< SEARCH`` ... ``>>>>>>> REPLACE`` edit blocks with the file
    name and fences around them, in whichever order the model put those."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if _SEARCH.match(lines[index]):
            _drop_block_lead(kept)
            index = _after_edit_block(lines, index)
            continue
        kept.append(lines[index])
        index += 1
    return kept


def _drop_block_lead(kept: list[str]) -> None:
    """Pop the fence and file-name lines (at most three) that open an edit block."""
    for _ in range(3):
        if kept and (opening(kept[-1]) is not None or _is_file_name(kept[-1])):
            kept.pop()
        else:
            return


def _after_edit_block(lines: list[str], start: int) -> int:
    """Index past the block's REPLACE marker and its closing fence; an unfinished
    block runs to the next bare fence or the end."""
    for index in range(start + 1, len(lines)):
        if _REPLACE.match(lines[index]):
            after = index + 1
            if after < len(lines) and _is_bare_fence(lines[after]):
                after += 1
            return after
    for index in range(start + 1, len(lines)):
        if _is_bare_fence(lines[index]):
            return index + 1
    return len(lines)


def drop_patches(lines: list[str]) -> list[str]:
    """Remove ``*** Begin Patch`` ... ``*** End Patch`` edits (Aider's patch format)."""
    kept: list[str] = []
    inside = False
    for line in lines:
        if line.strip() == _PATCH_BEGIN:
            inside = True
        elif inside and line.strip() == _PATCH_END:
            inside = False
        elif not inside:
            kept.append(line)
    return kept


def drop_file_edits(lines: list[str]) -> list[str]:
    """Remove fenced blocks that are edits: a whole file under its name (Aider's
    ``whole`` format: the line before the fence is the file name), a unified diff,
    or a block left empty by the other rules. Other code blocks stay."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        opener = opening_with_info(lines[index])
        if opener is None:
            kept.append(lines[index])
            index += 1
            continue
        fence, info = opener
        close = _closing_fence(lines, index, fence)
        body = lines[index + 1 : close]
        if kept and _is_file_name(kept[-1]):
            kept.pop()
        elif _is_fenced_name(body) and close + 1 < len(lines) and lines[close + 1].strip():
            close = _next_bare_fence(lines, close + 1)
        elif not _is_diff(info.split(" ")[0], body) and any(line.strip() for line in body):
            kept.extend(lines[index : close + 1])
        index = close + 1
    return kept


def _is_fenced_name(body: list[str]) -> bool:
    """A block holding only a file name: a ``whole`` edit whose model fenced the
    name and then wrote the file unfenced up to a closing fence."""
    names = [line for line in body if line.strip()]
    return len(names) == 1 and _is_file_name(names[0])


def _next_bare_fence(lines: list[str], start: int) -> int:
    """Index of the first bare fence at or after ``start`` (or the last line)."""
    for index in range(start, len(lines)):
        if _is_bare_fence(lines[index]):
            return index
    return len(lines)


def _closing_fence(lines: list[str], start: int, fence: str) -> int:
    """Index of the fence closing the block opened at ``start`` (or the last line)."""
    for index in range(start + 1, len(lines)):
        if closes(lines[index], fence):
            return index
    return len(lines)


def _is_diff(language: str, body: list[str]) -> bool:
    """A unified diff in a ``diff`` block: Aider's ``udiff`` edit format."""
    return language.lower() in _DIFF_LANGS and any(
        line.startswith(("@@", "+++ ", "--- ")) for line in body
    )


def _is_bare_fence(line: str) -> bool:
    """A fence line without a language: the close (or a bare open) of an edit block."""
    opened = opening_with_info(line)
    return opened is not None and not opened[1]


def _is_file_name(line: str) -> bool:
    """A line holding only a path, as Aider expects before an edit block
    (it strips ``*``, backticks, ``#`` and a trailing colon the same way)."""
    name = line.strip().strip("*").rstrip(":").strip("`").lstrip("#").strip()
    if not name or len(name) > 250 or any(char.isspace() for char in name):
        return False
    return ("." in name or "/" in name) and not name.startswith(("<", "`", "~", "http"))


def is_notice_line(line: str) -> bool:
    """A line of Aider's own notices that can leak into reply text."""
    return _NOTICE_LINE.match(line.strip()) is not None


def _tidy(lines: Iterable[str]) -> str:
    """Trailing spaces removed, runs of blank lines collapsed, outer blanks stripped."""
    out: list[str] = []
    for raw in lines:
        line = raw.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


# --------------------------------------------------------------------------- conversation


@dataclass(slots=True)
class _Turns:
    """Messages built so far from a chat's records, and what the next input may repeat."""

    started: datetime | None
    messages: list[Message] = field(default_factory=list)
    prompted: bool = False
    relog: _Relog | None = None
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
            if carried[0] in _SENT_COMMANDS:
                self.relog = _Relog(*carried)
            text = carried[1]
        self._append(record, "user", text)

    def add_reply(self, record: Record) -> None:
        """One text record: the reply's prose (text before any input is a notice)."""
        raw = record.text
        if not self.prompted or not raw.strip():
            return
        self.last_reply = _normalized(strip_reasoning(raw))
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
