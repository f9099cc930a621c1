"""Memory folders on the read path: which there are, and each one's topic files as memories.

Where (the places the dream visits, seed 000 STEP 1): under Claude Code's
config directory ``projects/*/memory``, ``agent-memory/*`` and ``memory``; the
same three under ``<project>/.claude`` for every project the transcripts
name; ``[dream] roots``; and, for ``--project DIR``, the memory folder Claude
Code uses for DIR (the Claude memory store's own answer). A folder's project
is the working directory its transcripts record (most common first; the
encoded folder name is never decoded), the repository of a
``<repo>/.claude`` folder, else unknown.

What: the topic files beside ``MEMORY.md`` (accepted, status ``accepted``)
and the collected items in ``.inbox/`` (status ``pending``); never
``MEMORY*.md``, hidden files, other subfolders or links; at most
``MAX_FILE_BYTES`` a file. A file dreamd wrote is read whole
(``claude_memory.parse_item``: provenance and quotes); any other keeps what its
front matter says (``name``, ``description``, ``type`` or ``metadata.type``,
Claude Code's ``originSessionId``) and its body. A file is parsed only when
its text holds every word the query requires.

Ids: ``claude-memory:<absolute path of the file>``; ``get`` answers only for a
topic file of this folder or its ``.inbox/``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from dreamd.fs import is_safe_name, list_names, open_folder, open_subfolder, read_file
from dreamd.search.model import Filter, Memory, from_item, matches
from dreamd.search.query import Query
from dreamd.stores.claude_memory import INBOX, parse_item

__all__ = ["KIND", "MAX_FILE_BYTES", "FolderSearch", "MemoryFolder", "memory_folders"]

KIND = "claude-memory"
#: A topic file larger than this is no memory (the store caps its items at 4 MiB).
MAX_FILE_BYTES = 4 * 1024 * 1024
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class MemoryFolder:
    """A memory folder and the project it belongs to (None: unknown)."""

    path: Path
    project: str | None


def _is_memory_folder(path: Path) -> bool:
    try:
        if not path.is_dir():
            return False
        names = [child.name for child in path.iterdir()]
    except OSError:
        return False
    return INBOX in names or any(n.endswith(".md") and not n.startswith(".") for n in names)


def _under_claude(claude: Path) -> Iterator[Path]:
    """The seed's three memory locations under one ``.claude`` directory."""
    for pattern in ("projects/*/memory", "agent-memory/*"):
        yield from sorted(claude.glob(pattern))
    yield claude / "memory"


def memory_folders(
    claude: Path,
    transcripts: Mapping[Path, Sequence[str]],
    extra_roots: Iterable[Path] = (),
    also: Iterable[MemoryFolder] = (),
) -> list[MemoryFolder]:
    """Every memory folder there is, with its project (see the module docstring).

    ``transcripts`` maps a Claude Code transcript folder to the projects its
    sessions recorded; ``also`` adds folders known otherwise (``--project``).
    """
    found: dict[str, MemoryFolder] = {}

    def add(path: Path, project: str | None) -> None:
        if _is_memory_folder(path):
            found.setdefault(os.path.realpath(path), MemoryFolder(path, project))

    for path in _under_claude(claude):
        add(path, _most_common(transcripts.get(path.parent, ())) if path.name == "memory" else None)
    projects = sorted({p for ps in transcripts.values() for p in ps if p})
    for project in projects:
        for path in _under_claude(Path(project) / ".claude"):
            add(path, project)
    for root in extra_roots:
        add(root, _enclosing_repo(root))
    for folder in also:
        add(folder.path, folder.project)
    return sorted(found.values(), key=lambda f: str(f.path))


def _most_common(projects: Sequence[str]) -> str | None:
    counted = Counter(p for p in projects if p)
    if not counted:
        return None
    return min(counted.items(), key=lambda item: (-item[1], item[0]))[0]


def _enclosing_repo(folder: Path) -> str | None:
    for parent in folder.absolute().parents:
        if parent.name == ".claude":
            return str(parent.parent)
    return None


def _is_topic_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith((".", "MEMORY")) and is_safe_name(name)


class FolderSearch:
    """One memory folder as the read path sees it (``Searchable``)."""

    def __init__(self, folder: MemoryFolder) -> None:
        self.folder = folder
        self.path = folder.path.absolute()

    @property
    def name(self) -> str:
        return f"{KIND}:{self.path}"

    def candidates(self, query: Query, where: Filter, limit: int) -> list[Memory]:
        """Every topic file and inbox item that matches (the engine ranks them)."""
        needles = query.required
        found = []
        for location, data, changed in self._files():
            folded = data.decode("utf-8", "replace").lower()
            if not all(word in folded for word in needles):
                continue  # cannot match: not parsed
            memory = self._memory(location, data, changed)
            if where.admits(memory) and matches(query, memory):
                found.append(memory)
        return found

    def get(self, id: str) -> Memory | None:
        prefix = f"{self.name}/"
        if not id.startswith(prefix):
            return None
        location = id.removeprefix(prefix)
        parts = location.split("/")
        valid = (len(parts) == 1 or (len(parts) == 2 and parts[0] == INBOX)) and _is_topic_name(
            parts[-1]
        )
        if not valid:
            return None
        for found, data, changed in self._files(only=location):
            return self._memory(found, data, changed)
        return None

    def recent(self, where: Filter, limit: int) -> list[Memory]:
        memories = [self._memory(*file) for file in self._files()]
        memories = [m for m in memories if where.admits(m)]
        memories.sort(key=lambda m: m.changed or datetime.min.replace(tzinfo=UTC), reverse=True)
        return memories[:limit]

    def _files(self, only: str | None = None) -> Iterator[tuple[str, bytes, datetime | None]]:
        """(location, bytes, mtime) of each topic file: accepted ones, then the inbox's."""
        if not self.path.is_dir():
            return
        with open_folder(self.path, create=False) as root:
            yield from _read_names(root, "", only)
            with open_subfolder(root, INBOX, create=False) as inbox:
                if inbox is not None:
                    yield from _read_names(inbox, f"{INBOX}/", only)

    def _memory(self, location: str, data: bytes, changed: datetime | None) -> Memory:
        status = "pending" if location.startswith(f"{INBOX}/") else "accepted"
        id = f"{self.name}/{location}"
        parsed = parse_item(data)
        if parsed is not None:
            memory = from_item(
                parsed[1], id=id, store=self.name, location=location, status=status, changed=changed
            )
            if memory.project is None and self.folder.project is not None:
                return replace(memory, project=self.folder.project)
            return memory
        return _lenient(data, id, self.name, location, status, changed, self.folder.project)


def _read_names(
    folder: int, prefix: str, only: str | None
) -> Iterator[tuple[str, bytes, datetime | None]]:
    for name in list_names(folder):
        location = prefix + name
        if not _is_topic_name(name) or (only is not None and location != only):
            continue
        data = read_file(folder, name, max_bytes=MAX_FILE_BYTES)
        if data is None:
            continue
        try:
            status = os.stat(name, dir_fd=folder, follow_symlinks=False)
            changed: datetime | None = datetime.fromtimestamp(status.st_mtime, tz=UTC)
        except OSError:
            changed = None
        yield location, data, changed


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter mapping, body); an empty mapping and the whole text when there is none."""
    first, newline, rest = text.partition("\n")
    if first.strip() != "---" or not newline:
        return {}, text
    lines = rest.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip() in ("---", "..."):
            block, body = "\n".join(lines[:index]), "\n".join(lines[index + 1 :])
            try:
                loaded = yaml.load(block, Loader=_LOADER)  # a safe loader
            except (yaml.YAMLError, ValueError, TypeError, RecursionError):
                return {}, body
            return (loaded if isinstance(loaded, dict) else {}), body
    return {}, text


def _text(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str | int | float | date):
        text = str(value).strip()
        return text or None
    return None


def _lenient(
    data: bytes,
    id: str,
    store: str,
    location: str,
    status: str,
    changed: datetime | None,
    folder_project: str | None,
) -> Memory:
    """A topic file dreamd did not write: what its front matter says, and its body."""
    text = data.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
    front, body = _front_matter(text)
    meta = front.get("metadata") if isinstance(front.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    kind = (_text(front.get("type")) or _text(meta.get("type")) or "").lower() or None
    sources = [meta.get("source"), *(meta.get("sources") or [])]
    source = next((s for s in sources if isinstance(s, str) and s.startswith("source:")), None)
    origin = _text(front.get("originSessionId")) or _text(meta.get("originSessionId"))
    project = _text(meta.get("project")) or folder_project
    collected = _day(meta.get("collected"))
    return Memory(
        id=id,
        store=store,
        location=location,
        title=_text(front.get("name")) or Path(location).stem,
        description=_text(front.get("description")) or "",
        body=body.strip("\n"),
        type=kind if kind in ("user", "feedback", "project", "reference") else None,
        category=_text(meta.get("category")),
        project=project,
        source=source,
        session=None if source else (f"claude-code:{origin}" if origin else None),
        collected=collected,
        quotes=_quotes(meta.get("quotes")),
        status=status,
        changed=changed,
    )


def _day(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _quotes(value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        return ()
    found = []
    for entry in value:
        if isinstance(entry, dict):
            message, text = entry.get("message"), entry.get("text")
            if isinstance(message, str) and isinstance(text, str):
                found.append((message, text))
    return tuple(found)
