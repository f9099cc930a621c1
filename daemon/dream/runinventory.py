"""Seed 001 Phase 0's inventory gate, recorded for each folder a run changes (issue 12, 13).

Before anything changes, the run writes ``inventory.md`` beside its journal
(``<data dir>/runs/<run>/<folder>/``): the memory root's absolute path, the
``HEAD`` the run starts from, the table of layers (each file with its role,
target or excluded) and the notes list (``notes/*.md`` under the root, as
``find notes -type f -name '*.md' | sort`` gives it). No change is made
without it (the seed's physical gate). At the end the read-only layers are
checked unchanged: their bytes, and ``git diff --name-only <HEAD>..HEAD``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dreamd.dream import gitmode
from dreamd.dream.folder.inventory import ARCHIVE_NAME, INDEX_NAME
from dreamd.dream.folder.layers import is_read_only
from dreamd.dream.model import GitFacts, MemoryFolder
from dreamd.fs import sha256_of
from dreamd.fswrite import atomic_write

__all__ = ["INVENTORY", "layer_rows", "layers_changed", "read_only_bytes", "record_inventory"]

INVENTORY = "inventory.md"


def layer_rows(folder: MemoryFolder, names: list[str]) -> list[tuple[str, str, str]]:
    """(file, role, in this dream) for every ``*.md`` file of the folder (seed 001 step 3)."""
    excluded = dict(folder.excluded)
    rows = []
    for name in names:
        if name == INDEX_NAME:
            rows.append((name, "index, loaded at every session start", "target"))
        elif name == ARCHIVE_NAME:
            rows.append((name, "archive of index lines, read on demand", "target"))
        elif is_read_only(name):
            rows.append((name, "always-loaded instructions (world rules)", "excluded: read-only"))
        elif name in excluded:
            rows.append((name, "link", f"excluded: {excluded[name]}"))
        else:
            rows.append((name, "topic file, recalled when relevant", "target"))
    return rows


def _notes(root: Path) -> list[str]:
    notes = root / "notes"
    if not notes.is_dir() or notes.is_symlink():
        return []
    return sorted(p.relative_to(root).as_posix() for p in notes.rglob("*.md") if p.is_file())


def record_inventory(run_dir: Path, folder: MemoryFolder, git: GitFacts | None) -> Path:
    """Write the run's inventory for one folder before any change (seed 001 Phase 0 step 4)."""
    names = sorted(p.name for p in folder.path.iterdir() if p.name.endswith(".md"))
    root = git.root if git is not None else folder.path
    lines = [
        "# Memory dream inventory (every file, before any change)",
        "",
        f"- memory root: {root.resolve()}",
        f"- memory folder: {folder.path.resolve()}",
        f"- HEAD at start: {git.head if git is not None and git.head else 'not a git work tree'}",
        "",
        "| layer | role | in this dream |",
        "|---|---|---|",
        *(f"| {name} | {role} | {use} |" for name, role, use in layer_rows(folder, names)),
        "",
        "## Notes",
        "",
        *(f"- {note}" for note in _notes(root) or ["(no notes/ folder)"]),
    ]
    target = run_dir / INVENTORY
    atomic_write(target, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    return target


def read_only_bytes(folder: Path) -> dict[str, str | None]:
    """Each read-only layer directly in ``folder`` → its SHA-256 (before and after a run)."""
    return {p.name: sha256_of(p) for p in sorted(folder.iterdir()) if is_read_only(p.name)}


def layers_changed(
    before: Mapping[str, str | None], folder: Path, git: GitFacts | None
) -> list[str]:
    """Seed 001 checklist: read-only layers a run changed (must be none)."""
    after = read_only_bytes(folder)
    changed = [
        name for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)
    ]
    if git is not None and git.head:
        changed += gitmode.read_only_changes(git.root, git.head)
    return sorted(set(changed))
