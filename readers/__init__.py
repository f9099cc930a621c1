"""Transcript readers, one module per source, and the registry keyed by tool name.

Tool names are the ones used in configuration tables and JSON output:
``claude-code``, ``codex``, ``pi``, ``omp``, ``opencode``, ``mimocode``,
``gemini``, ``cursor``, ``aider``.

Each name is imported from its module when first asked for (PEP 562): ``status``
and the state database need ``FileVersion`` and ``isoformat`` (``_stamps``) and
nothing of the message model, a command reading one tool needs one reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreamd.lazymap import lazy_names

if TYPE_CHECKING:
    from ._model import Conversation, Digest, Message, Role, SessionRef, Unresolved
    from ._protocol import Digests, ProjectRoots, Reader
    from ._registry import READERS
    from ._stamps import FileVersion, isoformat

#: Where each public name lives.
_HOMES: dict[str, str] = {
    **dict.fromkeys(
        ("Conversation", "Digest", "Message", "Role", "SessionRef", "Unresolved"), "._model"
    ),
    **dict.fromkeys(("Digests", "ProjectRoots", "Reader"), "._protocol"),
    "READERS": "._registry",
    **dict.fromkeys(("FileVersion", "isoformat"), "._stamps"),
}

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

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
