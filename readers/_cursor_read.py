"""Reading one conversation out of a ``state.vscdb``, by its ``SessionRef.locator``.

``composer:<id>`` is an inline composer of ``composer.composerData``,
``chat:<tab id>`` a tab of the legacy chat pane, ``kv:<id>[|<workspace hash>]``
a composer of ``cursorDiskKV`` whose bubbles are its ``bubbleId:<id>:<bubble>``
rows, in the order of ``fullConversationHeadersOnly`` (the live conversation:
rewound or deleted turns are not listed there), else its inline
``conversation``.

The project is the folder the workspace's ``workspace.json`` names, or, for
a ``cursorDiskKV`` composer, its own ``workspaceIdentifier`` (newer Cursor),
else the ``workspace.json`` of the workspace folder its locator names.

Invariants: a conversation that is gone, or is not what its locator says, is
``Unresolved`` with the reason; a bubble row that is not JSON is kept in the
bubble list as a damaged bubble, so that the conversation is read from the
others and is ``partial``.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ._common import unresolved
from ._cursor_vscdb import (
    CHAT_KEY,
    COMPOSERS_KEY,
    KV_BUBBLE,
    KV_COMPOSER,
    KV_TABLE,
    bubble_messages,
    damaged_positions,
    decode_item,
    decode_value,
    dicts,
    open_database,
    sqlite_reason,
)
from ._io import read_bytes
from ._model import Conversation, SessionRef, Unresolved
from ._parse import JsonError, decode_json

__all__ = ["read_database_session"]

_WINDOWS_DRIVE = re.compile(r"^/[A-Za-z]:")

#: The bubbles of one database conversation and its project folder.
_Loaded = tuple[list[Any], str | None]

#: Stands in the bubble list for a ``bubbleId`` row that is not JSON (a damaged bubble).
_UNDECODABLE = "<undecodable bubble>"


def read_database_session(ref: SessionRef) -> Conversation | Unresolved:
    """A cleaned conversation from one conversation inside a ``state.vscdb``."""
    try:
        connection = open_database(ref.path)
    except (OSError, sqlite3.Error) as error:
        return unresolved(ref, sqlite_reason(error))
    with closing(connection):
        try:
            loaded = _load_database_session(connection, ref)
        except sqlite3.Error as error:
            return unresolved(ref, sqlite_reason(error))
        except JsonError as error:
            return unresolved(ref, f"stored conversation is not JSON: {error}")
    if isinstance(loaded, Unresolved):
        return loaded
    bubbles, project = loaded
    return Conversation(
        ref, project, bubble_messages(bubbles), damaged_lines=damaged_positions(bubbles)
    )


def _load_database_session(connection: sqlite3.Connection, ref: SessionRef) -> _Loaded | Unresolved:
    """Dispatch on the locator kind: ``(bubbles, project)`` or ``Unresolved``."""
    kind, ident, workspace = _parse_locator(ref.locator)
    if kind == "composer":
        return _load_inline_composer(connection, ref, ident)
    if kind == "chat":
        return _load_chat_tab(connection, ref, ident)
    if kind == "kv":
        return _load_kv_composer(connection, ref, ident, workspace)
    return unresolved(ref, f"unknown locator {ref.locator!r}")


def _parse_locator(locator: str) -> tuple[str, str, str]:
    """``(kind, conversation id, workspace folder)`` from a database locator."""
    head, _, workspace = locator.partition("|")
    kind, _, ident = head.partition(":")
    return kind, ident, workspace


def _load_inline_composer(
    connection: sqlite3.Connection, ref: SessionRef, cid: str
) -> _Loaded | Unresolved:
    """Bubbles and project of an inline composer in ``composer.composerData``."""
    data = decode_item(connection, COMPOSERS_KEY)
    if data is None:
        return unresolved(ref, f"{COMPOSERS_KEY} is no longer in the database")
    composers = dicts(data.get("allComposers")) if isinstance(data, dict) else []
    match = next((c for c in composers if c.get("composerId") == cid), None)
    if match is None:
        return unresolved(ref, f"composer {cid} is no longer in the database")
    conversation = match.get("conversation")
    if not isinstance(conversation, list):
        return unresolved(ref, f"composer {cid} has no inline conversation")
    return conversation, _workspace_json_folder(ref.path.parent)


def _load_chat_tab(
    connection: sqlite3.Connection, ref: SessionRef, tab_id: str
) -> _Loaded | Unresolved:
    """Bubbles and project of one legacy chat-pane tab."""
    data = decode_item(connection, CHAT_KEY)
    tabs = dicts(data.get("tabs")) if isinstance(data, dict) else []
    match = next((tab for tab in tabs if tab.get("tabId") == tab_id), None)
    if match is None:
        return unresolved(ref, f"chat tab {tab_id} is no longer in the database")
    bubbles = match.get("bubbles")
    if not isinstance(bubbles, list):
        return unresolved(ref, f"chat tab {tab_id} has no bubbles")
    return bubbles, _workspace_json_folder(ref.path.parent)


def _load_kv_composer(
    connection: sqlite3.Connection, ref: SessionRef, cid: str, workspace: str
) -> _Loaded | Unresolved:
    """Bubbles and project of a composer kept in ``cursorDiskKV``."""
    row = connection.execute(
        f"SELECT value FROM {KV_TABLE} WHERE key = ?", (f"{KV_COMPOSER}{cid}",)
    ).fetchone()
    if row is None:
        return unresolved(ref, f"composer {cid} is no longer in the database")
    composer = decode_value(row[0])
    if not isinstance(composer, dict):
        return unresolved(ref, f"composer {cid} is not a JSON object")
    headers = dicts(composer.get("fullConversationHeadersOnly"))
    if headers:
        bubbles = _ordered_bubbles(headers, _kv_bubbles(connection, cid))
    else:
        inline = composer.get("conversation")
        bubbles = inline if isinstance(inline, list) else []
    return bubbles, _kv_project(ref, composer, workspace)


def _kv_bubbles(connection: sqlite3.Connection, cid: str) -> dict[str, Any]:
    """Every ``bubbleId:<cid>:<bubble>`` row, decoded, by bubble id (``_UNDECODABLE``
    for a row that is not JSON)."""
    prefix = f"{KV_BUBBLE}{cid}:"
    rows = connection.execute(
        f"SELECT key, value FROM {KV_TABLE} WHERE key >= ? AND key < ?",
        (prefix, f"{KV_BUBBLE}{cid};"),
    )
    bubbles: dict[str, Any] = {}
    for key, value in rows:
        try:
            bubbles[str(key)[len(prefix) :]] = decode_value(value)
        except JsonError:
            bubbles[str(key)[len(prefix) :]] = _UNDECODABLE
    return bubbles


def _ordered_bubbles(headers: list[dict[str, Any]], stored: dict[str, Any]) -> list[Any]:
    """Bubbles in the order of ``fullConversationHeadersOnly`` (the live conversation).

    A bubble lacking ``type`` takes it from its header; bubbles not listed in
    the headers (rewound or deleted turns) are left out.
    """
    ordered: list[Any] = []
    for header in headers:
        bubble_id = header.get("bubbleId")
        bubble = stored.get(bubble_id) if isinstance(bubble_id, str) else None
        if isinstance(bubble, dict):
            if "type" not in bubble and "type" in header:
                bubble = {**bubble, "type": header["type"]}
            ordered.append(bubble)
        elif bubble is not None:
            ordered.append(bubble)  # a damaged row: counted as damage, never read
    return ordered


# -- Projects --------------------------------------------------------------------------------------


def _kv_project(ref: SessionRef, composer: dict[str, Any], workspace: str) -> str | None:
    """Project of a ``cursorDiskKV`` composer: its own record, else its workspace folder."""
    folder = _identifier_folder(composer)
    if folder is None and workspace:
        storage = ref.path.parent.parent / "workspaceStorage" / workspace
        folder = _workspace_json_folder(storage)
    return folder


def _identifier_folder(composer: dict[str, Any]) -> str | None:
    """The folder in a composer's ``workspaceIdentifier.uri`` (newer Cursor)."""
    identifier = composer.get("workspaceIdentifier")
    uri = identifier.get("uri") if isinstance(identifier, dict) else None
    if not isinstance(uri, dict):
        return None
    for key in ("fsPath", "path"):
        value = uri.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _workspace_json_folder(directory: Path) -> str | None:
    """The ``folder`` recorded in ``workspace.json`` of a workspace storage folder."""
    try:
        data, _version = read_bytes(directory / "workspace.json")
        decoded = decode_json(data)
    except (OSError, JsonError, ValueError):
        return None
    return _folder_from_uri(decoded.get("folder")) if isinstance(decoded, dict) else None


def _folder_from_uri(uri: Any) -> str | None:
    """A local path from a VS Code folder URI (``file:///home/x/proj``) or plain path."""
    if not isinstance(uri, str) or not uri:
        return None
    parts = urlsplit(uri)
    if not parts.scheme or len(parts.scheme) == 1:  # a plain or drive-letter path
        return uri
    path = unquote(parts.path)
    if _WINDOWS_DRIVE.match(path):
        path = path[1:]
    return path or None
