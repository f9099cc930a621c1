"""Every memory store dreamd can write, by the name ``collect.stores`` uses.

Adding a store: write its module (the adapter) and its spec (its
``[stores.<name>]`` table, its checks and the gate the dream runs over it),
then add the spec to ``STORES`` below. Every command reads the configuration,
so the specs live in modules of their own that import the adapter only in
``open`` (``claudespec``, ``sqlspec``, ``filespec``, ``geminispec``).
Configuration, collector and dream loop over this mapping.
"""

from __future__ import annotations

from . import claudespec, filespec, geminispec, sqlspec
from ._registry import GateKind, StoreContext, StoreSpec, StoreTable

__all__ = ["STORES", "GateKind", "StoreContext", "StoreSpec", "StoreTable"]

STORES: dict[str, StoreSpec] = {
    spec.name: spec
    for spec in (
        claudespec.SPEC,
        sqlspec.SPEC,
        filespec.MEMORY_MD_SPEC,
        filespec.GRAPH_SPEC,
        geminispec.SPEC,
    )
}
