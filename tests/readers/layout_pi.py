"""Place the shared Pi fixtures where Pi keeps sessions under a test HOME."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path


def _header(source: Path) -> dict[str, str]:
    """The session header (first line) of a fixture file."""
    with source.open("rb") as handle:
        header = json.loads(handle.readline())
    return {key: str(header[key]) for key in ("id", "cwd", "timestamp")}


def session_folder(home: Path, cwd: str) -> Path:
    """``~/.pi/agent/sessions/--<cwd with separators as dashes>--``, as Pi names it."""
    encoded = "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"
    return home / ".pi" / "agent" / "sessions" / encoded


def session_file_name(session_id: str, timestamp: str) -> str:
    """``<timestamp with : and . as dashes>_<session id>.jsonl``, as Pi names it."""
    return f"{re.sub(r'[:.]', '-', timestamp)}_{session_id}.jsonl"


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy every Pi fixture into the default session folder; return the expected keys."""
    keys: list[str] = []
    for source in sorted((fixtures / "pi").glob("*.jsonl")):
        header = _header(source)
        folder = session_folder(home, header["cwd"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, folder / session_file_name(header["id"], header["timestamp"]))
        keys.append(f"pi:{header['id']}")
    return keys
