"""Cursor IDE conversations in ``state.vscdb`` (SQLite key/value) databases.

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

One session per conversation: the legacy chat pane repeats the exchanges
of the composers, and identical composers exist (a prompt re-run in a new
composer, kept twice). Composers with the same messages are one session,
the first created keeping it and the others its aliases; a chat tab whose
every message is one of a composer's is a repeat and is not listed
(``_one_per_conversation``).

``SessionRef.locator`` names the conversation inside its database:
``composer:<id>``, ``chat:<tab id>`` or ``kv:<id>``, the last optionally
followed by ``|<workspace hash>`` (the ``workspaceStorage`` folder that lists
the composer, for its project). ``FileVersion.marker`` changes only when that
one conversation changes. Bubbles that are not prose (tool calls and results,
thinking, compaction summaries, capability loops) and empty bubbles are
dropped; attached context is never part of a bubble's text.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import msgspec

from ._common import unresolved
from ._io import (
    Found,
    connect_sqlite_readonly,
    describe_os_error,
    read_bytes,
    stat_version,
    walk_files,
)
from ._model import Conversation, FileVersion, Message, Role, SessionRef, Unresolved
from ._parse import JsonError, decode_json, parse_timestamp

__all__ = ["TOOL", "database_root_kind", "discover_databases", "read_database_session"]

TOOL = "cursor"

_DB_NAME = "state.vscdb"
_ITEM_TABLE = "ItemTable"
_KV_TABLE = "cursorDiskKV"
_COMPOSERS_KEY = "composer.composerData"
_CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
_KV_COMPOSER = "composerData:"
_KV_BUBBLE = "bubbleId:"
_WINDOWS_DRIVE = re.compile(r"^/[A-Za-z]:")

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


# ---------------------------------------------------------------------- discovery


@dataclass(slots=True)
class _Scan:
    """What discovery learned from the databases under one root."""

    found: list[SessionRef | Unresolved] = field(default_factory=list)
    #: composer id -> workspaceStorage folder name, from workspace composer lists.
    workspaces: dict[str, str] = field(default_factory=dict)
    #: composers whose content lives in a ``cursorDiskKV`` table.
    kv_ids: set[str] = field(default_factory=set)


def _database_files(kind: RootKind, root: Path) -> tuple[list[Found], Path | None]:
    """Workspace databases (or why one cannot be looked at) and the global database
    under a root of ``kind``."""
    if kind == "database":
        return [], root
    if kind == "global":
        return [], root / _DB_NAME
    workspaces = root if kind == "workspaces" else root / "workspaceStorage"
    found = [
        item
        for item in walk_files(
            workspaces, lambda name: name == _DB_NAME, max_depth=2, report_unlistable=True
        )
        if item.path.parent != workspaces or item.version is None
    ]
    return found, (root / "globalStorage" / _DB_NAME if kind == "user" else None)


def discover_databases(kind: RootKind, root: Path) -> Iterator[SessionRef | Unresolved]:
    """Every conversation in the Cursor databases under ``root``.

    Workspace databases are scanned first so that composers stored in the
    global ``cursorDiskKV`` table can be tied to their workspace folder; a
    composer found both inline and in ``cursorDiskKV`` is reported once, from
    ``cursorDiskKV`` (where Cursor moved conversations and keeps writing).
    """
    workspace_dbs, global_db = _database_files(kind, root)
    scan = _Scan()
    for found in workspace_dbs:
        if found.version is None:
            scan.found.append(_db_unresolved(found.path, found.error or "cannot stat"))
        else:
            _scan_database(found.path, scan, workspace=found.path.parent.name)
    if global_db is not None and (global_db.exists() or global_db.is_symlink()):
        _scan_database(global_db, scan, workspace=None)
    for item in scan.found:
        if _superseded(item, scan.kv_ids):
            continue
        yield _with_workspace(item, scan.workspaces)


def _superseded(item: SessionRef | Unresolved, kv_ids: set[str]) -> bool:
    """An inline composer whose conversation also lives in ``cursorDiskKV``."""
    return (
        isinstance(item, SessionRef)
        and item.locator.startswith("composer:")
        and item.session_id in kv_ids
    )


def _with_workspace(
    item: SessionRef | Unresolved, workspaces: dict[str, str]
) -> SessionRef | Unresolved:
    """Append the owning workspace folder to a ``kv:`` locator when it is known."""
    if not isinstance(item, SessionRef) or not item.locator.startswith("kv:"):
        return item
    folder = workspaces.get(item.session_id)
    return replace(item, locator=f"{item.locator}|{folder}") if folder else item


def _db_unresolved(path: Path, reason: str, sid: str | None = None) -> Unresolved:
    """An ``Unresolved`` for one conversation, or for a whole database.

    A whole database is named by its folder too (``<hash>/state.vscdb``): every
    workspace database has the same file name, and unresolved sources are
    keyed by session id or file name.
    """
    return Unresolved(TOOL, path, reason, session_id=sid or f"{path.parent.name}/{path.name}")


def _sqlite_reason(error: Exception) -> str:
    """A short reason for a database that cannot be opened or queried."""
    if isinstance(error, OSError):
        return describe_os_error(error)
    return f"cannot read database: {error}"


def _scan_database(path: Path, scan: _Scan, *, workspace: str | None) -> None:
    """Add the conversations of one ``state.vscdb`` to ``scan`` (or why it is unreadable)."""
    try:
        version = stat_version(path)
        connection = connect_sqlite_readonly(path)
    except (OSError, sqlite3.Error) as error:
        scan.found.append(_db_unresolved(path, _sqlite_reason(error)))
        return
    with closing(connection):
        try:
            _scan_tables(connection, path, version, scan, workspace)
        except sqlite3.Error as error:
            scan.found.append(_db_unresolved(path, _sqlite_reason(error)))


def _tables(connection: sqlite3.Connection) -> set[str]:
    """Names of the tables in a database."""
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(name) for (name,) in rows}


def _scan_tables(
    connection: sqlite3.Connection,
    path: Path,
    version: FileVersion,
    scan: _Scan,
    workspace: str | None,
) -> None:
    """Find conversations in whichever of Cursor's tables the database has."""
    tables = _tables(connection)
    if _ITEM_TABLE not in tables and _KV_TABLE not in tables:
        scan.found.append(_db_unresolved(path, "no ItemTable or cursorDiskKV table"))
        return
    if _ITEM_TABLE in tables:
        _scan_item_table(connection, path, version, scan, workspace)
    if _KV_TABLE in tables:
        _scan_kv_table(connection, path, version, scan)


def _item(connection: sqlite3.Connection, key: str) -> Any | None:
    """The raw value of one ``ItemTable`` key, or None when absent."""
    row = connection.execute(f"SELECT value FROM {_ITEM_TABLE} WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _decode_value(value: Any) -> Any:
    """A JSON value stored as TEXT or BLOB; raises ``JsonError``."""
    if not isinstance(value, str | bytes):
        raise JsonError(f"stored as {type(value).__name__}")
    return decode_json(value)


def _decode_item(connection: sqlite3.Connection, key: str) -> Any | None:
    """The decoded JSON of an ``ItemTable`` key; None when absent; raises ``JsonError``."""
    value = _item(connection, key)
    return None if value is None else _decode_value(value)


def _content_marker(payload: Any) -> str:
    """A short hash of one conversation's stored content."""
    encoded = msgspec.json.encode(payload)
    return f"{len(encoded)}:{hashlib.sha256(encoded).hexdigest()[:16]}"


def _epoch_time(*values: Any) -> datetime | None:
    """The first usable epoch/ISO time among ``values`` (zero and junk skipped)."""
    for value in values:
        if value and not isinstance(value, bool):
            moment = parse_timestamp(value)
            if moment is not None:
                return moment
    return None


def _scan_item_table(
    connection: sqlite3.Connection,
    path: Path,
    version: FileVersion,
    scan: _Scan,
    workspace: str | None,
) -> None:
    """Inline composers and legacy chat tabs kept in ``ItemTable``, one per conversation."""
    inline: list[_Inline] = []
    for key, collect in ((_COMPOSERS_KEY, _inline_composers), (_CHAT_KEY, _chat_tabs)):
        try:
            data = _decode_item(connection, key)
        except JsonError as error:
            scan.found.append(_db_unresolved(path, f"{key} is not JSON: {error}"))
            continue
        if data is not None:
            collect(data, path, version, scan, workspace, inline)
    scan.found.extend(_one_per_conversation(inline))


#: A conversation's prose, as (role, text) pairs: what tells two copies of it apart.
_Signature = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class _Inline:
    """A conversation found in ``ItemTable``, with what deduplication compares."""

    ref: SessionRef
    signature: _Signature
    created: float


def _signature(bubbles: list[Any]) -> _Signature:
    """The (role, text) pairs of a conversation's prose messages."""
    return tuple((message.role, message.text) for message in _bubble_messages(bubbles))


def _one_per_conversation(found: list[_Inline]) -> list[SessionRef]:
    """One session per conversation among a database's composers and chat tabs.

    Composers with the same (non-empty) messages are one conversation: the
    first created keeps it (ties by id), the others become its aliases. A chat
    tab whose every message is a composer's repeats them (the legacy pane logs
    composer exchanges) and is left out, as is a tab identical to an earlier one.
    """
    composers = [item for item in found if item.ref.locator.startswith("composer:")]
    tabs = [item for item in found if not item.ref.locator.startswith("composer:")]
    keepers: dict[_Signature, _Inline] = {}
    aliases: dict[str, list[str]] = {}
    for item in sorted(composers, key=lambda i: (i.created, i.ref.session_id)):
        kept = keepers.setdefault(item.signature, item) if item.signature else item
        if kept is not item:
            aliases.setdefault(kept.ref.session_id, []).append(item.ref.session_id)
    composed = {pair for item in composers for pair in item.signature}
    seen_tabs: set[_Signature] = set()
    result: list[SessionRef] = []
    for item in found:
        if item in tabs:
            if item.signature and (set(item.signature) <= composed or item.signature in seen_tabs):
                continue
            seen_tabs.add(item.signature)
        elif item.signature and keepers[item.signature] is not item:
            continue
        extra = tuple(aliases.get(item.ref.session_id, ()))
        result.append(replace(item.ref, aliases=extra) if extra else item.ref)
    return result


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of a list (anything else gives [])."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _listed(data: Any, key: str, item_key: str) -> list[dict[str, Any]] | str:
    """The entries of ``data[key]`` (a list of objects with a string ``item_key``),
    or why that list is damaged. An absent list is an empty one."""
    if not isinstance(data, dict):
        return f"not an object but {type(data).__name__}"
    entries = data.get(key, [])
    if not isinstance(entries, list):
        return f"{key} is not a list"
    kept = [e for e in entries if isinstance(e, dict) and isinstance(e.get(item_key), str)]
    kept = [entry for entry in kept if entry[item_key]]
    damaged = len(entries) - len(kept)
    if damaged:
        return f"{damaged} of the {len(entries)} entries of {key} are damaged"
    return kept


def _damaged_list(path: Path, item: str, scan: _Scan, reason: str, sid: str | None = None) -> None:
    """Report a damaged list of conversations, so that none vanishes unsaid."""
    scan.found.append(_db_unresolved(path, f"{item} is damaged: {reason}", sid))


def _inline_composers(
    data: Any,
    path: Path,
    version: FileVersion,
    scan: _Scan,
    workspace: str | None,
    found: list[_Inline],
) -> None:
    """One session per composer with an inline, non-empty ``conversation``.

    Every listed composer id is remembered with its workspace, so that a
    composer whose bubbles live in the global database gets its project. A
    damaged list is reported, and read as far as it goes.
    """
    composers = _listed(data, "allComposers", "composerId")
    if isinstance(composers, str):
        _damaged_list(path, _COMPOSERS_KEY, scan, composers)
        composers = _dicts(data.get("allComposers")) if isinstance(data, dict) else []
    for composer in composers:
        cid = composer.get("composerId")
        if not isinstance(cid, str) or not cid:
            continue
        if workspace is not None:
            scan.workspaces.setdefault(cid, workspace)
        conversation = composer.get("conversation")
        if conversation is not None and not isinstance(conversation, list):
            _damaged_list(path, f"composer {cid}", scan, "its conversation is not a list", cid)
            continue
        if not conversation:
            continue
        ref = SessionRef(
            TOOL,
            cid,
            str(path),
            version.with_marker(_content_marker(conversation)),
            locator=f"composer:{cid}",
            updated_at=_epoch_time(composer.get("lastUpdatedAt"), composer.get("createdAt")),
        )
        created = _epoch_time(composer.get("createdAt"))
        found.append(_Inline(ref, _signature(conversation), created.timestamp() if created else 0))


def _chat_tabs(
    data: Any,
    path: Path,
    version: FileVersion,
    scan: _Scan,
    workspace: str | None,
    found: list[_Inline],
) -> None:
    """One session per legacy chat-pane tab that has bubbles (a damaged list is reported)."""
    tabs = _listed(data, "tabs", "tabId")
    if isinstance(tabs, str):
        _damaged_list(path, _CHAT_KEY, scan, tabs)
        tabs = _dicts(data.get("tabs")) if isinstance(data, dict) else []
    for tab in tabs:
        tab_id, bubbles = tab.get("tabId"), tab.get("bubbles")
        if not isinstance(tab_id, str) or not tab_id:
            continue
        if bubbles is not None and not isinstance(bubbles, list):
            _damaged_list(path, f"chat tab {tab_id}", scan, "its bubbles are not a list", tab_id)
            continue
        if not bubbles:
            continue
        ref = SessionRef(
            TOOL,
            tab_id,
            str(path),
            version.with_marker(_content_marker(bubbles)),
            locator=f"chat:{tab_id}",
            updated_at=_epoch_time(tab.get("lastSendTime")),
        )
        found.append(_Inline(ref, _signature(bubbles), 0.0))


#: Per composer row: id, validity, times, header/inline counts, subagent flag, size.
_KV_COMPOSERS_SQL = f"""
SELECT key, ok,
       CASE WHEN ok THEN json_extract(v, '$.lastUpdatedAt') END,
       CASE WHEN ok THEN json_extract(v, '$.createdAt') END,
       CASE WHEN ok THEN json_array_length(v, '$.fullConversationHeadersOnly') END,
       CASE WHEN ok THEN json_array_length(v, '$.conversation') END,
       CASE WHEN ok THEN json_type(v, '$.subagentInfo') END,
       length(v)
FROM (SELECT key, CAST(value AS TEXT) AS v, json_valid(CAST(value AS TEXT)) AS ok
      FROM {_KV_TABLE} WHERE key >= '{_KV_COMPOSER}' AND key < 'composerData;')
"""


@dataclass(frozen=True, slots=True)
class _KvComposer:
    """The cheap facts discovery needs about one ``composerData:<id>`` row."""

    cid: str
    valid: bool
    updated: Any = None
    created: Any = None
    headers: int = 0
    inline: int = 0
    subagent: bool = False
    size: int = 0


def _kv_composer_rows(connection: sqlite3.Connection) -> list[_KvComposer]:
    """Composer rows summarised by SQLite's JSON functions (values are not loaded)."""
    return [
        _KvComposer(
            cid=str(key)[len(_KV_COMPOSER) :],
            valid=bool(ok),
            updated=updated,
            created=created,
            headers=headers or 0,
            inline=inline or 0,
            subagent=kind in ("object", "array"),
            size=size or 0,
        )
        for key, ok, updated, created, headers, inline, kind, size in connection.execute(
            _KV_COMPOSERS_SQL
        )
    ]


def _is_subagent_composer(row: _KvComposer) -> bool:
    """A composer that a Task tool call spawned: part of its parent's run."""
    return row.subagent or row.cid.startswith("task-")


def _scan_kv_table(
    connection: sqlite3.Connection, path: Path, version: FileVersion, scan: _Scan
) -> None:
    """One session per ``composerData:<id>`` row that has a conversation."""
    for row in _kv_composer_rows(connection):
        if not row.cid or _is_subagent_composer(row):
            continue
        if not row.valid:
            scan.found.append(_db_unresolved(path, "composer record is not JSON", row.cid))
            continue
        if row.headers == 0 and row.inline == 0:
            continue
        scan.kv_ids.add(row.cid)
        marker = f"{row.updated}:{row.headers}:{row.inline}:{row.size}"
        scan.found.append(
            SessionRef(
                TOOL,
                row.cid,
                str(path),
                version.with_marker(marker),
                locator=f"kv:{row.cid}",
                updated_at=_epoch_time(row.updated, row.created),
            )
        )


# ------------------------------------------------------------------------ reading


def _parse_locator(locator: str) -> tuple[str, str, str]:
    """``(kind, conversation id, workspace folder)`` from a database locator."""
    head, _, workspace = locator.partition("|")
    kind, _, ident = head.partition(":")
    return kind, ident, workspace


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


def damaged_positions(bubbles: Iterable[Any]) -> tuple[int, ...]:
    """1-based positions of the bubbles that are not objects (damaged, or undecodable rows).

    They stand for the damaged lines of a database conversation: it is read
    from the other bubbles and is ``partial``.
    """
    return tuple(n for n, bubble in enumerate(bubbles, start=1) if not isinstance(bubble, dict))


def _bubble_messages(bubbles: Iterable[Any]) -> tuple[Message, ...]:
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
        message = Message.build(message_id, role, text, _epoch_time(bubble.get("createdAt")))
        if message is not None:
            seen.add(message_id)
            messages.append(message)
    return tuple(messages)


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


def _workspace_json_folder(directory: Path) -> str | None:
    """The ``folder`` recorded in ``workspace.json`` of a workspace storage folder."""
    try:
        data, _version = read_bytes(directory / "workspace.json")
        decoded = decode_json(data)
    except (OSError, JsonError, ValueError):
        return None
    return _folder_from_uri(decoded.get("folder")) if isinstance(decoded, dict) else None


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


def _kv_project(ref: SessionRef, composer: dict[str, Any], workspace: str) -> str | None:
    """Project of a ``cursorDiskKV`` composer: its own record, else its workspace folder."""
    folder = _identifier_folder(composer)
    if folder is None and workspace:
        storage = ref.path.parent.parent / "workspaceStorage" / workspace
        folder = _workspace_json_folder(storage)
    return folder


#: The bubbles of one database conversation and its project folder.
_Loaded = tuple[list[Any], str | None]


def _load_inline_composer(
    connection: sqlite3.Connection, ref: SessionRef, cid: str
) -> _Loaded | Unresolved:
    """Bubbles and project of an inline composer in ``composer.composerData``."""
    data = _decode_item(connection, _COMPOSERS_KEY)
    if data is None:
        return unresolved(ref, f"{_COMPOSERS_KEY} is no longer in the database")
    composers = _dicts(data.get("allComposers")) if isinstance(data, dict) else []
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
    data = _decode_item(connection, _CHAT_KEY)
    tabs = _dicts(data.get("tabs")) if isinstance(data, dict) else []
    match = next((tab for tab in tabs if tab.get("tabId") == tab_id), None)
    if match is None:
        return unresolved(ref, f"chat tab {tab_id} is no longer in the database")
    bubbles = match.get("bubbles")
    if not isinstance(bubbles, list):
        return unresolved(ref, f"chat tab {tab_id} has no bubbles")
    return bubbles, _workspace_json_folder(ref.path.parent)


def _kv_bubbles(connection: sqlite3.Connection, cid: str) -> dict[str, Any]:
    """Every ``bubbleId:<cid>:<bubble>`` row, decoded, by bubble id (``_UNDECODABLE``
    for a row that is not JSON)."""
    prefix = f"{_KV_BUBBLE}{cid}:"
    rows = connection.execute(
        f"SELECT key, value FROM {_KV_TABLE} WHERE key >= ? AND key < ?",
        (prefix, f"{_KV_BUBBLE}{cid};"),
    )
    bubbles: dict[str, Any] = {}
    for key, value in rows:
        try:
            bubbles[str(key)[len(prefix) :]] = _decode_value(value)
        except JsonError:
            bubbles[str(key)[len(prefix) :]] = _UNDECODABLE
    return bubbles


#: Stands in the bubble list for a ``bubbleId`` row that is not JSON (a damaged bubble).
_UNDECODABLE = "<undecodable bubble>"


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


def _load_kv_composer(
    connection: sqlite3.Connection, ref: SessionRef, cid: str, workspace: str
) -> _Loaded | Unresolved:
    """Bubbles and project of a composer kept in ``cursorDiskKV``."""
    row = connection.execute(
        f"SELECT value FROM {_KV_TABLE} WHERE key = ?", (f"{_KV_COMPOSER}{cid}",)
    ).fetchone()
    if row is None:
        return unresolved(ref, f"composer {cid} is no longer in the database")
    composer = _decode_value(row[0])
    if not isinstance(composer, dict):
        return unresolved(ref, f"composer {cid} is not a JSON object")
    headers = _dicts(composer.get("fullConversationHeadersOnly"))
    if headers:
        bubbles = _ordered_bubbles(headers, _kv_bubbles(connection, cid))
    else:
        inline = composer.get("conversation")
        bubbles = inline if isinstance(inline, list) else []
    return bubbles, _kv_project(ref, composer, workspace)


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


def read_database_session(ref: SessionRef) -> Conversation | Unresolved:
    """A cleaned conversation from one conversation inside a ``state.vscdb``."""
    try:
        connection = connect_sqlite_readonly(ref.path)
    except (OSError, sqlite3.Error) as error:
        return unresolved(ref, _sqlite_reason(error))
    with closing(connection):
        try:
            loaded = _load_database_session(connection, ref)
        except sqlite3.Error as error:
            return unresolved(ref, _sqlite_reason(error))
        except JsonError as error:
            return unresolved(ref, f"stored conversation is not JSON: {error}")
    if isinstance(loaded, Unresolved):
        return loaded
    bubbles, project = loaded
    return Conversation(
        ref, project, _bubble_messages(bubbles), damaged_lines=damaged_positions(bubbles)
    )
