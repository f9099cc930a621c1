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
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from dreamd.agentdirs import claude_config_dirs, unique_paths

from ._claude_branches import Linked, abandoned_branches
from ._claude_records import Decoded, Link, Record, decode_transcript
from ._claude_text import (
    clean_prompt,
    is_automated,
    is_machine_origin,
    prompt_text,
    queued_prompt_text,
    reply_texts,
)
from ._common import discover_files, load_bytes, unresolved
from ._model import (
    Conversation,
    Digest,
    Message,
    Role,
    SessionRef,
    Unresolved,
    message_fields,
)
from ._parse import (
    parse_timestamp,
)

__all__ = ["READER", "ClaudeCodeReader"]

TOOL = "claude-code"

_Read = TypeVar("_Read", Conversation, Digest)

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


#: A message being assembled: id, role, its text (a prompt) or its text parts (a reply,
#: which grows as its split records come) and its timestamp.
_Turn = tuple[str, Role, "str | list[str]", "datetime | None"]


class _Queued(msgspec.Struct):
    """A prompt waiting in Claude Code's input queue (``queue-operation enqueue``)."""

    line: int
    content: Any
    timestamp: Any


class _Session(msgspec.Struct):
    """Everything learnt from one pass over the records."""

    turns: list[_Turn] = msgspec.field(default_factory=list)
    replies: dict[str, list[str]] = msgspec.field(default_factory=dict)
    seen_uuids: set[str] = msgspec.field(default_factory=set)
    queue: list[_Queued] = msgspec.field(default_factory=list)
    from_queue: set[str] = msgspec.field(default_factory=set)
    prompts: list[str] = msgspec.field(default_factory=list)  # a set only when the queue needs one
    project: str | None = None
    entrypoint: str | None = None

    def take_all(self, numbered: Iterable[tuple[int, Link]], skip: set[str]) -> None:
        """Fold every record into the session, in file order, but those whose ``uuid``
        is in ``skip``; record types not named here are ignored.

        Runs once per record of every transcript a scan reads, so the common
        records (user and assistant lines) are handled inline, with locals:
        fallback ids are made only for a prompt that has no ``uuid``, the
        context is looked at only until it is known.
        """
        turns, replies, seen, prompts = self.turns, self.replies, self.seen_uuids, self.prompts
        project, entrypoint = self.project, self.entrypoint
        for number, record in numbered:
            if not isinstance(record, Record):
                continue
            kind = record.type
            if kind == "assistant" or kind == "user":
                uuid = record.uuid
                has_uuid = uuid.__class__ is str and uuid
                if skip and has_uuid and uuid in skip:
                    continue
                if project is None or entrypoint is None:  # ``_note_context``, inline
                    cwd = record.cwd
                    if project is None and isinstance(cwd, str) and cwd:
                        project = cwd
                    if entrypoint is None and isinstance(record.entrypoint, str):
                        entrypoint = record.entrypoint
                if record.is_sidechain is True:
                    continue
                if has_uuid:  # ``_is_repeat``, inline
                    if uuid in seen:
                        continue
                    seen.add(uuid)
                message = record.message
                content = message.content if message is not None else None
                if isinstance(content, list) and len(content) == 1:
                    block = content[0]
                    # A reply's thinking or tool call, a tool's result: no text here.
                    if block.type != "text" and block.is_error is not True:
                        continue
                if kind == "assistant":
                    texts = _reply_texts(record)
                    if not texts:
                        continue
                    message_id = message.id if message is not None else None
                    if message_id.__class__ is str and message_id:  # ``_reply_id``, inline
                        key = message_id
                    else:
                        key = uuid if has_uuid else f"assistant-line-{number}"
                    parts = replies.get(key)
                    if parts is None:
                        parts = replies[key] = texts if len(texts) == 1 else []
                        turns.append((key, "assistant", parts, parse_timestamp(record.timestamp)))
                        if parts is texts:
                            continue
                    for text in texts:
                        if text not in parts:
                            parts.append(text)
                    continue
                text = _prompt(record)
                if text:
                    prompts.append(text)
                    key = uuid if has_uuid else f"user-line-{number}"
                    turns.append((key, "user", text, parse_timestamp(record.timestamp)))
            elif kind == "attachment":
                if record.is_sidechain is True or _in(record.uuid, skip) or self._is_repeat(record):
                    continue
                self._add_prompt(record, queued_prompt_text(record), "queued-line-", number)
            elif kind == "queue-operation" and not _in(record.uuid, skip):
                self._take_queue_operation(number, record)
        self.project, self.entrypoint = project, entrypoint

    def take(self, number: int, record: Record) -> None:
        """Fold one record into the session (``take_all`` of one record)."""
        self.take_all(((number, record),), set())

    def _is_repeat(self, record: Record) -> bool:
        """A record written twice (same ``uuid``) counts once."""
        uuid = record.uuid
        if not isinstance(uuid, str) or not uuid:
            return False
        if uuid in self.seen_uuids:
            return True
        self.seen_uuids.add(uuid)
        return False

    def _add_prompt(self, record: Record, text: str, fallback: str, number: int) -> None:
        """A prompt, under its record's ``uuid`` (or ``fallback`` and the line number when
        it has none)."""
        if text:
            self.prompts.append(text)
            stamp = parse_timestamp(record.timestamp)
            uuid = record.uuid
            key = uuid if isinstance(uuid, str) and uuid else f"{fallback}{number}"
            self.turns.append((key, "user", text, stamp))

    def _take_queue_operation(self, number: int, record: Record) -> None:
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
        text = clean_prompt(entry.content)
        if text:
            message_id = f"queued-line-{entry.line}"
            self.from_queue.add(message_id)
            self.turns.append((message_id, "user", text, parse_timestamp(entry.timestamp)))

    def messages(self) -> tuple[Message, ...]:
        """The assembled turns as messages, each id once.

        A queue entry whose text was also recorded as a prompt of its own (a
        ``queued_command`` attachment, a user record) is that prompt, not a second one.
        """
        result: list[Message] = []
        ids: set[str] = set()
        build = Message.build
        for key, role, text, stamp in self._candidates(ids):
            message = build(key, role, text, stamp)
            if message is not None:
                ids.add(key)
                result.append(message)
        return tuple(result)

    def _candidates(self, kept: set[str]) -> Iterator[tuple[str, Role, str, datetime | None]]:
        """Each assembled turn with its text joined, but a turn whose id is in ``kept`` (the
        caller adds the ids it made a message of) and a queue entry that was also recorded
        as a prompt of its own."""
        from_queue = self.from_queue
        prompts = set(self.prompts) if from_queue else set()
        for key, role, parts, stamp in self.turns:
            text = parts if parts.__class__ is str else "\n\n".join(parts)
            if key in kept or (from_queue and key in from_queue and text in prompts):
                continue
            yield key, role, text, stamp

    def digest(self, ref: SessionRef, *, automated: bool, damaged: Iterable[int]) -> Digest:
        """The digest of the conversation of ``messages()``: the same turns kept, each
        message's fields made as ``Message.build`` makes them, no message built."""
        ids: set[str] = set()
        valid_ids: list[str] = []
        fingerprints: list[str] = []
        user_texts: list[str] = []
        stamps: list[datetime] = []
        for key, role, text, stamp in self._candidates(ids):
            fields = message_fields(key, role, text, stamp)
            if fields is not None:
                ids.add(key)
                valid_ids.append(fields[0])
                fingerprints.append(fields[2])
                if role == "user":
                    user_texts.append(fields[1])
                if stamp is not None:
                    stamps.append(stamp)
        return Digest.build(
            ref,
            self.project,
            automated=automated,
            damaged_lines=damaged,
            ids=valid_ids,
            fingerprints=fingerprints,
            user_texts=user_texts,
            stamps=stamps,
        )


def _prompt(record: Record) -> str:
    """``prompt_text(record)``, with the common records that hold none told apart first
    (hidden and machine-sent records, a string content beside a tool's result, blocks
    holding neither text nor a rejected tool use) and a plain typed prompt cleaned here."""
    if (
        record.is_meta is True
        or record.is_compact_summary is True
        or record.is_visible_in_transcript_only is True
    ):
        return ""
    if record.origin is not None and is_machine_origin(record.origin):
        return ""
    message = record.message
    content = message.content if message is not None else None
    if isinstance(content, str):
        return "" if len(record.tool_use_result) else clean_prompt(content)
    if not content:
        return ""
    for block in content:
        if block.type == "text" or block.is_error is True:
            return prompt_text(record)
    return ""


def _reply_texts(record: Record) -> list[str]:
    """``reply_texts(record)``, a record of one block (how Claude Code streams a reply)
    looked at here: most hold thinking or a tool call, and no text."""
    message = record.message
    if message is None:
        return []
    content = message.content
    if isinstance(content, list) and len(content) == 1:
        block = content[0]
        text = block.text
        if block.type != "text" or text.__class__ is not str:
            return []
        if record.is_api_error_message is True or message.model == "<synthetic>":
            return []
        if "</thinking>" in text:
            return reply_texts(record)
        text = text.strip()
        return [text] if text else []
    return reply_texts(record)


def _reply_id(record: Record, number: int) -> str:
    """``message.id`` (shared by split records), else the record's ``uuid``."""
    message = record.message
    if message is not None and isinstance(message.id, str) and message.id:
        return message.id
    uuid = record.uuid
    return uuid if isinstance(uuid, str) and uuid else f"assistant-line-{number}"


def _in(uuid: Any, uuids: set[str]) -> bool:
    return isinstance(uuid, str) and uuid in uuids


def _is_typed_prompt(record: Linked) -> bool:
    """A user record holding what a person typed at the prompt (a rewind's branches
    start with one; a tool use's rejection reason does not)."""
    if not isinstance(record, Record) or record.type != "user":
        return False
    return bool(prompt_text(record, rejections=False))


def _session(decoded: Decoded) -> _Session:
    """Every record folded in, but those on the branches the person rewound."""
    session = _Session()
    session.take_all(decoded.numbered(), abandoned_branches(decoded.records, _is_typed_prompt))
    return session


def _conversation(ref: SessionRef, decoded: Decoded) -> Conversation:
    """The session from its records, without the branches the person rewound."""
    session = _session(decoded)
    return Conversation(
        ref=ref,
        project=session.project,
        messages=session.messages(),
        automated=is_automated(session.entrypoint),
        damaged_lines=tuple(decoded.bad_lines),
    )


def _digest(ref: SessionRef, decoded: Decoded) -> Digest:
    """``Digest.of(_conversation(ref, decoded))``, without building the messages."""
    session = _session(decoded)
    automated = is_automated(session.entrypoint)
    return session.digest(ref, automated=automated, damaged=decoded.bad_lines)


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
        return _read(ref, _conversation)

    def read_digest(self, ref: SessionRef) -> Digest | Unresolved:
        """``Digest.of(read(ref))`` (or the same ``Unresolved``), without the messages."""
        return _read(ref, _digest)


def _read(ref: SessionRef, make: Callable[[SessionRef, Decoded], _Read]) -> _Read | Unresolved:
    """What ``make`` makes of the decoded records of one session file, or why not."""
    data = load_bytes(ref)
    if isinstance(data, Unresolved):
        return data
    decoded = decode_transcript(data)
    if decoded.mostly_garbage:
        return unresolved(
            ref,
            f"not JSON Lines ({len(decoded.bad_lines)} undecodable lines, "
            f"{decoded.good_lines} records)",
        )
    try:
        return make(ref, decoded)
    except ValueError as error:
        return unresolved(ref, f"unusable records: {error}")


READER = ClaudeCodeReader()
