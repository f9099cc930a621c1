"""Memory store adapters (one module per store) and the contract they meet.

The public surface: the item model (``MemoryItem``, ``Quote``, ``Receipt``),
the adapter contract (``Store``, ``Capabilities``, ``HeldItem``), the item
codec other packages serialise items with, and the one-file stores' table.
The registry of every store is ``dreamd.stores.registry``.

Each name is imported from its module when first asked for (PEP 562): every
command reads the configuration, which imports the registry's light specs
from this package, and none of them needs the item model to do so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreamd.lazymap import lazy_names

if TYPE_CHECKING:
    from ._codec import dumps_ascii, item_from_json, item_to_json
    from ._item import ITEM_TYPES, ItemType, MemoryItem, Quote, Receipt
    from ._keyindex import ItemVersion, KeyIndex, MemoryKeyIndex
    from ._protocol import (
        Capabilities,
        HeldItem,
        KnownMemory,
        Planning,
        ProjectMemories,
        Store,
        project_memories,
    )
    from ._yaml import safe_yaml
    from .filespec import FileStoreTable, located

#: Where each public name lives.
_HOMES: dict[str, str] = {
    **dict.fromkeys(("dumps_ascii", "item_from_json", "item_to_json"), "._codec"),
    **dict.fromkeys(("ITEM_TYPES", "ItemType", "MemoryItem", "Quote", "Receipt"), "._item"),
    **dict.fromkeys(("ItemVersion", "KeyIndex", "MemoryKeyIndex"), "._keyindex"),
    **dict.fromkeys(
        (
            "Capabilities",
            "HeldItem",
            "KnownMemory",
            "Planning",
            "ProjectMemories",
            "Store",
            "project_memories",
        ),
        "._protocol",
    ),
    "safe_yaml": "._yaml",
    **dict.fromkeys(("FileStoreTable", "located"), ".filespec"),
}

__all__ = [
    "ITEM_TYPES",
    "Capabilities",
    "FileStoreTable",
    "HeldItem",
    "ItemType",
    "ItemVersion",
    "KeyIndex",
    "KnownMemory",
    "MemoryItem",
    "MemoryKeyIndex",
    "Planning",
    "ProjectMemories",
    "Quote",
    "Receipt",
    "Store",
    "dumps_ascii",
    "item_from_json",
    "item_to_json",
    "located",
    "project_memories",
    "safe_yaml",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
