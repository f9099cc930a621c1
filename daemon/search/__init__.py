"""The read path: search every configured memory store, list recent memories, get one.

``engine`` opens the stores and ranks; one adapter per store kind hands over
memories (``folders``: Claude Code memory folders, accepted files and
``.inbox/`` items; ``sqlrows``: the SQL store through its own full-text index;
``textfiles``: a sectioned ``MEMORY.md`` and a knowledge-graph JSONL);
``query`` is the one query language they all answer; ``bm25`` the one score;
``command`` the ``dreamd search`` command. Nothing here writes a store.
"""

from dreamd.search.engine import ReadPath, get_memory, open_read_path, recent, search
from dreamd.search.model import Filter, Hit, Memory, Outcome, StoreFailure

__all__ = [
    "Filter",
    "Hit",
    "Memory",
    "Outcome",
    "ReadPath",
    "StoreFailure",
    "get_memory",
    "open_read_path",
    "recent",
    "search",
]
