"""Builders of memory files for dream tests."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dreamd.dream.model import MemoryFile, MemoryType

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def memory(
    name: str = "project_x.md",
    *,
    type: MemoryType | None = "project",
    body: str = "Notes about `src/app.py`.",
    title: str | None = None,
    description: str | None = None,
    age: timedelta = timedelta(days=60),
    folder: Path = Path("/mem"),
) -> MemoryFile:
    """A parsed memory file with sensible defaults (old, project type)."""
    return MemoryFile(
        path=folder / name,
        name=name,
        title=title if title is not None else name.removesuffix(".md"),
        description=description,
        type=type,
        has_front_matter=type is not None,
        front_matter={"type": type} if type else {},
        body=body,
        mtime=NOW - age,
        size=len(body),
        sha256=hashlib.sha256(body.encode()).hexdigest(),
    )
