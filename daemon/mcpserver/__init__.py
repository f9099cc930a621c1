"""``dreamd mcp``: a stdio MCP server through which agents search and read memories.

``tools`` is what each tool does (plain functions, no SDK); ``remember`` the
opt-in write path, planted like a collected item; ``server`` the MCP SDK
wiring, imported only when the server starts (``serve``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dreamd.config import Settings
from dreamd.errors import DreamdError
from dreamd.mcpserver.tools import Tools
from dreamd.statedb import StateDB

__all__ = ["Tools", "serve"]


def serve(settings: Settings, state: StateDB, env: Mapping[str, str], home: Path) -> None:
    """Run the server on stdin/stdout; the SDK is imported here, only for this command."""
    try:
        from dreamd.mcpserver import server
    except ImportError as error:
        missing = f"the MCP SDK is not installed ({error}): pip install 'dreamd[mcp]'"
        raise DreamdError(missing) from error
    server.serve(Tools(settings, state, env, home, Path.cwd()))
