"""Place the shared Claude Code fixtures where Claude Code keeps sessions under a test HOME.

Claude Code writes ``~/.claude/projects/<encoded cwd>/<session id>.jsonl``, with
subagent transcripts beside it (``agent-<id>.jsonl``, before 2.1) or below it
(``<session id>/subagents/agent-<id>.jsonl`` plus ``.meta.json`` side files).
Flat fixture files keep their stem as the session id (the shared names are not
uuids); fixture folders keep their inner structure, so that the subagent files
land exactly where Claude Code puts them and discovery can prove it skips them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: The encoded-cwd folder flat fixtures are put in (the reader never decodes it).
FLAT_PROJECT = "-home-user-work-fixtures"


def projects_dir(home: Path) -> Path:
    """``~/.claude/projects``: the default root."""
    return home / ".claude" / "projects"


def _copy_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def _copy_tree(source: Path, target: Path) -> None:
    """Copy every file below ``source`` to the same place below ``target``.

    Directories are created fresh (not copied with their read-only modes).
    """
    for path in sorted(source.rglob("*")):
        if path.is_file():
            _copy_file(path, target / path.relative_to(source))


def _project_folders(fixture: Path) -> list[tuple[Path, str]]:
    """``(folder, encoded name)`` pairs: the fixture folder itself or its sub-folders.

    ``codemie_old-layout/-tmp-private/`` already names its project folder;
    ``codemie_new-layout/`` and ``agentsessions_subagent/`` are one project
    folder's contents.
    """
    if any(child.is_file() for child in fixture.iterdir()):
        return [(fixture, f"-home-user-{fixture.name}")]
    return [(child, child.name) for child in sorted(fixture.iterdir()) if child.is_dir()]


def _session_keys(project: Path) -> list[str]:
    """Main session files of one project folder: ``*.jsonl`` that are not ``agent-*``."""
    return [
        f"claude-code:{path.stem}"
        for path in sorted(project.glob("*.jsonl"))
        if not path.name.startswith("agent-")
    ]


def lay_out(fixtures: Path, home: Path) -> list[str]:
    """Copy every Claude Code fixture under ``home``; return the keys discovery must find."""
    source = fixtures / "claude-code"
    root = projects_dir(home)
    keys: list[str] = []
    for entry in sorted(source.iterdir()):
        if entry.is_file() and entry.suffix == ".jsonl":
            _copy_file(entry, root / FLAT_PROJECT / entry.name)
            keys.append(f"claude-code:{entry.stem}")
        elif entry.is_dir():
            for folder, encoded in _project_folders(entry):
                _copy_tree(folder, root / encoded)
                keys.extend(_session_keys(root / encoded))
    return keys
