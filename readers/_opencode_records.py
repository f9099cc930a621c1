"""OpenCode's stored messages, and the rules that leave only human and assistant prose.

Both storages (the SQLite tables and the legacy JSON tree) give the same
shapes: a session (``Session``: its directory, title and pending revert) and
its messages (``Record``: the message's JSON ``data`` with its parts, plus the
``time_created`` and MiMoCode ``agent_id`` columns when a database has them).
Format rules, one function each:

- a session with a parent is a subagent's session, not one of its own
  (``is_child_session``);
- a MiMoCode message whose ``agent_id`` is neither empty nor ``main`` is a
  subagent turn (``_is_subagent_turn``);
- only ``text`` parts are prose, minus ``synthetic`` and ``ignored`` ones
  (``_prose``); reasoning, tool, step, file, patch, snapshot, agent,
  subtask, retry, checkpoint and compaction parts are dropped;
- an assistant message that is a compaction summary is dropped
  (``_is_compaction_summary``);
- messages after a pending ``/undo`` point are hidden (``_apply_revert``);
- reminders stored unflagged in user text by old versions are cut
  (``_strip_reminders``).

Invariants: messages come in the tool's own order (creation time, then id),
each id once; nothing here reads a file or a database.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ._model import Message, Role
from ._parse import parse_timestamp, strip_tagged_blocks

__all__ = [
    "Record",
    "Session",
    "UnreadableSession",
    "is_child_session",
    "nonempty_text",
    "session_messages",
    "session_project",
]

_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}

#: Tags of injected blocks that older versions saved in user text unflagged.
_REMINDER_TAGS = ("system-reminder",)


class UnreadableSession(Exception):
    """A session or database that cannot be read; the message is the ``Unresolved`` reason.

    Public, with ``open_database``, ``table_columns``, ``column``,
    ``db_override`` and ``failure_reason``: other read-only users of these
    databases (the dream's trajectory check) share the reader's refusals.
    """


class Record(msgspec.Struct):
    """One stored message with its parts, before cleaning."""

    id: str
    info: dict[str, Any]
    parts: list[dict[str, Any]] = msgspec.field(default_factory=list)
    created: Any = None
    agent_id: Any = None


class Session(msgspec.Struct, frozen=True):
    """What a session record says about the session as a whole."""

    directory: str | None
    title: str | None
    revert: Any


def nonempty_text(value: Any) -> str | None:
    """``value`` when it is a non-empty string."""
    return value if isinstance(value, str) and value else None


def is_child_session(parent: Any, title: Any) -> bool:
    """A subagent's session: it has a parent, or the title a task child gets.

    Some 1.18 builds lost ``parent_id``; the ``(@agent subagent)`` title
    suffix still tells a task's child session apart.
    """
    if isinstance(parent, str) and parent:
        return True
    return isinstance(title, str) and title.rstrip().endswith(" subagent)") and "(@" in title


def session_messages(records: Iterable[Record], revert: Any) -> tuple[Message, ...]:
    """Every cleaned message of a session, in order, each id once."""
    seen: set[str] = set()
    out: list[Message] = []
    for record in _apply_revert(_order(records), revert):
        message = _to_message(record)
        if message is not None and message.id not in seen:
            seen.add(message.id)
            out.append(message)
    return tuple(out)


def session_project(session: Session, records: Iterable[Record]) -> str | None:
    """The session's directory; for records without one, an assistant's ``path.cwd``."""
    if session.directory:
        return session.directory
    for record in records:
        path = record.info.get("path")
        cwd = nonempty_text(path.get("cwd")) if isinstance(path, dict) else None
        if cwd is not None:
            return cwd
    return None


def _created_ms(record: Record) -> float:
    """The message's creation time in epoch milliseconds (0 when unknown)."""
    time = record.info.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    for value in (created, record.created):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return 0.0


def _order(records: Iterable[Record]) -> list[Record]:
    """Messages in the tool's own order: creation time, then id."""
    return sorted(records, key=lambda record: (_created_ms(record), record.id))


def _apply_revert(records: list[Record], revert: Any) -> list[Record]:
    """Hide what a pending ``/undo`` took back.

    OpenCode marks the undo point in ``session.revert`` and deletes the tail
    only when the next prompt is sent; until then the tail is not part of the
    conversation. With a ``partID`` the anchor message keeps its earlier parts.
    """
    if not isinstance(revert, dict):
        return records
    anchor = nonempty_text(revert.get("messageID"))
    index = next((i for i, r in enumerate(records) if r.id == anchor), None)
    if index is None:
        return records
    kept = records[:index]
    part_id = nonempty_text(revert.get("partID"))
    if part_id is not None:
        target = records[index]
        cut = next((i for i, p in enumerate(target.parts) if p.get("id") == part_id), None)
        if cut is not None:
            kept.append(msgspec.structs.replace(target, parts=target.parts[:cut]))
    return kept


def _is_subagent_turn(agent_id: Any) -> bool:
    """MiMoCode: a non-empty ``agent_id`` other than ``main`` is a subagent's turn."""
    return isinstance(agent_id, str) and agent_id not in ("", "main")


def _is_compaction_summary(info: dict[str, Any]) -> bool:
    """An assistant message that summarises the history after a compaction."""
    return info.get("summary") is True or "compaction" in (info.get("mode"), info.get("agent"))


def _prose(part: dict[str, Any]) -> str | None:
    """The text of a prose part: a ``text`` part neither synthetic nor ignored."""
    if part.get("type") != "text" or part.get("synthetic") is True or part.get("ignored") is True:
        return None
    text = part.get("text")
    return text.strip() if isinstance(text, str) and text.strip() else None


def _strip_reminders(text: str) -> str:
    """Cut reminder blocks that older versions stored unflagged in user text."""
    return strip_tagged_blocks(text, _REMINDER_TAGS).strip()


def _to_message(record: Record) -> Message | None:
    """The cleaned message of one record, or None when nothing human is left."""
    role = _ROLES.get(str(record.info.get("role")))
    if role is None or _is_subagent_turn(record.agent_id):
        return None
    if role == "assistant" and _is_compaction_summary(record.info):
        return None
    text = "\n\n".join(t for t in map(_prose, record.parts) if t is not None)
    if role == "user":
        text = _strip_reminders(text)
    if not text.strip():
        return None
    time = record.info.get("time")
    stamp = parse_timestamp(time.get("created") if isinstance(time, dict) else None)
    if stamp is None:
        stamp = parse_timestamp(record.created)
    return Message.build(record.id, role, text, stamp)
