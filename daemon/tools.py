"""The tools dreamd reads, by the names configuration and commands use.

The same names, in the same order, as ``dreamd.readers.READERS`` (a test keeps
them equal); kept apart so that a command's options and shell completion can
name the tools without importing every reader.
"""

from __future__ import annotations

__all__ = ["TOOLS"]

TOOLS = ("claude-code", "codex", "pi", "omp", "opencode", "mimocode", "gemini", "cursor", "aider")
