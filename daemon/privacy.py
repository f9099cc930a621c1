"""Projects the user asked dreamd never to collect from (issue 11 item 3, privacy controls).

Two controls, each one function, and ``ProjectExclusion`` asking both:

- ``collect.exclude_projects``: glob patterns of project paths (``~/``
  read against the user's home). ``*`` matches any characters, ``/``
  included; a pattern that matches a folder excludes every project inside
  it (``pattern_match``).
- ``.dreamd-ignore``: a file of that name in the session's project folder,
  or in any folder above it up to its repository's root (the worktree's, and
  the main worktree's for a linked one), excludes the project; outside git
  only the project folder itself counts (``ignore_file``). Its content is
  not read.

Selection lists an excluded session as ``excluded`` with the reason and
never takes it, so nothing of it is extracted, planned, planted, reported
or logged. The answer for each project is remembered for the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path, PurePath

from dreamd.agentdirs import expand_home
from dreamd.gitroot import RootCache, canonical_git_root, find_git_root, holds_git

__all__ = ["IGNORE_FILE", "ProjectExclusion", "ignore_file", "pattern_match"]

#: The file that keeps a project out of every collection.
IGNORE_FILE = ".dreamd-ignore"


def pattern_match(project: str, patterns: Sequence[str], home: Path) -> str | None:
    """The first pattern (as written) matching ``project`` or a folder above it, or None."""
    if not patterns:  # the default: no project's folders need listing
        return None
    path = PurePath(project)
    candidates = [str(path), *(str(parent) for parent in path.parents)]
    for pattern in patterns:
        expanded = str(expand_home(pattern, home)).rstrip("/") or "/"
        if any(fnmatchcase(candidate, expanded) for candidate in candidates):
            return pattern
    return None


def _folders_up_to(start: Path, top: Path | None) -> list[Path]:
    """``start`` and the folders above it up to ``top`` (only ``start`` without a top)."""
    folders = [start]
    for parent in start.parents if top is not None else ():
        if parent != top and top not in parent.parents:
            break
        folders.append(parent)
    return folders


def ignore_file(
    project: Path,
    *,
    root: Callable[[Path], Path | None] = find_git_root,
    main: Callable[[Path], Path | None] = canonical_git_root,
) -> Path | None:
    """The ``.dreamd-ignore`` that keeps ``project`` out, or None.

    Looked for in the project folder and each folder above it up to the
    repository root (``root``), then in the main worktree's root (``main``).
    """
    folders = _folders_up_to(project, root(project))
    canonical = main(project)
    if canonical is not None and canonical not in folders:
        folders.append(canonical)
    return next((f / IGNORE_FILE for f in folders if (f / IGNORE_FILE).is_file()), None)


class ProjectExclusion:
    """Why a project is excluded (None: it is not), from the patterns and the ignore files."""

    def __init__(self, patterns: Sequence[str], home: Path) -> None:
        self.patterns = tuple(patterns)
        self.home = home
        # Projects share parent folders: each folder is asked for ``.git`` once per run.
        self._holds: dict[str, bool] = {}
        self._roots = RootCache(partial(find_git_root, holds=self._holds_git))
        self._mains = RootCache(partial(canonical_git_root, root=self._roots))
        self._known: dict[str, str | None] = {}

    def _holds_git(self, folder: str) -> bool:
        held = self._holds.get(folder)
        if held is None:
            held = self._holds[folder] = holds_git(folder)
        return held

    def __call__(self, project: str) -> str | None:
        """The reason ``project`` is excluded, in words, or None."""
        if project not in self._known:
            self._known[project] = self._reason(project)
        return self._known[project]

    def _reason(self, project: str) -> str | None:
        pattern = pattern_match(project, self.patterns, self.home)
        if pattern is not None:
            return f"excluded: collect.exclude_projects matches {pattern!r}"
        found = ignore_file(Path(project), root=self._roots, main=self._mains)
        return None if found is None else f"excluded: {found} says so"
