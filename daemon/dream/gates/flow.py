"""What the validate gates of the two text stores share: item checks, the run's flow, trash.

The sectioned ``MEMORY.md`` gate (``mdgate``) and the knowledge-graph gate
(``graph``) judge collected items by the rules the folder and SQL gates use
(``gates.rules``, issue 4 item 8, seed 002 hand-off). Near-duplicates are
decided by each gate against its own store, by ``rules.near_duplicate``.

``run_gate`` is the flow both gates follow; each gate hands it only its
format's decisions (a ``StorePlan``)::

    nothing to gate, or a symbolic link   -> nothing read, nothing written
    read (under the store's lock), decide -> a dry run reports and stops
    a file changed since it was read      -> flagged, nothing written
    trash records, then ledger, main file and holding file (the plan's ``commit``)

Items are judged by ``gates.rules`` (``rejection``, ``near_duplicate``);
``ledger_additions`` is pure; the rest are I/O edges that go through the journaling ``Executor``
(so ``dreamd undo`` puts every byte back) and never delete: a gated record
leaves the holding file only after it was copied into the ledger (accepted,
merged) or the trash (rejected).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from dreamd.dream.execute import CrashPoint, Executor
from dreamd.dream.folder.repoview import RepoView
from dreamd.fs import read_if_present
from dreamd.stores import dumps_ascii
from dreamd.stores.memory_md import decode

__all__ = [
    "Decision",
    "Held",
    "StoreFiles",
    "StorePlan",
    "StoreRun",
    "TrashFile",
    "Verdict",
    "append_to",
    "executor_for",
    "ledger_additions",
    "linked",
    "read_text",
    "run_gate",
    "scan_views",
    "trash_block",
]

#: A gate's decision on one held record.
Verdict = Literal["accept", "merge", "reject"]
_VERBS: dict[Verdict, str] = {"accept": "accepted", "merge": "merged", "reject": "rejected"}


@dataclass(frozen=True, slots=True)
class StoreRun:
    """What one store's gate and dream did (``changes``) and found (``flags``), as report lines."""

    changes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return [*self.changes, *self.flags]


class Held(Protocol):
    """A record of a holding file (a ``MEMORY.md`` record, a pending graph line)."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The record's operation keys (its own and those it updates)."""
        ...


_H = TypeVar("_H", bound=Held)


@dataclass(frozen=True, slots=True)
class Decision(Generic[_H]):
    """What a gate decided for one held record, and why (``target``: the entity or section)."""

    held: _H
    verdict: Verdict
    reason: str
    target: str | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        return self.held.keys

    def line(self, where: str, went: str) -> str:
        """The decision as one report line: ``where`` names the record, ``went`` where it went.

        A rejected record went nowhere: its line does not say ``went``.
        """
        if self.verdict == "reject":
            return f"{_VERBS[self.verdict]} {where}: {self.reason}"
        return f"{_VERBS[self.verdict]} {where} {went}: {self.reason}"


def ledger_additions(decisions: Iterable[Decision[_H]], known: Iterable[str]) -> list[Decision[_H]]:
    """The decisions whose records the ledger gains: accepted or merged, and not yet in it.

    ``known``: the keys the ledger already lists (a run cut off after
    writing it leaves them there; the rerun adds nothing twice).
    """
    seen = set(known)
    return [d for d in decisions if d.verdict != "reject" and not set(d.keys) & seen]


def scan_views(projects: Iterable[str | Path | None]) -> dict[str, RepoView]:
    """A repository view per project folder that exists (scanned once each)."""
    views: dict[str, RepoView] = {}
    for project in projects:
        if project is not None and str(project) not in views and Path(project).is_dir():
            views[str(project)] = RepoView.scan(Path(project))
    return views


def linked(paths: Iterable[Path]) -> Path | None:
    """The first of ``paths`` that is a symbolic link (the gate never writes through one)."""
    return next((path for path in paths if path.is_symlink()), None)


def executor_for(folder: Path, run_dir: Path, label: str, now: datetime) -> Executor:
    """The journaling executor of one store's folder, under ``<run_dir>/<label>-<slug>``."""
    slug = "".join(c if c.isalnum() else "-" for c in str(folder)).strip("-")[-100:] or "root"
    return Executor(folder, run_dir / f"{label}-{slug}", now.date(), CrashPoint())


def append_to(executor: Executor, path: Path, header: bytes, addition: bytes) -> None:
    """``path`` gains ``addition`` at its end (created with ``header``), journaled."""
    if not addition:
        return
    old = read_if_present(path) or header
    if old and not old.endswith(b"\n"):
        old += b"\n"
    executor.write(path, old + addition)


# --- the run's flow ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoreFiles:
    """The files of one text store the gate reads and writes, and its journal's ``label``."""

    label: str
    folder: Path
    main: Path
    holding: Path
    ledger: Path


@dataclass(frozen=True, slots=True)
class TrashFile:
    """Records appended to one file of the day's trash folder (created with ``header``)."""

    name: str
    records: bytes
    header: bytes = b""


class StorePlan(Protocol):
    """One store's gate and dream decided under its lock: the format's part of ``run_gate``."""

    @property
    def changes(self) -> list[str]:
        """One report line per decision and per removal (none: nothing to write)."""
        ...

    @property
    def flags(self) -> list[str]: ...

    def conflict(self) -> str | None:
        """Why nothing may be written after all (a file changed since it was read), or None."""
        ...

    def trash(self, run_id: str) -> Sequence[TrashFile]:
        """The records of what leaves the store (rejected, removed), in the order written."""
        ...

    def commit(self, executor: Executor) -> str | None:
        """Write ledger, main file and holding file; a flag when it stopped part way, or None."""
        ...


def _refusal(files: StoreFiles) -> StoreRun | None:
    """The run's whole answer when it must not read the store: nothing there, or a link."""
    if not files.main.exists() and not files.holding.exists():
        return StoreRun()
    link = linked((files.main, files.holding, files.ledger))
    if link is not None:
        return StoreRun(flags=[f"{link} is a symbolic link: left as it is (point the store at it)"])
    return None


def run_gate(
    files: StoreFiles,
    *,
    locked: Callable[[], AbstractContextManager[object]],
    projects: Callable[[], Iterable[str | None]],
    plan: Callable[[Mapping[str, RepoView], RepoView | None], StorePlan],
    repo: Path | None,
    run_dir: Path,
    now: datetime,
    dry_run: bool,
) -> StoreRun:
    """One text store's gate and dream, in the order the module's docstring draws.

    ``projects`` (called before the lock) names the held items' project
    folders, scanned once each with ``repo``; ``plan`` reads the store under
    ``locked`` and decides, given those views and ``repo``'s.
    """
    refused = _refusal(files)
    if refused is not None:
        return refused
    views = scan_views([*projects(), repo])
    with locked():
        decided = plan(views, views.get(str(repo)) if repo is not None else None)
        if dry_run:
            return StoreRun([f"would {line}" for line in decided.changes], decided.flags)
        if not decided.changes:
            return StoreRun(flags=decided.flags)
        conflict = decided.conflict()
        if conflict is not None:
            return StoreRun(flags=[conflict])
        executor = executor_for(files.folder, run_dir, files.label, now)
        trash = decided.trash(run_dir.name)
        if any(file.records for file in trash):
            folder = executor.trash_dir()
            for file in trash:
                append_to(executor, folder / file.name, file.header, file.records)
        stopped = decided.commit(executor)
        if stopped is not None:
            return StoreRun(flags=[stopped])
    return StoreRun(decided.changes, decided.flags)


def trash_block(run_id: str, reason: str, text: str) -> str:
    """A gated record as the trash file keeps it: a note naming the run and why, then the text."""
    note = dumps_ascii({"run": run_id, "reason": reason})
    return f"\n<!-- dreamd:trash {note} -->\n{text if text.endswith(chr(10)) else text + chr(10)}"


def read_text(path: Path) -> str | None:
    """A text store's file as the store decodes it (None when it does not exist)."""
    data = read_if_present(path)
    return None if data is None else decode(data)
