"""Lay the shared Codex fixtures out the way Codex keeps rollouts under a HOME.

Codex writes ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.
Fixtures already named that way (after a ``<source>_`` prefix) keep their
name; the others get one built from their ``session_meta`` id and timestamp.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

_ROLLOUT_NAME = re.compile(
    r"rollout-(\d{4})-(\d{2})-(\d{2})T\d{2}-\d{2}-\d{2}-"
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$"
)


def _first_session_meta(path: Path) -> dict[str, object]:
    """The payload of the first ``session_meta`` line of a fixture."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("type") == "session_meta":
                payload: dict[str, object] = record["payload"]
                return payload
    raise ValueError(f"{path} has no session_meta line")


def _rollout_name(path: Path) -> tuple[str, str]:
    """``(name, session id)`` of the rollout file that ``path`` becomes."""
    found = _ROLLOUT_NAME.search(path.name)
    if found:
        return found.group(0), found.group(4)
    meta = _first_session_meta(path)
    session_id = str(meta["id"])
    started = datetime.fromisoformat(str(meta["timestamp"]).replace("Z", "+00:00"))
    stamp = started.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%S")
    return f"rollout-{stamp}-{session_id}.jsonl", session_id


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy every Codex fixture into ``home/.codex/sessions/YYYY/MM/DD/``; return its keys."""
    keys: list[str] = []
    for source in sorted((fixtures / "codex").glob("*.jsonl")):
        name, session_id = _rollout_name(source)
        year, month, day = name[len("rollout-") :].split("T", 1)[0].split("-")
        folder = home / ".codex" / "sessions" / year / month / day
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, folder / name)
        keys.append(f"codex:{session_id}")
    return keys
