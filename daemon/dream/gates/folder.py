"""The validate gate: what the collector planted in ``.inbox/`` enters the folder or the trash.

Seed 002 hands every new item to "the gardener's validate gate (phase 1)";
issue 4 item 8 names its tests: an item is *accepted* when its provenance is
present and traceable, it is secret-free, well formed and its references are
verifiable (``dreamd.dream.gates.inbox``); a near-duplicate of an existing
memory is *merged* into it, its sources and quotes kept
(``dreamd.dream.gates.merge``); anything else is *rejected* to the trash with
a reason. The dream report lists all three.

``gate_decisions`` is pure (inbox bytes and parsed memories in, decisions
out); ``load_inbox`` and ``apply_gate`` are the I/O edges. Every change goes
through the journaling ``Executor``, so a gate run can be undone byte for
byte and nothing is ever deleted: an inbox file leaves ``.inbox/`` only by a
move into ``.trash/<date>/``.

Invariants:

- an accepted item's bytes are written unchanged under a name no file has
  (``<type>_<slug>.md``, then ``-2``, ``-3`` …): nothing is overwritten;
- a merge never loses what the existing memory holds (see
  ``dreamd.dream.gates.merge``), and is applied only to the bytes it was
  decided on;
- inbox items are decided in order; a later item that duplicates one
  accepted earlier in the same run is merged into it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from dreamd.dream.execute import Executor, sha256_of
from dreamd.dream.folder.inventory import is_topic_file_name, parse_memory_file
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.decision import INBOX, GateDecision, Verdict
from dreamd.dream.gates.inbox import (
    MAX_INBOX_ITEM_BYTES,
    ParsedItem,
    Rejected,
    check_provenance,
    check_quotes,
    check_refs_at_birth,
    check_secrets,
    parse_inbox_item,
    split_front_matter,
)
from dreamd.dream.gates.merge import find_duplicate, merge_text
from dreamd.dream.model import MemoryFile, MemoryFolder, MemoryType
from dreamd.fs import read_if_present
from dreamd.stores import safe_yaml
from dreamd.stores.claude_memory import topic_stem

__all__ = [
    "INBOX",
    "MAX_NAME_SUFFIX",
    "GateDecision",
    "InboxItem",
    "Verdict",
    "apply_gate",
    "gate_decisions",
    "gated_folder",
    "load_inbox",
    "target_name",
]

#: How many ``-N`` suffixes to try for an accepted item's name.
MAX_NAME_SUFFIX = 10_000


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One file of ``<folder>/.inbox/`` as read: its path, bytes and modification time."""

    path: Path
    data: bytes
    mtime: datetime

    @property
    def name(self) -> str:
        return self.path.name


# --- deciding --------------------------------------------------------------------------------


def target_name(kind: MemoryType, name: str, taken: Iterable[str]) -> str:
    """The accepted file's name: ``<type>_<short slug>.md``, then ``-2``, ``-3`` …, never taken.

    The collector's naming rule (``stores.claude_memory.file_names``), so a
    memory keeps the name it was planted under when that name is free.
    """
    used = {name.casefold() for name in taken}  # case-insensitive file systems
    stem = topic_stem(kind, name)
    for suffix in range(1, MAX_NAME_SUFFIX + 1):
        candidate = f"{stem}.md" if suffix == 1 else f"{stem}-{suffix}.md"
        if candidate.casefold() not in used:
            return candidate
    raise ValueError(f"no free file name for {name!r}")


def _decide(
    item: InboxItem,
    current: dict[str, tuple[MemoryFile, bytes | None]],
    view: RepoView | None,
    now: datetime,
) -> GateDecision:
    """One item against the folder as the run so far left it (``current``, updated here)."""
    folder = item.path.parent.parent  # <folder>/.inbox/<name>
    try:
        check_secrets(item.data)
        parsed = parse_inbox_item(item.data)
        session = check_provenance(parsed.metadata, now)
        check_quotes(parsed.metadata, session)
        name = target_name(parsed.type, parsed.name, current)
        # Read as the dream will once it is accepted; its planted name, not a ``-2``, so the
        # subject test sees the words of its name only.
        memory = parse_memory_file(
            folder / f"{topic_stem(parsed.type, parsed.name)}.md", item.data, item.mtime
        )
        check_refs_at_birth(memory, view)
    except Rejected as rejected:
        return GateDecision(item.name, item.path, "reject", str(rejected))
    duplicate = find_duplicate(memory, (entry[0] for entry in current.values()))
    if duplicate is not None:
        return _merge(item, parsed, duplicate, current)
    current[name] = (replace(memory, path=folder / name, name=name), item.data)
    return GateDecision(
        item.name, item.path, "accept", f"provenance {session}", target=name, content=item.data
    )


def _merge(
    item: InboxItem,
    parsed: ParsedItem,
    duplicate: tuple[MemoryFile, str],
    current: dict[str, tuple[MemoryFile, bytes | None]],
) -> GateDecision:
    """Fold ``item`` into the memory it duplicates, as the run so far left it (updated here)."""
    other, why = duplicate
    content = merge_text(other, parsed.metadata, parsed.body)
    expected = current[other.name][1]
    merged = parse_memory_file(other.path, content, other.mtime)
    current[other.name] = (merged, content)
    return GateDecision(
        item.name,
        item.path,
        "merge",
        f"{why} of {other.name}",
        target=other.name,
        content=content,
        expected_sha256=hashlib.sha256(expected).hexdigest()
        if expected is not None
        else other.sha256,
    )


def gate_decisions(
    inbox: Sequence[InboxItem],
    existing: Sequence[MemoryFile],
    *,
    view: RepoView | None,
    now: datetime,
) -> list[GateDecision]:
    """Issue 4 item 8 / seed 002 hand-off: accept, merge or reject each inbox item, in order.

    ``existing`` are the folder's topic files (``load_folder``); ``view`` the
    repository references are checked against (None: every reference is
    unverifiable). Pure. A later inbox item duplicating an earlier accepted
    one is merged into it; two merges into one memory build on each other,
    so applying the decisions in order leaves every statement and source.
    """
    current: dict[str, tuple[MemoryFile, bytes | None]] = {
        memory.name: (memory, None) for memory in existing
    }
    return [_decide(item, current, view, now) for item in inbox]


def gated_folder(
    folder: MemoryFolder, decisions: Sequence[GateDecision], now: datetime
) -> MemoryFolder:
    """The folder as it will be once the gate's decisions are carried out. Pure.

    Accepted items appear under their new names, merged memories with their new
    bytes, both written ``now``; what a dry run or a held run plans on, so that
    its proposal is what a live run would do (issue 12, items 1 and 9).
    """
    files = {memory.name: memory for memory in folder.files}
    for decision in decisions:
        if decision.verdict == "reject" or decision.target is None or decision.content is None:
            continue
        path = folder.path / decision.target
        files[decision.target] = parse_memory_file(path, decision.content, now)
    return replace(folder, files=tuple(files[name] for name in sorted(files)))


# --- I/O edges -------------------------------------------------------------------------------


def load_inbox(folder: Path) -> list[InboxItem]:
    """The files of ``<folder>/.inbox/``, sorted by name (read-only).

    Topic-file names only: hidden files (the store's lock, temp files of a
    writer still at work) are never items. Symlinks and other non-regular
    files are skipped. A missing inbox is an empty one.
    """
    inbox = folder / INBOX
    if not inbox.is_dir() or inbox.is_symlink():
        return []
    items: list[InboxItem] = []
    for path in sorted(inbox.iterdir()):
        if not is_topic_file_name(path.name) or path.is_symlink() or not path.is_file():
            continue
        with open(path, "rb") as handle:
            data = handle.read(MAX_INBOX_ITEM_BYTES + 1)  # one byte over tells "too large"
        mtime = datetime.fromtimestamp(path.stat().st_mtime_ns / 1e9, tz=UTC)
        items.append(InboxItem(path, data, mtime))
    return items


def _why_not_apply(target: Path, decision: GateDecision) -> str | None:
    """Why a decision cannot be carried out on the folder as it is now (None: it can)."""
    if sha256_of(target) != decision.expected_sha256:
        return f"{decision.target} changed since the gate decided"
    if decision.verdict == "merge" and decision.expected_sha256 is not None:
        # The inventory reads broken YAML leniently, keeping only ``key: value`` lines;
        # rewriting such a front matter from that reading could drop the rest.
        data = read_if_present(target) or b""
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        split = split_front_matter(text.replace("\r\n", "\n"))
        try:
            loaded = safe_yaml(split[0]) if split else None
        except ValueError:
            loaded = None
        if not isinstance(loaded, dict):
            return f"{decision.target} has no plain YAML front matter to merge into; merge by hand"
    return None


def apply_gate(folder: Path, decisions: Sequence[GateDecision], executor: Executor) -> list[str]:
    """Carry out gate decisions through the journaling ``executor``; returns the report lines.

    Accept: the bytes are written under the new name, then the inbox file is
    moved to the trash. Merge: the existing memory is rewritten, then the
    inbox file is trashed. Reject: the inbox file is trashed. Nothing is
    deleted. A decision whose target changed since it was made (a file
    appeared under the accepted name, the merged memory was edited), or a
    merge into a memory whose front matter is not plain YAML (rewriting it
    could lose lines), is skipped and its item left in the inbox, reported.
    """
    lines: list[str] = []
    for decision in decisions:
        if decision.verdict != "reject":
            assert decision.target is not None and decision.content is not None
            target = folder / decision.target
            why = _why_not_apply(target, decision)
            if why is not None:
                lines.append(f"skipped {INBOX}/{decision.item}: {why}; left in the inbox")
                continue
            executor.write(target, decision.content)
        executor.trash(decision.path)
        lines.append(decision.line())
    return lines
