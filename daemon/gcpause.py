"""The cycle collector paused while a pass makes objects that hold no cycles.

A transcript read makes hundreds of thousands of short-lived, acyclic
objects; a collect over 10,000 waiting sessions loads their metadata and
decides on each (named tuples, datetimes and decisions, none of them
cyclic). Every full collection the allocations trigger walks all of them and
the imported code besides, for nothing (about 30 % of reading a large
transcript). Whatever is cyclic is collected once the block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off inside the block (left off if it was off already)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
