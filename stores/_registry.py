"""How a store registers itself: its settings table, how to open it, which gate the dream runs.

Every store module ends with one ``SPEC``; ``dreamd.stores.registry.STORES``
lists them by the name ``collect.stores`` uses. The configuration reads each
``[stores.<name>]`` table into the spec's ``table`` type (unknown keys and bad
values are errors naming the dotted key), the collector opens the listed
stores through ``open``, and the dream runs the gate the spec names over
them. Adding a store is one module and one line in the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

if TYPE_CHECKING:
    from ._keyindex import KeyIndex
    from ._protocol import Store

__all__ = ["GateKind", "StoreContext", "StoreSpec", "StoreTable", "no_problem"]

#: The gates the dream has (``dreamd.dream.gates``): a memory folder's ``.inbox/``, a SQL
#: store's ``new`` rows, a sectioned ``MEMORY.md``'s holding file, a graph's pending lines,
#: Gemini's held facts.
GateKind = Literal["folder", "rows", "sectioned", "graph", "gemini"]


class StoreTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A ``[stores.<name>]`` table: unknown keys are errors, so typos do not pass silently."""


class StoreContext(msgspec.Struct, frozen=True):
    """What every store may need to find its place: resolved once per run.

    ``claude_projects`` maps a project path to the Claude Code transcript
    folder whose sessions recorded it (the memory folder store's hint);
    ``key_index`` is where folder stores keep which keys their files hold.
    """

    data_dir: Path
    machine: str
    home: Path
    env: Mapping[str, str]
    claude_projects: Mapping[str, Path] = msgspec.field(default_factory=dict)
    #: Where folder stores remember which operation keys their files hold (``_keyindex``);
    #: None: each store keeps its own for the process.
    key_index: KeyIndex | None = None


#: ``(table, listed)`` → ``(key under the table, problem)`` or None; ``listed``: the store is
#: in ``collect.stores``.
Check = Callable[[Any, bool], "tuple[str, str] | None"]


#: ``(table, home)`` → ``(key, problem)`` or None: what the table names exists on this machine
#: (run when the settings are loaded, after ``Check``; ``~`` is ``home``).
PlaceCheck = Callable[[Any, Path], "tuple[str, str] | None"]


def no_problem(table: Any, listed: bool) -> tuple[str, str] | None:
    """The check of a store whose table cannot be wrong once it parsed."""
    return None


def no_place_problem(table: Any, home: Path) -> tuple[str, str] | None:
    """The place check of a store that names no place of its own."""
    return None


class StoreSpec(msgspec.Struct, frozen=True):
    """One store kind, as the registry lists it.

    ``open(table, context, project, create=...)`` returns the adapter, or None
    when there is none to use: a per-project store for a session without a
    project, or (``create=False``, the dream) a store that was never written.
    """

    name: str
    table: type[StoreTable]
    gate: GateKind
    per_project: bool
    open: Callable[[Any, StoreContext, str | None, bool], Store | None]
    check: Check = no_problem
    check_place: PlaceCheck = no_place_problem

    def adapter(
        self, table: StoreTable, context: StoreContext, project: str | None = None, *, create: bool
    ) -> Store | None:
        """The adapter for ``table`` (see the class docstring)."""
        return self.open(table, context, project, create)
