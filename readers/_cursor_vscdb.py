"""Cursor IDE conversations in ``state.vscdb`` (SQLite key/value) databases: the store itself.

The IDE keeps VS Code's layout under its ``User`` directory:
``workspaceStorage/<hash>/state.vscdb`` per opened folder (with a
``workspace.json`` naming the folder) and one ``globalStorage/state.vscdb``.
Both hold an ``ItemTable``; the global one also a ``cursorDiskKV`` table.
Three shapes carry conversations, one session each:

- ``ItemTable`` key ``composer.composerData``: ``{allComposers: [...]}`` whose
  older entries hold an inline ``conversation`` of bubbles (``type`` 1 = user,
  2 = assistant); newer entries are only headers of composers stored globally;
- ``ItemTable`` key ``workbench.panel.aichat.view.aichat.chatdata``: the legacy
  chat pane, ``{tabs: [{tabId, bubbles: [{type: user|ai, text}]}]}``;
- ``cursorDiskKV`` rows ``composerData:<id>`` (order in
  ``fullConversationHeadersOnly``, or an inline ``conversation``) and one row
  ``bubbleId:<id>:<bubble>`` per bubble.

``SessionRef.locator`` names the conversation inside its database:
``composer:<id>``, ``chat:<tab id>`` or ``kv:<id>``, the last optionally
followed by ``|<workspace hash>`` (the ``workspaceStorage`` folder that lists
the composer, for its project).

A bubble's ``type`` is 1 or ``user`` for the person, 2 or ``ai`` for the
assistant (``_bubble_role``). Bubbles that are not prose (tool calls and
results, thinking, compaction summaries, capability loops:
``_is_machine_bubble``) and empty bubbles are dropped; attached context is
never part of a bubble's text. A bubble that is not an object stands for a
damaged line of its conversation (``damaged_positions``).

Here: the layout and key names, opening a database read-only
(``open_database``, the one place a ``state.vscdb`` is connected to), decoding
its stored values, naming what cannot be read, and the prose of bubbles
(``bubble_messages``: the bubbles' order, each bubble id once, a bubble
without an id named by its position). Discovery is
``dreamd.readers._cursor_scan`` (with ``_cursor_items`` for ``ItemTable``);
reading one conversation, ``dreamd.readers._cursor_read``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ._io import connect_sqlite_readonly, describe_os_error
from ._model import Message, Role, Unresolved
from ._parse import JsonError, decode_json, parse_timestamp

__all__ = [
    "CHAT_KEY",
    "COMPOSERS_KEY",
    "DB_NAME",
    "ITEM_TABLE",
    "KV_BUBBLE",
    "KV_COMPOSER",
    "KV_TABLE",
    "TOOL",
    "RootKind",
    "bubble_messages",
    "damaged_positions",
    "database_root_kind",
    "db_unresolved",
    "decode_item",
    "decode_value",
    "dicts",
    "epoch_time",
    "open_database",
    "sqlite_reason",
    "table_names",
]

TOOL = "cursor"

DB_NAME = "state.vscdb"
ITEM_TABLE = "ItemTable"
KV_TABLE = "cursorDiskKV"
COMPOSERS_KEY = "composer.composerData"
CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
KV_COMPOSER = "composerData:"
KV_BUBBLE = "bubbleId:"

RootKind = Literal["user", "workspaces", "global", "database"]


def database_root_kind(root: Path) -> RootKind | None:
    """Which database layout ``root`` is: a ``User`` dir, one of its storages, one file.

    None when ``root`` is none of them (an agent-transcripts root).
    """
    if root.is_file():
        return "database"
    if (root / "workspaceStorage").is_dir() or (root / "globalStorage").is_dir():
        return "user"
    if root.name == "workspaceStorage":
        return "workspaces"
    if root.name == "globalStorage":
        return "global"
    return None


def open_database(path: Path) -> sqlite3.Connection:
    """A read-only connection to one ``state.vscdb``; raises ``OSError``/``sqlite3.Error``."""
    return connect_sqlite_readonly(path)


def db_unresolved(path: Path, reason: str, sid: str | None = None) -> Unresolved:
    """An ``Unresolved`` for one conversation, or for a whole database.

    A whole database is named by its folder too (``<hash>/state.vscdb``): every
    workspace database has the same file name, and unresolved sources are
    keyed by session id or file name.
    """
    return Unresolved(TOOL, path, reason, session_id=sid or f"{path.parent.name}/{path.name}")


def sqlite_reason(error: Exception) -> str:
    """A short reason for a database that cannot be opened or queried."""
    if isinstance(error, OSError):
        return describe_os_error(error)
    return f"cannot read database: {error}"


def table_names(connection: sqlite3.Connection) -> set[str]:
    """Names of the tables in a database."""
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(name) for (name,) in rows}


def _item(connection: sqlite3.Connection, key: str) -> Any | None:
    """The raw value of one ``ItemTable`` key, or None when absent."""
    row = connection.execute(f"SELECT value FROM {ITEM_TABLE} WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def decode_value(value: Any) -> Any:
    """A JSON value stored as TEXT or BLOB; raises ``JsonError``."""
    if not isinstance(value, str | bytes):
        raise JsonError(f"stored as {type(value).__name__}")
    return decode_json(value)


def decode_item(connection: sqlite3.Connection, key: str) -> Any | None:
    """The decoded JSON of an ``ItemTable`` key; None when absent; raises ``JsonError``."""
    value = _item(connection, key)
    return None if value is None else decode_value(value)


def dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of a list (anything else gives [])."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def epoch_time(*values: Any) -> datetime | None:
    """The first usable epoch/ISO time among ``values`` (zero and junk skipped)."""
    for value in values:
        if value and not isinstance(value, bool):
            moment = parse_timestamp(value)
            if moment is not None:
                return moment
    return None


# -- Bubbles ---------------------------------------------------------------------------------------


def bubble_messages(bubbles: Iterable[Any]) -> tuple[Message, ...]:
    """Messages from bubbles in order: prose only, each bubble id once."""
    messages: list[Message] = []
    seen: set[str] = set()
    for position, bubble in enumerate(bubbles):
        if not isinstance(bubble, dict) or _is_machine_bubble(bubble):
            continue
        role = _bubble_role(bubble)
        text = _bubble_text(bubble, role) if role is not None else ""
        message_id = _bubble_id(bubble, position)
        if role is None or message_id in seen:
            continue
        message = Message.build(message_id, role, text, epoch_time(bubble.get("createdAt")))
        if message is not None:
            seen.add(message_id)
            messages.append(message)
    return tuple(messages)


def damaged_positions(bubbles: Iterable[Any]) -> tuple[int, ...]:
    """1-based positions of the bubbles that are not objects (damaged, or undecodable rows).

    They stand for the damaged lines of a database conversation: it is read
    from the other bubbles and is ``partial``.
    """
    return tuple(n for n, bubble in enumerate(bubbles, start=1) if not isinstance(bubble, dict))


def _bubble_role(bubble: dict[str, Any]) -> Role | None:
    """Bubble ``type``: 1 or ``user`` is the person, 2 or ``ai`` the assistant."""
    kind = bubble.get("type")
    if isinstance(kind, bool):
        return None
    if kind in (1, "1", "user"):
        return "user"
    if kind in (2, "2", "ai", "assistant"):
        return "assistant"
    return None


def _is_machine_bubble(bubble: dict[str, Any]) -> bool:
    """Tool calls, thinking, compaction summaries and capability loops are not prose.

    ``capabilityType`` marks bubbles a capability produced (tool call, thinking,
    summary), ``toolFormerData`` a tool call with its result, ``isThought`` a
    reasoning bubble and ``isCapabilityIteration`` a turn the program sent.
    """
    capability = bubble.get("capabilityType")
    if isinstance(capability, int) and not isinstance(capability, bool) and capability != 0:
        return True
    if bubble.get("toolFormerData"):
        return True
    return bubble.get("isThought") is True or bubble.get("isCapabilityIteration") is True


def _bubble_text(bubble: dict[str, Any], role: Role) -> str:
    """A bubble's visible text; the legacy chat pane keeps AI text in ``rawText`` too."""
    text = bubble.get("text")
    if (not isinstance(text, str) or not text.strip()) and role == "assistant":
        text = bubble.get("rawText")
    return text.strip() if isinstance(text, str) else ""


def _bubble_id(bubble: dict[str, Any], position: int) -> str:
    """The bubble's own id (``bubbleId`` or ``id``), else its position."""
    for key in ("bubbleId", "id"):
        value = bubble.get(key)
        if isinstance(value, str) and value:
            return value
    return f"bubble-{position}"
