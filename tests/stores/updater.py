"""Plant ``sample_item(0)``, then update it, in a child process that may die mid-update.

``python -m tests.stores.updater KIND TARGET KILL_AT``

The item is written under ``PLANTED`` (a no-op when already there), then the
pending item is updated to ``restated(sample_item(0))`` under ``UPDATE``, the
way the collector replays a plan: ``find`` first, else ``update`` against the
receipt ``items_from`` gives. Only the update runs under the profile hook:
``KILL_AT > 0`` SIGKILLs the process just before its KILL_AT-th state-changing
I/O call inside it; ``KILL_AT = 0`` runs to the end and prints the number of
such calls and the update's receipt location.
"""

from __future__ import annotations

import dataclasses
import sys

from dreamd.stores import MemoryItem
from tests.stores.factories import open_store, sample_item
from tests.stores.writer import _Killer

PLANTED, UPDATE = "window-0:store:op-0", "window-1:store:update-0"


def restated(item: MemoryItem) -> MemoryItem:
    """``item`` as a later window would leave it: one more quote, the body extended."""
    extra = dataclasses.replace(item.quotes[0], message_id=item.quotes[0].message_id + "0")
    return dataclasses.replace(item, body=item.body + " Still true.", quotes=(*item.quotes, extra))


def main(argv: list[str]) -> int:
    kind, target, kill_at = argv[0], argv[1], int(argv[2])
    store = open_store(kind, target)
    store.write(PLANTED, sample_item(0))
    killer = _Killer(kill_at)
    sys.setprofile(killer)
    receipt = store.find(UPDATE)
    if receipt is None:
        (held,) = [h for h in store.items_from(sample_item(0).source) if h.pending]
        receipt = store.update(UPDATE, held.receipt, restated(sample_item(0)))
    sys.setprofile(None)
    if receipt is None or not store.verify(receipt, UPDATE):
        raise SystemExit("the update did not verify")
    print(killer.calls, receipt.location)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
