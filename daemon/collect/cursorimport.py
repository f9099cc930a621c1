"""``dreamd cursor import``: a checked document replaces this host's cursor, the old one kept.

In order: the document is checked (``cursorcheck.check_document``); a cursor
naming another host is refused unless adopted (``force``: its sidecar then
names this host); the cursor it replaces is written to
``<data dir>/cursor-backups/<host>-<UTC time>.json`` (0600, in a 0700 folder;
the newest ``KEEP_BACKUPS`` are kept); then it is saved over the version read,
so a collector that changed the cursor meanwhile makes the import fail.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from dreamd.collect.cursorcheck import changes, check_document
from dreamd.collect.cursordoc import V2, document_host, import_cursor
from dreamd.errors import DreamdError
from dreamd.fswrite import atomic_write
from dreamd.statedb import StateDB

__all__ = ["BACKUPS", "KEEP_BACKUPS", "ImportOutcome", "OtherHost", "replace_cursor"]

#: The folder of the data dir the replaced cursors go to, and how many are kept.
BACKUPS = "cursor-backups"
KEEP_BACKUPS = 20


class OtherHost(DreamdError):
    """The document is another host's cursor and adopting it was not asked for."""


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What the import did: the change in words, where the old cursor went, whose it was."""

    lines: list[str] = field(default_factory=list)
    backup: Path | None = None
    adopted_from: str | None = None


def replace_cursor(
    state: StateDB,
    machine: str,
    document: Any,
    *,
    data_dir: Path,
    now: datetime,
    force: bool = False,
) -> ImportOutcome:
    """Check ``document`` and make it ``machine``'s cursor; raises ``CursorDocumentError``
    (bad document), ``OtherHost`` (another host's, without ``force``) or ``Refused``."""
    check_document(document)
    named = document_host(document)
    foreign = named is not None and named != machine
    if foreign and not force:
        raise OtherHost(
            f"this is the cursor of host {named!r}, not {machine!r}: nothing imported "
            f"(--force adopts it as {machine!r}'s cursor)"
        )
    if foreign:
        document = adopt(document, machine)
    version, current = state.load_cursor(machine)
    backup = _backup(data_dir, machine, current, now) if version else None
    state.save_cursor(machine, document, expected=version, now=now)
    lines = changes(import_cursor(current, machine), import_cursor(document, machine))
    return ImportOutcome(lines, backup, named if foreign else None)


def adopt(document: dict[str, Any], machine: str) -> dict[str, Any]:
    """Another host's cursor as ``machine``'s: its sidecar names ``machine``; all else kept."""
    adopted = copy.deepcopy(document)
    sidecar = adopted.get(V2)
    if not isinstance(sidecar, dict):
        sidecar = adopted[V2] = {"sources": {}}
    sidecar["host"] = machine
    return adopted


def _backup(data_dir: Path, machine: str, current: dict[str, Any], now: datetime) -> Path:
    """The replaced cursor in the backups folder (private); older backups pruned."""
    folder = data_dir / BACKUPS
    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    path = folder / f"{machine}-{stamp}.json"
    atomic_write(path, msgspec.json.format(msgspec.json.encode(current)) + b"\n")
    for old in sorted(folder.glob(f"{machine}-*.json"))[:-KEEP_BACKUPS]:
        old.unlink(missing_ok=True)
    return path
