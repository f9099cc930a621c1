"""Cursor reader: agent-transcript JSONL files and the IDE's ``state.vscdb`` databases.

One tool name, two storages, told apart by the root ``discover`` is given
(``default_roots`` lists both):

- **Agent transcripts** (the ``cursor-agent`` CLI and the newer IDE agent), read
  here: ``<cursor home>/projects/<encoded workspace>/agent-transcripts/<id>.jsonl``
  or ``.../agent-transcripts/<id>/<id>.jsonl``, one ``{role, message: {content}}``
  record a line, the typed prompt wrapped in ``<user_query>``. Subagent
  transcripts under ``<id>/subagents/`` belong to their parent's run and are
  not sessions. The records carry no ids, times or working directory: message
  ids are line numbers and ``project`` is None (the encoded folder name is never
  decoded). Only ``text`` blocks are kept: tool calls, tool results and
  thinking blocks are dropped, and so are the context envelopes around the
  prompt and ``[REDACTED]`` placeholders.
- **IDE databases** (``<User dir>/workspaceStorage/*/state.vscdb`` and
  ``globalStorage/state.vscdb``): see ``_cursor_vscdb`` (the store, its
  shapes and which bubbles are prose), ``_cursor_scan`` and ``_cursor_items``
  (discovery) and ``_cursor_read`` (one conversation).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ._common import discover_files, load_json_lines, unresolved
from ._cursor_read import read_database_session
from ._cursor_scan import discover_databases
from ._cursor_vscdb import TOOL, database_root_kind
from ._model import Conversation, Message, Role, SessionRef, Unresolved
from ._parse import line_ids, strip_tagged_blocks

__all__ = ["READER", "CursorReader", "cursor_home", "ide_user_dir"]

_TRANSCRIPTS_DIR = "agent-transcripts"
_SUBAGENTS_DIR = "subagents"

#: Envelopes Cursor puts around or beside the typed prompt in a user record.
_ENVELOPE_TAGS = (
    "user_info",
    "system_reminder",
    "system-reminder",
    "timestamp",
    "attached_files",
    "open_and_recently_viewed_files",
    "git_status",
    "rules",
    "agent_requestable_workspace_rules",
    "agent_skills",
    "manually_attached_skills",
    "project_layout",
    "additional_data",
)
_USER_QUERY = re.compile(r"<user_query>(.*?)(?:</user_query>|\Z)", re.DOTALL)
#: Text blocks that stand in for content Cursor withheld (redacted reasoning).
_PLACEHOLDERS = frozenset({"[REDACTED]"})


# --------------------------------------------------------------------------- roots


def _env_path(value: str | None, home: Path) -> Path | None:
    """A directory from an environment variable, ``~`` meaning ``home``; None if unset."""
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def cursor_home(env: Mapping[str, str], home: Path) -> Path:
    """Cursor's own directory (``~/.cursor``), moved by ``CURSOR_CONFIG_DIR``."""
    return _env_path(env.get("CURSOR_CONFIG_DIR"), home) or home / ".cursor"


def ide_user_dir(env: Mapping[str, str], home: Path, platform: str | None = None) -> Path:
    """The Cursor IDE's ``User`` directory (VS Code layout) on this platform.

    Linux: ``$XDG_CONFIG_HOME/Cursor/User`` (``~/.config`` when unset or relative);
    macOS: ``~/Library/Application Support/Cursor/User``; Windows: ``%APPDATA%``.
    """
    platform = platform or sys.platform
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Cursor" / "User"
    if platform.startswith("win"):
        appdata = _env_path(env.get("APPDATA"), home) or home / "AppData" / "Roaming"
        return appdata / "Cursor" / "User"
    xdg = _env_path(env.get("XDG_CONFIG_HOME"), home)
    config = xdg if xdg is not None and xdg.is_absolute() else home / ".config"
    return config / "Cursor" / "User"


# ------------------------------------------------------------- agent transcripts


def _projects_dir(root: Path) -> Path:
    """The ``projects`` folder of a transcripts root (the root itself or its child)."""
    child = root / "projects"
    return child if child.is_dir() else root


def _transcript_session_id(location: str) -> str | None:
    """A transcript's session id (its stem); None for files that are not transcripts.

    Accepted: ``agent-transcripts/<id>.jsonl`` and ``agent-transcripts/<id>/<id>.jsonl``.
    Subagent transcripts (``<id>/subagents/*.jsonl``) are part of their parent's
    run, never sessions of their own.
    """
    path = Path(location)
    parent = path.parent
    if parent.name == _TRANSCRIPTS_DIR:
        return path.stem or None
    if parent.parent.name == _TRANSCRIPTS_DIR and parent.name == path.stem:
        return path.stem or None
    return None


def _discover_transcripts(root: Path) -> Iterator[SessionRef | Unresolved]:
    """One session per agent transcript under a ``projects`` folder."""
    yield from discover_files(
        TOOL,
        _projects_dir(root),
        lambda name: name.endswith(".jsonl"),
        _transcript_session_id,
        max_depth=4,
        prune=lambda name: name == _SUBAGENTS_DIR,
    )


def _record_role(record: Any) -> Role | None:
    """``user`` or ``assistant`` for a transcript record; None for anything else."""
    if not isinstance(record, dict):
        return None
    role = record.get("role")
    if role == "user":
        return "user"
    if role == "assistant":
        return "assistant"
    return None


def _record_texts(record: dict[str, Any]) -> list[str]:
    """The ``text`` blocks of a record's content; tool calls and thinking are left out."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _is_placeholder(text: str) -> bool:
    """A text block that only stands in for withheld content."""
    return text.strip() in _PLACEHOLDERS


def _typed_prompt(text: str) -> str:
    """What the person typed: the ``<user_query>`` contents, without Cursor's envelopes.

    When no ``<user_query>`` wrapper is present (older records), the text is kept
    minus the context blocks Cursor attaches (user info, open files, rules...).
    """
    queries = _USER_QUERY.findall(text)
    if queries:
        return "\n\n".join(query.strip() for query in queries if query.strip())
    return strip_tagged_blocks(text, _ENVELOPE_TAGS).strip()


def _record_text(record: dict[str, Any], role: Role) -> str:
    """The cleaned text of one transcript record (may be empty)."""
    texts = [text for text in _record_texts(record) if not _is_placeholder(text)]
    joined = "\n\n".join(text.strip() for text in texts if text.strip())
    return _typed_prompt(joined) if role == "user" else joined


def _read_transcript(ref: SessionRef) -> Conversation | Unresolved:
    """A cleaned conversation from an agent-transcript JSONL file."""
    lines = load_json_lines(ref)
    if isinstance(lines, Unresolved):
        return lines
    messages: list[Message] = []
    saw_turn = False
    for message_id, record in line_ids(lines.records):
        role = _record_role(record)
        if role is None:
            continue
        saw_turn = True
        message = Message.build(message_id, role, _record_text(record, role), None)
        if message is not None:
            messages.append(message)
    if not saw_turn:
        return unresolved(ref, "no user or assistant records: not a Cursor agent transcript")
    return Conversation(ref, None, tuple(messages), damaged_lines=tuple(lines.bad_lines))


# ------------------------------------------------------------------------- reader


class CursorReader:
    """Reads Cursor agent transcripts and the Cursor IDE's conversation databases."""

    tool = TOOL

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """The agent ``projects`` folder(s) and the IDE ``User`` directory.

        With ``CURSOR_CONFIG_DIR`` set, its ``projects`` folder comes first and
        ``~/.cursor/projects`` is still listed, since Cursor documents that
        variable for its configuration and transcripts may stay in ``~/.cursor``.
        """
        roots = [cursor_home(env, home) / "projects", home / ".cursor" / "projects"]
        roots.append(ide_user_dir(env, home))
        return tuple(dict.fromkeys(roots))

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every session under ``root``: transcripts or databases, by what the root holds."""
        kind = database_root_kind(root)
        if kind is None:
            return _discover_transcripts(root)
        return discover_databases(kind, root)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one transcript file or database conversation."""
        if ref.locator:
            return read_database_session(ref)
        return _read_transcript(ref)


READER = CursorReader()
