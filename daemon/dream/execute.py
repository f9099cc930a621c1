"""The only code that changes memory folders: trash moves, atomic writes, undo.

Every change is written to the run's journal (and fsynced) *before* it is
made, and every file about to be overwritten is first copied into the run's
backup folder in dreamd's state dir. That gives the three guarantees the
dream promises:

- nothing is deleted: a memory leaves its folder only by ``rename`` into
  ``.trash/<YYYY-MM-DD>/`` inside the same folder;
- a crash at any instant leaves each memory in place or in the trash, and
  each index either old or new (``rename`` of a fully written, fsynced temp
  file is atomic);
- ``undo`` can put back every byte, and refuses, naming the files, when
  something changed since the run.

No path outside the memory folder is ever written: every target is checked
to resolve inside it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePath
from typing import Any

import msgspec

from dreamd import fs, fswrite
from dreamd.errors import Refused, UnsafePath
from dreamd.fs import digest, sha256_of
from dreamd.fswrite import CrashPoint, append_private, atomic_write, private_folder

__all__ = [
    "CrashPoint",
    "Executor",
    "atomic_write",
    "inside",
    "journal_folder",
    "sha256_of",
    "touched_paths",
    "undo_conflicts",
    "undo_run",
]

JOURNAL = "journal.jsonl"
FOLDER = "folder"
BACKUPS = "backup"
TRASH = ".trash"
#: Largest file the executor reads back before replacing it (a memory file is far smaller).
MAX_FILE_BYTES = 64 * 2**20


def inside(folder: Path, path: Path) -> PurePath:
    """Where ``path`` lies relative to ``folder``; ``Refused`` when it is not inside.

    Decided on the names (``..`` never counts; for a folder reached through a
    link, on the resolved folder too); a symbolic link among the folders on
    the way is refused here, and the components are opened later without
    following links all the same.
    """
    for root, target in ((folder, path), (folder.resolve(), path.parent.resolve() / path.name)):
        with contextlib.suppress(ValueError):
            relative = target.relative_to(root)
            if relative.parts and ".." not in relative.parts:
                _no_links_on_the_way(folder, relative, path)
                return relative
    raise UnsafePath(f"refusing to write {path}: outside the memory folder {folder}")


def _no_links_on_the_way(folder: Path, relative: PurePath, path: Path) -> None:
    current = folder
    for part in relative.parts[:-1]:
        current = current / part
        if current.is_symlink():
            raise UnsafePath(f"refusing to write {path}: {current} is a symbolic link")


@dataclass
class Executor:
    """Performs one run's changes in one memory folder, journaling each first.

    Every file is reached from the folder's own descriptor with ``O_NOFOLLOW``
    on each component (``dreamd.fs``): a symbolic link on the way, ``.trash``
    and ``.trash/<date>`` included, is refused and nothing moves.
    """

    folder: Path
    run_dir: Path
    today: date
    crash: CrashPoint

    def __post_init__(self) -> None:
        private_folder(self.run_dir)
        self._journal = self.run_dir / JOURNAL
        if not (self.run_dir / FOLDER).exists():  # which folder this journal is about (undo)
            atomic_write(self.run_dir / FOLDER, os.fsencode(self.folder))

    def _record(self, entry: dict[str, Any]) -> None:
        self.crash.tick()
        with os.fdopen(append_private(self._journal), "ab") as handle:
            handle.write(msgspec.json.encode(entry) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())

    @contextmanager
    def _parent(self, path: Path) -> Iterator[tuple[int, str]]:
        """The descriptor of ``path``'s folder and its name in it (links refused)."""
        relative = inside(self.folder, path)
        with fs.open_within(self.folder, relative.parent, create=False) as parent:
            if parent is None:
                raise Refused(f"cannot write {path}: its folder is gone")
            yield parent, relative.name

    def trash(self, path: Path) -> Path:
        """Move one memory file into today's trash; returns where it went."""
        with self._parent(path) as (source, name):
            data = fs.read_file(source, name, max_bytes=MAX_FILE_BYTES)
            if data is None:
                raise UnsafePath(f"refusing to trash {path}: not a regular file of the folder")
            with self._trash_folder() as bin_:
                target = _free_name(bin_, name)
                destination = self.folder / TRASH / self.today.isoformat() / target
                src = str(self.folder / inside(self.folder, path))
                entry = {"op": "move", "src": src, "dst": str(destination), "sha256": digest(data)}
                self._record(entry)
                fswrite.move(source, name, bin_, target)
        return destination

    def trash_dir(self) -> Path:
        """Today's trash folder, ``.trash/<YYYY-MM-DD>/``, created (journaled) if missing."""
        with self._trash_folder():
            return self.folder / TRASH / self.today.isoformat()

    @contextmanager
    def _trash_folder(self) -> Iterator[int]:
        day = self.today.isoformat()
        with (
            fs.open_folder(self.folder, create=False) as root,
            self._subfolder(root, TRASH, self.folder / TRASH) as trash_root,
            self._subfolder(trash_root, day, self.folder / TRASH / day) as bin_,
        ):
            yield bin_

    @contextmanager
    def _subfolder(self, parent: int, name: str, path: Path) -> Iterator[int]:
        if not fs.exists(parent, name):
            self._record({"op": "mkdir", "path": str(path)})
        with fs.open_subfolder(parent, name, create=True) as folder:
            assert folder is not None  # created above
            yield folder

    def write(self, path: Path, content: bytes) -> bool:
        """Replace (or create) one file atomically, backing up the old bytes first.

        Returns False, writing nothing, when the file already holds ``content``.
        """
        with self._parent(path) as (parent, name):
            old_mtime: int | None = None
            if fs.exists(parent, name):
                old = fs.read_file(parent, name, max_bytes=MAX_FILE_BYTES)
                if old is None:
                    raise UnsafePath(f"refusing to write {path}: not a regular file")
                old_mtime = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mtime_ns
            else:
                old = None
            if old == content:
                return False
            backup = None
            if old is not None:
                backup = self.run_dir / BACKUPS / secrets.token_hex(8)
                atomic_write(backup, old)
            self._record(
                {
                    "op": "write",
                    "path": str(self.folder / inside(self.folder, path)),
                    "backup": str(backup) if backup else None,
                    "old_sha256": digest(old) if old is not None else None,
                    "old_mtime_ns": old_mtime,
                    "new_sha256": digest(content),
                }
            )
            fswrite.write_file(parent, name, content)
        return True


def _free_name(folder: int, name: str) -> str:
    """``name``, or ``stem.N.md`` when a file of that name is already in the trash."""
    if not fs.exists(folder, name):
        return name
    stem, dot, suffix = name.rpartition(".")
    stem, suffix = (stem, f".{suffix}") if dot else (name, "")
    for number in range(1, 10_000):
        candidate = f"{stem}.{number}{suffix}"
        if not fs.exists(folder, candidate):
            return candidate
    raise Refused(f"too many files named {name} in the trash")


def journal_entries(run_dir: Path) -> Iterator[dict[str, Any]]:
    """The journal of a run, in order; a torn last line (crash mid-append) is ignored."""
    try:
        data = (run_dir / JOURNAL).read_bytes()
    except FileNotFoundError:
        return
    for line in data.splitlines():
        try:
            entry = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(entry, dict):
            yield entry


@dataclass(frozen=True, slots=True)
class _Step:
    """One reversal: what to do, and the conflict that forbids it (if any)."""

    action: str  # "unmove", "restore", "remove-created", "rmdir", "none"
    entry: dict[str, Any]
    conflict: str | None = None


def _linked_on_the_way(folder: Path | None, *paths: Path) -> str | None:
    """Issue 15 item 5: a link planted since the run (``.trash`` made a symlink) is never
    followed by an undo, not even to read: the reversal is refused, naming it."""
    if folder is None:
        return None
    for path in paths:
        try:
            inside(folder, path)
        except UnsafePath as error:
            return str(error).replace("refusing to write", "refusing to undo through")
    return None


def _plan_move(entry: dict[str, Any], folder: Path | None = None) -> _Step:
    src, dst, digest = Path(entry["src"]), Path(entry["dst"]), entry.get("sha256")
    linked = _linked_on_the_way(folder, src, dst)
    if linked is not None:
        return _Step("none", entry, linked)
    at_dst = sha256_of(dst)
    if at_dst is None:
        if sha256_of(src) == digest:
            return _Step("none", entry)  # the run stopped before this move
        return _Step("none", entry, f"{dst} is no longer in the trash")
    if at_dst != digest:
        return _Step("none", entry, f"{dst} changed in the trash since the run")
    if src.exists():
        return _Step("none", entry, f"{src} exists again")
    return _Step("unmove", entry)


def _plan_write(entry: dict[str, Any], folder: Path | None = None) -> _Step:
    path = Path(entry["path"])
    linked = _linked_on_the_way(folder, path)
    if linked is not None:
        return _Step("none", entry, linked)
    current = sha256_of(path)
    if current == entry.get("old_sha256"):
        return _Step("none", entry)  # the run stopped before this write
    if current != entry["new_sha256"]:
        return _Step("none", entry, f"{path} changed since the run")
    return _Step("restore" if entry.get("backup") else "remove-created", entry)


def plan_undo(run_dir: Path) -> list[_Step]:
    """Reversal steps for a run, newest change first."""
    steps: list[_Step] = []
    folder = journal_folder(run_dir)
    for entry in journal_entries(run_dir):
        op = entry.get("op")
        if op == "move":
            steps.append(_plan_move(entry, folder))
        elif op == "write":
            steps.append(_plan_write(entry, folder))
        elif op == "mkdir":
            steps.append(_Step("rmdir", entry))
    return list(reversed(steps))


def undo_conflicts(run_dir: Path) -> list[str]:
    """Why the run cannot be undone now (empty when it can)."""
    if (run_dir / "undone").exists():
        return [f"run {run_dir.name} was already undone"]
    return [step.conflict for step in plan_undo(run_dir) if step.conflict]


def undo_run(run_dir: Path) -> list[str]:
    """Put back everything the run moved or rewrote; returns the paths restored.

    Refuses (``Refused``, naming the files, changing nothing) when anything
    the run touched changed since. Files the run created are moved into the
    run's folder in the state dir, not deleted, so the memory folder comes
    back byte for byte and nothing is lost.
    """
    if (run_dir / "undone").exists():
        raise Refused(f"run {run_dir.name} was already undone")
    steps = plan_undo(run_dir)
    conflicts = [step.conflict for step in steps if step.conflict]
    if conflicts:
        raise Refused("cannot undo: " + "; ".join(conflicts))
    restored: list[str] = []
    for step in steps:
        restored.extend(_reverse(step, run_dir))
    atomic_write(run_dir / "undone", b"")
    return restored


def _mode_of(path: Path) -> int:
    """The permission bits a restored file keeps (its current ones, else 0644)."""
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return 0o644


def touched_paths(run_dir: Path) -> list[Path]:
    """Every path a run's journal moved from, moved to or wrote (what an undo changes back)."""
    paths: list[Path] = []
    for entry in journal_entries(run_dir):
        for key in ("src", "dst", "path"):
            if entry.get("op") in ("move", "write") and isinstance(entry.get(key), str):
                paths.append(Path(entry[key]))
    return list(dict.fromkeys(paths))


def journal_folder(run_dir: Path) -> Path | None:
    """The memory folder a run's journal is about (None for a journal without one)."""
    try:
        return Path(os.fsdecode((run_dir / FOLDER).read_bytes()))
    except OSError:
        return None


def _reverse(step: _Step, run_dir: Path) -> list[str]:
    entry = step.entry
    if step.action == "unmove":
        Path(entry["dst"]).rename(entry["src"])
        return [entry["src"]]
    if step.action == "restore":
        path = Path(entry["path"])
        atomic_write(path, Path(entry["backup"]).read_bytes(), mode=_mode_of(path))
        mtime = entry.get("old_mtime_ns")
        if isinstance(mtime, int):  # seed 004 compares MEMORY.md's mtime: put it back too
            os.utime(path, ns=(mtime, mtime), follow_symlinks=False)
        return [str(path)]
    if step.action == "remove-created":
        path = Path(entry["path"])
        keep = run_dir / "created" / secrets.token_hex(4) / path.name
        private_folder(keep.parent)
        path.replace(keep)
        return [str(path)]
    if step.action == "rmdir":
        with contextlib.suppress(OSError):  # only a folder this run created, only if empty
            Path(entry["path"]).rmdir()
    return []
