"""What one collector pass planted, item by item, for the collection report (issue 11 item 4).

Every confirmed store write of a window becomes one ``PlantedItem``: the
item's title and kind, the store it went to and where in it (the file, or
the row), the session it came from, and whether it was new or an update of
an item still waiting for the validate gate. ``planted_item`` is pure;
the collector calls it with each operation and the receipt the store
confirmed.

``file`` is the file the item now waits in, where the store keeps items in
files: a memory folder's ``.inbox/<name>.md`` (``FOLDER_KINDS``), or the
holding file beside a one-file store's file (``HOLDING_KINDS``); a row of
the SQL store has none (its ``location`` is the row).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamd.stores import MemoryItem, Receipt

__all__ = ["FOLDER_KINDS", "HOLDING_KINDS", "PlantedItem", "planted_item"]

#: Store kinds (a receipt's ``<kind>:<target>``) whose target is a folder of item files.
FOLDER_KINDS = frozenset({"claude-memory"})
#: Store kinds whose target is one file, with new items held in a file beside it.
HOLDING_KINDS = frozenset({"memory-md", "graph", "gemini"})


@dataclass(frozen=True, slots=True)
class PlantedItem:
    """One item a pass planted or updated, and where it now waits.

    ``store`` is the configured store name (``claude-memory``, ``sql`` …);
    ``target`` the store instance (its folder, file or database, as the
    store names itself without its kind); ``location`` the file inside it
    (``.inbox/feedback_x.md``) or the row (``memory_item/12``), or a record
    of a one-file store (``MEMORY.inbox.md#…``).
    """

    title: str
    type: str
    category: str
    store: str
    target: str
    location: str
    file: str | None
    session: str  # tool:session_id
    action: str  # "planted" or "updated"

    def as_json(self) -> dict[str, Any]:
        """The report's ``planted_items`` entry."""
        return {
            "title": self.title,
            "type": self.type,
            "category": self.category,
            "store": self.store,
            "target": self.target,
            "location": self.location,
            "file": self.file,
            "session": self.session,
            "action": self.action,
        }


def planted_item(store: str, item: MemoryItem, receipt: Receipt, *, updated: bool) -> PlantedItem:
    """The report's entry for ``item``, confirmed by ``receipt`` in the store named ``store``."""
    kind, _, target = receipt.store.partition(":")
    _, tool, _machine, session = item.source.split(":", 3)
    file: Path | None = None
    if kind in FOLDER_KINDS:
        file = Path(target) / receipt.location
    elif kind in HOLDING_KINDS:
        file = Path(target).parent / receipt.location.partition("#")[0]
    return PlantedItem(
        title=item.name,
        type=item.type,
        category=item.category,
        store=store,
        target=target or receipt.store,
        location=receipt.location,
        file=None if file is None else str(file),
        session=f"{tool}:{session}",
        action="updated" if updated else "planted",
    )
