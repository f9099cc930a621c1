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
import hashlib
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from dreamd.errors import Refused

__all__ = [
    "CrashPoint",
    "Executor",
    "atomic_write",
    "inside",
    "sha256_of",
    "undo_conflicts",
    "undo_run",
]

JOURNAL = "journal.jsonl"
BACKUPS = "backup"


class CrashPoint:
    """Fault injection for crash tests: ``DREAMD_TEST_CRASH_AT=<n>`` kills the
    process (SIGKILL) just before the n-th journaled change. Unset in real use."""

    def __init__(self) -> None:
        value = os.environ.get("DREAMD_TEST_CRASH_AT", "")
        self.at = int(value) if value.isdigit() else None
        self.count = 0

    def tick(self) -> None:
        self.count += 1
        if self.at is not None and self.count == self.at:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)


def sha256_of(path: Path) -> str | None:
    """Hex SHA-256 of a file's bytes, or None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def inside(folder: Path, path: Path) -> Path:
    """``path`` resolved, if it lies inside ``folder``; raises ``Refused`` otherwise."""
    root = folder.resolve()
    target = path.parent.resolve() / path.name
    if target != root and root not in target.parents:
        raise Refused(f"refusing to write {path}: outside the memory folder {folder}")
    return target


def _fsync_dir(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def atomic_write(path: Path, content: bytes) -> None:
    """Write ``content`` to a temp file beside ``path``, fsync it, rename it over ``path``."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "xb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        temp.replace(path)
    finally:
        if temp.exists():
            temp.unlink()
    _fsync_dir(path.parent)


@dataclass
class Executor:
    """Performs one run's changes in one memory folder, journaling each first."""

    folder: Path
    run_dir: Path
    today: date
    crash: CrashPoint

    def __post_init__(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._journal = self.run_dir / JOURNAL

    def _record(self, entry: dict[str, Any]) -> None:
        self.crash.tick()
        with open(self._journal, "ab") as handle:
            handle.write(msgspec.json.encode(entry) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())

    def trash(self, path: Path) -> Path:
        """Move one memory file into today's trash; returns where it went."""
        source = inside(self.folder, path)
        bin_ = self.trash_dir()
        target = _free_name(bin_ / source.name)
        digest = sha256_of(source)
        self._record({"op": "move", "src": str(source), "dst": str(target), "sha256": digest})
        source.rename(target)
        _fsync_dir(bin_)
        _fsync_dir(source.parent)
        return target

    def trash_dir(self) -> Path:
        """Today's trash folder, ``.trash/<YYYY-MM-DD>/``, created (journaled) if missing."""
        trash_root = inside(self.folder, self.folder / ".trash")
        bin_ = trash_root / self.today.isoformat()
        for directory in (trash_root, bin_):
            if not directory.exists():
                self._record({"op": "mkdir", "path": str(directory)})
                directory.mkdir()
        return bin_

    def write(self, path: Path, content: bytes) -> bool:
        """Replace (or create) one file atomically, backing up the old bytes first.

        Returns False, writing nothing, when the file already holds ``content``.
        """
        target = inside(self.folder, path)
        old = target.read_bytes() if target.exists() else None
        if old == content:
            return False
        backup = None
        if old is not None:
            backup = self.run_dir / BACKUPS / secrets.token_hex(8)
            backup.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(backup, old)
        self._record(
            {
                "op": "write",
                "path": str(target),
                "backup": str(backup) if backup else None,
                "old_sha256": hashlib.sha256(old).hexdigest() if old is not None else None,
                "new_sha256": hashlib.sha256(content).hexdigest(),
            }
        )
        atomic_write(target, content)
        return True


def _free_name(path: Path) -> Path:
    """``path``, or ``stem.N.md`` when a file of that name is already in the trash."""
    if not path.exists():
        return path
    for number in range(1, 10_000):
        candidate = path.with_name(f"{path.stem}.{number}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise Refused(f"too many files named {path.name} in {path.parent}")


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


def _plan_move(entry: dict[str, Any]) -> _Step:
    src, dst, digest = Path(entry["src"]), Path(entry["dst"]), entry.get("sha256")
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


def _plan_write(entry: dict[str, Any]) -> _Step:
    path = Path(entry["path"])
    current = sha256_of(path)
    if current == entry.get("old_sha256"):
        return _Step("none", entry)  # the run stopped before this write
    if current != entry["new_sha256"]:
        return _Step("none", entry, f"{path} changed since the run")
    return _Step("restore" if entry.get("backup") else "remove-created", entry)


def plan_undo(run_dir: Path) -> list[_Step]:
    """Reversal steps for a run, newest change first."""
    steps: list[_Step] = []
    for entry in journal_entries(run_dir):
        op = entry.get("op")
        if op == "move":
            steps.append(_plan_move(entry))
        elif op == "write":
            steps.append(_plan_write(entry))
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


def _reverse(step: _Step, run_dir: Path) -> list[str]:
    entry = step.entry
    if step.action == "unmove":
        Path(entry["dst"]).rename(entry["src"])
        return [entry["src"]]
    if step.action == "restore":
        path = Path(entry["path"])
        atomic_write(path, Path(entry["backup"]).read_bytes())
        return [str(path)]
    if step.action == "remove-created":
        path = Path(entry["path"])
        keep = run_dir / "created" / secrets.token_hex(4) / path.name
        keep.parent.mkdir(parents=True, exist_ok=True)
        path.replace(keep)
        return [str(path)]
    if step.action == "rmdir":
        with contextlib.suppress(OSError):  # only a folder this run created, only if empty
            Path(entry["path"]).rmdir()
    return []
