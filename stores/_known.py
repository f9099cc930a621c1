"""What a Claude Code memory folder holds, as the collector's match step reads it.

Every topic file of the folder (the ones Claude Code wrote itself, the ones
the gate accepted) and of its ``.inbox/`` (pending), read through front
matter alone: ``name``, ``description``, ``type`` (or ``metadata.type``),
``metadata.category`` and ``metadata.source`` when dreamd wrote them. A file
without a usable name and body, or not valid YAML on top, is skipped. Newest
first by modification time; nothing is written or locked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ._protocol import KnownMemory
from ._yaml import safe_yaml

__all__ = ["MAX_KNOWN_BYTES", "folder_memories", "known_from_text"]

#: A topic file larger than this is not read for matching.
MAX_KNOWN_BYTES = 256 * 1024


def _text(mapping: dict[str, Any], key: str) -> str:
    value = mapping.get(key)
    return value.strip() if isinstance(value, str) else ""


def known_from_text(text: str, *, pending: bool) -> KnownMemory | None:
    """A topic file's memory, or None when it has no front matter, name or body."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
        front = safe_yaml("\n".join(lines[1:end]))
    except (StopIteration, ValueError):
        return None
    if not isinstance(front, dict):
        return None
    metadata = front.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = _text(front, "name")
    body = "\n".join(lines[end + 1 :]).strip()
    if not name or not body:
        return None
    return KnownMemory(
        name=name,
        type=_text(front, "type") or _text(metadata, "type"),
        category=_text(metadata, "category"),
        description=_text(front, "description"),
        body=body,
        source=_text(metadata, "source") or None,
        pending=pending,
    )


def _topic_files(folder: Path) -> list[tuple[float, Path]]:
    """(mtime, path) of the folder's topic files: Markdown, not hidden, not the index files."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name.startswith((".", "MEMORY")):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            stat = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.st_size <= MAX_KNOWN_BYTES:
            found.append((stat.st_mtime, Path(entry.path)))
    return found


def folder_memories(folder: Path, inbox: str, limit: int) -> list[KnownMemory]:
    """Up to ``limit`` memories of ``folder`` and its ``inbox`` subfolder, newest first."""
    files = [(mtime, path, False) for mtime, path in _topic_files(folder)]
    files += [(mtime, path, True) for mtime, path in _topic_files(folder / inbox)]
    files.sort(key=lambda entry: (-entry[0], entry[1].name))
    found: list[KnownMemory] = []
    for _mtime, path, pending in files:
        if len(found) >= limit:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        memory = known_from_text(text, pending=pending)
        if memory is not None:
            found.append(memory)
    return found
