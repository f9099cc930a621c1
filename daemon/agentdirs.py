"""Where the agents keep their files, resolved the way each agent resolves it.

Readers find transcripts here, the Claude Code memory store finds its
folders here and the dream finds every memory folder here: one answer for
all three. Every function takes the environment and the home directory as
parameters (a test, or a user, points the whole program at another home
with ``HOME=``); nothing reads the process's own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["claude_config_dirs", "claude_dir", "expand_home", "unique_paths"]


def expand_home(value: str, home: Path) -> Path:
    """``~`` and ``~/...`` against the given HOME (never the process's own)."""
    if value == "~":
        return home
    if value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def unique_paths(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Paths in order, dropping any that resolves to one already listed."""
    seen: set[str] = set()
    result: list[Path] = []
    for path in paths:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            result.append(path)
    return tuple(result)


def claude_config_dirs(env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """Claude Code's config directories, the one it writes to now first.

    Claude Code keeps everything under one config directory, ``~/.claude``
    unless ``CLAUDE_CONFIG_DIR`` names another. Versions 1.0.28-1.0.3x wrote to
    ``$XDG_CONFIG_HOME/claude`` (``~/.config/claude``) for a while, so that
    legacy place is listed too when no config dir is set.
    """
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if configured:
        dirs = [expand_home(part, home) for part in _config_dir_list(configured, home)]
    else:
        xdg = env.get("XDG_CONFIG_HOME", "").strip()
        xdg_root = expand_home(xdg, home) if xdg else home / ".config"
        dirs = [home / ".claude", xdg_root / "claude"]
    return unique_paths(dirs)


def claude_dir(env: Mapping[str, str], home: Path) -> Path:
    """The config directory Claude Code uses now (its memory folders live under it)."""
    return claude_config_dirs(env, home)[0]


def _config_dir_list(value: str, home: Path) -> list[str]:
    """One config dir, or several when a comma-separated list was set.

    Claude Code itself reads one directory. Usage tools (ccusage) accept a
    comma-separated list in the same variable, so a value that is not itself
    a directory but contains commas is read as such a list.
    """
    if "," not in value or expand_home(value, home).is_dir():
        return [value]
    return [part.strip() for part in value.split(",") if part.strip()]
