"""Memory store adapters (one module per store) and the contract they meet.

The public surface: the item model (``MemoryItem``, ``Quote``, ``Receipt``),
the adapter contract (``Store``, ``Capabilities``, ``HeldItem``), the item
codec other packages serialise items with, and the one-file stores' table.
The registry of every store is ``dreamd.stores.registry``.
"""

from ._codec import dumps_ascii, item_from_json, item_to_json
from ._heldfile import FileStoreTable, located
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
