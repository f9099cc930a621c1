"""One pass over a Codex rollout's records: the transcript, the metadata, the project.

Records are ``{timestamp, type, payload}`` envelopes (``session_meta``,
``turn_context``, ``response_item``, ``event_msg``, ``compacted``,
``world_state``, ...); rollouts written before the envelope existed hold a bare
header line and bare response items. Format rules, one function each:

- the same prompt or reply is recorded up to three times (a ``response_item``
  message, a ``user_message``/``agent_message`` event, an ``item_completed``
  turn item) and must appear once: ``_Transcript.add`` keeps the first copy
  and folds later copies from other record kinds into it; which kinds are
  present varies by version and client (the Desktop app writes few events);
- developer and system messages are dropped whole (``_on_response_item``);
- a ``thread_rolled_back`` event removes the last N turns: ``_Transcript.roll_back``;
- ``compacted`` records (summary plus replacement history), reasoning, tool
  calls and their outputs, and every other event are dropped;
- pre-envelope rollouts (mid-2025): ``_visit_legacy``.

Invariants: message ids are Codex's own item ids where present and unique,
else ``line-<n>`` (rollouts are append-only, so line numbers are stable); the
first copy of a message wins, so an append never changes what was already
emitted. ``Rollout.recognised`` says whether any record was Codex's at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec

from ._codex_text import block_texts, environment_cwd, prompt_text, text_of
from ._model import Message, Role
from ._parse import line_ids, parse_timestamp

__all__ = ["Rollout", "parse_rollout"]

_WHITESPACE = re.compile(r"\s+")

#: Content block types that carry message text, by role.
_TEXT_BLOCKS: dict[str, frozenset[str]] = {
    "user": frozenset({"input_text", "text"}),
    "assistant": frozenset({"output_text", "text"}),
}

#: Sources of one message; the same text from two different sources is one message.
_ITEM, _EVENT, _TURN_ITEM = "response_item", "event", "turn_item"


def _match_key(text: str) -> str:
    """What two copies of one message share, whatever their whitespace."""
    return _WHITESPACE.sub("", text)


# ---------------------------------------------------------------------- transcript


class _Candidate(msgspec.Struct, frozen=True):
    """One copy of a prompt or reply as one record kind stored it."""

    role: Role
    text: str
    source: str
    item_id: str | None
    line_id: str
    timestamp: datetime | None


class _Group(msgspec.Struct):
    """An emitted message's match key and the record kinds that supplied it."""

    key: str
    sources: set[str]


class _Transcript(msgspec.Struct):
    """Messages in file order, each once, however many record kinds repeat it."""

    messages: list[Message] = msgspec.field(default_factory=list)
    open_groups: dict[str, list[_Group]] = msgspec.field(default_factory=dict)
    used_ids: set[str] = msgspec.field(default_factory=set)

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


class _Where(msgspec.Struct, frozen=True):
    """Where a record sits: its line id and the envelope's timestamp."""

    line_id: str
    timestamp: datetime | None


class Rollout(msgspec.Struct):
    """Everything one pass over a rollout's records collects."""

    transcript: _Transcript = msgspec.field(default_factory=_Transcript)
    metas: list[dict[str, Any]] = msgspec.field(default_factory=list)
    turn_cwd: str | None = None
    environment_cwd: str | None = None
    recognised: bool = False


def _on_session_meta(state: Rollout, payload: dict[str, Any], where: _Where) -> None:
    """Remember every ``session_meta``; the own one is chosen at the end."""
    state.metas.append(payload)


def _on_turn_context(state: Rollout, payload: dict[str, Any], where: _Where) -> None:
    """The first turn's working directory, used when ``session_meta`` has none."""
    if state.turn_cwd is None:
        state.turn_cwd = text_of(payload.get("cwd"))


def _on_response_item(state: Rollout, payload: dict[str, Any], where: _Where) -> None:
    """A model-history item: only user and assistant ``message`` items carry prose."""
    if payload.get("type") != "message":
        return
    role = payload.get("role")
    if role == "user":
        blocks = list(block_texts(payload.get("content"), _TEXT_BLOCKS["user"]))
        if state.environment_cwd is None:
            state.environment_cwd = environment_cwd(blocks)
        _offer(state, "user", prompt_text(blocks), _ITEM, payload.get("id"), where)
    elif role == "assistant":
        reply = "\n".join(block_texts(payload.get("content"), _TEXT_BLOCKS["assistant"]))
        _offer(state, "assistant", reply.strip(), _ITEM, payload.get("id"), where)


def _on_event(state: Rollout, payload: dict[str, Any], where: _Where) -> None:
    """UI events: prompts, replies, completed turn items and rollbacks."""
    kind = payload.get("type")
    if kind == "user_message":
        _on_user_event(state, payload, where)
    elif kind == "agent_message":
        text = text_of(payload.get("message"))
        _offer(state, "assistant", (text or "").strip(), _EVENT, None, where)
    elif kind == "item_completed":
        _on_turn_item(state, payload.get("item"), where)
    elif kind == "thread_rolled_back":
        turns = payload.get("num_turns")
        if isinstance(turns, int) and not isinstance(turns, bool):
            state.transcript.roll_back(turns)


def _on_user_event(state: Rollout, payload: dict[str, Any], where: _Where) -> None:
    """A ``user_message`` event; older versions also sent injected context with a ``kind``."""
    kind = payload.get("kind")
    if kind is not None and kind != "plain":
        return
    text = text_of(payload.get("message"))
    _offer(state, "user", prompt_text([text] if text else []), _EVENT, None, where)


def _on_turn_item(state: Rollout, item: Any, where: _Where) -> None:
    """An ``item_completed`` turn item: ``UserMessage`` and ``AgentMessage`` carry prose."""
    if not isinstance(item, dict):
        return
    kind = item.get("type")
    kind = kind.lower() if isinstance(kind, str) else ""
    blocks = block_texts(item.get("content"), frozenset({"text", "Text"}))
    if kind == "usermessage":
        _offer(state, "user", prompt_text(blocks), _TURN_ITEM, item.get("id"), where)
    elif kind == "agentmessage":
        _offer(state, "assistant", "\n".join(blocks).strip(), _TURN_ITEM, item.get("id"), where)


def _offer(state: Rollout, role: Role, text: str, source: str, item_id: Any, where: _Where) -> None:
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


def _visit(state: Rollout, record: Any, where: _Where) -> None:
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


def _visit_legacy(state: Rollout, record: dict[str, Any], where: _Where) -> None:
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


def parse_rollout(records: Iterable[tuple[int, Any]]) -> Rollout:
    """One pass over decoded ``(line, record)`` pairs. Pure."""
    state = Rollout()
    for line_id, record in line_ids(records):
        stamp = parse_timestamp(record.get("timestamp")) if isinstance(record, dict) else None
        _visit(state, record, _Where(line_id, stamp))
    return state
