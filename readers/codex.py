"""Codex CLI reader: JSON Lines rollouts under ``$CODEX_HOME`` (default ``~/.codex``).

Where: ``sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` and the flat
``archived_sessions/``. The session id is the uuid at the end of the file
name. The SQLite state database beside them is only an index and is not read.

Records are ``{timestamp, type, payload}`` envelopes (``session_meta``,
``turn_context``, ``response_item``, ``event_msg``, ``compacted``,
``world_state``, ...); rollouts written before the envelope existed hold a bare
header line and bare response items. Format rules, one function each:

- the same prompt or reply is recorded up to three times (a ``response_item``
  message, a ``user_message``/``agent_message`` event, an ``item_completed``
  turn item) and must appear once: ``_Transcript.add`` keeps the first copy
  and folds later copies from other record kinds into it; which kinds are
  present varies by version and client (the Desktop app writes few events);
- user-role messages that Codex injects (AGENTS.md, environment context, skill
  bodies, shell-command echoes, review results, ...) are not prompts:
  ``is_injected_user_text``; developer and system messages are dropped whole;
- IDE and Desktop clients wrap the typed request in attachment context:
  ``strip_request_envelope``;
- a ``thread_rolled_back`` event removes the last N turns: ``_Transcript.roll_back``;
- ``compacted`` records (summary plus replacement history), reasoning, tool
  calls and their outputs, and every other event are dropped;
- a subagent's rollout (``source.subagent``, ``thread_source: subagent``, a
  parent thread) is a sidechain: ``is_subagent`` gives an empty conversation;
- ``codex exec``/MCP-server sessions are machine jobs: ``is_automated``;
- a forked rollout repeats its ancestors' ``session_meta`` lines: the session's
  own is the one whose id matches the file name: ``own_meta``;
- pre-envelope rollouts (mid-2025): ``_visit_legacy``.

Known limit: a forked rollout begins with a copy of its parent's history, which
is read as part of the fork (nothing in the file marks where the copy ends).

Message ids are Codex's own item ids where present and unique, else
``line-<n>`` (rollouts are append-only, so line numbers are stable).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ._common import discover_files, load_json_lines, unresolved
from ._model import Conversation, Message, Role, SessionRef, Unresolved
from ._parse import line_ids, parse_timestamp

__all__ = [
    "READER",
    "CodexReader",
    "is_automated",
    "is_injected_user_text",
    "is_subagent",
    "strip_request_envelope",
]

TOOL = "codex"

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

#: Starts of text blocks that Codex puts into user-role messages itself (compared
#: lower-cased after leading whitespace): instructions, context, hook and skill
#: payloads, shell-command echoes, review results, compaction bridges, warnings.
_INJECTED_USER_PREFIXES = (
    "# agents.md instructions",
    "<agents.md instructions",
    "<user_instructions>",
    "<environment_context",
    "<context_update>",
    "<skill>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<external_",
    "<extension_context>",
    "<codex_internal_context",
    "<goal_context>",
    "<hook_prompt",
    "<recommended_plugins>",
    "<user_action>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<model_switch>",
    "<personality_spec>",
    "<realtime_conversation>",
    "<plugins_instructions>",
    "<apps_instructions>",
    "another language model started to solve this problem",
    "you were originally given instructions from a user over one or more turns",
    "warning: the maximum number of unified exec processes",
    "warning: your account was flagged for potentially high-risk cyber activity",
    "warning: apply_patch was requested via ",
)

#: Image placeholders framing an attached image inside a user message.
_IMAGE_TAG = re.compile(r"\s*</?image\b[^>]*>\s*", re.IGNORECASE)

#: Headings that IDE and Desktop clients put before the typed request.
_ENVELOPE_HEADINGS = ("# context from my ide setup:", "# files mentioned by the user:")
_REQUEST_MARKER = "## My request for Codex:"

_CWD_TAG = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)
_WHITESPACE = re.compile(r"\s+")

#: Content block types that carry message text, by role.
_TEXT_BLOCKS: dict[str, frozenset[str]] = {
    "user": frozenset({"input_text", "text"}),
    "assistant": frozenset({"output_text", "text"}),
}

#: Sources of one message; the same text from two different sources is one message.
_ITEM, _EVENT, _TURN_ITEM = "response_item", "event", "turn_item"


# --------------------------------------------------------------------------- rules


def is_injected_user_text(text: str) -> bool:
    """True for a user-role text block that Codex wrote, not the person."""
    head = text.lstrip()[:96].lower()
    return head.startswith(_INJECTED_USER_PREFIXES)


def strip_request_envelope(text: str) -> str:
    """The typed request inside an IDE/Desktop attachment envelope, else ``text``.

    The VS Code extension and the Desktop app send ``# Context from my IDE
    setup:`` / ``# Files mentioned by the user:`` sections (open tabs, file
    paths) followed by ``## My request for Codex:`` and what was typed.
    """
    if not text.lstrip().lower().startswith(_ENVELOPE_HEADINGS):
        return text
    _head, marker, request = text.partition(_REQUEST_MARKER)
    return request if marker else text


def is_subagent(meta: Mapping[str, Any]) -> bool:
    """True when ``session_meta`` says another agent spawned this thread."""
    source = meta.get("source")
    if isinstance(source, dict) and "subagent" in source:
        return True
    if meta.get("thread_source") == "subagent":
        return True
    parent = meta.get("parent_thread_id")
    return isinstance(parent, str) and bool(parent.strip())


def is_automated(meta: Mapping[str, Any]) -> bool:
    """True when a program started the session: ``codex exec``, an SDK, MCP, a subagent."""
    source = meta.get("source")
    if isinstance(source, str) and source.lower() in {"exec", "mcp"}:
        return True
    originator = meta.get("originator")
    if isinstance(originator, str):
        name = originator.strip().lower().replace("-", "_")
        if name == "codex_exec" or name.startswith("codex_sdk"):
            return True
    return is_subagent(meta)


def own_meta(metas: list[dict[str, Any]], session_id: str) -> dict[str, Any]:
    """The session's own ``session_meta``: a fork also carries its ancestors' ones."""
    for key in ("id", "session_id"):
        for meta in metas:
            if meta.get(key) == session_id:
                return meta
    return metas[0] if metas else {}


def _text_of(value: Any) -> str | None:
    """``value`` when it is a string with something besides whitespace."""
    return value if isinstance(value, str) and value.strip() else None


def _block_texts(content: Any, allowed: frozenset[str]) -> Iterator[str]:
    """Texts of a message's content blocks of the ``allowed`` types."""
    if isinstance(content, str):
        yield content
        return
    if not isinstance(content, list):
        return
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if isinstance(kind, str) and kind in allowed:
            text = _text_of(block.get("text"))
            if text is not None:
                yield text


def _prompt_text(blocks: Iterable[str]) -> str:
    """A person's prompt from user-role text blocks, without injected ones."""
    kept = [b for b in blocks if not is_injected_user_text(b) and not _IMAGE_TAG.fullmatch(b)]
    return strip_request_envelope("\n".join(kept)).strip()


def _match_key(text: str) -> str:
    """What two copies of one message share, whatever their whitespace."""
    return _WHITESPACE.sub("", text)


def _environment_cwd(blocks: Iterable[str]) -> str | None:
    """The ``<cwd>`` an ``<environment_context>`` block records."""
    for block in blocks:
        if block.lstrip().lower().startswith("<environment_context"):
            found = _CWD_TAG.search(block)
            if found and found.group(1).strip():
                return found.group(1).strip()
    return None


# ---------------------------------------------------------------------- transcript


@dataclass(frozen=True, slots=True)
class _Candidate:
    """One copy of a prompt or reply as one record kind stored it."""

    role: Role
    text: str
    source: str
    item_id: str | None
    line_id: str
    timestamp: datetime | None


@dataclass(slots=True)
class _Group:
    """An emitted message's match key and the record kinds that supplied it."""

    key: str
    sources: set[str]


@dataclass(slots=True)
class _Transcript:
    """Messages in file order, each once, however many record kinds repeat it."""

    messages: list[Message] = field(default_factory=list)
    open_groups: dict[str, list[_Group]] = field(default_factory=dict)
    used_ids: set[str] = field(default_factory=set)

    def add(self, candidate: _Candidate) -> None:
        """Emit ``candidate`` unless it repeats a message of the current run.

        A run is the stretch of one role's messages since the other role last
        spoke; a copy from a record kind that has not yet supplied a message of
        the same text in that run is the same message. The first copy wins, so
        an append never changes what was already emitted.
        """
        key = _match_key(candidate.text)
        run = self.open_groups.setdefault(candidate.role, [])
        for group in run:
            if group.key == key and candidate.source not in group.sources:
                group.sources.add(candidate.source)
                return
        message = self._message(candidate)
        if message is None:
            return
        other: Role = "assistant" if candidate.role == "user" else "user"
        self.open_groups[other] = []
        run.append(_Group(key, {candidate.source}))
        self.messages.append(message)

    def _message(self, candidate: _Candidate) -> Message | None:
        """The message for ``candidate`` with an id unique in this session (None: no text)."""
        ident = candidate.item_id
        if ident is None or ident in self.used_ids:
            ident = candidate.line_id
        while ident in self.used_ids:  # an item id that happens to read "line-<n>"
            ident += "+"
        message = Message.build(ident, candidate.role, candidate.text, candidate.timestamp)
        if message is not None:
            self.used_ids.add(ident)
        return message

    def roll_back(self, turns: int) -> None:
        """Drop the last ``turns`` turns, each starting at a human prompt."""
        starts = [i for i, message in enumerate(self.messages) if message.role == "user"]
        if turns <= 0 or not starts:
            return
        cut = starts[-turns] if turns <= len(starts) else starts[0]
        del self.messages[cut:]
        self.open_groups.clear()


@dataclass(frozen=True, slots=True)
class _Where:
    """Where a record sits: its line id and the envelope's timestamp."""

    line_id: str
    timestamp: datetime | None


@dataclass(slots=True)
class _Rollout:
    """Everything one pass over a rollout's records collects."""

    transcript: _Transcript = field(default_factory=_Transcript)
    metas: list[dict[str, Any]] = field(default_factory=list)
    turn_cwd: str | None = None
    environment_cwd: str | None = None
    recognised: bool = False


def _on_session_meta(state: _Rollout, payload: dict[str, Any], where: _Where) -> None:
    """Remember every ``session_meta``; the own one is chosen at the end."""
    state.metas.append(payload)


def _on_turn_context(state: _Rollout, payload: dict[str, Any], where: _Where) -> None:
    """The first turn's working directory, used when ``session_meta`` has none."""
    if state.turn_cwd is None:
        state.turn_cwd = _text_of(payload.get("cwd"))


def _on_response_item(state: _Rollout, payload: dict[str, Any], where: _Where) -> None:
    """A model-history item: only user and assistant ``message`` items carry prose."""
    if payload.get("type") != "message":
        return
    role = payload.get("role")
    if role == "user":
        blocks = list(_block_texts(payload.get("content"), _TEXT_BLOCKS["user"]))
        if state.environment_cwd is None:
            state.environment_cwd = _environment_cwd(blocks)
        _offer(state, "user", _prompt_text(blocks), _ITEM, payload.get("id"), where)
    elif role == "assistant":
        reply = "\n".join(_block_texts(payload.get("content"), _TEXT_BLOCKS["assistant"]))
        _offer(state, "assistant", reply.strip(), _ITEM, payload.get("id"), where)


def _on_event(state: _Rollout, payload: dict[str, Any], where: _Where) -> None:
    """UI events: prompts, replies, completed turn items and rollbacks."""
    kind = payload.get("type")
    if kind == "user_message":
        _on_user_event(state, payload, where)
    elif kind == "agent_message":
        text = _text_of(payload.get("message"))
        _offer(state, "assistant", (text or "").strip(), _EVENT, None, where)
    elif kind == "item_completed":
        _on_turn_item(state, payload.get("item"), where)
    elif kind == "thread_rolled_back":
        turns = payload.get("num_turns")
        if isinstance(turns, int) and not isinstance(turns, bool):
            state.transcript.roll_back(turns)


def _on_user_event(state: _Rollout, payload: dict[str, Any], where: _Where) -> None:
    """A ``user_message`` event; older versions also sent injected context with a ``kind``."""
    kind = payload.get("kind")
    if kind is not None and kind != "plain":
        return
    text = _text_of(payload.get("message"))
    _offer(state, "user", _prompt_text([text] if text else []), _EVENT, None, where)


def _on_turn_item(state: _Rollout, item: Any, where: _Where) -> None:
    """An ``item_completed`` turn item: ``UserMessage`` and ``AgentMessage`` carry prose."""
    if not isinstance(item, dict):
        return
    kind = item.get("type")
    kind = kind.lower() if isinstance(kind, str) else ""
    blocks = _block_texts(item.get("content"), frozenset({"text", "Text"}))
    if kind == "usermessage":
        _offer(state, "user", _prompt_text(blocks), _TURN_ITEM, item.get("id"), where)
    elif kind == "agentmessage":
        _offer(state, "assistant", "\n".join(blocks).strip(), _TURN_ITEM, item.get("id"), where)


def _offer(
    state: _Rollout, role: Role, text: str, source: str, item_id: Any, where: _Where
) -> None:
    """Hand a non-empty prompt or reply to the transcript."""
    if not text:
        return
    ident = item_id if isinstance(item_id, str) and item_id.strip() else None
    state.transcript.add(_Candidate(role, text, source, ident, where.line_id, where.timestamp))


_HANDLERS = {
    "session_meta": _on_session_meta,
    "turn_context": _on_turn_context,
    "response_item": _on_response_item,
    "event_msg": _on_event,
}

#: Envelope types that hold nothing for a conversation but prove the format.
_OTHER_ENVELOPES = frozenset(
    {"compacted", "world_state", "inter_agent_communication_metadata", "fork_reference"}
)


def _visit(state: _Rollout, record: Any, where: _Where) -> None:
    """Dispatch one decoded record: an envelope, or a pre-envelope header or item."""
    if not isinstance(record, dict):
        return
    kind, payload = record.get("type"), record.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(state, payload, where)
        state.recognised = state.recognised or handler is not None or kind in _OTHER_ENVELOPES
    elif "payload" not in record:
        _visit_legacy(state, record, where)


def _visit_legacy(state: _Rollout, record: dict[str, Any], where: _Where) -> None:
    """Rollouts of mid-2025: a bare header line, state markers, bare response items."""
    kind = record.get("type")
    if kind is None and "record_type" not in record and isinstance(record.get("id"), str):
        if not state.metas:
            state.metas.append(record)
            state.recognised = True
    elif isinstance(kind, str):
        _on_response_item(state, record, where)
        state.recognised = state.recognised or kind == "message"
    elif "record_type" in record:
        state.recognised = True


def parse_rollout(records: Iterable[tuple[int, Any]]) -> _Rollout:
    """One pass over decoded ``(line, record)`` pairs. Pure."""
    state = _Rollout()
    for line_id, record in line_ids(records):
        stamp = parse_timestamp(record.get("timestamp")) if isinstance(record, dict) else None
        _visit(state, record, _Where(line_id, stamp))
    return state


def _project(state: _Rollout, meta: Mapping[str, Any]) -> str | None:
    """The working directory as recorded: session meta, first turn, environment context."""
    return _text_of(meta.get("cwd")) or state.turn_cwd or state.environment_cwd


def build_conversation(
    ref: SessionRef, state: _Rollout, damaged_lines: Iterable[int] = ()
) -> Conversation | Unresolved:
    """The cleaned conversation of a parsed rollout, or why it is not one.

    ``damaged_lines`` are the rollout's undecodable lines: the conversation
    is then ``partial``.
    """
    if not state.recognised:
        return unresolved(ref, "no Codex rollout records")
    meta = own_meta(state.metas, ref.session_id)
    damaged = tuple(damaged_lines)
    if is_subagent(meta):
        return Conversation(ref, _project(state, meta), (), True, damaged)
    messages = tuple(state.transcript.messages)
    return Conversation(ref, _project(state, meta), messages, is_automated(meta), damaged)


# -------------------------------------------------------------------------- reader


def _is_rollout_name(name: str) -> bool:
    """Rollout files are ``rollout-*.jsonl``; everything else beside them is not."""
    return name.startswith("rollout-") and name.endswith(".jsonl")


def session_id_from_path(location: str | os.PathLike[str]) -> str | None:
    """The uuid ending a rollout's file name (or the rest of the name without one)."""
    stem = os.path.basename(location)[: -len(".jsonl")]
    found = _UUID.search(stem)
    if found:
        return found.group(0)
    rest = stem[len("rollout-") :]
    return rest or None


def _expand_home(value: str, home: Path) -> Path | None:
    """``value`` as a path with a leading ``~`` meaning ``home``; None when empty."""
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


class CodexReader:
    """Reads Codex CLI, IDE and Desktop rollouts (see the module docstring)."""

    tool = TOOL

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """``$CODEX_HOME/sessions`` and ``$CODEX_HOME/archived_sessions`` (``~/.codex``)."""
        codex_home = _expand_home(env.get("CODEX_HOME", "").strip(), home) or home / ".codex"
        return (codex_home / "sessions", codex_home / "archived_sessions")

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every ``rollout-*.jsonl`` under ``root`` (``YYYY/MM/DD`` folders or flat)."""
        return discover_files(TOOL, root, _is_rollout_name, session_id_from_path, max_depth=5)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one rollout."""
        lines = load_json_lines(ref)
        if isinstance(lines, Unresolved):
            return lines
        return build_conversation(ref, parse_rollout(lines.records), lines.bad_lines)


READER = CodexReader()
