"""Transcript readers, one module per source, and the registry keyed by tool name.

Tool names are the ones used in configuration tables and JSON output:
``claude-code``, ``codex``, ``pi``, ``omp``, ``opencode``, ``mimocode``,
``gemini``, ``cursor``, ``aider``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._model import (
    Conversation,
    Digest,
    FileVersion,
    Message,
    Role,
    SessionRef,
    Unresolved,
    isoformat,
)
from ._protocol import Digests, ProjectRoots, Reader

if TYPE_CHECKING:
    from ._registry import READERS

__all__ = [
    "READERS",
    "Conversation",
    "Digest",
    "Digests",
    "FileVersion",
    "Message",
    "ProjectRoots",
    "Reader",
    "Role",
    "SessionRef",
    "Unresolved",
    "isoformat",
]


def __getattr__(name: str) -> object:
    """``READERS`` is imported on first use: the record types above are all that most
    modules need, and every reader's parser costs a short command's start-up."""
    if name == "READERS":
        from ._registry import READERS

        return READERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
