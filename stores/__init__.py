"""Memory store adapters (one module per store) and the contract they meet."""

from ._item import ITEM_TYPES, ItemType, MemoryItem, Quote, Receipt
from ._protocol import Capabilities, HeldItem, Store

__all__ = [
    "ITEM_TYPES",
    "Capabilities",
    "HeldItem",
    "ItemType",
    "MemoryItem",
    "Quote",
    "Receipt",
    "Store",
]
