"""Every reader by tool name (``dreamd.readers.READERS``), in the order sources are listed."""

from __future__ import annotations

from ._protocol import Reader
from .aider import READER as _aider
from .claude_code import READER as _claude_code
from .codex import READER as _codex
from .cursor import READER as _cursor
from .gemini import READER as _gemini
from .opencode import MIMOCODE_READER as _mimocode
from .opencode import OPENCODE_READER as _opencode
from .pi import OMP_READER as _omp
from .pi import PI_READER as _pi

__all__ = ["READERS"]

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
