"""The cycle collector paused while a pass makes objects that hold no cycles.

A transcript read makes hundreds of thousands of short-lived, acyclic
objects; a collect over 10,000 waiting sessions loads their metadata and
decides on each (named tuples, datetimes and decisions, none of them
cyclic). Every full collection the allocations trigger walks all of them and
the imported code besides, for nothing (about 30 % of reading a large
transcript). Whatever is cyclic is collected once the block ends.

Work that may run long and may make cyclic garbage (a collect's extraction
and planting) instead freezes what is alive before it (``objects_frozen``):
the collections it triggers skip those objects but still collect its own.

And a command that ends skips the interpreter's last collection
(``no_final_collection``): it walks every object alive (the imported code,
ten thousand sessions, SQLAlchemy's tables) only to free them with the process.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "no_final_collection", "objects_frozen"]


def collector_paused() -> _Paused:
    """The cycle collector off inside the block (left off if it was off already)."""
    return _Paused()


class _Paused:
    """``collector_paused``'s block: a class, not a generator, since a scan enters one
    per session read (a generator's block cost 0.9 µs to enter and leave, this 0.25)."""

    __slots__ = ("_enabled",)

    def __enter__(self) -> None:
        self._enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *_exc: object) -> None:
        if self._enabled:
            gc.enable()


#: How many ``objects_frozen`` blocks are open: only the outermost one unfreezes.
_frozen_depth = 0


@contextmanager
def objects_frozen() -> Iterator[None]:
    """Every object alive now left out of the collections triggered inside the block.

    Once a collect has scanned and selected, the heap holds ten thousand
    sessions' metadata and decisions; every full collection the extraction and
    the planting trigger would walk them all again, a cost that grows with the
    backlog, not with the work. Frozen, they are skipped: the cyclic garbage
    the block makes is still collected (unlike ``collector_paused``, fit for
    work that may run long), and the frozen objects are collected as usual
    once the outermost block ends.
    """
    global _frozen_depth
    if _frozen_depth == 0:
        gc.freeze()
    _frozen_depth += 1
    try:
        yield
    finally:
        _frozen_depth -= 1
        if _frozen_depth == 0:
            gc.unfreeze()


def no_final_collection() -> None:
    """Freeze every object once the exit handlers start, so that the collection the
    interpreter runs after them, just before it ends, walks none of them.

    Nothing is lost: every other exit handler (logging's flush and close, temporary
    files' clean-up) still runs, and freezing frees nothing they need; the standard
    streams are flushed by the interpreter itself; files, locks and
    database connections are closed or committed by the code that opened them, and
    whatever the process still holds the system releases. A command spent up to a
    sixth of its time in that collection (0.14 s of a collect at a 10,000 backlog).
    """
    atexit.register(gc.freeze)
