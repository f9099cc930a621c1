"""Pi and OMP reader (placeholder until implemented)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ._common import unresolved
from ._model import Conversation, SessionRef, Unresolved


class _Placeholder:
    def __init__(self, tool: str) -> None:
        self.tool = tool

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        return ()

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        return iter(())

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        return unresolved(ref, "reader not implemented")


PI_READER = _Placeholder("pi")
OMP_READER = _Placeholder("omp")
