"""Which memory folders dreamd has dreamed before (issue 12, item 9). I/O on the state dir.

A scheduled dream never applies anything unattended to a folder dreamd has
never dreamed: the first time, it writes a pending proposal for review. One
small marker file per folder in ``<data dir>/dreamed/`` records the first run
that applied there.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import msgspec

from dreamd.dream.pending import folder_slug
from dreamd.fswrite import atomic_write

__all__ = ["mark_dreamed", "was_dreamed"]


def _marker(state_dir: Path, folder: Path) -> Path:
    return state_dir / "dreamed" / f"{folder_slug(folder)}.json"


def was_dreamed(state_dir: Path, folder: Path) -> bool:
    """Whether a dream (by hand, scheduled or an applied proposal) applied in ``folder``."""
    return _marker(state_dir, folder).is_file()


def mark_dreamed(state_dir: Path, folder: Path, run_id: str, now: datetime) -> None:
    """Record that ``folder`` has been dreamed (the first run's id and time are kept)."""
    marker = _marker(state_dir, folder)
    if marker.is_file():
        return
    document = {"folder": str(folder.resolve()), "run_id": run_id, "at": now.isoformat()}
    atomic_write(marker, msgspec.json.encode(document))
