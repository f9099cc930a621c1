"""Discovery of the conversations a ``state.vscdb`` keeps in its ``ItemTable``.

Two keys hold them: ``composer.composerData`` (``allComposers``, whose older
entries carry an inline ``conversation``) and the legacy chat pane's
``workbench.panel.aichat.view.aichat.chatdata`` (``tabs``).

One session per conversation: the legacy chat pane repeats the exchanges
of the composers, and identical composers exist (a prompt re-run in a new
composer, kept twice). Composers with the same messages are one session,
the first created keeping it and the others its aliases; a chat tab whose
every message is one of a composer's is a repeat and is not listed
(``_one_per_conversation``).

Invariants: a session's ``FileVersion.marker`` is a hash of that one
conversation's stored content, so it changes only when that conversation
changes. A damaged list is reported (an ``Unresolved``), so that no
conversation vanishes unsaid, and read as far as it goes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
from msgspec import structs

from ._cursor_vscdb import (
    CHAT_KEY,
    COMPOSERS_KEY,
    TOOL,
    bubble_messages,
    db_unresolved,
    decode_item,
    dicts,
    epoch_time,
)
from ._model import FileVersion, SessionRef, Unresolved
from ._parse import JsonError

__all__ = ["scan_item_table"]

#: A conversation's prose, as (role, text) pairs: what tells two copies of it apart.
_Signature = tuple[tuple[str, str], ...]


class _Inline(msgspec.Struct, frozen=True):
    """A conversation found in ``ItemTable``, with what deduplication compares."""

    ref: SessionRef
    signature: _Signature
    created: float


class _Listing(msgspec.Struct):
    """One ``ItemTable`` being listed, and where what it holds goes."""

    path: Path
    version: FileVersion
    workspace: str | None
    #: The whole scan's findings, in the order found.
    found: list[SessionRef | Unresolved]
    #: composer id -> workspaceStorage folder name, for the whole scan.
    workspaces: dict[str, str]
    inline: list[_Inline] = msgspec.field(default_factory=list)

    def damaged(self, item: str, reason: str, sid: str | None = None) -> None:
        """Report a damaged list of conversations, so that none vanishes unsaid."""
        self.found.append(db_unresolved(self.path, f"{item} is damaged: {reason}", sid))


def scan_item_table(
    connection: sqlite3.Connection,
    path: Path,
    version: FileVersion,
    *,
    workspace: str | None,
    found: list[SessionRef | Unresolved],
    workspaces: dict[str, str],
) -> None:
    """Inline composers and legacy chat tabs kept in ``ItemTable``, one per conversation.

    Reports are appended to ``found`` as they turn up, the sessions after
    them; the composers a workspace database lists are added to
    ``workspaces`` with that ``workspace``.
    """
    listing = _Listing(path, version, workspace, found, workspaces)
    for key, collect in ((COMPOSERS_KEY, _inline_composers), (CHAT_KEY, _chat_tabs)):
        try:
            data = decode_item(connection, key)
        except JsonError as error:
            found.append(db_unresolved(path, f"{key} is not JSON: {error}"))
            continue
        if data is not None:
            collect(data, listing)
    found.extend(_one_per_conversation(listing.inline))


def _content_marker(payload: Any) -> str:
    """A short hash of one conversation's stored content."""
    encoded = msgspec.json.encode(payload)
    return f"{len(encoded)}:{hashlib.sha256(encoded).hexdigest()[:16]}"


def _signature(bubbles: list[Any]) -> _Signature:
    """The (role, text) pairs of a conversation's prose messages."""
    return tuple((message.role, message.text) for message in bubble_messages(bubbles))


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
        result.append(structs.replace(item.ref, aliases=extra) if extra else item.ref)
    return result


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


def _inline_composers(data: Any, listing: _Listing) -> None:
    """One session per composer with an inline, non-empty ``conversation``.

    Every listed composer id is remembered with its workspace, so that a
    composer whose bubbles live in the global database gets its project. A
    damaged list is reported, and read as far as it goes.
    """
    composers = _listed(data, "allComposers", "composerId")
    if isinstance(composers, str):
        listing.damaged(COMPOSERS_KEY, composers)
        composers = dicts(data.get("allComposers")) if isinstance(data, dict) else []
    for composer in composers:
        cid = composer.get("composerId")
        if not isinstance(cid, str) or not cid:
            continue
        if listing.workspace is not None:
            listing.workspaces.setdefault(cid, listing.workspace)
        conversation = composer.get("conversation")
        if conversation is not None and not isinstance(conversation, list):
            listing.damaged(f"composer {cid}", "its conversation is not a list", cid)
            continue
        if conversation:
            listing.inline.append(_inline_composer(listing, cid, composer, conversation))


def _inline_composer(
    listing: _Listing, cid: str, composer: dict[str, Any], conversation: list[Any]
) -> _Inline:
    """The session of one composer with an inline conversation."""
    ref = SessionRef(
        TOOL,
        cid,
        str(listing.path),
        listing.version.with_marker(_content_marker(conversation)),
        locator=f"composer:{cid}",
        updated_at=epoch_time(composer.get("lastUpdatedAt"), composer.get("createdAt")),
    )
    created = epoch_time(composer.get("createdAt"))
    return _Inline(ref, _signature(conversation), created.timestamp() if created else 0)


def _chat_tabs(data: Any, listing: _Listing) -> None:
    """One session per legacy chat-pane tab that has bubbles (a damaged list is reported)."""
    tabs = _listed(data, "tabs", "tabId")
    if isinstance(tabs, str):
        listing.damaged(CHAT_KEY, tabs)
        tabs = dicts(data.get("tabs")) if isinstance(data, dict) else []
    for tab in tabs:
        tab_id, bubbles = tab.get("tabId"), tab.get("bubbles")
        if not isinstance(tab_id, str) or not tab_id:
            continue
        if bubbles is not None and not isinstance(bubbles, list):
            listing.damaged(f"chat tab {tab_id}", "its bubbles are not a list", tab_id)
            continue
        if not bubbles:
            continue
        ref = SessionRef(
            TOOL,
            tab_id,
            str(listing.path),
            listing.version.with_marker(_content_marker(bubbles)),
            locator=f"chat:{tab_id}",
            updated_at=epoch_time(tab.get("lastSendTime")),
        )
        listing.inline.append(_Inline(ref, _signature(bubbles), 0.0))
