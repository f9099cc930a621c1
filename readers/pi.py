"""Pi and OMP (oh-my-pi) sessions: JSON Lines trees, read along the active branch.

Both tools write one file per session, ``<timestamp>_<session id>.jsonl``, in a
folder per working directory under ``<agent dir>/sessions``. The first line is
a ``{"type": "session"}`` header carrying the session id and ``cwd``; OMP may
put a fixed-width ``{"type": "title"}`` slot line before it. Every later line
is an entry:

- format v1 (no ``version`` in the header): a flat list, no entry ids;
- format v2/v3: entries carry an 8-hex ``id`` and a ``parentId``, forming a
  tree. Branching moves the tool's leaf pointer back to an earlier entry and
  the next entry becomes a second child. On load the tool takes the last
  entry of the file as the leaf, so the conversation is the path from that
  entry to the root; every other branch was abandoned.

Only ``message`` entries with role ``user`` or ``assistant`` carry the
conversation. Dropped: thinking and tool-call blocks, ``toolResult``,
``bashExecution``/``pythonExecution`` (shell runs typed with ``!``),
``custom``/``hookMessage``/``fileMention`` messages, ``custom_message``,
compaction and branch summaries, model/thinking changes, labels and every
other metadata entry, and user prompts the program wrote itself
(``synthetic`` or ``attribution: "agent"``). OMP keeps subagent transcripts
inside a folder named after their parent session file; they are not sessions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard

import msgspec

from ._common import discover_files, load_json_lines, unresolved
from ._io import SourceChanged, read_bytes
from ._model import Conversation, Message, Role, SessionRef, Unresolved
from ._parse import JsonError, decode_json, parse_timestamp

__all__ = ["OMP_READER", "PI_READER", "PiSessionReader", "parse_session"]

#: Session files sit in ``<root>/<encoded cwd>/`` (default layout) or directly
#: in a custom session folder; OMP subagent files one level below a session.
_MAX_DEPTH = 2

#: ``2025-12-09T00-52-54-397Z_<id>.jsonl``: the id is everything after the first ``_``.
_SESSION_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}T[0-9-]+Z_(?P<id>[^/]+)\.jsonl$")

#: Files given on the command line (``pi @notes.md``) are pasted before the prompt.
_FILE_ATTACHMENT = re.compile(r'\A\s*<file name="[^"\n]*">.*?</file>\n?', re.DOTALL)

#: ``/skill:name args`` is expanded into the skill's text followed by the args.
_SKILL_EXPANSION = re.compile(
    r'\A<skill name="[^"\n]*" location="[^"\n]*">\n.*?\n</skill>(?:\n\n|\Z)', re.DOTALL
)

#: OMP profile names, as the tool validates them.
_PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")

_SUBAGENT_INIT = "session_init"


# --------------------------------------------------------------------------
# Where the sessions live
# --------------------------------------------------------------------------


def _user_path(value: str | None, home: Path) -> Path | None:
    """An absolute or ``~``-relative path from configuration, else None.

    Relative paths are resolved by the tools against the directory they were
    started in, which a daemon cannot know, so they are not followed.
    """
    if not value or not value.strip():
        return None
    text = value.strip()
    if text == "~":
        return home
    if text.startswith("~/"):
        return home / text[2:]
    path = Path(text)
    return path if path.is_absolute() else None


def _unique(paths: Iterable[Path | None]) -> tuple[Path, ...]:
    """The given paths without None and without repeats, in order."""
    seen: list[Path] = []
    for path in paths:
        if path is not None and path not in seen:
            seen.append(path)
    return tuple(seen)


def _settings_session_dir(agent_dir: Path, home: Path) -> Path | None:
    """``sessionDir`` from Pi's global ``settings.json``, when absolute or ``~``-based."""
    try:
        data, _version = read_bytes(agent_dir / "settings.json")
        settings = decode_json(data)
    except (OSError, SourceChanged, JsonError):
        return None
    if not isinstance(settings, dict):
        return None
    value = settings.get("sessionDir")
    return _user_path(value, home) if isinstance(value, str) else None


def pi_roots(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """Pi's session folders.

    ``PI_CODING_AGENT_DIR`` moves the agent dir (default ``~/.pi/agent``);
    ``PI_CODING_AGENT_SESSION_DIR``, else ``sessionDir`` in the agent's
    ``settings.json``, moves only the sessions. Sessions written before such
    an override stay in ``<agent dir>/sessions``, which is listed too.
    """
    agent_dir = _user_path(env.get("PI_CODING_AGENT_DIR"), home) or home / ".pi" / "agent"
    override = _user_path(env.get("PI_CODING_AGENT_SESSION_DIR"), home)
    if override is None:
        override = _settings_session_dir(agent_dir, home)
    return _unique([override, agent_dir / "sessions"])


def _omp_profile(env: Mapping[str, str]) -> str | None:
    """The active OMP profile: ``OMP_PROFILE`` when set (even empty), else ``PI_PROFILE``."""
    value = env["OMP_PROFILE"] if "OMP_PROFILE" in env else env.get("PI_PROFILE")
    name = (value or "").strip()
    if not name or name == "default" or name.endswith(".") or not _PROFILE_NAME.match(name):
        return None
    return name


def _omp_xdg_sessions(env: Mapping[str, str], profile: str | None) -> Path | None:
    """``$XDG_DATA_HOME/omp[/profiles/<name>]/sessions``, used once that folder exists."""
    value = env.get("XDG_DATA_HOME")
    xdg = Path(value) if value else None
    if xdg is None or not xdg.is_absolute():
        return None
    base = xdg / "omp" if profile is None else xdg / "omp" / "profiles" / profile
    return base / "sessions" if base.is_dir() else None


def _omp_profile_sessions(config_root: Path) -> list[Path]:
    """The sessions folder of every profile found under ``<config root>/profiles``."""
    try:
        names = sorted(entry.name for entry in (config_root / "profiles").iterdir())
    except OSError:
        return []
    return [config_root / "profiles" / name / "agent" / "sessions" for name in names]


def omp_roots(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """OMP's session folders.

    The config root is ``~/.omp`` (renamed by ``PI_CONFIG_DIR``); a profile
    chosen by ``OMP_PROFILE``/``PI_PROFILE`` lives in ``profiles/<name>``;
    ``$XDG_DATA_HOME/omp`` replaces it once migrated; older releases honoured
    ``OMP_CODING_AGENT_DIR``. ``PI_CODING_AGENT_DIR`` and
    ``PI_CODING_AGENT_SESSION_DIR`` are shared with Pi and left to the Pi
    reader, so one folder is never listed under both tools. Every existing
    profile is listed, active one first.
    """
    config_root = home / (env.get("PI_CONFIG_DIR") or ".omp").lstrip("/")
    profile = _omp_profile(env)
    active = config_root / "agent"
    if profile is not None:
        active = config_root / "profiles" / profile / "agent"
    legacy = _user_path(env.get("OMP_CODING_AGENT_DIR"), home)
    return _unique(
        [
            legacy / "sessions" if legacy is not None else None,
            _omp_xdg_sessions(env, profile),
            active / "sessions",
            config_root / "agent" / "sessions",
            *_omp_profile_sessions(config_root),
        ]
    )


# --------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------


def _is_session_file_name(name: str) -> bool:
    """JSON Lines files, skipping hidden ones."""
    return name.endswith(".jsonl") and not name.startswith(".")


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def _is_subagent_transcript(path: Path) -> bool:
    """OMP writes a subagent's session to ``<parent session>/<agent>.jsonl``."""
    folder = path.parent
    return folder.with_name(folder.name + ".jsonl").is_file()


def session_id_from_path(location: str | os.PathLike[str]) -> str | None:
    """The session id the file name carries, the stem for other names, None for subagents."""
    path = Path(location)
    if _is_subagent_transcript(path):
        return None
    match = _SESSION_FILE.match(path.name)
    if match:
        return match["id"]
    return path.name[: -len(".jsonl")] or None


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def _is_dict(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


class _Entry(msgspec.Struct, frozen=True):
    """One decoded line after the header, with the key its message would get."""

    key: str
    record: dict[str, Any]

    @property
    def entry_id(self) -> str | None:
        value = self.record.get("id")
        return value if isinstance(value, str) and value else None

    @property
    def parent_id(self) -> str | None:
        value = self.record.get("parentId")
        return value if isinstance(value, str) and value else None


def _find_header(records: list[tuple[int, Any]]) -> int | None:
    """Index of the session header: the first record, after an optional OMP title slot."""
    for index, (_line, value) in enumerate(records):
        if _is_dict(value) and value.get("type") == "title":
            continue
        if _is_dict(value) and value.get("type") == "session":
            return index
        return None
    return None


def _entries(records: list[tuple[int, Any]]) -> list[_Entry]:
    """Object records after the header, keyed by entry id, else by line.

    Line numbers key v1 entries: appending never renumbers earlier lines. Two
    objects glued onto one line get ``L<n>`` and ``L<n>.1``. A repeated header
    (written twice by an old Pi bug) is skipped.
    """
    entries: list[_Entry] = []
    per_line: dict[int, int] = {}
    for line, value in records:
        if not _is_dict(value) or value.get("type") in ("session", "title"):
            continue
        count = per_line.get(line, 0)
        per_line[line] = count + 1
        fallback = f"L{line}" if count == 0 else f"L{line}.{count}"
        entry_id = value.get("id")
        key = entry_id if isinstance(entry_id, str) and entry_id else fallback
        entries.append(_Entry(key, value))
    return entries


def _active_branch(entries: list[_Entry]) -> list[_Entry]:
    """The entries of the conversation the user is on.

    A linear (v1) file is read whole. In a tree the leaf is the last entry
    with an id, as the tools take it on load, and the branch is its chain of
    ``parentId`` links back to a root; a cycle ends it. A parent that is not
    in the file (its line was damaged, say) does not: the chain goes on from
    the last good entry before (``_bridge_missing_parent``), so that one bad
    line never cuts off everything written before it.
    """
    with_ids = [entry for entry in entries if entry.entry_id is not None]
    if not with_ids:
        return entries
    by_id = {entry.key: entry for entry in with_ids}
    position = {id(entry): index for index, entry in enumerate(with_ids)}
    branch: list[_Entry] = []
    seen: set[str] = set()
    current: _Entry | None = with_ids[-1]
    while current is not None and current.key not in seen:
        seen.add(current.key)
        branch.append(current)
        parent = current.parent_id
        if parent is None:
            current = None
        elif parent in by_id:
            current = by_id[parent]
        else:
            current = _bridge_missing_parent(with_ids, position[id(current)])
    branch.reverse()
    return branch


def _bridge_missing_parent(with_ids: list[_Entry], index: int) -> _Entry | None:
    """Where the chain goes on when an entry's parent is not in the file: the entry
    written just before it (the last good record), or None at the first entry."""
    return with_ids[index - 1] if index > 0 else None


def _text_blocks(content: Any) -> list[str]:
    """Text of a message's content: a plain string, or its ``text`` blocks.

    Thinking, tool-call and image blocks are skipped.
    """
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    texts: list[str] = []
    for block in content:
        if _is_dict(block) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
    return texts


def _strip_attachments(text: str) -> str:
    """Remove files attached with ``@path`` and an expanded ``/skill:`` text from a prompt."""
    previous = None
    while previous != text:
        previous = text
        text = _FILE_ATTACHMENT.sub("", text, count=1)
    return _SKILL_EXPANSION.sub("", text, count=1)


def _written_by_program(message: dict[str, Any]) -> bool:
    """OMP marks user-role prompts it injected itself (auto-continue, agent hand-offs)."""
    return message.get("synthetic") is True or message.get("attribution") == "agent"


def _user_text(message: dict[str, Any]) -> str:
    """What the person typed, without attachments; empty for injected prompts."""
    if _written_by_program(message):
        return ""
    return _strip_attachments("\n".join(_text_blocks(message.get("content")))).strip()


def _assistant_text(message: dict[str, Any]) -> str:
    """The assistant's prose blocks; an aborted reply without text gives ``""``."""
    parts = (text.strip() for text in _text_blocks(message.get("content")))
    return "\n\n".join(part for part in parts if part)


_TEXT_OF: dict[str, Callable[[dict[str, Any]], str]] = {
    "user": _user_text,
    "assistant": _assistant_text,
}


def _timestamp(record: dict[str, Any], message: dict[str, Any]) -> datetime | None:
    """When the entry was written, else the message's own epoch-millisecond time."""
    return parse_timestamp(record.get("timestamp")) or parse_timestamp(message.get("timestamp"))


def _message(entry: _Entry) -> Message | None:
    """The human or assistant message an entry carries, or None for anything else."""
    record = entry.record
    message = record.get("message")
    if record.get("type") != "message" or not _is_dict(message):
        return None
    role = message.get("role")
    text_of = _TEXT_OF.get(role) if isinstance(role, str) else None
    if text_of is None:
        return None
    text = text_of(message)
    if not text:
        return None
    speaker: Role = "user" if role == "user" else "assistant"
    return Message.build(entry.key, speaker, text, _timestamp(record, message))


def _project(header: dict[str, Any]) -> str | None:
    cwd = header.get("cwd")
    return cwd if isinstance(cwd, str) and cwd.strip() else None


def _started_by_program(entries: Iterable[_Entry]) -> bool:
    """OMP records a ``session_init`` (task, system prompt) in sessions an agent spawned."""
    return any(entry.record.get("type") == _SUBAGENT_INIT for entry in entries)


def parse_session(
    ref: SessionRef, records: list[tuple[int, Any]], damaged_lines: Iterable[int] = ()
) -> Conversation | Unresolved:
    """The conversation on the active branch of decoded session records.

    ``damaged_lines`` are the file's undecodable lines: the conversation is
    then ``partial``.
    """
    header_index = _find_header(records)
    if header_index is None:
        return unresolved(ref, "not a pi session: no session header")
    header = records[header_index][1]
    entries = _entries(records[header_index + 1 :])
    messages = [m for m in map(_message, _active_branch(entries)) if m is not None]
    try:
        return Conversation(
            ref,
            _project(header),
            tuple(messages),
            _started_by_program(entries),
            damaged_lines=tuple(damaged_lines),
        )
    except ValueError as error:
        return unresolved(ref, f"inconsistent session: {error}")


# --------------------------------------------------------------------------
# The readers
# --------------------------------------------------------------------------


class PiSessionReader:
    """Reader for one tool of the Pi family; the tools differ only in where they write."""

    def __init__(self, tool: str, roots: Callable[[Mapping[str, str], Path], tuple[Path, ...]]):
        self.tool = tool
        self._roots = roots

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """Where the tool keeps its sessions, honouring its own environment variables."""
        return self._roots(env, home)

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """One reference per session file; subagent transcripts are skipped."""
        return discover_files(
            self.tool,
            root,
            _is_session_file_name,
            session_id_from_path,
            max_depth=_MAX_DEPTH,
            prune=_is_hidden,
        )

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one session, or why it cannot be read."""
        lines = load_json_lines(ref)
        if isinstance(lines, Unresolved):
            return lines
        return parse_session(ref, lines.records, lines.bad_lines)


PI_READER = PiSessionReader("pi", pi_roots)
OMP_READER = PiSessionReader("omp", omp_roots)
