"""The one-file stores' entries in the registry: ``[stores.memory-md]``, ``[stores.graph]``.

Their table, its checks and how to find the file, kept apart from the
adapters (``memory_md``, ``graph_jsonl``, ``_heldfile``) so that reading the
configuration, which every command does, imports neither; an adapter is
imported when its store is opened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dreamd.agentdirs import expand_home

from ._registry import GateKind, StoreContext, StoreSpec, StoreTable

if TYPE_CHECKING:
    from ._protocol import Store

__all__ = [
    "GRAPH_SPEC",
    "MEMORY_MD_SPEC",
    "FileStoreTable",
    "check_file_place",
    "check_file_table",
    "file_store_spec",
    "located",
]


class FileStoreTable(StoreTable):
    """A store kept in one file: ``[stores.memory-md]``, ``[stores.graph]``."""

    path: str | None = None  # absolute, or under ~/
    repo: str | None = None  # the project its references are checked against (optional)


def located(table: FileStoreTable, home: Path) -> tuple[Path, Path | None] | None:
    """(file, repository) of a one-file store, ``~`` read against ``home``; None without a file."""
    if table.path is None:
        return None
    repo = expand_home(table.repo, home) if table.repo else None
    return expand_home(table.path, home), repo


def check_file_table(table: FileStoreTable, listed: bool) -> tuple[str, str] | None:
    """Absolute paths (or ``~/``); a store listed in ``collect.stores`` needs its file."""
    for key in ("path", "repo"):
        value = getattr(table, key)
        if value is not None and not (
            value == "~" or value.startswith("~/") or Path(value).is_absolute()
        ):
            return key, "must be absolute or start with ~/"
    if listed and not table.path:
        return "path", "collect.stores lists this store: give its file"
    return None


def check_file_place(table: FileStoreTable, home: Path) -> tuple[str, str] | None:
    """The repository the file's references are checked against exists (the file's own
    folder is created with its first write)."""
    found = located(table, home)
    if found is None:
        return None
    repo = found[1]
    if repo is not None and not repo.is_dir():
        return "repo", f"{repo} is not a folder"
    return None


def file_store_spec(name: str, store: Callable[[Path], Store], *, gate: GateKind) -> StoreSpec:
    """The registry entry of a one-file store: its table is ``FileStoreTable``, its adapter
    ``store(file)``, one store for every session's items."""

    def open_store(
        table: FileStoreTable, context: StoreContext, project: str | None, create: bool
    ) -> Store | None:
        found = located(table, context.home)
        return None if found is None else store(found[0])

    return StoreSpec(
        name=name,
        table=FileStoreTable,
        gate=gate,
        per_project=False,
        open=open_store,
        check=check_file_table,
        check_place=check_file_place,
    )


def _memory_md(path: Path) -> Store:
    from .memory_md import MemoryMdStore

    return MemoryMdStore(path)


def _graph(path: Path) -> Store:
    from .graph_jsonl import GraphStore

    return GraphStore(path)


#: A sectioned ``MEMORY.md`` (``memory_md.MemoryMdStore``).
MEMORY_MD_SPEC = file_store_spec("memory-md", _memory_md, gate="sectioned")
#: A knowledge-graph JSONL file (``graph_jsonl.GraphStore``).
GRAPH_SPEC = file_store_spec("graph", _graph, gate="graph")
