"""Which repository a working directory belongs to, found the way Claude Code finds it.

Claude Code keys project state (its auto memory) by the *canonical* git root
of the session's working directory, so that subfolders and linked worktrees
of one repository share one memory (Claude Code's ``memdir/paths.ts``,
``getAutoMemBase`` → ``utils/git.ts`` ``findCanonicalGitRoot``;
anthropics/claude-code#24382). The rules, one function each:

- ``find_git_root``: the nearest folder, from the directory up, holding a
  ``.git`` entry (a folder, or a linked worktree's ``.git`` file). The path
  is the lexical one (``abspath``), not resolved through symbolic links.
- ``canonical_git_root``: for a linked worktree, the main worktree. Its
  ``.git`` file says ``gitdir: <main>/.git/worktrees/<name>``; that folder's
  ``commondir`` names the main ``.git``, and its ``gitdir`` file must point
  back at this worktree's ``.git`` (else a planted ``.git`` file could borrow
  another repository's identity, and the worktree stands for itself). A
  worktree of a bare repository is keyed by the bare repository itself.
  Anything unreadable leaves the worktree's own root.

Only files are read: the ``.git`` file, ``commondir`` and ``gitdir`` hold all
``git rev-parse --git-common-dir`` would tell, and reading them costs no
process per session. Answers are kept for ``CACHE_SECONDS`` per directory
(``RootCache``), so a collect run asks the file system once per project.
"""

from __future__ import annotations

import os
import stat
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

__all__ = ["CACHE_SECONDS", "RootCache", "canonical_git_root", "find_git_root", "holds_git"]

#: How long a directory's answer is reused (one run; a repository rarely moves under it).
CACHE_SECONDS = 300.0
#: The prefix of a linked worktree's ``.git`` file.
GITDIR_PREFIX = "gitdir:"
#: A ``.git`` file larger than this is no worktree pointer.
MAX_POINTER_BYTES = 64 * 1024


def _nfc(path: Path | str) -> Path:
    return Path(unicodedata.normalize("NFC", str(path)))


def _lexical_text(path: Path | str) -> str:
    """``path`` made absolute with ``.`` and ``..`` folded, links left as they are (a
    string: no path object per folder of every project asked about)."""
    return os.path.abspath(path)  # the working directory joined, then ``normpath``


def holds_git(folder: Path | str) -> bool:
    """Whether ``folder`` holds a ``.git`` folder or file (links followed): one ``stat``,
    where asking ``is_dir`` then ``is_file`` costs two for the usual answer, no."""
    try:
        mode = os.stat(os.path.join(folder, ".git")).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


def find_git_root(start: Path, *, holds: Callable[[str], bool] = holds_git) -> Path | None:
    """The nearest folder from ``start`` up holding a ``.git`` folder or file; None outside git.

    ``holds`` answers for one folder, given as a string (``holds_git``; a caller asking
    about many projects under common parents passes one that remembers).
    """
    folder = _lexical_text(start)
    while True:  # the folder, then each parent up to the root (``Path.parents``, as strings)
        if holds(folder):
            return _nfc(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _read_small(path: Path) -> str:
    """A small text file, stripped; ``OSError`` when it is missing, a folder or too large."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_POINTER_BYTES + 1)
    if len(data) > MAX_POINTER_BYTES:
        raise OSError(f"{path} is too large to be a pointer")
    return data.decode("utf-8", errors="replace").strip()


def _main_worktree(root: Path) -> Path:
    """The main worktree of the linked worktree at ``root`` (``root`` itself when it is none)."""
    try:
        pointer = _read_small(root / ".git")
    except OSError:  # a ``.git`` folder: the main worktree itself
        return root
    if not pointer.startswith(GITDIR_PREFIX):
        return root
    try:
        worktree_dir = (root / pointer[len(GITDIR_PREFIX) :].strip()).resolve()
        common_dir = (worktree_dir / _read_small(worktree_dir / "commondir")).resolve()
        if worktree_dir.parent != common_dir / "worktrees":
            return root
        backlink = Path(_read_small(worktree_dir / "gitdir")).resolve()
        if backlink != root.resolve() / ".git":
            return root
    except OSError:
        return root
    if common_dir.name != ".git":  # a worktree of a bare repository
        return _nfc(common_dir)
    return _nfc(common_dir.parent)


def canonical_git_root(
    start: Path, *, root: Callable[[Path], Path | None] = find_git_root
) -> Path | None:
    """The repository root Claude Code keys ``start``'s project state by; None outside git.

    ``root`` finds the worktree's own root (``find_git_root``, or a cache of it)."""
    found = root(start)
    return None if found is None else _main_worktree(found)


class RootCache:
    """``canonical_git_root`` (or another lookup) remembered per directory for a while."""

    def __init__(
        self,
        lookup: Callable[[Path], Path | None] = canonical_git_root,
        *,
        seconds: float = CACHE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lookup = lookup
        self._seconds = seconds
        self._clock = clock
        self._known: dict[str, tuple[float, Path | None]] = {}

    def __call__(self, directory: Path) -> Path | None:
        """The lookup's answer for ``directory``, asked again once it is older than the limit."""
        key = _lexical_text(directory)
        now = self._clock()
        known = self._known.get(key)
        if known is not None and now - known[0] < self._seconds:
            return known[1]
        answer = self._lookup(Path(key))
        self._known[key] = (now, answer)
        return answer
