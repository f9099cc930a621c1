"""Which Claude Code memory folder a session's items belong in: the one Claude Code itself uses.

Rules (SPEC "Stores", issue 11 item 3), each one function:

- ``project_key`` is how Claude Code names a project folder under
  ``<config dir>/projects/``: every UTF-16 code unit of the path that is not
  an ASCII letter or digit becomes ``-``; a name longer than
  ``MAX_KEY_CHARS`` keeps its first ``MAX_KEY_CHARS`` characters and gains
  ``-<hash>``, the base-36 absolute value of a 32-bit string hash of the
  original path (Claude Code's ``sanitizePath`` in
  ``utils/sessionStoragePortable.ts``, quoted in
  Untrivial-ai/agent-orchestrator#1612 and confirmed on a real long path in
  Digital-Process-Tools/claude-remember#157; the ``_`` → ``-`` case is
  anthropics/claude-code#24067).
- ``memory_base`` is the path that key is made of: the canonical git root of
  the working directory (the main worktree for a linked worktree, so every
  subfolder and worktree of a repository shares one memory;
  ``dreamd.gitroot``), or the working directory outside git. A working
  directory that no longer exists cannot be asked which repository it was
  in: the working directory itself is used, and the location says so
  (``MemoryLocation.note``).
- Claude Code's settings decide the rest (its ``memdir/paths.ts``:
  ``isAutoMemoryEnabled``, ``getAutoMemPathSetting``; the settings files of
  ``utils/settings/settings.ts``; code.claude.com/docs/en/memory, "Auto
  memory"; the v2.1.74 changelog for ``autoMemoryDirectory``):
  ``autoMemoryEnabled: false`` turns auto memory off — the first source that
  sets it wins, in the order managed policy, ``<cwd>/.claude/settings.local.json``,
  ``<cwd>/.claude/settings.json``, ``<config dir>/settings.json``
  (``auto_memory_enabled``); ``autoMemoryDirectory`` names the whole memory
  folder instead — read from policy, local and user settings only, never from
  the project's shared ``settings.json`` (a cloned repository must not point
  writes elsewhere), absolute or ``~/…``, never ``~`` itself, ``/`` or a
  drive root (``memory_directory_setting``). Project and local settings sit
  in the session's working directory, as Claude Code reads them.
  ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` set to a true value in dreamd's own
  environment turns it off too.
- Where a transcript folder recorded exactly the base path (a session run at
  the repository root), that folder's name is Claude Code's own answer and
  wins over the computed key (Claude Code 2.1.224 changed how keys longer
  than 200 characters are told apart).

Settings files are read as JSON; an unreadable or invalid one counts as
absent, as Claude Code treats it. Nothing here writes.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import msgspec

from dreamd.gitroot import RootCache

__all__ = [
    "DISABLE_ENV",
    "MAX_KEY_CHARS",
    "MemoryLocation",
    "SettingsSources",
    "auto_memory_enabled",
    "locate_memory_folder",
    "located_folders",
    "managed_settings_path",
    "memory_base",
    "memory_directory_setting",
    "path_hash",
    "project_key",
    "read_settings",
]

#: Claude Code's ``MAX_SANITIZED_LENGTH``: a longer project key is cut and given a hash.
MAX_KEY_CHARS = 200
#: The environment variable that turns auto memory off for a Claude Code session.
DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
#: The memory folder's name inside a project folder.
MEMORY_DIRNAME = "memory"
#: Values of ``DISABLE_ENV`` that mean "off" (Claude Code's ``isEnvTruthy``).
_TRUTHY = frozenset({"1", "true", "yes", "on"})
#: A settings file larger than this is not read.
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
_ALPHANUMERIC = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _utf16_units(text: str) -> list[int]:
    """The UTF-16 code units of ``text`` (a character beyond U+FFFF is two)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def path_hash(text: str) -> int:
    """Claude Code's 32-bit string hash: ``h = h * 31 + unit`` over UTF-16 code units, wrapped."""
    value = 0
    for unit in _utf16_units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = _BASE36[rest] + digits
        if not number:
            return digits


def project_key(path: str) -> str:
    """The name Claude Code gives the project folder of ``path`` under ``projects/``."""
    key = "".join(
        char if char in _ALPHANUMERIC else "-" * (2 if ord(char) > 0xFFFF else 1) for char in path
    )
    if len(key) <= MAX_KEY_CHARS:
        return key
    return f"{key[:MAX_KEY_CHARS]}-{_base36(abs(path_hash(path)))}"


# --- settings ---------------------------------------------------------------------------------


class SettingsSources(msgspec.Struct, frozen=True):
    """The settings files that bear on one session, highest precedence first, as read."""

    policy: Mapping[str, Any]
    local: Mapping[str, Any]
    project: Mapping[str, Any]
    user: Mapping[str, Any]


def managed_settings_path(platform: str = sys.platform) -> Path:
    """Where an administrator's managed settings live (Claude Code's ``managedPath.ts``)."""
    if platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if platform.startswith("win"):
        return Path(r"C:\Program Files\ClaudeCode\managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


def _load_json(path: Path) -> Mapping[str, Any]:
    """A settings file's object; an empty mapping when missing, unreadable or not an object."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except OSError:
        return {}
    if len(data) > MAX_SETTINGS_BYTES:
        return {}
    try:
        loaded = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def read_settings(cwd: Path, claude: Path, managed: Path | None) -> SettingsSources:
    """The settings Claude Code reads for a session started in ``cwd``."""
    settings = cwd / ".claude"
    return SettingsSources(
        policy=_load_json(managed) if managed is not None else {},
        local=_load_json(settings / "settings.local.json"),
        project=_load_json(settings / "settings.json"),
        user=_load_json(claude / "settings.json"),
    )


def auto_memory_enabled(sources: SettingsSources, env: Mapping[str, str]) -> bool:
    """Whether Claude Code keeps auto memory for the session (on unless turned off)."""
    if env.get(DISABLE_ENV, "").strip().lower() in _TRUTHY:
        return False
    for layer in (sources.policy, sources.local, sources.project, sources.user):
        value = layer.get("autoMemoryEnabled")
        if isinstance(value, bool):
            return value
    return True


def _valid_directory(raw: str, home: Path) -> Path | None:
    """Claude Code's ``validateMemoryPath``: ``~/`` expanded, absolute, not a root; else None."""
    candidate = raw
    if candidate.startswith(("~/", "~\\")):
        rest = os.path.normpath(candidate[2:] or ".")
        if rest in (".", ".."):
            return None
        candidate = str(home / candidate[2:])
    normal = os.path.normpath(candidate).rstrip("/\\")
    absolute = PurePosixPath(normal).is_absolute() or PureWindowsPath(normal).is_absolute()
    if not absolute or len(normal) < 3 or "\x00" in normal:
        return None
    if normal.startswith(("//", "\\\\")) or (len(normal) == 2 and normal[1] == ":"):
        return None
    return Path(normal)


def memory_directory_setting(sources: SettingsSources, home: Path) -> Path | None:
    """The ``autoMemoryDirectory`` a trusted source names (policy, local, user), or None."""
    for layer in (sources.policy, sources.local, sources.user):
        value = layer.get("autoMemoryDirectory")
        if isinstance(value, str) and value:
            return _valid_directory(value, home)
    return None


# --- the folder -------------------------------------------------------------------------------


class MemoryLocation(msgspec.Struct, frozen=True):
    """Where a session's items go: ``folder`` (None: auto memory is off), the path the key
    was made of, and a note when something had to be assumed."""

    folder: Path | None
    base: Path
    note: str | None = None


def memory_base(project: Path, roots: Callable[[Path], Path | None]) -> tuple[Path, str | None]:
    """The path the project folder is named after, and a note when it was assumed."""
    if not project.is_dir():
        return project, f"{project} no longer exists; using its own memory folder"
    return roots(project) or project, None


_ROOTS = RootCache()


def locate_memory_folder(
    project: str,
    *,
    claude: Path,
    env: Mapping[str, str],
    home: Path,
    known: Mapping[str, Path] = {},
    managed: Path | None = None,
    roots: Callable[[Path], Path | None] = _ROOTS,
) -> MemoryLocation:
    """The Claude Code memory folder of a session started in ``project``.

    ``known`` maps recorded working directories to the transcript folders
    that recorded them; ``managed`` is the managed settings file (None: none).
    """
    cwd = Path(project)
    base, note = memory_base(cwd, roots)
    sources = read_settings(cwd, claude, managed)
    if not auto_memory_enabled(sources, env):
        return MemoryLocation(None, base, note)
    custom = memory_directory_setting(sources, home)
    if custom is not None:
        return MemoryLocation(custom, base, note)
    projects = claude / "projects"
    recorded = known.get(str(base))
    if recorded is None or recorded.parent != projects:  # a legacy config dir's transcripts
        recorded = projects / project_key(str(base))
    return MemoryLocation(recorded / MEMORY_DIRNAME, base, note)


def located_folders(
    projects: Sequence[str],
    *,
    claude: Path,
    env: Mapping[str, str],
    home: Path,
    known: Mapping[str, Path] = {},
    managed: Path | None = None,
) -> dict[Path, Path]:
    """Each project's memory folder and the repository it is checked against (existing only)."""
    found: dict[Path, Path] = {}
    for project in projects:
        where = locate_memory_folder(
            project, claude=claude, env=env, home=home, known=known, managed=managed
        )
        if where.folder is not None and where.note is None and where.folder.is_dir():
            found.setdefault(where.folder, where.base)
    return found
