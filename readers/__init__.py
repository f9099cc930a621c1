"""Transcript readers, one module per source, and the registry keyed by tool name.

Tool names are the ones used in configuration tables and JSON output:
``claude-code``, ``codex``, ``pi``, ``omp``, ``opencode``, ``mimocode``,
``gemini``, ``cursor``, ``aider``.
"""

from __future__ import annotations

from ._model import Conversation, FileVersion, Message, Role, SessionRef, Unresolved, isoformat
from ._protocol import ProjectRoots, Reader
from .aider import READER as _aider
from .claude_code import READER as _claude_code
from .codex import READER as _codex
from .cursor import READER as _cursor
from .gemini import READER as _gemini
from .opencode import MIMOCODE_READER as _mimocode
from .opencode import OPENCODE_READER as _opencode
from .pi import OMP_READER as _omp
from .pi import PI_READER as _pi

__all__ = [
    "READERS",
    "Conversation",
    "FileVersion",
    "Message",
    "ProjectRoots",
    "Reader",
    "Role",
    "SessionRef",
    "Unresolved",
    "isoformat",
]

#: Every reader by tool name, in the order sources are listed by default.
READERS: dict[str, Reader] = {
    reader.tool: reader
    for reader in (
        _claude_code,
        _codex,
        _pi,
        _omp,
        _opencode,
        _mimocode,
        _gemini,
        _cursor,
        _aider,
    )
}
