"""Read-only layers: the always-loaded instruction files a dream never touches (seed 001). Pure.

Seed 001 Phase 0 step 3 lists each layer of a memory hierarchy with its role
and marks the world's rules (``AGENTS.md``, ``CLAUDE.md``) as never to be
updated; Gemini CLI's ``GEMINI.md`` is the same kind of file. Such a file
lying in a memory folder is not a memory: it is never judged, trashed,
rewritten, committed, nor linked into ``MEMORY.md`` as an entry (issue 12,
item 11).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import PurePosixPath

__all__ = ["READ_ONLY_LAYERS", "is_read_only"]

#: Seed 001 Phase 0 step 3: layers a dream never modifies (the world's rules).
READ_ONLY_LAYERS = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
#: The default layers are plain names (no ``/``, no wildcard): a bare file name matches one
#: exactly when its case-folded form is one of these (the dream asks once per file and line).
_LAYER_NAMES = frozenset(name.casefold() for name in READ_ONLY_LAYERS)


def is_read_only(relative: str, extra: Iterable[str] = ()) -> bool:
    """Seed 001 Phase 0 step 3: whether a root-relative path is a read-only layer.

    A pattern without ``/`` matches a file name anywhere (``CLAUDE.md``); one
    with ``/`` matches the whole relative path (``notes/policy/*.md``). Case is
    ignored, so ``claude.md`` is protected too.
    """
    extra = tuple(extra)
    if not extra and "/" not in relative and os.sep not in relative:
        return relative.casefold() in _LAYER_NAMES
    path = PurePosixPath(relative.replace(os.sep, "/"))
    for pattern in (*READ_ONLY_LAYERS, *extra):
        subject = str(path) if "/" in pattern else path.name
        if fnmatch.fnmatchcase(subject.casefold(), pattern.casefold()):
            return True
    return False
