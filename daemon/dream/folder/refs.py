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

import re

from dreamd.dream.folder.facts import Kind, remembered
from dreamd.dream.folder.pathrefs import extract_file_refs, scope
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.symbolrefs import extract_symbol_refs
from dreamd.dream.model import MemoryFile, RefCheck

__all__ = ["check_refs", "memory_text", "tied_symbols"]


def memory_text(memory: MemoryFile) -> str:
    """The text references are read from: the description, then the body.

    The seed reads the body and "quoted paths in front matter descriptions";
    the title is a label and is not read.
    """
    return f"{memory.description or ''}\n{memory.body}"


def _qualified(line: str, symbol: str, repo: RepoView) -> bool:
    """``module.symbol`` / ``module::symbol`` whose first part is a module of this repo."""
    pattern = rf"\b([A-Za-z_]\w*)(?:\.|::)(?:\w+(?:\.|::))*{re.escape(symbol)}\b"
    return any(repo.has_module(match[1]) for match in re.finditer(pattern, line))


def _repo_path_on(line: str, repo: RepoView) -> bool:
    """Whether a line cites a path of this repository (one under its folders, or a file in it)."""
    return any(
        repo.has_file(ref) or ("/" in ref and scope(ref, repo.top_level_dirs) == "REPO_RELATIVE")
        for ref in extract_file_refs(line)
    )


def tied_symbols(text: str, symbols: list[str], repo: RepoView) -> set[str]:
    """Symbols a memory ties to this repository (issue 12, item 3).

    A symbol is tied when a line naming it also cites a path of this repository
    (```parse_legacy()`` in ``src/old_loader.py```), or when it is qualified by a
    module of it (``loader.parse_legacy``). Only a tied symbol, or one the
    repository's history once held, can be missing: a bare name the repository
    never contained (a framework's method) is unverifiable.
    """
    if not symbols:
        return set()
    tied: set[str] = set()
    for line in text.split("\n"):
        named = [s for s in symbols if s in line and s not in tied]
        if not named:
            continue
        if _repo_path_on(line, repo):
            tied.update(s for s in named if re.search(rf"\b{re.escape(s)}\b", line))
        else:
            tied.update(s for s in named if _qualified(line, s, repo))
    return tied


#: The file and symbol references of a memory's text, kept between dreams (``facts``).
REFERENCES: Kind[tuple[tuple[str, ...], tuple[str, ...]]] = Kind(
    "references",
    lambda refs: [list(refs[0]), list(refs[1])],
    lambda kept: (tuple(kept[0]), tuple(kept[1])),
)


def references(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The file references and the symbols a memory's text cites (``extract_file_refs``,
    ``extract_symbol_refs``), from the last dream when the text is the same."""
    return remembered(
        REFERENCES, text, lambda: (extract_file_refs(text), extract_symbol_refs(text))
    )


def check_refs(memory: MemoryFile, repo: RepoView | None) -> RefCheck:
    """Extract a memory's references and verify them against ``repo`` (seed 000 STEP 2a, 2b).

    File references: UNVERIFIABLE by ``scope``, else present or missing by
    ``RepoView.has_file``. Symbols: present by ``RepoView.has_symbol``; an
    absent one is missing only when the memory ties it to this repository
    (``tied_symbols``) or the history held it once (``RepoView.ever_had``),
    else unverifiable. With no repository every reference, symbols included,
    is unverifiable; an absent file or symbol whose scan was cut short by a
    cap is unverifiable too.
    """
    text = memory_text(memory)
    files, symbols = references(text)
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
    tied = tied_symbols(text, absent, repo)
    gone = [s for s in absent if s in tied or repo.ever_had(s) is True]
    unverifiable.extend(s for s in absent if s not in gone)
    absent = gone
    return RefCheck(
        present=tuple(present),
        missing=tuple(missing),
        unverifiable=tuple(unverifiable),
        symbols_present=tuple(found),
        symbols_missing=tuple(absent),
    )
