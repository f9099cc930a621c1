"""Cross-project promotion candidates and housekeeping hints (seed 000 STEPs 7 to 9).

All of it is advice: nothing here moves or writes anything.

STEP 9: a memory whose topic shows up in the indexes of two or more *other*
projects has outgrown its repository. The topic key is the file's slug with
its type prefix and scope words (dates, numbers) removed; matching is plain
token containment on normalised index lines, deterministic and cheap.

STEP 8: project paths Claude Code remembers in ``~/.claude.json`` whose
directory no longer exists are counted, with the command to preview them.
STEP 7: orphaned plugin hints need the ``claude`` program; without it the
step says so in one line.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["candidates", "match_topic", "stale_projects", "topic_key"]

_TYPE_PREFIX = re.compile(r"^(user|feedback|project|reference|hub)[_-]")
_SCOPE_WORD = re.compile(r"^(\d+|\d{4}[-_]?\d{2}([-_]?\d{2})?|v\d+|r\d+|wave\d+\w*|session)$")
MIN_KEY_TOKENS = 2


def topic_key(file_name: str) -> tuple[str, ...]:
    """The file slug's topic tokens: type prefix, dates, numbers and tiny words removed."""
    stem = file_name.removesuffix(".md").lower()
    stem = _TYPE_PREFIX.sub("", stem)
    tokens = [t for t in re.split(r"[^a-z0-9]+", stem) if t]
    return tuple(t for t in tokens if len(t) > 2 and not _SCOPE_WORD.match(t))


def _normalised(text: str) -> str:
    return " " + " ".join(re.split(r"[^a-z0-9]+", text.lower())) + " "


def match_topic(key: Sequence[str], index_text: str) -> bool:
    """Whether every token of ``key`` occurs as a word in ``index_text``."""
    if len(key) < MIN_KEY_TOKENS:
        return False
    words = _normalised(index_text)
    return all(f" {token} " in words for token in key)


def candidates(claude: Path, reports: Iterable[Any]) -> list[dict[str, Any]]:
    """Memories whose topic appears in two or more other projects' indexes."""
    indexes = _project_indexes(claude)
    found: list[dict[str, Any]] = []
    for report in reports:
        own = Path(report.path).resolve()
        others = {folder: text for folder, text in indexes.items() if folder != own}
        for decision in report.files:
            if decision.action == "trash":
                continue
            key = topic_key(decision.file)
            projects = sorted(str(f) for f, text in others.items() if match_topic(key, text))
            if len(projects) >= 2:
                found.append(
                    {
                        "folder": report.path,
                        "file": decision.file,
                        "topic": " ".join(key),
                        "projects": projects,
                    }
                )
    return found


def _project_indexes(claude: Path) -> dict[Path, str]:
    texts: dict[Path, str] = {}
    for index in sorted(claude.glob("projects/*/memory/MEMORY.md")):
        try:
            texts[index.parent.resolve()] = index.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return texts


def stale_projects(claude_json: Path) -> tuple[int, str] | str:
    """STEP 8: how many remembered project paths no longer exist, and how to preview them.

    Returns a one-line skip reason when there is nothing to read.
    """
    try:
        data = json.loads(claude_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{claude_json} not found or unreadable: stale-project check skipped"
    projects = data.get("projects") if isinstance(data, Mapping) else None
    if not isinstance(projects, Mapping):
        return "no project list in ~/.claude.json: stale-project check skipped"
    gone = [path for path in projects if isinstance(path, str) and not Path(path).exists()]
    preview = (
        "jq -r '.projects | keys[]' ~/.claude.json"
        ' | while read -r p; do [ -d "$p" ] || echo "$p"; done'
    )
    return len(gone), preview


def plugin_hint() -> str | None:
    """STEP 7: a one-line skip when the ``claude`` program is absent, else None."""
    if shutil.which("claude") is None:
        return "claude program not found: orphaned-plugin check skipped"
    return None
