"""Lay the shared real Gemini CLI fixtures out where the CLI keeps its chats.

Gemini CLI writes ``~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first
8 of sessionId>.json(l)``, with ``<project>`` the sha256 of the working directory
(older releases) or a slug of its folder name (newer ones).
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: fixture file -> (project folder, file name as the CLI would name it).
_PLACES: tuple[tuple[str, str, str], ...] = (
    (
        "codemie_session-2025-12-01T21-45-5b959dae.json",
        "fb8e242a6fbbb5c48a1d0be57a8a4cc934d33e0a1caf73ab5d4ecaa17269960c",
        "session-2025-12-01T21-45-5b959dae.json",
    ),
    (
        "codemie_session-2026-01-16T11-01-file-ops-37b7abef.json",
        "907f20644716c92a8309a8b7c1ceec79d422233ff220b7fdb8772b360bd8273f",
        "session-2026-01-16T11-01-37b7abef.json",
    ),
    # An earlier copy of the next session left in the old hash folder: the CLI
    # copies (not moves) a hash folder when it switches to a slug folder.
    (
        "entire_9c-53780d06b7-0_full.jsonl.json",
        "7e8989f71805c3147f6be9b7a71de2a156f8face69f9380beeeb8a777414f21c",
        "session-2026-01-15T20-51-f7633853.json",
    ),
    # The later copy in the slug folder, one pretty-printed document under a .jsonl name.
    (
        "entire_ab-2b9748b105-0_full.jsonl.json",
        "cli",
        "session-2026-01-15T20-51-f7633853.jsonl",
    ),
    (
        "agentsessions_jsonl_v040.jsonl",
        "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9",
        "session-2026-04-29T21-39-gemini_s.jsonl",
    ),
)

#: Session keys discovery must find (the two copies above are one session).
_KEYS = (
    "gemini:2025-12-01T21-45-5b959dae",
    "gemini:2026-01-16T11-01-37b7abef",
    "gemini:2026-01-15T20-51-f7633853",
    "gemini:2026-04-29T21-39-gemini_s",
)


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy each Gemini fixture under ``home/.gemini/tmp`` and return the expected keys."""
    for fixture, project, name in _PLACES:
        chats = home / ".gemini" / "tmp" / project / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        shutil.copy2(fixtures / "gemini" / fixture, chats / name)
    return list(_KEYS)
