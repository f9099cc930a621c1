"""Every reader by tool name (``dreamd.readers.READERS``), in the order sources are listed.

Each reader's module is imported when its reader is first asked for.
"""

from __future__ import annotations

from importlib import import_module

from dreamd.lazymap import LazyMap

from ._protocol import Reader

__all__ = ["READERS"]

#: Where each tool's reader lives: (module of this package, attribute).
_PLACES: dict[str, tuple[str, str]] = {
    "claude-code": ("claude_code", "READER"),
    "codex": ("codex", "READER"),
    "pi": ("pi", "PI_READER"),
    "omp": ("pi", "OMP_READER"),
    "opencode": ("opencode", "OPENCODE_READER"),
    "mimocode": ("opencode", "MIMOCODE_READER"),
    "gemini": ("gemini", "READER"),
    "cursor": ("cursor", "READER"),
    "aider": ("aider", "READER"),
}


def _load(tool: str) -> Reader:
    module, name = _PLACES[tool]
    reader: Reader = getattr(import_module(f".{module}", __package__), name)
    if reader.tool != tool:
        raise RuntimeError(f"{module}.{name} reads {reader.tool!r}, not {tool!r}")
    return reader


#: Every reader by tool name, in the order sources are listed by default.
READERS: LazyMap[str, Reader] = LazyMap(_PLACES, _load)
