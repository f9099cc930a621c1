"""Pending proposals on disk (seed 004): written by ``--dry-run``, consumed by ``--apply-pending``.

One proposal per memory folder lives in ``<data dir>/pending/<folder slug>.md``
(the format ``proposal.render_proposal`` defines), with a small JSON sidecar
naming the folder and the topic files the plan moves to the trash, each with
the SHA-256 it had when the proposal was made. Applying re-checks those
hashes: a memory edited since the dry run is not moved.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from dreamd.dream import proposal
from dreamd.fswrite import atomic_write

__all__ = ["PendingFile", "folder_slug", "load_pending", "pending_files", "write_pending"]


def folder_slug(path: Path) -> str:
    """A file name for a folder's proposal: readable tail plus a hash of the full path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    tail = "".join(c if c.isalnum() else "-" for c in path.resolve().as_posix()[-60:]).strip("-")
    return f"{tail}-{digest}"


@dataclass(frozen=True, slots=True)
class PendingFile:
    """A stored proposal: its text (None if the .md is missing) and its sidecar."""

    path: Path
    folder: Path
    text: str | None
    trash: tuple[tuple[str, str], ...]  # (file name, sha256 at dry-run time)

    def remove(self) -> None:
        """Delete the proposal after a successful apply (dreamd's own state, not a memory)."""
        self.path.unlink(missing_ok=True)
        self.path.with_suffix(".json").unlink(missing_ok=True)


def write_pending(
    state_dir: Path,
    folder: Path,
    *,
    new_index: str,
    old_index: str | None,
    trash: list[tuple[str, str, str]],  # (file name, sha256, reason)
    run_id: str,
    now: datetime,
) -> Path:
    """Write (atomically) one folder's proposal and sidecar; returns the proposal path."""
    changes = [
        proposal.TopicChange(name, f"Move {name} to .trash/{now.date().isoformat()}/: {reason}.")
        for name, _digest, reason in trash
    ]
    text = proposal.render_proposal(
        new_index,
        changes,
        generated_at=now.astimezone(UTC),
        source_session=run_id,
        lines_before=len((old_index or "").splitlines()),
        lines_after=len(new_index.splitlines()),
    )
    directory = state_dir / "pending"
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{folder_slug(folder)}.md"
    sidecar: dict[str, Any] = {
        "folder": str(folder.resolve()),
        "trash": [[name, digest] for name, digest, _ in trash],
    }
    atomic_write(target.with_suffix(".json"), msgspec.json.encode(sidecar))
    atomic_write(target, text.encode())
    return target


def pending_files(state_dir: Path) -> list[PendingFile]:
    """Every stored proposal (a sidecar without its proposal counts: it reads as missing)."""
    directory = state_dir / "pending"
    if not directory.is_dir():
        return []
    return [
        load_pending(sidecar.with_suffix(".md")) for sidecar in sorted(directory.glob("*.json"))
    ]


def load_pending(path: Path) -> PendingFile:
    """One stored proposal with its sidecar."""
    raw = msgspec.json.decode(path.with_suffix(".json").read_bytes())
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    trash = tuple((str(name), str(digest)) for name, digest in raw.get("trash", []))
    return PendingFile(path, Path(raw["folder"]), text, trash)


def index_mtime(folder: Path) -> datetime | None:
    """When ``MEMORY.md`` was last modified (None when there is none)."""
    try:
        return datetime.fromtimestamp((folder / "MEMORY.md").stat().st_mtime, tz=UTC)
    except FileNotFoundError:
        return None
