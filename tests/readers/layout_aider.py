"""Lay the shared Aider fixtures out the way Aider leaves them under a HOME.

Aider writes ``.aider.chat.history.md`` into the root of the repository it
runs in. Each fixture ``<repo>.aider.chat.history.md`` becomes
``<home>/src/<repo>/.aider.chat.history.md``. The expected keys come from the
fixtures' own ``# aider chat started at`` lines, counted per file here; only
the id hash itself is the reader's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from dreamd.readers.aider import HISTORY_NAME, session_id

_HEADER_LINE = re.compile(r"^# aider chat started at (.*)$")


def header_stamps(path: Path) -> list[tuple[str, int]]:
    """``(stamp, ordinal)`` of every chat header line, in file order."""
    seen: dict[str, int] = {}
    stamps: list[tuple[str, int]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        found = _HEADER_LINE.match(line)
        if found:
            stamp = found.group(1).strip()
            stamps.append((stamp, seen.get(stamp, 0)))
            seen[stamp] = seen.get(stamp, 0) + 1
    return stamps


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy every Aider fixture into ``home/src/<repo>/``; return its chats' keys."""
    keys: list[str] = []
    for source in sorted((fixtures / "aider").glob(f"*{HISTORY_NAME}")):
        repo = source.name.removesuffix(HISTORY_NAME) or "repo"
        target = home / "src" / repo / HISTORY_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        keys.extend(f"aider:{session_id(target, stamp, n)}" for stamp, n in header_stamps(target))
    return keys
