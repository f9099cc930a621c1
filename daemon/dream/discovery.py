"""Which memory folders a dream visits, and which repository each one is checked against.

Seed 000 STEP 1 looks in three places: ``.claude/projects/*/memory/``,
``.claude/agent-memory/*/`` and ``.claude/memory/``. dreamd looks there
under the user's Claude Code directory and under every project directory
the transcripts name, plus configured roots.

The memory folder Claude Code uses for each project the transcripts name
(``stores.claude_folder``: the main worktree's folder, or the one its
settings name) is visited too, paired with that repository (issue 11).

Pairing (issue 3): a folder inside ``<repo>/.claude/`` is checked against
that repo. A ``~/.claude/projects/<encoded>/memory/`` folder is checked
against the working directory its own transcripts record — the encoded
folder name is lossy and is never decoded. Anything else has no repository:
every reference in it is unverifiable, so nothing in it goes stale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FolderTarget", "discover_folders", "is_repository", "repo_for_encoded"]

INDEX = "MEMORY.md"


@dataclass(frozen=True, slots=True)
class FolderTarget:
    """A memory folder to dream over and the repository its references live in."""

    path: Path
    repo: Path | None


def is_repository(path: Path, home: Path) -> bool:
    """Whether ``path`` may be scanned as a repository (issue 15, item 3).

    A session whose ``cwd`` is ``/`` or the home directory would make the whole
    file system (or every project at once) the repository; a path that is not
    a directory (gone, a file, 5,000 characters long) is none either.
    """
    try:
        if not path.is_absolute():
            return False
        resolved = path.resolve()
        if resolved == Path(resolved.anchor) or resolved == home.resolve():
            return False
        return resolved.is_dir()
    except (OSError, RuntimeError, ValueError):
        return False


def _is_memory_folder(path: Path) -> bool:
    """A folder with an index, with Markdown memories, or with collected items waiting."""
    try:
        if not path.is_dir():
            return False
        if (path / INDEX).exists() or (path / INDEX).is_symlink():
            return True
        if any(child.suffix == ".md" for child in path.iterdir()):
            return True
        inbox = path / ".inbox"
        return inbox.is_dir() and any(child.suffix == ".md" for child in inbox.iterdir())
    except OSError:  # unreadable: not ours to judge here; an explicit --root still reports
        return False


def _candidates(claude: Path) -> list[Path]:
    """The seed's three memory locations under one ``.claude`` directory."""
    found: list[Path] = []
    for pattern in ("projects/*/memory", "agent-memory/*"):
        found.extend(sorted(claude.glob(pattern)))
    found.append(claude / "memory")
    return [path for path in found if _is_memory_folder(path)]


def repo_for_encoded(
    encoded_folder: Path, session_projects: Mapping[Path, Sequence[str]]
) -> Path | None:
    """The project directory the transcripts in ``encoded_folder`` record (most common).

    ``session_projects`` maps a transcript folder to the ``project`` of each
    session found in it. Ties go to the lexically first path, so the pairing
    is stable.
    """
    projects = [p for p in session_projects.get(encoded_folder, ()) if p]
    if not projects:
        return None
    project, _count = min(Counter(projects).items(), key=lambda item: (-item[1], item[0]))
    return Path(project)


def discover_folders(
    claude: Path,
    projects: Iterable[str],
    session_projects: Mapping[Path, Sequence[str]],
    extra_roots: Iterable[Path] = (),
    only: Sequence[Path] = (),
    *,
    located: Mapping[Path, Path] = {},
) -> list[FolderTarget]:
    """Every memory folder to visit, each paired with its repository.

    ``located`` maps the memory folders Claude Code uses for known projects to
    their repositories; ``only`` (``--root``, repeatable) restricts the run to
    those folders.
    """
    targets: dict[Path, FolderTarget] = {}
    for folder, root in sorted(located.items()):
        if _is_memory_folder(folder):
            targets.setdefault(folder.resolve(), FolderTarget(folder, root))
    for folder in _candidates(claude):
        repo = None
        if folder.name == "memory" and folder.parent.parent == claude / "projects":
            repo = repo_for_encoded(folder.parent, session_projects)
        targets.setdefault(folder.resolve(), FolderTarget(folder, repo))
    for project in sorted(set(projects)):
        repo = Path(project)
        for folder in _candidates(repo / ".claude"):
            targets.setdefault(folder.resolve(), FolderTarget(folder, repo))
    for root in extra_roots:
        if _is_memory_folder(root):
            targets.setdefault(root.resolve(), FolderTarget(root, _enclosing_repo(root)))
    if only:
        wanted = {path.resolve() for path in only}
        chosen = [t for key, t in targets.items() if key in wanted]
        known = {key for key in targets if key in wanted}
        chosen += [FolderTarget(p, _enclosing_repo(p)) for p in only if p.resolve() not in known]
        return sorted(chosen, key=lambda t: str(t.path))
    return sorted(targets.values(), key=lambda t: str(t.path))


def _enclosing_repo(folder: Path) -> Path | None:
    """For ``<repo>/.claude/...`` folders, the repo; otherwise unknown."""
    for parent in folder.resolve().parents:
        if parent.name == ".claude":
            return parent.parent
    return None
