"""Lay the shared real Gemini CLI fixtures out where the CLI keeps its chats.

Gemini CLI writes ``~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first
8 of sessionId>.json(l)``, with ``<project>`` the sha256 of the working directory
(older releases) or a slug of its folder name (newer ones). Sessions are known by
the ``sessionId`` their files record, read here with ``json`` independently of
the reader.
"""

from __future__ import annotations

import json
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


def recorded_id(path: Path) -> str:
    """The ``sessionId`` of a fixture: the document's, or its first line's (JSON Lines)."""
    text = path.read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except ValueError:
        value = json.loads(text.splitlines()[0])
    return str(value["sessionId"])


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy each Gemini fixture under ``home/.gemini/tmp`` and return the expected keys.

    The two copies of one session (old hash folder, new slug folder) are one key.
    """
    keys: list[str] = []
    for fixture, project, name in _PLACES:
        chats = home / ".gemini" / "tmp" / project / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        shutil.copy2(fixtures / "gemini" / fixture, chats / name)
        key = f"gemini:{recorded_id(chats / name)}"
        if key not in keys:
            keys.append(key)
    return keys
