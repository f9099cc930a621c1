"""The Claude Code memory folder store's entry in the registry: its table and how to open it.

Kept apart from ``dreamd.stores.claude_memory`` so that reading the
configuration never imports the adapter (and YAML); it is imported when a
store is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreamd.agentdirs import claude_dir
from dreamd.logs import get_logger

from ._registry import StoreContext, StoreSpec, StoreTable
from .claude_folder import MemoryLocation, locate_memory_folder, managed_settings_path

if TYPE_CHECKING:
    from .claude_memory import ClaudeMemoryStore

__all__ = ["SPEC", "ClaudeMemoryTable", "memory_folder_for"]

log = get_logger("dreamd.stores")


class ClaudeMemoryTable(StoreTable):
    """``[stores.claude-memory]``: nothing to set yet (the folder follows Claude Code's own)."""


def memory_folder_for(project: str, context: StoreContext) -> MemoryLocation:
    """Where Claude Code keeps the auto memory of a session started in ``project``.

    The main worktree's folder under the config dir, or the folder Claude
    Code's settings name, or none when they turn auto memory off
    (``stores.claude_folder``).
    """
    return locate_memory_folder(
        project,
        claude=claude_dir(context.env, context.home),
        env=context.env,
        home=context.home,
        known=context.claude_projects,
        managed=managed_settings_path(),
    )


def _open(
    table: ClaudeMemoryTable, context: StoreContext, project: str | None, create: bool
) -> ClaudeMemoryStore | None:
    if not project:
        return None
    where = memory_folder_for(project, context)
    if where.note is not None:
        log.warning("store.claude_memory.assumed", project=project, note=where.note)
    if where.folder is None:
        return None
    from .claude_memory import ClaudeMemoryStore

    return ClaudeMemoryStore(where.folder, index=context.key_index)


#: The registry's entry (``dreamd.stores.registry``): one folder per session's project.
SPEC = StoreSpec(
    name="claude-memory", table=ClaudeMemoryTable, gate="folder", per_project=True, open=_open
)
