"""Gemini CLI reader: chats under ``$GEMINI_CLI_HOME/.gemini/tmp`` (default ``~/.gemini/tmp``).

Where: ``tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of sessionId>.json(l)``;
``<project>`` is a sha256 of the working directory (older releases) or a slug
of its folder name (newer ones, with a ``.project_root`` file holding the
path). Subagent chats live one level deeper (``chats/<parent id>/<id>.jsonl``)
and are not sessions of their own. The session id is the CLI's own
``sessionId`` (what ``gemini --resume`` takes), read by discovery from the
first bytes of the file (``recorded_session_id``: the CLI writes it first,
in the header line or as the document's first key); the file name without
``session-`` and extension, which holds only its first 8 characters, is an
alias a session can still be looked up by, and the id when the head holds
none.

Two storage formats, one replay:

- legacy: ONE JSON document ``{sessionId, projectHash, startTime, lastUpdated,
  messages: [...]}``, rewritten whole on every change (sometimes pretty-printed,
  sometimes under a ``.jsonl`` name: the content decides, not the extension);
- JSON Lines: a header line with the same metadata, then one line per message
  write. A later line with the same ``id`` replaces the earlier one in place;
  ``{"$set": {...}}`` patches metadata and may carry a ``messages`` checkpoint;
  ``{"$rewindTo": id}`` drops that message and everything after it. Resuming a
  legacy ``X.json`` writes ``X.jsonl`` beside it; a hash folder migrated to a
  slug folder is copied, not moved: discovery keeps one file per id.

Kept: ``user`` and ``gemini`` message text. Dropped: ``thoughts``, thought
parts, ``toolCalls`` (arguments and ``functionResponse`` results), tool
results recorded as user turns, ``info``/``error``/``warning`` records,
context the CLI injects as user turns, and ``/compress`` summaries (a
``<state_snapshot>`` user turn plus the canned acknowledgement). Checkpoints
are merged rather than obeyed as deletions, so the conversation before a
compression stays readable. The format does not mark headless runs, so
``automated`` is only set for subagent transcripts (which yield no messages).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec
from msgspec import structs

from ._common import discover_files, load_bytes, unresolved
from ._io import SourceChanged, read_bytes, read_head
from ._model import Conversation, Message, Role, SessionRef, Unresolved
from ._parse import (
    JsonError,
    decode_json,
    decode_json_lines,
    parse_timestamp,
    strip_tagged_blocks,
    trim_padding,
)

__all__ = ["READER", "GeminiReader", "recorded_session_id"]

_PREFIX = "session-"
_SUFFIXES = (".jsonl", ".json")
_CHATS_DIR = "chats"
_PROJECT_ROOT_FILE = ".project_root"

#: Tags the CLI wraps around context it adds to a user turn.
_INJECTED_TAGS = ("session_context", "hook_context", "system_note")

#: ``@file`` expansions: the CLI appends file contents between these markers.
_REFERENCED_FILES = re.compile(
    r"\n?--- Content from referenced files ---.*?(?:--- End of content ---|\Z)", re.DOTALL
)

#: User turns the CLI itself writes (editor context, directory listings,
#: shell-mode output, nudges, plan-mode notices), matched on their opening.
_INJECTED_OPENINGS = (
    "Here is the user's editor context",
    "Here is a summary of changes in the user's editor context",
    "- **Workspace Directories:**",
    "I ran the following shell command:",
    "System: Potential loop detected.",
    "User has manually exited Plan Mode.",
    "Plan approved. Switching to",
)
#: The nudge the CLI sends when a turn stopped early (newer builds prefix ``System:``).
_CONTINUE_NUDGES = frozenset({"Please continue.", "System: Please continue."})

_SNAPSHOT_TAG = "<state_snapshot>"
_SNAPSHOT_ACK = "Got it. Thanks for the additional context!"


# --------------------------------------------------------------------------- discovery


def _accept(name: str) -> bool:
    """Session files are ``session-*.json`` or ``session-*.jsonl``."""
    return name.startswith(_PREFIX) and name.endswith(_SUFFIXES)


def _session_id(location: str) -> str | None:
    """The file name without prefix and extension; None outside a ``chats`` folder.

    ``logs/session-<id>.jsonl`` (prompt logs) shares the name pattern, so the
    parent folder decides.
    """
    path = Path(location)
    if path.parent.name != _CHATS_DIR:
        return None
    stem = path.name.removesuffix(".jsonl").removesuffix(".json")
    return stem.removeprefix(_PREFIX) or stem


#: How much of a session file discovery reads to find its ``sessionId``.
_HEAD_BYTES = 16 * 1024

#: The first ``"sessionId": "<value>"`` pair (the value still JSON-encoded).
_SESSION_ID_FIELD = re.compile(rb'"sessionId"\s*:\s*("(?:[^"\\\n]|\\.){1,512}")')


def recorded_session_id(head: bytes) -> str | None:
    """The ``sessionId`` the first bytes of a session file record, or None.

    Legacy documents start with it (``{"sessionId": ...``, pretty-printed or
    not) and JSON Lines files with a header line holding it, so the first
    occurrence is the session's own.
    """
    found = _SESSION_ID_FIELD.search(head)
    if found is None:
        return None
    try:
        value = decode_json(found.group(1))
    except JsonError:
        return None
    return value if isinstance(value, str) and value.strip() else None


def _rank(item: SessionRef | Unresolved) -> tuple[int, int, int]:
    """Which copy of a session to keep: readable, then JSONL, then newest."""
    jsonl = int(item.path.name.endswith(".jsonl"))
    if isinstance(item, Unresolved):
        return (0, jsonl, 0)
    return (1, jsonl, item.file_version.mtime_ns)


def _one_per_session(
    items: Iterable[SessionRef | Unresolved],
) -> list[SessionRef | Unresolved]:
    """Keep one file per session id (legacy/JSONL pairs, copied hash folders).

    An unreadable copy is known by its file name only: it counts as the
    session whose readable copy has that name as alias.
    """
    listed = list(items)
    by_alias = {
        alias: item.session_id
        for item in listed
        if isinstance(item, SessionRef)
        for alias in item.aliases
    }
    chosen: dict[str, SessionRef | Unresolved] = {}
    for item in listed:
        key = item.session_id or str(item.path)
        key = by_alias.get(key, key) if isinstance(item, Unresolved) else key
        current = chosen.get(key)
        if current is None or _rank(item) > _rank(current):
            chosen[key] = item
    return list(chosen.values())


# --------------------------------------------------------------------------- decoding


class _Records(msgspec.Struct, frozen=True):
    """The decoded records of a session file and the lines that did not decode."""

    values: list[Any]
    damaged_lines: tuple[int, ...] = ()


def _decode_records(data: bytes) -> _Records | str:
    """The records of a session file, or why there are none.

    A file that is one JSON document (a legacy session, pretty-printed or
    not) is one record; otherwise it is JSON Lines. When the first line alone
    is not JSON, the file was meant as one document and its error is reported.
    """
    try:
        return _Records([decode_json(data)])
    except JsonError as error:
        document_error = str(error)
    first_line = trim_padding(data).lstrip().split(b"\n", 1)[0]
    try:
        decode_json(first_line)
    except JsonError:
        return f"not JSON: {document_error}"
    lines = decode_json_lines(data)
    if lines.mostly_garbage:
        bad = len(lines.bad_lines) + int(lines.torn_tail)
        return f"not JSON Lines ({bad} undecodable lines, {len(lines.records)} records)"
    return _Records([value for _line, value in lines.records], tuple(lines.bad_lines))


# --------------------------------------------------------------------------- replay


class _Replay(msgspec.Struct):
    """The session state rebuilt from its records, in the CLI's own order."""

    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    seen_session: bool = False
    #: Why the recorded message list cannot be read (``messages`` of the wrong type).
    damage: str | None = None

    def apply(self, record: Any) -> None:
        """Apply one record; shapes the format does not know are ignored."""
        if not isinstance(record, dict):
            return
        if isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("id"), str):
            self.upsert(record)
        elif isinstance(record.get("$set"), dict):
            self.patch(record["$set"])
        elif isinstance(record.get("sessionId"), str):
            self.patch(record)

    def upsert(self, message: dict[str, Any]) -> None:
        """A message line: a later write of the same id replaces it in place."""
        self.seen_session = True
        if message["id"]:
            self.messages[message["id"]] = message

    def rewind(self, message_id: str) -> None:
        """``$rewindTo``: drop that message and all after it (all, if unknown)."""
        ids = list(self.messages)
        start = ids.index(message_id) if message_id in self.messages else 0
        for stale in ids[start:]:
            del self.messages[stale]

    def patch(self, fields: dict[str, Any]) -> None:
        """A header or ``$set``: merge metadata, merge any messages checkpoint.

        The CLI rebuilds its list from a checkpoint; merging instead keeps the
        turns a compression left out, which are still the real conversation.
        """
        self.seen_session = True
        self.metadata.update((key, value) for key, value in fields.items() if key != "messages")
        checkpoint = fields.get("messages")
        if checkpoint is not None and not isinstance(checkpoint, list):
            self.damage = _not_a_list(checkpoint)
        if isinstance(checkpoint, list):
            for message in checkpoint:
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    self.upsert(message)


def _not_a_list(value: Any) -> str:
    """The reason for a ``messages`` field that is not the list the CLI writes."""
    kind = {dict: "an object", str: "a string", bool: "a boolean"}.get(type(value), "a number")
    return f"damaged session: its messages field is {kind}, not a list"


def _replay(records: Iterable[Any]) -> _Replay:
    """Replay every record in file order."""
    state = _Replay()
    for record in records:
        state.apply(record)
    return state


# --------------------------------------------------------------------------- text


def _part_text(part: Any) -> str:
    """Text of one part (a string or ``{"text": ...}``); thought parts give ''."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and not part.get("thought") and isinstance(part.get("text"), str):
        return str(part["text"])
    return ""


def _content_text(content: Any) -> str:
    """Text of a part list union, parts joined as the CLI joins them."""
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content)
    return _part_text(content)


def _is_tool_result(content: Any) -> bool:
    """A user turn that carries ``functionResponse`` parts is a tool result."""
    parts = content if isinstance(content, list) else [content]
    return any(isinstance(part, dict) and "functionResponse" in part for part in parts)


def _strip_injected(text: str) -> str:
    """Remove tagged context blocks and ``@file`` expansions from user text."""
    text = strip_tagged_blocks(text, _INJECTED_TAGS)
    return _REFERENCED_FILES.sub("", text).strip()


def _is_injected_turn(text: str) -> bool:
    """User turns written by the CLI rather than typed by the person."""
    return text in _CONTINUE_NUDGES or text.startswith(_INJECTED_OPENINGS)


def _is_compression_summary(text: str) -> bool:
    """``/compress`` stores its summary as a user turn holding a state snapshot."""
    return _SNAPSHOT_TAG in text


def _user_text(record: dict[str, Any]) -> str:
    """What the person typed: ``displayContent`` when recorded, else ``content``.

    A turn whose content or display content is a tool result is the CLI's
    (a continuation it sends after tool output), whatever its text says.
    """
    content = record.get("content")
    if _is_tool_result(content) or _is_tool_result(record.get("displayContent")):
        return ""
    shown = _content_text(record.get("displayContent"))
    text = _strip_injected(shown or _content_text(content))
    if _is_injected_turn(text):
        return ""
    return text


def _assistant_text(record: dict[str, Any]) -> str:
    """The model's prose: ``content`` without thought parts (tool calls live elsewhere)."""
    text = _content_text(record.get("content")).strip()
    return "" if text == _SNAPSHOT_ACK else text


def _message(record: dict[str, Any], role: Role, text: str) -> Message | None:
    """A ``Message`` for a record with text; None when nothing is left to say."""
    if not text:
        return None
    timestamp = parse_timestamp(record.get("timestamp"))
    return Message.build(record["id"], role, text, timestamp)


def _is_summary_turn(record: dict[str, Any]) -> bool:
    """A user record holding a ``/compress`` summary (tool results never are)."""
    content = record.get("content")
    return not _is_tool_result(content) and _is_compression_summary(_content_text(content))


def _turn(record: dict[str, Any], after_summary: bool) -> tuple[Message | None, bool]:
    """One record as a message (or None), and whether a summary was just seen."""
    kind = record.get("type")
    if kind == "user":
        if _is_summary_turn(record):
            return None, True
        return _message(record, "user", _user_text(record)), False
    if kind == "gemini":
        # The model turn right after a summary is its canned acknowledgement.
        text = "" if after_summary else _assistant_text(record)
        return _message(record, "assistant", text), False
    return None, after_summary


def _messages(records: Iterable[dict[str, Any]]) -> tuple[Message, ...]:
    """Human and model turns in replay order."""
    kept: list[Message] = []
    after_summary = False
    for record in records:
        message, after_summary = _turn(record, after_summary)
        if message is not None:
            kept.append(message)
    return tuple(kept)


# --------------------------------------------------------------------------- project


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _project_root_marker(ref: SessionRef) -> str | None:
    """The path the CLI wrote into ``<project>/.project_root``, if any."""
    marker = ref.path.parent.parent / _PROJECT_ROOT_FILE
    try:
        data, _version = read_bytes(marker)
        text = data.decode("utf-8").strip()
    except (OSError, SourceChanged, UnicodeDecodeError):
        return None
    return text if text and "\n" not in text else None


def _project(ref: SessionRef, metadata: Mapping[str, Any]) -> str | None:
    """The working directory, only as the CLI recorded it.

    The project folder's ``.project_root`` names it; failing that, a workspace
    directory from the metadata whose sha256 is the recorded ``projectHash``.
    The hash alone cannot be turned back into a path, so otherwise None.
    """
    marker = _project_root_marker(ref)
    if marker is not None:
        return marker
    project_hash = metadata.get("projectHash")
    directories = metadata.get("directories")
    if not isinstance(project_hash, str) or not isinstance(directories, list):
        return None
    for directory in directories:
        if isinstance(directory, str) and _sha256(directory) == project_hash:
            return directory
    return None


def _is_subagent(metadata: Mapping[str, Any]) -> bool:
    """Subagent chats (``kind: subagent``) belong to a tool call of another session."""
    return metadata.get("kind") == "subagent"


# --------------------------------------------------------------------------- reader


class GeminiReader:
    """Reads Gemini CLI chat recordings, legacy JSON and JSON Lines alike."""

    tool = "gemini"

    def __init__(self) -> None:
        #: ``sessionId`` by (path, device, inode): a file's header never changes.
        self._ids: dict[tuple[str, int, int], str] = {}

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """``$GEMINI_CLI_HOME/.gemini/tmp``, else ``<home>/.gemini/tmp``."""
        base = env.get("GEMINI_CLI_HOME") or str(home)
        return (Path(base) / ".gemini" / "tmp",)

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """One ref per session under ``root`` (``tmp/<project>/chats/session-*``)."""
        found = discover_files(self.tool, root, _accept, _session_id, max_depth=3)
        yield from _one_per_session(
            self._with_recorded_id(item) if isinstance(item, SessionRef) else item for item in found
        )

    def _with_recorded_id(self, ref: SessionRef) -> SessionRef:
        """``ref`` under the ``sessionId`` its file records, its file-name id an alias."""
        version = ref.file_version
        key = (ref.location, version.device, version.inode)
        recorded = self._ids.get(key)
        if recorded is None:
            try:
                recorded = recorded_session_id(read_head(ref.path, _HEAD_BYTES))
            except OSError:
                recorded = None
            if recorded is None:
                return ref  # not written yet, or unreadable: asked again next time
            self._ids[key] = recorded
        if recorded == ref.session_id:
            return ref
        return structs.replace(ref, session_id=recorded, aliases=(ref.session_id,))

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one session file, or why it cannot be read."""
        data = load_bytes(ref)
        if isinstance(data, Unresolved):
            return data
        records = _decode_records(data)
        if isinstance(records, str):
            return unresolved(ref, records)
        state = _replay(records.values)
        if not state.seen_session:
            return unresolved(ref, "no Gemini CLI session records")
        if state.damage is not None:
            return unresolved(ref, state.damage)
        project = _project(ref, state.metadata)
        damaged = records.damaged_lines
        if _is_subagent(state.metadata):
            return Conversation(ref, project, (), True, damaged)
        return Conversation(ref, project, _messages(state.messages.values()), False, damaged)


READER = GeminiReader()
