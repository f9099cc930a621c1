"""Building blocks most readers share: file discovery and guarded loading.

Each loader returns either the decoded content or an ``Unresolved`` naming the
reason, so a reader's ``read`` stays a straight line from bytes to messages.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._io import Items, Reuse, SourceChanged, describe_os_error, read_bytes, walk
from ._model import FileVersion, SessionRef, Unresolved
from ._parse import JsonError, JsonLines, decode_json, decode_json_lines

Item = SessionRef | Unresolved

__all__ = ["discover_files", "load_bytes", "load_json", "load_json_lines", "unresolved"]


def unresolved(ref: SessionRef, reason: str) -> Unresolved:
    """An ``Unresolved`` for a discovered session."""
    return Unresolved(
        tool=ref.tool,
        path=ref.path,
        reason=reason,
        session_id=ref.session_id,
        file_version=ref.file_version,
        locator=ref.locator,
    )


#: The last complete walk's references, per (tool, root, naming rule) (``discover_files``).
_LAST_WALK: dict[tuple[str, str, Callable[[str], str | None]], Items[Item]] = {}


def discover_files(
    tool: str,
    root: Path,
    accept: Callable[[str], bool],
    session_id: Callable[[str], str | None],
    *,
    max_depth: int,
    prune: Callable[[str], bool] = lambda name: False,
) -> Iterator[SessionRef | Unresolved]:
    """One ``SessionRef`` per accepted file; what cannot be read as ``Unresolved``.

    ``session_id`` maps a file's location (its path as a string) to its
    session id, or None to skip the file (a subagent transcript, a side file).
    A file that cannot be stat'ed, a directory under a transcript's name and
    a folder that cannot be listed are each reported with the reason.

    A reference depends on nothing but the tool, the location and the file's
    version, so a file unchanged since the last complete walk of ``root`` gets
    that walk's reference back (``walk``'s ``reuse``): the service rescans every
    few minutes and most files never change, and building a reference costs as
    much as the ``stat``.
    """
    key = (tool, os.fspath(root), session_id)

    def make(location: str, version: FileVersion | None, error: str | None) -> Item | None:
        sid = session_id(location)
        if sid is None:
            return None
        if version is None:
            return Unresolved(tool, Path(location), error or "cannot stat", session_id=sid)
        return SessionRef(tool, sid, location, version)

    def unlistable(location: str, reason: str) -> Item:
        return Unresolved(tool, Path(location), reason)

    reuse = Reuse(_LAST_WALK.get(key, {}), {})
    yield from walk(
        root, accept, make, max_depth=max_depth, prune=prune, unlistable=unlistable, reuse=reuse
    )
    _LAST_WALK[key] = reuse.found


def load_bytes(ref: SessionRef) -> bytes | Unresolved:
    """The file's bytes, read once more if it changed mid-read, or why not."""
    for _attempt in range(2):
        try:
            data, _version = read_bytes(ref.location, ref.file_version)
        except SourceChanged:
            continue
        except OSError as error:
            return unresolved(ref, describe_os_error(error))
        if not data or data.isspace():  # not ``strip()``: that copies the whole file
            return unresolved(ref, "empty file")
        return data
    return unresolved(ref, "changing while being read")


def load_json_lines(ref: SessionRef) -> JsonLines | Unresolved:
    """Decoded JSON Lines of the file, or ``Unresolved`` when it is not JSONL."""
    data = load_bytes(ref)
    if isinstance(data, Unresolved):
        return data
    lines = decode_json_lines(data)
    if lines.mostly_garbage:
        bad = len(lines.bad_lines) + int(lines.torn_tail)
        good = len(lines.records)
        return unresolved(ref, f"not JSON Lines ({bad} undecodable lines, {good} records)")
    return lines


def load_json(ref: SessionRef) -> Any | Unresolved:
    """The file's single JSON document, or ``Unresolved`` naming the decode error."""
    data = load_bytes(ref)
    if isinstance(data, Unresolved):
        return data
    try:
        return decode_json(data)
    except JsonError as error:
        return unresolved(ref, f"not JSON: {error}")
