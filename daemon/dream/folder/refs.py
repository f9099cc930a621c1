"""Seed 000 STEP 2a/2b: the references of a memory, and whether they exist.

``check_refs`` extracts a memory's file references
(``dreamd.dream.folder.pathrefs``) and symbol references
(``dreamd.dream.folder.symbolrefs``) and verifies them against a
``RepoView`` (``dreamd.dream.folder.repoview``), the repository listed once.
Pure: the view is the I/O edge.

Bias, on purpose: a reference that is invented or wrongly judged missing
makes a memory look stale, and stale memories get trashed. So extraction
prefers to miss a reference, and anything the view cannot vouch for (outside
the repository, under a folder it did not scan, past its size caps) is
UNVERIFIABLE, never missing.
"""

from __future__ import annotations

from dreamd.dream.folder.pathrefs import extract_file_refs, scope
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.symbolrefs import extract_symbol_refs
from dreamd.dream.model import MemoryFile, RefCheck

__all__ = ["check_refs", "memory_text"]


def memory_text(memory: MemoryFile) -> str:
    """The text references are read from: the description, then the body.

    The seed reads the body and "quoted paths in front matter descriptions";
    the title is a label and is not read.
    """
    return f"{memory.description or ''}\n{memory.body}"


def check_refs(memory: MemoryFile, repo: RepoView | None) -> RefCheck:
    """Extract a memory's references and verify them against ``repo`` (seed 000 STEP 2a, 2b).

    File references: UNVERIFIABLE by ``scope``, else present or missing by
    ``RepoView.has_file``. Symbols: present or missing by
    ``RepoView.has_symbol``. With no repository every reference, symbols
    included, is unverifiable; an absent file or symbol whose scan was cut
    short by a cap is unverifiable too.
    """
    text = memory_text(memory)
    files = extract_file_refs(text)
    symbols = extract_symbol_refs(text)
    if repo is None:
        return RefCheck(unverifiable=files + symbols)
    present: list[str] = []
    missing: list[str] = []
    unverifiable: list[str] = []
    for ref in files:
        if scope(ref, repo.top_level_dirs) == "UNVERIFIABLE":
            unverifiable.append(ref)
        elif repo.has_file(ref):
            present.append(ref)
        else:
            (missing if repo.files_complete else unverifiable).append(ref)
    found = [s for s in symbols if repo.has_symbol(s)]
    absent = [s for s in symbols if s not in found]
    if not repo.symbols_complete:
        unverifiable.extend(absent)
        absent = []
    return RefCheck(
        present=tuple(present),
        missing=tuple(missing),
        unverifiable=tuple(unverifiable),
        symbols_present=tuple(found),
        symbols_missing=tuple(absent),
    )
