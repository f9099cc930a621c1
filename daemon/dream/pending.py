"""Pending proposals on disk (seed 004): written by ``--dry-run``, consumed by ``--apply-pending``.

One proposal per memory folder lives in ``<data dir>/pending/<folder slug>.md``
(the format ``proposal.render_proposal`` defines: the complete new
``MEMORY.md`` in one fence, then one ``### Topic-file change:`` section per
other file), with a JSON sidecar that carries everything the apply writes
besides ``MEMORY.md`` (issue 12, item 1): the archive and every rewritten
topic file byte for byte, the trash moves and the validate gate's decisions,
and the snapshot of the folder the proposal was made from (every ``*.md``
file's SHA-256) so that an apply refuses, naming the file, when the folder
changed underneath (item 2).
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from dreamd.dream import proposal
from dreamd.dream.gates.decision import GateDecision
from dreamd.dream.model import ARCHIVE_NAME, INDEX_NAME, Decision
from dreamd.dream.pendingdir import pending_dir, sidecars
from dreamd.fs import digest, sha256_of
from dreamd.fswrite import atomic_write, private_folder

__all__ = [
    "SIDECAR_VERSION",
    "PendingFile",
    "PendingWrite",
    "apply_command",
    "folder_slug",
    "folder_snapshot",
    "index_mtime",
    "load_pending",
    "pending_files",
    "snapshot_changes",
    "write_pending",
]

#: Sidecars this version writes; an older one lacks what an apply needs (item 1).
SIDECAR_VERSION = 2


def folder_slug(path: Path) -> str:
    """A file name for a folder's proposal: readable tail plus a hash of the full path."""
    full = str(path.resolve())
    hashed = hashlib.sha256(full.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    tail = "".join(c if c.isalnum() else "-" for c in path.resolve().as_posix()[-60:]).strip("-")
    return f"{tail}-{hashed}"


def folder_snapshot(folder: Path, read: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every ``*.md`` file directly in ``folder`` → its SHA-256 (links never followed).

    Hidden files (``.MEMORY.md.prev``) are left out: they are dreamd's own.
    ``read``: file name → SHA-256 of the bytes the proposal was made from, for
    the files the run already read; those are not read a second time, and one
    changed since that read counts as changed after the dry run, as it is.
    """
    known = read or {}
    snapshot: dict[str, str] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.endswith(".md") and not name.startswith("."):
                snapshot[name] = known.get(name) or _file_sha(folder / name)
    return dict(sorted(snapshot.items()))


def _file_sha(path: Path) -> str:
    """A snapshot's entry for one file read now: its SHA-256, or why there is none."""
    try:
        found = sha256_of(path)
    except OSError:
        return "unreadable"
    return found or "absent"


def snapshot_changes(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """What changed between two snapshots, one phrase per file (issue 12, item 2)."""
    changed = []
    for name in sorted(set(before) | set(now)):
        if name not in before:
            changed.append(f"{name} was created after the dry run")
        elif name not in now:
            changed.append(f"{name} was removed after the dry run")
        elif before[name] != now[name]:
            changed.append(f"{name} changed after the dry run")
    return changed


@dataclass(frozen=True, slots=True)
class PendingWrite:
    """A file the apply writes besides ``MEMORY.md``: its bytes and what it held before."""

    name: str
    old_sha256: str | None
    content: bytes
    why: str


@dataclass(frozen=True, slots=True)
class PendingFile:
    """A stored proposal: its text (None if the .md is missing) and its sidecar."""

    path: Path
    folder: Path
    text: str | None
    trash: tuple[tuple[str, str], ...]  # (file name, sha256 at dry-run time)
    version: int = 1
    reason: str = ""
    moves: int = 0
    run_id: str = ""
    head: str | None = None
    snapshot: Mapping[str, str] = field(default_factory=dict)
    writes: tuple[PendingWrite, ...] = ()
    gate: tuple[GateDecision, ...] = ()
    inbox: Mapping[str, str] = field(default_factory=dict)
    #: The dry run's decision for each file it would trash (type, classification, reason,
    #: the survivor of a duplicate), so the applying run reports them as its own.
    decisions: tuple[Decision, ...] = ()

    @property
    def archive(self) -> PendingWrite | None:
        """The new ``MEMORY-ARCHIVE.md``, when the apply writes one."""
        return next((w for w in self.writes if w.name == ARCHIVE_NAME), None)

    @property
    def rewrites(self) -> tuple[PendingWrite, ...]:
        """Topic files the apply rewrites (relative dates made absolute)."""
        return tuple(w for w in self.writes if w.name not in (ARCHIVE_NAME, INDEX_NAME))

    def remove(self) -> None:
        """Delete the proposal after a successful apply (dreamd's own state, not a memory)."""
        self.path.unlink(missing_ok=True)
        self.path.with_suffix(".json").unlink(missing_ok=True)


def _b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode("ascii") if data is not None else None


def _gate_json(decision: GateDecision) -> dict[str, Any]:
    return {
        "item": decision.item,
        "path": str(decision.path),
        "item_sha256": sha256_of(decision.path),
        "verdict": decision.verdict,
        "reason": decision.reason,
        "target": decision.target,
        "content": _b64(decision.content),
        "expected_sha256": decision.expected_sha256,
    }


def _write_json(write: PendingWrite) -> dict[str, Any]:
    return {
        "name": write.name,
        "old_sha256": write.old_sha256,
        "sha256": digest(write.content),
        "content": _b64(write.content),
        "why": write.why,
    }


def _display(content: bytes) -> str:
    """A file's text for the human reading a proposal: indented, never a fence or a hunk."""
    lines = content.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    shown = ("\\" + line if proposal.looks_structural(line) else line for line in lines)
    return "\n".join("    " + line for line in shown)


def _topic_changes(
    trash: Sequence[tuple[str, str, str]],
    writes: Sequence[PendingWrite],
    gate: Sequence[GateDecision],
    now: datetime,
) -> list[proposal.TopicChange]:
    day = now.date().isoformat()
    changes = [
        proposal.TopicChange(f".inbox/{d.item}", f"Collected item: {d.line()}.") for d in gate
    ]
    changes += [
        proposal.TopicChange(name, f"Move {name} to .trash/{day}/: {reason}.")
        for name, _digest, reason in trash
    ]
    changes += [
        proposal.TopicChange(
            w.name,
            f"{w.why}. The apply writes these {len(w.content):,} bytes from the proposal's "
            f"sidecar (shown indented; edits here are not applied):\n\n{_display(w.content)}",
        )
        for w in writes
    ]
    return changes


def write_pending(
    state_dir: Path,
    folder: Path,
    *,
    new_index: str,
    old_index: str | None,
    trash: list[tuple[str, str, str]],  # (file name, sha256, reason)
    run_id: str,
    now: datetime,
    writes: Sequence[PendingWrite] = (),
    gate: Sequence[GateDecision] = (),
    reason: str = "dry run",
    head: str | None = None,
    moves: int = 0,
    decisions: Sequence[Decision] = (),
    read: Mapping[str, str] | None = None,
) -> Path:
    """Write (atomically) one folder's proposal and sidecar; returns the proposal path.

    ``read``: the SHA-256 of the topic files as the run read them (``folder_snapshot``).
    """
    text = proposal.render_proposal(
        new_index,
        _topic_changes(trash, writes, gate, now),
        generated_at=now.astimezone(UTC),
        source_session=run_id,
        lines_before=len((old_index or "").splitlines()),
        lines_after=len(new_index.splitlines()),
    )
    directory = pending_dir(state_dir)
    private_folder(directory)
    target = directory / f"{folder_slug(folder)}.md"
    sidecar: dict[str, Any] = {
        "version": SIDECAR_VERSION,
        "folder": str(folder.resolve()),
        "run_id": run_id,
        "reason": reason,
        "moves": moves,
        "head": head,
        "snapshot": folder_snapshot(folder, read),
        "trash": [[name, sha, why] for name, sha, why in trash],
        "writes": [_write_json(w) for w in writes],
        "gate": [_gate_json(d) for d in gate],
        "decisions": [msgspec.to_builtins(d) for d in decisions],
    }
    atomic_write(target.with_suffix(".json"), msgspec.json.encode(sidecar))
    atomic_write(target, text.encode())
    return target


def apply_command(folder: str) -> str:
    """The command that applies a folder's pending proposal after review."""
    return f"dreamd dream --apply-pending --root {folder}"


def pending_files(state_dir: Path) -> list[PendingFile]:
    """Every stored proposal (a sidecar without its proposal counts: it reads as missing)."""
    return [_load_or_damaged(sidecar) for sidecar in sidecars(state_dir)]


def _load_or_damaged(sidecar: Path) -> PendingFile:
    """A stored proposal; a damaged sidecar reads as one (version 0) that is never applied."""
    try:
        return load_pending(sidecar.with_suffix(".md"))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as error:
        reason = f"damaged sidecar {sidecar.name}: {error}"
        return PendingFile(sidecar.with_suffix(".md"), Path("?"), None, (), 0, reason)


def _decoded(value: object) -> bytes | None:
    return base64.b64decode(value) if isinstance(value, str) else None


def _writes(raw: Iterable[dict[str, Any]]) -> tuple[PendingWrite, ...]:
    writes = []
    for item in raw:
        content = _decoded(item.get("content")) or b""
        if digest(content) != item.get("sha256"):
            raise ValueError(f"the sidecar's bytes for {item.get('name')} are damaged")
        writes.append(
            PendingWrite(str(item["name"]), item.get("old_sha256"), content, str(item["why"]))
        )
    return tuple(writes)


def _gate(raw: Iterable[dict[str, Any]]) -> tuple[tuple[GateDecision, ...], dict[str, str]]:
    decisions, inbox = [], {}
    for item in raw:
        decisions.append(
            GateDecision(
                item=str(item["item"]),
                path=Path(item["path"]),
                verdict=item["verdict"],
                reason=str(item["reason"]),
                target=item.get("target"),
                content=_decoded(item.get("content")),
                expected_sha256=item.get("expected_sha256"),
            )
        )
        inbox[str(item["item"])] = str(item.get("item_sha256"))
    return tuple(decisions), inbox


def load_pending(path: Path) -> PendingFile:
    """One stored proposal with its sidecar (``ValueError`` for a damaged sidecar)."""
    raw = msgspec.json.decode(path.with_suffix(".json").read_bytes())
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    trash = tuple((str(entry[0]), str(entry[1])) for entry in raw.get("trash", []))
    gate, inbox = _gate(raw.get("gate", []))
    return PendingFile(
        path=path,
        folder=Path(raw["folder"]),
        text=text,
        trash=trash,
        version=int(raw.get("version", 1)),
        reason=str(raw.get("reason", "dry run")),
        moves=int(raw.get("moves", 0)),
        run_id=str(raw.get("run_id", "")),
        head=raw.get("head"),
        snapshot=raw.get("snapshot", {}),
        writes=_writes(raw.get("writes", [])),
        gate=gate,
        inbox=inbox,
        decisions=tuple(msgspec.convert(d, Decision) for d in raw.get("decisions", [])),
    )


def index_mtime(folder: Path) -> datetime | None:
    """When ``MEMORY.md`` was last modified (None when there is none)."""
    try:
        return datetime.fromtimestamp((folder / INDEX_NAME).stat().st_mtime, tz=UTC)
    except FileNotFoundError:
        return None
