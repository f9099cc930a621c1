"""Lay the real Cursor fixtures out where Cursor keeps them under a HOME.

- the agent transcript as ``~/.cursor/projects/<encoded>/agent-transcripts/<id>/<id>.jsonl``,
  with the subagent transcript in that session's ``subagents/`` folder (not a session);
- the workspace ``state.vscdb`` as ``<Cursor User dir>/workspaceStorage/<hash>/state.vscdb``.

The expected session keys of the database are listed straight from its
tables with ``sqlite3`` (read-only), independently of the reader: one per
conversation, since the legacy chat pane repeats the composers' exchanges
and some composers are identical.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dreamd.readers.cursor import ide_user_dir

SESSION_ID = "6f1d7c2a-3b4e-4c5d-8e9f-0a1b2c3d4e5f"
SUBAGENT_ID = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d"
WORKSPACE_HASH = "3f2a9c1e5b7d4f6a8c0e2b4d6f8a1c3e"
ENCODED_PROJECT = "home-user-mobilechat"


def transcript_dir(home: Path) -> Path:
    """The agent-transcripts folder of the laid-out session."""
    return home / ".cursor" / "projects" / ENCODED_PROJECT / "agent-transcripts" / SESSION_ID


def workspace_db(home: Path) -> Path:
    """Where the real workspace database is laid out (default env)."""
    return ide_user_dir({}, home) / "workspaceStorage" / WORKSPACE_HASH / "state.vscdb"


def _prose(bubbles: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """(role, text) of the bubbles that hold text, straight from the stored JSON."""
    pairs = []
    for bubble in bubbles:
        role = "user" if bubble.get("type") in (1, "user") else "assistant"
        text = (bubble.get("text") or "").strip() or (bubble.get("rawText") or "").strip()
        if text:
            pairs.append((role, text))
    return tuple(pairs)


def database_session_ids(path: Path) -> list[str]:
    """One id per conversation: composers with an inline conversation (identical ones
    once, the first created), then chat tabs that do not only repeat composers."""
    uri = f"file:{quote(str(path))}?mode=ro&immutable=1"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        rows = dict(connection.execute("SELECT key, value FROM ItemTable").fetchall())
    composers = json.loads(rows["composer.composerData"])["allComposers"]
    tabs = json.loads(rows["workbench.panel.aichat.view.aichat.chatdata"])["tabs"]
    first: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}
    for composer in sorted(composers, key=lambda c: (c.get("createdAt", 0), c["composerId"])):
        if composer.get("conversation"):
            first.setdefault(_prose(composer["conversation"]), composer)
    kept = {id(composer) for composer in first.values()}
    ids = [c["composerId"] for c in composers if id(c) in kept]
    composed = {pair for signature in first for pair in signature}
    for tab in tabs:
        if tab.get("bubbles") and not set(_prose(tab["bubbles"])) <= composed:
            ids.append(tab["tabId"])
    return ids


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy each real Cursor fixture to its default place; return the session keys."""
    source = fixtures / "cursor"
    sessions = transcript_dir(home)
    (sessions / "subagents").mkdir(parents=True)
    shutil.copy2(source / "agentsessions_test-session.jsonl", sessions / f"{SESSION_ID}.jsonl")
    shutil.copy2(
        source / "agentsessions_subagent-session.jsonl",
        sessions / "subagents" / f"{SUBAGENT_ID}.jsonl",
    )
    database = workspace_db(home)
    database.parent.mkdir(parents=True)
    shutil.copy2(source / "slevin48_state.vscdb", database)
    ids = [SESSION_ID, *database_session_ids(database)]
    return [f"cursor:{sid}" for sid in ids]
