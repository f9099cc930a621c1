"""``dreamd mcp``: the tools as an MCP server on stdio, built on the official SDK's ``MCPServer``.

Imported only by ``dreamd mcp`` (the SDK is the optional extra ``mcp``), so
no other command pays for it. stdout carries the protocol: everything else
(logs) goes to stderr. A tool that refuses (``DreamdError``) answers an MCP
tool error with the reason, which the agent reads; it never ends the server.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from dreamd import __version__
from dreamd.errors import DreamdError
from dreamd.mcpserver.tools import Tools

__all__ = ["build_server", "serve"]

F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "dreamd holds the durable memories collected from past coding-agent sessions: rules the "
    "user stated, decisions and their reasons, gotchas, references. Search them before you "
    "decide something a past session may already have settled; get one memory for its "
    "quotes and the session it came from."
)


def _refusals(function: F) -> F:
    """A ``DreamdError`` raised by a tool becomes a tool error the agent reads."""

    @wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except DreamdError as error:
            raise ToolError(str(error)) from error

    return call  # type: ignore[return-value]


def build_server(tools: Tools) -> MCPServer[Any]:
    """The MCP server whose four tools call ``tools``."""
    server: MCPServer[Any] = MCPServer(
        name="dreamd", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    allowed = tools.settings.config.mcp.allow_remember

    @server.tool(annotations=read_only)
    @_refusals
    def search_memories(
        query: str, project: str | None = None, kind: str | None = None, limit: int = 10
    ) -> dict[str, Any]:
        """Search every memory store dreamd knows (memory folders, SQL, MEMORY.md, graph).

        query: words that must all occur; "quoted phrase"; a or b; -excluded.
        project: only memories of this directory (and below); default: all projects.
        kind: a memory type (user, feedback, project, reference) or a category
        (Decision, Rule, Gotcha, Fact, Reference, Preference, ...).
        Each hit has an id for get_memory.
        """
        return tools.search(query, project, kind, limit)

    @server.tool(annotations=read_only)
    @_refusals
    def get_memory(id: str) -> dict[str, Any]:
        """One memory by the id search_memories or recent_memories gave: its full text and
        provenance (source session, collected date, quotes with their message ids)."""
        return tools.get(id)

    @server.tool(annotations=read_only)
    @_refusals
    def recent_memories(project: str | None = None, limit: int = 10) -> dict[str, Any]:
        """The memories of a project written or changed last, newest first.

        project: a directory; default: the directory this server was started in.
        """
        return tools.recent(project, limit)

    state = "on" if allowed else "off ([mcp] allow_remember = false): calls are refused"
    remember_help = (
        "Remember one durable thing for later sessions (a rule, decision, gotcha, fact). "
        f"Currently {state}. kind: user, feedback, project or reference. The item waits for "
        "the next dream to check it, like a collected one; the same text twice is one item."
    )

    @server.tool(
        description=remember_help,
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True
        ),
    )
    @_refusals
    def remember(
        text: str,
        kind: str = "project",
        title: str | None = None,
        category: str | None = None,
        project: str | None = None,
        session: str | None = None,
    ) -> dict[str, Any]:
        return tools.remember(text, kind, title, category, project, session)

    return server


def serve(tools: Tools) -> None:
    """Serve on stdin/stdout until the client closes them."""
    build_server(tools).run("stdio")
