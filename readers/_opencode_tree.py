"""OpenCode's legacy JSON tree, from the versions before ``opencode.db``.

Older versions kept one JSON object per file under ``<data dir>/storage``:
``session/<project>/<session>.json``, ``message/<session>/<message>.json``
and ``part/<message>/<part>.json``. A root may be the data directory or the
storage directory itself (``storage_dir``).

Invariants: files are only read; a message's parts are in id order; a
file that is not a JSON object, or cannot be read or stat-ed, makes the
session ``UnreadableSession`` rather than silently shorter. A session's cache
marker covers its session file and its message files (update time, count,
total size, newest change), so it changes when a message is added or
rewritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._common import load_json
from ._io import SourceChanged, describe_os_error, read_bytes, walk_files
from ._model import FileVersion, SessionRef, Unresolved
from ._opencode_records import Record, Session, UnreadableSession, nonempty_text
from ._parse import JsonError, decode_json, parse_timestamp

__all__ = ["json_object", "read_tree", "storage_dir", "tree_ref"]


def storage_dir(root: Path) -> Path:
    """``root/storage``, or ``root`` itself when it is the storage directory."""
    if (root / "session").is_dir() and not (root / "storage").is_dir():
        return root
    return root / "storage"


def json_object(path: Path, what: str) -> dict[str, Any]:
    """One JSON object file, read-only; ``UnreadableSession`` naming ``what`` when it is not one."""
    try:
        data, _version = read_bytes(path)
    except SourceChanged:
        raise UnreadableSession(f"{what} {path.name} changed while it was read") from None
    except OSError as error:
        raise UnreadableSession(f"{what} {path.name}: {describe_os_error(error)}") from None
    try:
        value = decode_json(data)
    except JsonError as error:
        raise UnreadableSession(f"{what} {path.name} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise UnreadableSession(f"{what} {path.name} is not a JSON object")
    return value


def tree_ref(
    tool: str, sid: str, path: Path, version: FileVersion, info: dict[str, Any], storage: Path
) -> SessionRef:
    """A JSON-tree session with a marker over its session and message files."""
    time = info.get("time")
    updated = time.get("updated") if isinstance(time, dict) else None
    count, size, newest = 0, 0, 0
    for found in walk_files(storage / "message" / sid, lambda n: n.endswith(".json"), max_depth=1):
        count += 1
        if found.version is not None:
            size += found.version.size
            newest = max(newest, found.version.mtime_ns)
    marker = f"{updated}:{count}:{size}:{newest}"
    stamped = version.with_marker(marker)
    return SessionRef(tool, sid, str(path), stamped, updated_at=parse_timestamp(updated))


def read_tree(ref: SessionRef) -> tuple[Session, list[Record]]:
    """The session file and every message and part file of a JSON-tree session."""
    info = load_json(ref)
    if isinstance(info, Unresolved):
        raise UnreadableSession(info.reason)
    if not isinstance(info, dict):
        raise UnreadableSession("session file is not a JSON object")
    storage = ref.path.parent.parent.parent
    directory, title = nonempty_text(info.get("directory")), nonempty_text(info.get("title"))
    session = Session(directory, title, info.get("revert"))
    records: list[Record] = []
    for path in _json_files(storage / "message" / ref.session_id):
        message = json_object(path, "message file")
        mid = nonempty_text(message.get("id")) or path.stem
        parts = [json_object(p, "part file") for p in _json_files(storage / "part" / mid)]
        parts.sort(key=lambda part: str(part.get("id", "")))
        records.append(Record(mid, message, parts))
    return session, records


def _json_files(directory: Path) -> list[Path]:
    """The ``*.json`` files of one directory by name; an unstat-able one raises."""
    paths: list[Path] = []
    for found in walk_files(directory, lambda n: n.endswith(".json"), max_depth=1):
        if found.version is None:
            raise UnreadableSession(f"{found.path.name}: {found.error or 'cannot stat'}")
        paths.append(found.path)
    return paths
