"""Seed 000 STEP 1: find the topic files of a memory folder and parse their front matter.

``parse_memory_file`` is pure (bytes in, ``MemoryFile`` out) and never
raises on bad input; ``load_folder`` is the I/O edge that lists and reads a
folder read-only.

Front matter rules, decided from the real folders in the shared fixtures:

- Only a block opened by ``---`` on the very first line (after an optional
  BOM) and closed by a later ``---`` (or ``...``) line is front matter. An
  unclosed block is body text.
- The block is YAML. When it is not valid YAML (real files write
  ``description: a: b`` or start a value with a backtick, about 1 in 60 in
  the fixtures) it is read line by line as ``key: value`` pairs, one level
  of nesting, rather than thrown away: those files have an obvious type and
  description, and losing them would drop their hooks from the index.
- ``type`` is top-level ``type`` if it names a memory type, else
  ``metadata.type``: top-level is the documented form a person edits, the
  ``metadata:`` block is what tools write; no real file carries both.
- Empty ``name`` / ``description`` (``name: ""``) count as absent (None).

Invariants: a file with no mapping (no block, an empty block, a block that
holds neither YAML mapping nor ``key: value`` lines) has
``has_front_matter=False``, ``type=None``, ``front_matter={}`` and its whole
text as body. ``size`` and ``sha256`` are of the raw bytes.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import cast

from dreamd.dream.folder.layers import is_read_only
from dreamd.dream.folder.links import not_own_file
from dreamd.dream.model import (
    ARCHIVE_NAME,
    INDEX_NAME,
    MEMORY_TYPES,
    MemoryFile,
    MemoryFolder,
    MemoryType,
)
from dreamd.errors import DreamdError
from dreamd.fs import read_regular
from dreamd.stores import safe_yaml

__all__ = [
    "ARCHIVE_NAME",
    "INDEX_NAME",
    "FolderUnreadable",
    "decode_text",
    "is_topic_file_name",
    "load_folder",
    "memory_type",
    "parse_front_matter",
    "parse_memory_file",
    "simple_mapping",
    "split_front_matter",
]

#: A topic file this large is not a memory; reading it whole would stall a run.
MAX_TOPIC_FILE_BYTES = 16 * 1024 * 1024

_OPENING = "---"
_CLOSINGS = frozenset({"---", "..."})
_KEY_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(?P<value>.*))?$"
)
# A ``key: value`` line whose YAML meaning is plainly the two strings (``simple_mapping``):
# a letter first, then characters that are never YAML syntax inside a plain scalar of a
# block mapping (no ``#``, ``:``, brackets, braces, control characters or YAML line breaks).
_NOT_PLAIN = r"\x00-\x1f\x7f-\x9f#:\[\]{}\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"
_SIMPLE_LINE = re.compile(
    rf"(?P<key>[A-Za-z][A-Za-z0-9_-]{{0,63}}): +"
    rf"(?P<value>[A-Za-z](?:[^{_NOT_PLAIN}]*[^{_NOT_PLAIN} ])?) *"
)
# Words YAML 1.1 reads as booleans or null whatever their case (a superset of PyYAML's).
_NOT_STRINGS = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})


class FolderUnreadable(DreamdError):
    """A topic file of a memory folder exists but cannot be read.

    The folder is skipped as a whole: rebuilding its index without that file
    would silently drop the file's entry.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot read memory file {path}: {reason}; its folder was left untouched")


def is_topic_file_name(name: str) -> bool:
    """Whether a file name beside ``MEMORY.md`` is a topic file (seed 000 STEP 1, STEP 5).

    Excluded: the index and its archive (any ``MEMORY*.md``), ``.MEMORY.md.prev``,
    every hidden file (editor and macOS ``._`` side files are not memories) and
    the read-only layers (``CLAUDE.md``, ``AGENTS.md``: seed 001).
    """
    if not name.endswith(".md") or name.startswith("."):
        return False
    return not name.startswith("MEMORY") and not is_read_only(name)


def decode_text(data: bytes) -> str:
    """Text of a memory file: UTF-8 with replacement, BOM dropped, line ends as ``\\n``."""
    text = data.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_front_matter(text: str) -> tuple[str | None, str]:
    """Split decoded text into (front matter block, body); block is None when absent.

    The block must open on the first line; without a closing line the whole
    text is body (an unclosed ``---`` is a horizontal rule, not metadata).
    """
    first, newline, rest = text.partition("\n")
    if first.rstrip() != _OPENING or not newline:
        return None, text
    lines = rest.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip() in _CLOSINGS:
            return "\n".join(lines[:index]), "\n".join(lines[index + 1 :])
    return None, text


def simple_mapping(block: str) -> dict[str, object] | None:
    """The block read without YAML when every line is a plain ``key: value`` of two strings.

    Most front matter is ``name:``, ``description:`` and ``type:`` on one line
    each; YAML would read them as exactly these strings (proven against the
    YAML loader by a property test), at a fraction of the cost. None for
    anything else (quotes first, nesting, lists, comments, a repeated key,
    a word YAML reads as a boolean or null): the YAML loader reads those.
    """
    result: dict[str, object] = {}
    for line in block.split("\n"):
        if not line:
            continue
        match = _SIMPLE_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match["key"], match["value"]
        if key in result or key.lower() in _NOT_STRINGS or value.lower() in _NOT_STRINGS:
            return None
        result[key] = value
    return result or None


def _yaml_mapping(block: str) -> dict[str, object] | None:
    """The block as a YAML mapping, or None when it is not valid YAML or not a mapping."""
    try:
        loaded = safe_yaml(block)
    except ValueError:
        return None
    if not isinstance(loaded, dict):
        return None
    return {str(key): value for key, value in loaded.items()}


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _lenient_mapping(block: str) -> dict[str, object]:
    """Read ``key: value`` lines when the block is not YAML (real files get quoting wrong).

    A top-level key with no value opens a nested mapping for the indented
    keys that follow (``metadata:`` then ``  type: feedback``); lines that are
    not ``key:`` lines are ignored.
    """
    result: dict[str, object] = {}
    nested: dict[str, object] | None = None
    for line in block.split("\n"):
        match = _KEY_LINE.match(line)
        if match is None:
            continue
        key, value = match["key"], match["value"]
        if match["indent"]:
            if nested is not None:
                nested[key] = _unquote(value or "")
            continue
        if value is None or not value.strip():
            nested = {}
            result[key] = nested
        else:
            nested = None
            result[key] = _unquote(value)
    return result


def parse_front_matter(block: str | None) -> dict[str, object]:
    """The front matter mapping: plain ``key: value`` lines as they are, else YAML, else
    ``key: value`` lines read leniently when YAML fails."""
    if block is None:
        return {}
    mapping = simple_mapping(block)
    if mapping is None:
        mapping = _yaml_mapping(block)
    if mapping is None:
        mapping = _lenient_mapping(block)
    return mapping


def _as_text(value: object) -> str | None:
    """A front matter scalar as text; None for empty, missing, booleans and collections."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    return None


def _as_type(value: object) -> MemoryType | None:
    text = _as_text(value)
    if text is None:
        return None
    lowered = text.lower()
    return cast(MemoryType, lowered) if lowered in MEMORY_TYPES else None


def memory_type(front_matter: dict[str, object]) -> MemoryType | None:
    """The memory's type (seed 000 STEP 1): top-level ``type``, else ``metadata.type``.

    Only ``user``, ``feedback``, ``project`` and ``reference`` count (any
    case); anything else is no type.
    """
    top = _as_type(front_matter.get("type"))
    if top is not None:
        return top
    metadata = front_matter.get("metadata")
    if isinstance(metadata, dict):
        return _as_type(metadata.get("type"))
    return None


def parse_memory_file(path: Path, data: bytes, mtime: datetime) -> MemoryFile:
    """Parse one topic file (seed 000 STEP 1: name, description, type and body).

    Pure and total: any bytes give a ``MemoryFile``. ``path`` is kept as
    given; ``mtime`` should be timezone-aware (the guards compare it with
    ``now``).
    """
    text = decode_text(data)
    block, body = split_front_matter(text)
    front_matter = parse_front_matter(block)
    if not front_matter:
        # Nothing was recognised as metadata, so every line is what the memory says.
        body = text
    return MemoryFile(
        body_line=text[: len(text) - len(body)].count("\n") + 1,
        path=path,
        name=path.name,
        title=_as_text(front_matter.get("name")),
        description=_as_text(front_matter.get("description")),
        type=memory_type(front_matter),
        has_front_matter=bool(front_matter),
        front_matter=front_matter,
        body=body,
        mtime=mtime,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        raw=data,
    )


def _read_regular_file(path: Path) -> tuple[bytes, os.stat_result]:
    """Read a whole regular file read-only, never through a link; raises ``OSError``."""
    return read_regular(path, max_bytes=MAX_TOPIC_FILE_BYTES, follow=False)


def _topic_file_names(folder: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Names of the topic files directly in ``folder``, sorted, and the ones left alone.

    Subfolders are never entered. A topic-file name that is a link (symbolic or
    hard) or not a regular file is not a memory file (issue 15, item 6).
    """
    names: list[str] = []
    excluded: list[tuple[str, str]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not is_topic_file_name(entry.name):
                continue
            problem = not_own_file(entry.stat(follow_symlinks=False))
            if problem is None:
                names.append(entry.name)
            else:
                excluded.append((entry.name, f"{problem}: not a memory file, left alone"))
    return sorted(names), sorted(excluded)


def _load_topic_file(path: Path) -> MemoryFile | str | None:
    """One topic file read and parsed; None when it vanished since the listing, a reason
    when it turned out not to be the folder's own file."""
    try:
        data, status = _read_regular_file(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link: not a memory file, left alone"
        raise FolderUnreadable(path, (error.strerror or str(error)).lower()) from error
    problem = not_own_file(status)
    if problem is not None:
        return f"{problem}: not a memory file, left alone"
    mtime = datetime.fromtimestamp(status.st_mtime_ns / 1e9, tz=UTC)
    return parse_memory_file(path, data, mtime)


def _read_text_if_present(path: Path) -> str | None:
    """An index file's text exactly as stored (UTF-8, bad bytes replaced), or None if absent."""
    try:
        data, _ = _read_regular_file(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise FolderUnreadable(path, (error.strerror or str(error)).lower()) from error
    return data.decode("utf-8", errors="replace")


def load_folder(path: Path, repo: Path | None) -> MemoryFolder:
    """Read a memory folder (seed 000 STEP 1): every topic file beside ``MEMORY.md``.

    Topic files are the ``*.md`` files directly in ``path`` that
    ``is_topic_file_name`` accepts, sorted by name; ``.trash/``, ``_backup/``,
    ``.inbox/`` and every other subfolder are not entered. ``MEMORY.md`` and
    ``MEMORY-ARCHIVE.md`` are read as text, exactly as stored (CRLF and BOM
    kept, so a rewrite can preserve them). Everything is opened read-only, never
    through a link; a topic-file name that is a link (symbolic or hard) is in
    ``excluded`` with why, not in ``files`` (issue 15, item 6).
    Raises ``FolderUnreadable`` when a file exists but cannot be read, and
    ``OSError`` when the folder itself cannot be listed.
    """
    names, excluded = _topic_file_names(path)
    files: list[MemoryFile] = []
    for name in names:
        loaded = _load_topic_file(path / name)
        if isinstance(loaded, str):
            excluded.append((name, loaded))
        elif loaded is not None:
            files.append(loaded)
    return MemoryFolder(
        path=path,
        repo=repo,
        files=tuple(files),
        excluded=tuple(sorted(excluded)),
        index_text=_read_text_if_present(path / INDEX_NAME),
        archive_text=_read_text_if_present(path / ARCHIVE_NAME),
    )
