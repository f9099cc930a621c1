"""Drive a real ``dreamd mcp`` subprocess with the MCP SDK's own stdio client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

T = TypeVar("T")

#: Variables that would point dreamd at the developer's own data instead of the test HOME.
_HOST_PREFIXES = ("XDG_", "DREAMD_", "CLAUDE_")


class Session:
    """An initialised MCP client session with small helpers for dreamd's tools."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def tool_names(self) -> list[str]:
        listed = await self.session.list_tools()
        return sorted(tool.name for tool in listed.tools)

    async def call(self, name: str, **arguments: Any) -> tuple[bool, Any]:
        """(is_error, the structured result or the error text) of one tool call."""
        result: Any = await self.session.call_tool(name, arguments)
        if result.is_error:
            return True, " ".join(getattr(block, "text", "") for block in result.content)
        if result.structured_content is not None:
            return False, result.structured_content
        return False, json.loads(result.content[0].text)


def run_mcp(
    home: Path,
    script: Callable[[Session], Awaitable[T]],
    *,
    cwd: Path | None = None,
    **env: str,
) -> T:
    """Start ``python -m dreamd mcp`` on ``home``, run ``script`` against it, stop it."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(_HOST_PREFIXES)}
    environment.update({"HOME": str(home), **env})
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "dreamd", "mcp"],
        env=environment,
        cwd=str(cwd or home),
    )

    async def main() -> T:
        with anyio.fail_after(120):
            async with (
                stdio_client(parameters) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await script(Session(session))

    return anyio.run(main)
