"""Gemini CLI's ``GEMINI.md`` store's entry in the registry: its table and how to open it.

Kept apart from ``dreamd.stores.gemini_md`` so that reading the configuration
never imports the adapter; it is imported when the store is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dreamd.agentdirs import expand_home

from ._registry import StoreContext, StoreSpec, StoreTable

if TYPE_CHECKING:
    from .gemini_md import GeminiStore

__all__ = ["CONTEXT_FILE", "SPEC", "GeminiTable", "default_path"]

#: The file Gemini CLI reads its global memory from.
CONTEXT_FILE = "GEMINI.md"


class GeminiTable(StoreTable):
    """``[stores.gemini]``: the memory file, when not Gemini CLI's default."""

    path: str | None = None  # absolute, or under ~/


def default_path(context: StoreContext) -> Path:
    """``GEMINI.md`` in Gemini CLI's global folder (``$GEMINI_CLI_HOME/.gemini``, ``~/.gemini``)."""
    base = context.env.get("GEMINI_CLI_HOME", "").strip()
    home = expand_home(base, context.home) if base else context.home
    return home / ".gemini" / CONTEXT_FILE


def _check(table: GeminiTable, listed: bool) -> tuple[str, str] | None:
    value = table.path
    if value is not None and not (value.startswith("~/") or Path(value).is_absolute()):
        return "path", "must be absolute or start with ~/"
    return None


def _open(
    table: GeminiTable, context: StoreContext, project: str | None, create: bool
) -> GeminiStore:
    from .gemini_md import GeminiStore

    path = expand_home(table.path, context.home) if table.path else default_path(context)
    return GeminiStore(path)


#: The registry's entry (``dreamd.stores.registry``).
SPEC = StoreSpec(
    name="gemini", table=GeminiTable, gate="gemini", per_project=False, open=_open, check=_check
)
