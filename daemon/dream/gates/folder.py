"""The validate gate: what the collector planted in ``.inbox/`` enters the folder or the trash.

Seed 002 hands every new item to "the gardener's validate gate (phase 1)";
issue 4 item 8 names its tests: an item is *accepted* when its provenance is
present and traceable, it is secret-free, well formed and its references are
verifiable; a near-duplicate of an existing memory is *merged* into it, its
sources and quotes kept; anything else is *rejected* to the trash with a
reason. The dream report lists all three.

``gate_decisions`` is pure (inbox bytes and parsed memories in, decisions
out); ``load_inbox`` and ``apply_gate`` are the I/O edges. Every change goes
through the journaling ``Executor``, so a gate run can be undone byte for
byte and nothing is ever deleted: an inbox file leaves ``.inbox/`` only by a
move into ``.trash/<date>/``.

Invariants:

- an accepted item's bytes are written unchanged under a name no file has
  (``<type>_<slug>.md``, then ``-2``, ``-3`` …): nothing is overwritten;
- a merge never loses what the existing memory holds: its body stays as it
  was (the new statement is appended only when not already in it), and its
  ``metadata`` keeps every key, gaining the union of ``sources``, ``quotes``
  and ``op_keys`` (the collector reads ``op_keys`` to know a merged item is
  planted, so a retry cannot plant it twice);
- inbox items are decided in order; a later item that duplicates one
  accepted earlier in the same run is merged into it.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

import yaml

from dreamd.dream.execute import Executor, sha256_of
from dreamd.dream.folder.inventory import is_topic_file_name, memory_type, parse_memory_file
from dreamd.dream.folder.refs import RepoView
from dreamd.dream.folder.similarity import overlap_ratio, same_subject, significant_words
from dreamd.dream.gates.rules import (
    credential_reason,
    future_reason,
    near_duplicate,
    quotes_reason,
    stale_at_birth_reason,
)
from dreamd.dream.model import MEMORY_TYPES, MemoryFile, MemoryType
from dreamd.fs import read_if_present
from dreamd.stores.claude_memory import topic_stem

__all__ = [
    "INBOX",
    "MAX_INBOX_ITEM_BYTES",
    "MAX_NAME_SUFFIX",
    "GateDecision",
    "InboxItem",
    "Verdict",
    "apply_gate",
    "check_provenance",
    "check_quotes",
    "check_refs_at_birth",
    "check_secrets",
    "find_duplicate",
    "gate_decisions",
    "load_inbox",
    "merge_text",
    "parse_inbox_item",
    "target_name",
]

#: The subfolder the collector plants into (``stores.claude_memory.INBOX``).
INBOX = ".inbox"
#: An inbox file larger than this is no collected item (the store caps items at 4 MiB).
MAX_INBOX_ITEM_BYTES = 4 * 1024 * 1024
#: How many ``-N`` suffixes to try for an accepted item's name.
MAX_NAME_SUFFIX = 10_000

Verdict = Literal["accept", "merge", "reject"]

# Same shapes as ``MemoryItem`` checks on construction (stores/_item.py).
_SOURCE = re.compile(r"^source:(?P<session>[a-z0-9-]+:[^:\s]+:[^:\s]+)$")
_MESSAGE_ID = re.compile(r"^(?P<session>[a-z0-9-]+:[^:\s]+:[^:\s]+):[^\s]+$")
_OPENING = "---"
_CLOSINGS = frozenset({"---", "..."})
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One file of ``<folder>/.inbox/`` as read: its path, bytes and modification time."""

    path: Path
    data: bytes
    mtime: datetime

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True, slots=True)
class GateDecision:
    """What the gate decided for one inbox file, and why.

    ``target`` is the folder file an accepted item becomes or a merged one
    goes into (None for a rejection); ``content`` the bytes that file gets;
    ``expected_sha256`` the bytes the target must hold when the decision is
    applied (None: it must not exist), so a memory edited since is never
    overwritten.
    """

    item: str  # inbox file name
    path: Path  # the inbox file
    verdict: Verdict
    reason: str
    target: str | None = None
    content: bytes | None = None
    expected_sha256: str | None = None

    def line(self) -> str:
        """The decision as one report line."""
        where = f"{INBOX}/{self.item}"
        if self.verdict == "accept":
            return f"accepted {where} as {self.target}: {self.reason}"
        if self.verdict == "merge":
            return f"merged {where} into {self.target}: {self.reason}"
        return f"rejected {where}: {self.reason}"


class _Rejected(Exception):
    """Raised inside the gate's checks; its message is the rejection reason."""


# --- parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Parsed:
    """An inbox item's strict parse: front matter, metadata, body, and its type."""

    front: dict[str, Any]
    metadata: dict[str, Any]
    body: str
    type: MemoryType
    name: str


def _split(text: str) -> tuple[str, str] | None:
    """(block, body) when the text opens with ``---`` and a later ``---``/``...`` closes it."""
    first, newline, rest = text.partition("\n")
    if first.rstrip() != _OPENING or not newline:
        return None
    lines = rest.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip() in _CLOSINGS:
            return "\n".join(lines[:index]), "\n".join(lines[index + 1 :])
    return None


def parse_inbox_item(data: bytes) -> _Parsed:
    """Issue 4 item 8 "well-formed": strict YAML front matter, a known type, a name, a body.

    Stricter than the inventory on purpose: the inventory reads broken YAML
    line by line so a person's memory keeps its hook, while a collected item
    is machine-written and anything but a clean parse means it is not one.
    Raises ``_Rejected`` with the reason.
    """
    if len(data) > MAX_INBOX_ITEM_BYTES:
        raise _Rejected(f"malformed: larger than {MAX_INBOX_ITEM_BYTES} bytes")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise _Rejected("malformed: not UTF-8 text") from None
    split = _split(text.replace("\r\n", "\n"))
    if split is None:
        raise _Rejected("malformed: no front matter")
    try:
        front = yaml.load(split[0], Loader=_LOADER)  # a safe loader: no object construction
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        raise _Rejected("malformed: front matter is not valid YAML") from None
    if not isinstance(front, dict):
        raise _Rejected("malformed: front matter is not a mapping")
    front = {str(key): value for key, value in front.items()}
    kind = memory_type(front)
    if kind is None:
        raise _Rejected(f"malformed: type is not one of {', '.join(sorted(MEMORY_TYPES))}")
    name = front.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _Rejected("malformed: no name")
    body = split[1]
    if not body.strip():
        raise _Rejected("malformed: empty body")
    metadata = front.get("metadata")
    if not isinstance(metadata, dict):
        raise _Rejected("no provenance: no metadata block")
    return _Parsed(front, metadata, body, kind, name.strip())


# --- the rules -------------------------------------------------------------------------------


def check_secrets(data: bytes) -> None:
    """Seed 002 safety rule 5: a credential-shaped value anywhere in the file rejects it.

    The whole text is scanned (every front matter field, every quote, the
    body); the reason never repeats the value.
    """
    reason = credential_reason([data.decode("utf-8", errors="replace")])
    if reason is not None:
        raise _Rejected(reason)


def check_provenance(metadata: Mapping[str, Any], now: datetime) -> str:
    """Seed 002 / issue 4 item 4: ``source:<tool>:<machine>:<session>`` and a collection day.

    Returns ``<tool>:<machine>:<session>``. A ``collected`` day later than
    ``now`` (``rules.future_reason``) is not a collection that happened.
    """
    source = metadata.get("source")
    if source is None:
        raise _Rejected("no provenance: metadata.source missing")
    match = _SOURCE.match(source) if isinstance(source, str) else None
    if match is None:
        raise _Rejected("no provenance: metadata.source is not source:<tool>:<machine>:<session>")
    collected = _day(metadata.get("collected"))
    if collected is None:
        raise _Rejected("no provenance: metadata.collected is not a date")
    reason = future_reason(collected, now)
    if reason is not None:
        raise _Rejected(reason)
    return match["session"]


def _day(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def check_quotes(metadata: Mapping[str, Any], session: str) -> None:
    """Seed 002: quotes cite ``<tool>:<machine>:<session>:<message>`` of the item's own session.

    At least one quote, each a mapping with a ``message`` id and
    a ``text``; a quote from another session would make the provenance lie.
    """
    quotes = metadata.get("quotes")
    cited: list[str] = []
    for quote in quotes if isinstance(quotes, list) else ():
        if not isinstance(quote, dict) or not isinstance(quote.get("text"), str):
            raise _Rejected("untraceable: a quote is not a message id and a text")
        message = quote.get("message")
        if not isinstance(message, str) or _MESSAGE_ID.match(message) is None:
            raise _Rejected("untraceable: a quote does not cite tool:machine:session:message")
        cited.append(message)
    reason = quotes_reason(cited, session)
    if reason is not None:
        raise _Rejected(reason)


def check_refs_at_birth(memory: MemoryFile, view: RepoView | None) -> None:
    """Seed 000 STEP 2 applied at the gate: an item whose references are all missing is stale
    at birth (FULLY_STALE) and rejected. Unverifiable references, or none, are fine."""
    reason = stale_at_birth_reason(memory, view)
    if reason is not None:
        raise _Rejected(reason)


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _names_match(a: MemoryFile, b: MemoryFile) -> bool:
    """Identical names: the same file stem, or the same front matter ``name`` (any case)."""
    if a.stem == b.stem:
        return True
    return a.title is not None and b.title is not None and a.title.casefold() == b.title.casefold()


def find_duplicate(
    memory: MemoryFile, existing: Iterable[MemoryFile]
) -> tuple[MemoryFile, str] | None:
    """Seed 000 STEP 3 at the gate: the existing memory the new one duplicates, and why.

    Same type, and either an identical name or the duplicate rule (same
    subject and ``rules.near_duplicate`` bodies). Among several, the highest
    overlap wins, then the file name.
    """
    found: list[tuple[float, str, MemoryFile, str]] = []
    for other in existing:
        if other.type != memory.type:
            continue
        ratio = near_duplicate(memory.body, other.body)
        if _names_match(memory, other):
            found.append((ratio or _overlap(memory, other), other.name, other, "same name"))
        elif ratio is not None and same_subject(memory, other):
            found.append((ratio, other.name, other, f"near-duplicate (overlap {ratio:.2f})"))
    if not found:
        return None
    best = max(found, key=lambda entry: (entry[0], entry[1]))
    return best[2], best[3]


def _overlap(a: MemoryFile, b: MemoryFile) -> float:
    return overlap_ratio(significant_words(a.body), significant_words(b.body))


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


def _as_list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _union(first: Iterable[Any], second: Iterable[Any]) -> list[Any]:
    """Items of both, first ones first, each once (compared by value)."""
    result: list[Any] = []
    for entry in (*first, *second):
        if entry not in result:
            result.append(entry)
    return result


def _sources(metadata: Mapping[str, Any]) -> list[Any]:
    own = [metadata["source"]] if isinstance(metadata.get("source"), str) else []
    return _union(_as_list(metadata.get("sources")), own)


def _op_keys(metadata: Mapping[str, Any]) -> list[Any]:
    own = [metadata["op_key"]] if isinstance(metadata.get("op_key"), str) else []
    return _union(_as_list(metadata.get("op_keys")), own)


def merge_text(existing: MemoryFile, new_metadata: Mapping[str, Any], new_body: str) -> bytes:
    """The existing memory with a duplicate folded in (issue 4 item 8: sources and quotes kept).

    The body gains the new statement only when it does not already hold it
    (compared with whitespace collapsed). The front matter keeps every key
    and value; ``metadata`` gains ``sources``, ``quotes`` and ``op_keys`` as
    unions, the existing entries first. ``source`` and ``op_key`` stay as they
    were.
    """
    front = copy.deepcopy(existing.front_matter)
    metadata = front.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata["sources"] = _union(_sources(metadata), _sources(new_metadata))
    metadata["quotes"] = _union(
        _as_list(metadata.get("quotes")), _as_list(new_metadata.get("quotes"))
    )
    keys = _union(_op_keys(metadata), _op_keys(new_metadata))
    if keys:
        metadata["op_keys"] = keys
    front["metadata"] = metadata
    body = existing.body
    addition = new_body.strip()
    if _normalised(addition) not in _normalised(body):
        body = f"{body.rstrip()}\n\n{addition}\n"
    block = yaml.dump(front, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100)
    return f"{_OPENING}\n{block}{_OPENING}\n{body}".encode()


# --- deciding --------------------------------------------------------------------------------


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
    except _Rejected as rejected:
        return GateDecision(item.name, item.path, "reject", str(rejected))
    duplicate = find_duplicate(memory, (entry[0] for entry in current.values()))
    if duplicate is not None:
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
    current[name] = (replace(memory, path=folder / name, name=name), item.data)
    return GateDecision(
        item.name, item.path, "accept", f"provenance {session}", target=name, content=item.data
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
        split = _split(text.replace("\r\n", "\n"))
        try:
            loaded = yaml.load(split[0], Loader=_LOADER) if split else None
        except (yaml.YAMLError, ValueError, TypeError, RecursionError):
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
