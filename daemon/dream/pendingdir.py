"""Where the dream keeps its proposals for review, told without loading the proposal code.

``dreamd status`` asks on every call whether a proposal waits; most of the time
none does, and the modules that read and write proposals
(``dreamd.dream.pending``) are then not needed at all.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["pending_dir", "sidecars"]


def pending_dir(state_dir: Path) -> Path:
    """The folder of pending proposals (each a ``.md`` with its ``.json`` sidecar)."""
    return state_dir / "pending"


def sidecars(state_dir: Path) -> list[Path]:
    """The sidecar of every stored proposal, by name (none when the folder is missing)."""
    directory = pending_dir(state_dir)
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.json"))
