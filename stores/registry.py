"""Every memory store dreamd can write, by the name ``collect.stores`` uses.

Adding a store: write its module (the adapter, its ``[stores.<name>]`` table
and a ``SPEC`` naming the gate the dream runs over it), then add the spec to
``STORES`` below. A store whose adapter imports something heavy (SQLAlchemy,
YAML) keeps its spec in a module of its own that imports the adapter only in
``open`` (``sqlspec``, ``claudespec``): every command reads the configuration.
Configuration, collector and dream loop over this mapping.
"""

from __future__ import annotations

from . import claudespec, gemini_md, graph_jsonl, memory_md, sqlspec
from ._registry import GateKind, StoreContext, StoreSpec, StoreTable

__all__ = ["STORES", "GateKind", "StoreContext", "StoreSpec", "StoreTable"]

STORES: dict[str, StoreSpec] = {
    spec.name: spec
    for spec in (claudespec.SPEC, sqlspec.SPEC, memory_md.SPEC, graph_jsonl.SPEC, gemini_md.SPEC)
}
