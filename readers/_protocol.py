"""The contract every transcript reader meets."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from ._model import Conversation, Digest, SessionRef, Unresolved

__all__ = ["Digests", "ProjectRoots", "Reader"]


class Reader(Protocol):
    """One transcript source (a tool, or one storage format of a tool).

    ``discover`` is cheap: it stats files and makes small reads, never a full
    parse. ``read`` turns one session into a cleaned conversation, or an
    ``Unresolved`` saying why it could not; it never raises for bad input and
    never opens a transcript for writing.
    """

    @property
    def tool(self) -> str:
        """The tool name used in configuration and output (``claude-code``...)."""
        ...

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """Where the tool keeps its sessions, honouring its own environment variables."""
        ...

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every session under ``root``; unreadable sources as ``Unresolved``."""
        ...

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one discovered session."""
        ...


@runtime_checkable
class ProjectRoots(Protocol):
    """A reader whose tool keeps sessions inside project folders (Aider).

    Such a tool has no central store, so besides its default roots the
    catalog offers it the project folders every other tool reported.
    """

    def project_roots(self, projects: Iterable[str]) -> tuple[Path, ...]:
        """Roots to discover for these project folders (only ones that exist)."""
        ...


@runtime_checkable
class Digests(Protocol):
    """A reader that can summarize a session without building its messages.

    ``read_digest(ref)`` must equal ``Digest.of(read(ref))`` (or the same
    ``Unresolved``): a scan summarizes every session it reads and shows none,
    so the catalog asks for the digest where a reader offers one.
    """

    def read_digest(self, ref: SessionRef) -> Digest | Unresolved:
        """The digest of the conversation ``read(ref)`` would give, or why not."""
        ...
