"""Claude Code sessions: ``<config dir>/projects/<encoded cwd>/<session id>.jsonl``.

How Claude Code writes a session (CLI 1.x to 2.1.x), and what this reader keeps:

- One JSON record per line; ``type`` says what it is. Only ``user`` and
  ``assistant`` records carry conversation, plus the two record kinds that
  log a mid-turn message (below). Every other type (system, summary,
  progress, file-history-snapshot, pr-link, permission-mode, other
  attachments, ... and whatever a later version adds) is ignored.
- One streamed reply is written as several ``assistant`` records that share
  ``message.id``, one content block each. They are merged back into one
  message at the place of its first text, keeping ``text`` blocks only
  (thinking, redacted thinking and tool calls are dropped).
- ``user`` records hold typed prompts, but also tool results, slash-command
  and shell-mode envelopes, skill bodies and caveats (``isMeta``), compaction
  summaries (``isCompactSummary``), interruption markers and notifications
  that a program, not a person, sent. Only the typed text survives, and the
  reason a person typed when rejecting a tool use, which Claude Code stores
  inside an ``is_error`` tool result after "the user said:" (the rest of
  that result is the program's).
- Subagent exchanges are ``isSidechain`` records, stored in sibling
  ``agent-<id>.jsonl`` files (before 2.1) or under ``<session>/subagents/``
  (2.1 on). Neither is a session of its own; stray sidechain records inside a
  main file are dropped too.
- A message typed while a turn runs is handed to the model mid-turn and is
  never written as a ``user`` record: newer versions log it as an
  ``attachment`` of type ``queued_command``, older ones only as a
  ``queue-operation`` ``enqueue`` later ``remove``d. Both are taken as prompts
  (``dequeue``d entries come back as ordinary user records; ``popAll`` hands
  them back to the input box, undelivered).
- A rewind (the person went back and typed a new prompt) leaves the old
  branch in the file: the conversation is the branch holding the latest
  leaf, the last user or assistant record of the main chain in file order;
  branches replaced at a fork of two or more typed prompts are dropped, and
  broken chains fall back to file order (``dreamd.readers._claude_branches``).
- The session id is the file's stem: a resumed or plan-continued session
  carries an older ``sessionId`` in its first records.
- ``cwd`` in the records is the project; the encoded folder name is lossy and
  never decoded. ``entrypoint`` names what started the process: ``cli``,
  ``claude-vscode`` and ``claude-desktop`` are people; ``sdk-*`` (``claude -p``
  and the Agent SDKs) and ``mcp`` are programs.

Decoding is the hot path (sessions reach several MB, mostly tool output and
progress noise): lines that cannot be a user, assistant or queue record are
decoded into a struct of their five link fields only, and the rest into small
typed structs, so that tool inputs and results are scanned but never
materialised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from dreamd.agentdirs import claude_config_dirs, unique_paths

from ._claude_branches import Linked, abandoned_branches
from ._common import discover_files, load_bytes, unresolved
from ._model import Conversation, Message, Role, SessionRef, Unresolved
from ._parse import (
    JsonError,
    decode_json,
    decode_json_lines,
    parse_timestamp,
    strip_tagged_blocks,
    trim_padding,
)

__all__ = ["READER", "ClaudeCodeReader"]

TOOL = "claude-code"

#: ``entrypoint`` values written when a program, not a person, drives the session.
_AUTOMATED_ENTRYPOINTS = frozenset({"mcp"})
_AUTOMATED_ENTRYPOINT_PREFIX = "sdk-"

#: ``origin.kind`` values of user records that no person typed.
_MACHINE_ORIGINS = frozenset({"task-notification", "peer"})

#: Envelopes Claude Code wraps around (or appends to) user text. Whatever is
#: left once they are removed is what the person typed; nothing left = no prompt.
_ENVELOPE_TAGS = (
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "user-prompt-submit-hook",
    "user-memory-input",
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
)

#: Reasoning some prompts make the model write into its prose (closed blocks only).
_INLINE_REASONING_TAGS = ("thinking",)

_INTERRUPTION = re.compile(r"\[Request interrupted by user[^\]\n]*\]")

#: How the result of a tool use the person rejected starts, and where their words begin.
_REJECTED = "The user doesn't want to proceed with this tool use"
_USER_SAID = "the user said:"

#: The pointer to the old transcript appended to a plan sent as "Implement the following plan".
_PLAN_TRANSCRIPT_HINT = re.compile(
    r"\n*If you need specific details from before exiting plan mode\b.*\Z", re.DOTALL
)

#: The pointer Claude Code (2.1.8x) writes after a background task's notification block.
_TASK_TRAILER = re.compile(
    r"(</task-notification\s*>)[ \t]*(?:\r?\n)*[ \t]*Full transcript available at:[^\n]*",
    re.IGNORECASE,
)

#: User texts Claude Code writes itself (caveats, compaction summaries, hook blocks).
_GENERATED_PROMPT = re.compile(
    r"^(?:Caveat: The messages below were generated by the user while running local commands"
    r"|This session is being continued from a previous conversation"
    r"|Operation stopped by hook:"
    r"|\S+ operation blocked by hook:)"
)

#: A line holding none of these cannot be a user, assistant or queue record.
_USER_MARK = b'"user"'
_ASSISTANT_MARK = b'"assistant"'
_QUEUE_MARK = b'"queue'


# --- Where sessions live ----------------------------------------------------------


def default_roots(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """``projects`` under each of Claude Code's config directories: where it keeps sessions."""
    return unique_paths(directory / "projects" for directory in claude_config_dirs(env, home))


def _is_transcript_name(name: str) -> bool:
    return name.endswith(".jsonl")


def _session_id(location: str) -> str | None:
    """The file stem; None for old-layout subagent files ``agent-<id>.jsonl``."""
    stem = location.rpartition(os.sep)[2][: -len(".jsonl")]
    if not stem or stem.startswith("agent-"):
        return None
    return stem


# --- Typed records: only the fields this reader looks at -------------------------


class _Block(msgspec.Struct):
    """One content block; tool inputs, results and thinking are skipped unread.

    A tool result's ``content`` stays raw bytes: it is decoded only for an
    ``is_error`` result, where a person's words may be (a rejected tool use).
    """

    type: Any = None
    text: Any = None
    is_error: Any = None
    content: msgspec.Raw = msgspec.Raw()


class _ApiMessage(msgspec.Struct):
    """The ``message`` of a user or assistant record."""

    id: Any = None
    model: Any = None
    content: str | list[_Block] | None = None


class _Attachment(msgspec.Struct, rename="camel"):
    """The ``attachment`` of an attachment record (only queued prompts matter)."""

    type: Any = None
    prompt: Any = None
    command_mode: Any = None
    origin: Any = None


class _Link(msgspec.Struct, rename="camel"):
    """Any line of a transcript as the branch rules see it: what it is and what it follows."""

    type: Any = None
    uuid: Any = None
    parent_uuid: Any = None
    logical_parent_uuid: Any = None
    is_sidechain: Any = None


class _Record(_Link, rename="camel"):
    """A user, assistant or queue line, reduced to what selection and cleaning need."""

    timestamp: Any = None
    cwd: Any = None
    entrypoint: Any = None
    origin: Any = None
    is_meta: Any = None
    is_compact_summary: Any = None
    is_visible_in_transcript_only: Any = None
    is_api_error_message: Any = None
    # Raw: only whether it is there matters; the (often huge) value is not built.
    tool_use_result: msgspec.Raw = msgspec.Raw()
    message: _ApiMessage | None = None
    operation: Any = None
    content: Any = None
    attachment: _Attachment | None = None


_decode_record = msgspec.json.Decoder(_Record).decode
_decode_link = msgspec.json.Decoder(_Link).decode


@dataclass(slots=True)
class _Decoded:
    """Records recovered from a transcript, with the counts that tell it from garbage."""

    records: list[tuple[int, _Link]] = field(default_factory=list)
    good_lines: int = 0
    bad_lines: list[int] = field(default_factory=list)

    @property
    def mostly_garbage(self) -> bool:
        return self.good_lines == 0 or len(self.bad_lines) > self.good_lines


def _decode_transcript(data: bytes) -> _Decoded:
    """Decode the lines that may hold conversation; count the rest cheaply."""
    decoded = _Decoded()
    lines = data.split(b"\n")
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        conversation = _USER_MARK in line or _ASSISTANT_MARK in line or _QUEUE_MARK in line
        try:
            record = _decode_record(line) if conversation else _decode_link(line)
        except (msgspec.DecodeError, RecursionError):
            _recover_line(decoded, line, index + 1, torn=index == last)
            continue
        decoded.records.append((index + 1, record))
        decoded.good_lines += 1
    return decoded


def _recover_line(decoded: _Decoded, line: bytes, number: int, *, torn: bool) -> None:
    """Slow path for one line: wrong shapes, two records on one line, garbage.

    An undecodable last line without a newline is a record still being
    written: it is left out, not counted against the file. NUL padding and a
    byte-order mark around a line are not damage.
    """
    line = trim_padding(line)
    if not line.strip():
        return
    try:
        values = [value for _, value in decode_json_lines(line).records]
    except RecursionError:
        values = []
    records = [record for record in map(_record_from_value, values) if record is not None]
    if records:
        decoded.records.extend((number, record) for record in records)
        decoded.good_lines += 1
    elif values or not line.strip():
        return
    elif not torn:
        decoded.bad_lines.append(number)


def _record_from_value(value: Any) -> _Record | None:
    """A ``_Record`` from a generically decoded value, ignoring wrongly typed parts."""
    if not isinstance(value, dict):
        return None
    return _Record(
        type=value.get("type"),
        uuid=value.get("uuid"),
        parent_uuid=value.get("parentUuid"),
        logical_parent_uuid=value.get("logicalParentUuid"),
        is_sidechain=value.get("isSidechain"),
        timestamp=value.get("timestamp"),
        cwd=value.get("cwd"),
        entrypoint=value.get("entrypoint"),
        origin=value.get("origin"),
        is_meta=value.get("isMeta"),
        is_compact_summary=value.get("isCompactSummary"),
        is_visible_in_transcript_only=value.get("isVisibleInTranscriptOnly"),
        is_api_error_message=value.get("isApiErrorMessage"),
        tool_use_result=msgspec.Raw(b"{}") if "toolUseResult" in value else msgspec.Raw(),
        message=_message_from_value(value.get("message")),
        operation=value.get("operation"),
        content=value.get("content"),
        attachment=_attachment_from_value(value.get("attachment")),
    )


def _message_from_value(value: Any) -> _ApiMessage | None:
    if not isinstance(value, dict):
        return None
    content = value.get("content")
    if isinstance(content, list):
        blocks: str | list[_Block] | None = [
            _Block(
                type=item.get("type"),
                text=item.get("text"),
                is_error=item.get("is_error"),
                content=_raw(item.get("content")) if item.get("is_error") is True else _NO_RAW,
            )
            for item in content
            if isinstance(item, dict)
        ]
    else:
        blocks = content if isinstance(content, str) else None
    return _ApiMessage(id=value.get("id"), model=value.get("model"), content=blocks)


_NO_RAW = msgspec.Raw()


def _raw(value: Any) -> msgspec.Raw:
    """``value`` encoded back to JSON, for a field kept raw."""
    try:
        return msgspec.Raw(msgspec.json.encode(value))
    except (TypeError, ValueError, UnicodeEncodeError):
        return _NO_RAW


def _attachment_from_value(value: Any) -> _Attachment | None:
    if not isinstance(value, dict):
        return None
    return _Attachment(
        type=value.get("type"),
        prompt=value.get("prompt"),
        command_mode=value.get("commandMode"),
        origin=value.get("origin"),
    )


# --- Cleaning rules ---------------------------------------------------------------


def _is_hidden_user_record(record: _Record) -> bool:
    """Meta records (caveats, skill bodies), compaction summaries, transcript-only notes."""
    return (
        record.is_meta is True
        or record.is_compact_summary is True
        or record.is_visible_in_transcript_only is True
    )


def _is_machine_origin(origin: Any) -> bool:
    """``origin`` of a prompt a program sent: a background task's notice, another session."""
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return isinstance(kind, str) and kind in _MACHINE_ORIGINS


def _user_texts(record: _Record) -> list[str]:
    """The text parts of a user record, without tool results or images.

    A string content on a record that carries ``toolUseResult`` is tool output.
    Text blocks are kept even beside tool results: that is where a message the
    person typed while a tool ran is stored.
    """
    content = record.message.content if record.message is not None else None
    if isinstance(content, str):
        return [] if len(record.tool_use_result) else [content]
    if not content:
        return []
    return [b.text for b in content if b.type == "text" and isinstance(b.text, str)]


def _rejection_reasons(record: _Record) -> list[str]:
    """What the person typed when rejecting a tool use, from the ``is_error`` tool results.

    Claude Code stores the reason inside the result it sends the model: ``The
    user doesn't want to proceed with this tool use. ... the user said:``
    followed by the person's words. Only those words are theirs; a rejection
    without a reason, and every other error, hold none.
    """
    content = record.message.content if record.message is not None else None
    if not isinstance(content, list):
        return []
    reasons = []
    for block in content:
        if block.type == "tool_result" and block.is_error is True and len(block.content):
            reason = _rejection_reason(_result_text(block.content))
            if reason:
                reasons.append(reason)
    return reasons


def _result_text(raw: msgspec.Raw) -> str:
    """The text of a tool result's content: a string, or its text blocks joined."""
    try:
        value = decode_json(bytes(raw))
    except JsonError:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [b.get("text") for b in value if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(part for part in parts if isinstance(part, str))
    return ""


def _rejection_reason(result: str) -> str:
    """The person's words in a rejected tool use's result, or ""."""
    if not result.lstrip().startswith(_REJECTED):
        return ""
    _head, marker, reason = result.partition(_USER_SAID)
    return reason.strip() if marker else ""


def _drop_task_trailer(text: str) -> str:
    """Remove the ``Full transcript available at: <path>`` line that follows a
    ``<task-notification>`` block: both are the program's, not the person's."""
    if "Full transcript available at:" not in text:
        return text
    return _TASK_TRAILER.sub(r"\1", text)


def _clean_prompt(text: str) -> str:
    """What the person typed: envelopes, reminders and interruption markers removed."""
    if "<" in text:
        text = strip_tagged_blocks(_drop_task_trailer(text), _ENVELOPE_TAGS)
    if "[Request interrupted" in text:
        text = _INTERRUPTION.sub("", text)
    if "exiting plan mode" in text:
        text = _PLAN_TRANSCRIPT_HINT.sub("", text)
    text = text.strip()
    if _GENERATED_PROMPT.match(text):
        return ""
    return text


def _prompt_text(record: _Record, *, rejections: bool = True) -> str:
    """The cleaned prompt of a user record, or "" when it holds none.

    With ``rejections``, the reason the person gave when rejecting a tool use
    counts too: it is their words, stored inside a tool result.
    """
    if _is_hidden_user_record(record) or _is_machine_origin(record.origin):
        return ""
    texts = _user_texts(record)
    if rejections:
        texts += _rejection_reasons(record)
    parts = (_clean_prompt(text) for text in texts)
    return "\n\n".join(part for part in parts if part)


def _queued_prompt_text(record: _Record) -> str:
    """The prompt of an ``attachment`` record of type ``queued_command``, else ""."""
    attachment = record.attachment
    if attachment is None or attachment.type != "queued_command":
        return ""
    if attachment.command_mode not in (None, "prompt") or not isinstance(attachment.prompt, str):
        return ""
    if _is_machine_origin(attachment.origin) or _is_machine_origin(record.origin):
        return ""
    return _clean_prompt(attachment.prompt)


def _is_generated_reply(record: _Record) -> bool:
    """Replies Claude Code wrote itself: API error notices, ``<synthetic>`` placeholders."""
    message = record.message
    return record.is_api_error_message is True or (
        message is not None and message.model == "<synthetic>"
    )


def _reply_texts(record: _Record) -> list[str]:
    """The prose blocks of an assistant record (no thinking, no tool calls)."""
    if _is_generated_reply(record) or record.message is None:
        return []
    content = record.message.content
    if isinstance(content, str):
        texts = [content]
    elif content:
        texts = [b.text for b in content if b.type == "text" and isinstance(b.text, str)]
    else:
        return []
    return [text for text in map(_clean_reply, texts) if text]


def _clean_reply(text: str) -> str:
    """Reply prose without reasoning the model wrote inline as ``<thinking>`` blocks."""
    if "</thinking>" in text:
        text = strip_tagged_blocks(text, _INLINE_REASONING_TAGS)
    return text.strip()


def _is_automated(entrypoint: str | None) -> bool:
    """True for entrypoints of programs: ``claude -p`` and the SDKs (``sdk-*``), ``mcp``."""
    if entrypoint is None:
        return False
    return entrypoint.startswith(_AUTOMATED_ENTRYPOINT_PREFIX) or (
        entrypoint in _AUTOMATED_ENTRYPOINTS
    )


# --- Assembling the conversation -------------------------------------------------


@dataclass(slots=True)
class _Turn:
    """A message being assembled; an assistant turn grows as its split records come."""

    id: str
    role: Role
    parts: list[str]
    timestamp: datetime | None


@dataclass(slots=True)
class _Queued:
    """A prompt waiting in Claude Code's input queue (``queue-operation enqueue``)."""

    line: int
    content: Any
    timestamp: Any


@dataclass(slots=True)
class _Session:
    """Everything learnt from one pass over the records."""

    turns: list[_Turn] = field(default_factory=list)
    replies: dict[str, _Turn] = field(default_factory=dict)
    seen_uuids: set[str] = field(default_factory=set)
    queue: list[_Queued] = field(default_factory=list)
    from_queue: set[str] = field(default_factory=set)
    prompts: set[str] = field(default_factory=set)
    project: str | None = None
    entrypoint: str | None = None

    def take(self, number: int, record: _Record) -> None:
        """Fold one record into the session; record types not named here are ignored."""
        kind = record.type
        if kind == "queue-operation":
            self._take_queue_operation(number, record)
            return
        if kind != "user" and kind != "assistant" and kind != "attachment":
            return
        if kind != "attachment":
            self._note_context(record)
        if record.is_sidechain is True or self._is_repeat(record):
            return
        if kind == "assistant":
            self._take_reply(number, record)
        elif kind == "user":
            self._add_prompt(record, _prompt_text(record), f"user-line-{number}")
        else:
            self._add_prompt(record, _queued_prompt_text(record), f"queued-line-{number}")

    def _note_context(self, record: _Record) -> None:
        """The first ``cwd`` is the project; the first ``entrypoint`` says who started it."""
        if self.project is None and isinstance(record.cwd, str) and record.cwd:
            self.project = record.cwd
        if self.entrypoint is None and isinstance(record.entrypoint, str):
            self.entrypoint = record.entrypoint

    def _is_repeat(self, record: _Record) -> bool:
        """A record written twice (same ``uuid``) counts once."""
        uuid = record.uuid
        if not isinstance(uuid, str) or not uuid:
            return False
        if uuid in self.seen_uuids:
            return True
        self.seen_uuids.add(uuid)
        return False

    def _add_prompt(self, record: _Record, text: str, fallback_id: str) -> None:
        """A prompt, under its record's ``uuid`` (or a line-based id when it has none)."""
        if text:
            self.prompts.add(text)
            stamp = parse_timestamp(record.timestamp)
            self.turns.append(_Turn(_record_id(record, fallback_id), "user", [text], stamp))

    def _take_reply(self, number: int, record: _Record) -> None:
        """Merge the text of split records that share ``message.id``."""
        texts = _reply_texts(record)
        if not texts:
            return
        key = _reply_id(record, number)
        turn = self.replies.get(key)
        if turn is None:
            turn = _Turn(key, "assistant", [], parse_timestamp(record.timestamp))
            self.replies[key] = turn
            self.turns.append(turn)
        for text in texts:
            if text not in turn.parts:
                turn.parts.append(text)

    def _take_queue_operation(self, number: int, record: _Record) -> None:
        """Follow the input queue; an entry ``remove``d was delivered mid-turn.

        Entries leave the queue in order: ``dequeue`` starts a new turn (an
        ordinary user record follows), ``remove`` hands the entry to the
        running turn (no user record is written), ``popAll`` gives every entry
        back to the input box undelivered.
        """
        operation = record.operation
        if operation == "enqueue":
            self.queue.append(_Queued(number, record.content, record.timestamp))
        elif operation == "popAll":
            self.queue.clear()
        elif operation in ("dequeue", "remove") and self.queue:
            entry = self.queue.pop(0)
            if operation == "remove" and isinstance(entry.content, str):
                self._add_delivered(entry)

    def _add_delivered(self, entry: _Queued) -> None:
        text = _clean_prompt(entry.content)
        if text:
            message_id = f"queued-line-{entry.line}"
            self.from_queue.add(message_id)
            self.turns.append(_Turn(message_id, "user", [text], parse_timestamp(entry.timestamp)))

    def messages(self) -> tuple[Message, ...]:
        """The assembled turns as messages, each id once.

        A queue entry whose text was also recorded as a prompt of its own (a
        ``queued_command`` attachment, a user record) is that prompt, not a second one.
        """
        result: list[Message] = []
        ids: set[str] = set()
        for turn in self.turns:
            text = "\n\n".join(turn.parts)
            if turn.id in ids or (turn.id in self.from_queue and text in self.prompts):
                continue
            message = Message.build(turn.id, turn.role, text, turn.timestamp)
            if message is not None:
                ids.add(turn.id)
                result.append(message)
        return tuple(result)


def _record_id(record: _Record, fallback: str) -> str:
    return record.uuid if isinstance(record.uuid, str) and record.uuid else fallback


def _reply_id(record: _Record, number: int) -> str:
    """``message.id`` (shared by split records), else the record's ``uuid``."""
    message = record.message
    if message is not None and isinstance(message.id, str) and message.id:
        return message.id
    return _record_id(record, f"assistant-line-{number}")


def _in(uuid: Any, uuids: set[str]) -> bool:
    return isinstance(uuid, str) and uuid in uuids


def _is_typed_prompt(record: Linked) -> bool:
    """A user record holding what a person typed at the prompt (a rewind's branches
    start with one; a tool use's rejection reason does not)."""
    if not isinstance(record, _Record) or record.type != "user":
        return False
    return bool(_prompt_text(record, rejections=False))


def _conversation(ref: SessionRef, decoded: _Decoded) -> Conversation:
    """The session from its records, without the branches the person rewound."""
    abandoned = abandoned_branches((record for _, record in decoded.records), _is_typed_prompt)
    session = _Session()
    for number, record in decoded.records:
        if isinstance(record, _Record) and not _in(record.uuid, abandoned):
            session.take(number, record)
    return Conversation(
        ref=ref,
        project=session.project,
        messages=session.messages(),
        automated=_is_automated(session.entrypoint),
        damaged_lines=tuple(decoded.bad_lines),
    )


# --- The reader -------------------------------------------------------------------


class ClaudeCodeReader:
    """Reader for Claude Code's per-session JSONL transcripts."""

    tool = TOOL

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """Where Claude Code keeps its sessions (see ``default_roots``)."""
        return default_roots(env, home)

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every ``<project dir>/<session>.jsonl`` under ``root``; subagent files are skipped."""
        return discover_files(TOOL, root, _is_transcript_name, _session_id, max_depth=2)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one session file."""
        data = load_bytes(ref)
        if isinstance(data, Unresolved):
            return data
        decoded = _decode_transcript(data)
        if decoded.mostly_garbage:
            return unresolved(
                ref,
                f"not JSON Lines ({len(decoded.bad_lines)} undecodable lines, "
                f"{decoded.good_lines} records)",
            )
        try:
            return _conversation(ref, decoded)
        except ValueError as error:
            return unresolved(ref, f"unusable records: {error}")


READER = ClaudeCodeReader()
