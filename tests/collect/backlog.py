"""A home with many small finished Claude Code sessions, written quickly (one file each)."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

#: What each session says: a request, an answer, a follow-up, an answer (nothing durable).
TURNS = (
    "Please look at the failing import in module {n} and fix it.",
    "Fixed: the module imported a name that moved.",
    "Good, now update the changelog entry for it too.",
    "Updated the changelog.",
)


def backlog(home: Path, count: int, *, messages: int = 4, days_ago: float = 3.0) -> list[str]:
    """``count`` finished sessions of ``messages`` messages, the newest ``days_ago`` days old.

    Returns their ``claude-code:<id>`` keys, newest first.
    """
    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True, exist_ok=True)
    newest = time.time() - days_ago * 86400
    keys = []
    for index in range(count):
        sid = str(uuid.UUID(int=index + 1))
        start = newest - index * 600
        lines = []
        for turn in range(messages):
            role = "user" if turn % 2 == 0 else "assistant"
            text = TURNS[turn % len(TURNS)].format(n=f"{index}-{turn}")
            message: dict[str, object] = {"role": role, "content": text}
            if role == "assistant":
                message = {
                    "id": f"m{turn}",
                    "role": role,
                    "content": [{"type": "text", "text": text}],
                }
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(start + turn * 5))
            lines.append(
                {
                    "type": role, "uuid": f"{role[0]}{turn}", "sessionId": sid, "cwd": "/work/app",
                    "isSidechain": False, "timestamp": stamp, "message": message,
                }
            )  # fmt: skip
        path = folder / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        os.utime(path, (start + 60, start + 60))
        keys.append(f"claude-code:{sid}")
    return keys
