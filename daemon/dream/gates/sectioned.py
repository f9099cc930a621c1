"""The validate gate and the dream for the sectioned ``MEMORY.md`` store (seed 003, issue 6).

Gate (``gate_records``, pure): each record of ``MEMORY.inbox.md`` is

- *rejected* (copied into ``.trash/<date>/MEMORY.inbox.md`` with its reason)
  when it holds no valid item, its entry is not 1 to 3 lines ending in its own
  ``[session]`` tag and listing its operation keys, or ``rejection``
  refuses the item (secrets, quotes, provenance, stale at birth);
- *merged* when an entry of the same ``MEMORY.md`` section states the same
  (``near_duplicate``, seed 000's 0.6): that entry keeps its words and
  gains the record's keys and session tag ("merge duplicates instead of
  appending", sources kept);
- *accepted* otherwise: the entry, as held, becomes the last entry of its
  section (the section is created, in the seed's order, when missing).

Accepted and merged records move, whole, into the ledger
``MEMORY.sources.md`` (their provenance and quotes); nothing leaves the
holding file before it is in the ledger or the trash.

Dream (``duplicate_entries``, ``stale_entries``, pure): two entries of one
section that say the same (equal once case and spacing are folded, or
``COLLAPSE_OVERLAP`` of their words shared) collapse into the first, which
gains the other's keys and tags; the other moves to
``.trash/<date>/MEMORY.removed.md``. Entries whose every checkable reference
is missing from the repository are flagged, not removed: an entry has no
memory type, and the prune guards keep untyped memories (seed 000 STEP 2d).

``dream_memory_md`` is the I/O edge, run by ``storegate.run_gate``: under the
store's lock, through the journaling ``Executor`` (``dreamd undo`` restores
every file), ``MEMORY.md`` copied to ``.MEMORY.md.prev`` before it changes.
A crash between its writes is finished by the next run: a record whose key
is already in ``MEMORY.md`` is simply moved out of the holding file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dreamd.dream.execute import Executor
from dreamd.dream.folder.checks import health_line
from dreamd.dream.folder.refs import check_refs
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import classify
from dreamd.dream.gates.flow import (
    Decision,
    StoreFiles,
    StoreRun,
    TrashFile,
    ledger_additions,
    read_text,
    run_gate,
    trash_block,
)
from dreamd.dream.gates.rules import (
    COLLAPSE_OVERLAP,
    DUPLICATE_OVERLAP,
    as_memory,
    credential_reason,
    missing_refs,
    near_duplicate,
    rejection,
)
from dreamd.stores.memory_md import (
    DEFAULT_SECTION,
    LEDGER_HEADER,
    MemoryMdStore,
    Record,
    encode,
    parse_records,
    section_for,
    session_tag,
    sidecar_name,
)
from dreamd.stores.sectioned import (
    Entry,
    entries,
    entry_words_text,
    insert_block,
    replace_lines,
    with_sources,
)

__all__ = [
    "COLLAPSE_OVERLAP",
    "MAX_ENTRY_LINES",
    "Collapse",
    "MdDecision",
    "collapse",
    "dream_memory_md",
    "duplicate_entries",
    "entry_problem",
    "find_twin",
    "gate_records",
    "stale_entries",
]

#: Seed 003 phase 4: an entry is 1 to 3 lines.
MAX_ENTRY_LINES = 3


class MdDecision(Decision[Record]):
    """What the gate decided for one held record (``target``: the section it joined)."""

    __slots__ = ()


def _report_line(decision: MdDecision, holding: str) -> str:
    """The decision on a record of the ``holding`` file as one report line."""
    record = decision.held
    where = f"{holding}:{record.op_key or f'line {record.last + 1}'}"
    return decision.line(where, f"into ## {decision.target}")


@dataclass(frozen=True, slots=True)
class Collapse:
    """An entry of ``MEMORY.md`` folded into an earlier one of its section."""

    removed: Entry
    kept: Entry
    reason: str


def _first_words(entry: Entry, limit: int = 60) -> str:
    text = " ".join(entry_words_text(entry).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def entry_problem(record: Record) -> str | None:
    """Why a held record is not a well-formed seed 003 entry of its item, or None."""
    item, entry = record.item, record.entry
    if item is None:
        return "malformed: the record holds no valid item"
    if entry is None:
        return "malformed: no entry line above the record"
    lines = entry.last - entry.first + 1
    if lines > MAX_ENTRY_LINES:
        return f"malformed: an entry has 1 to {MAX_ENTRY_LINES} lines, this one {lines}"
    tail = entry.tail
    tag = session_tag(item.source)
    if tail.tags != (tag,):
        return f"untraceable: the entry does not end in its session [{tag}]"
    if tail.op_keys != record.keys:
        return "malformed: the entry does not list its operation keys"
    if not entry_words_text(entry).strip():
        return "malformed: the entry states nothing"
    return credential_reason([entry.text])


def find_twin(
    entry: Entry, index: Sequence[Entry], *, threshold: float = DUPLICATE_OVERLAP
) -> tuple[Entry, float] | None:
    """The entry of ``index`` in ``entry``'s section that says the same, best overlap first."""
    section = (entry.section or "").casefold()
    words = entry_words_text(entry)
    best: tuple[Entry, float] | None = None
    for other in index:
        if other.first == entry.first or (other.section or "").casefold() != section:
            continue
        ratio = near_duplicate(words, entry_words_text(other), threshold=threshold)
        if ratio is not None and (best is None or ratio > best[1]):
            best = (other, ratio)
    return best


def _in_index(index: Sequence[Entry], keys: Sequence[str]) -> Entry | None:
    return next((entry for entry in index if set(keys) & set(entry.tail.op_keys)), None)


def gate_records(
    records: Sequence[Record],
    index_text: str,
    *,
    now: datetime,
    views: Mapping[str, RepoView],
    where: Path,
) -> tuple[list[MdDecision], str]:
    """Decide each held record in order; returns the decisions and ``MEMORY.md``'s new text.

    A later record that duplicates one accepted earlier in the run is merged
    into it. A record whose key ``MEMORY.md`` already lists (a run cut off
    after writing ``MEMORY.md``) is accepted again without a change.
    """
    text = index_text
    decisions: list[MdDecision] = []
    for record in records:
        index = entries(text)
        done = _in_index(index, record.keys) if record.keys else None
        if done is not None:
            decisions.append(MdDecision(record, "accept", "already in MEMORY.md", done.section))
            continue
        item = record.item
        reason = entry_problem(record) or rejection(item, now=now, views=views, where=where)
        if reason is not None:
            decisions.append(MdDecision(record, "reject", reason))
            continue
        assert item is not None and record.entry is not None
        section = section_for(item)
        probe = Entry(-1, -1, section, record.entry.text)
        twin = find_twin(probe, index)
        if twin is not None:
            other, ratio = twin
            merged = with_sources(other.text, record.keys, [session_tag(item.source)])
            text = replace_lines(text, other.first, other.last, merged)
            why = f"says the same as '{_first_words(other)}' (overlap {ratio:.2f}); sources kept"
            decisions.append(MdDecision(record, "merge", why, other.section))
            continue
        text = insert_block(text, section, record.entry.text)
        session = item.source.removeprefix("source:")
        decisions.append(MdDecision(record, "accept", f"provenance {session}", section))
    return decisions, text


def duplicate_entries(text: str) -> list[Collapse]:
    """Entries that say what an earlier entry of their section says (``COLLAPSE_OVERLAP``)."""
    survivors: list[Entry] = []
    found: list[Collapse] = []
    for entry in entries(text):
        if entry.section is None:
            continue
        twin = find_twin(entry, survivors, threshold=COLLAPSE_OVERLAP)
        if twin is None:
            survivors.append(entry)
            continue
        kept, ratio = twin
        found.append(
            Collapse(entry, kept, f"duplicate of '{_first_words(kept)}' (overlap {ratio:.2f})")
        )
    return found


def collapse(text: str, collapses: Sequence[Collapse]) -> str:
    """``text`` with each removed entry gone and its keys and tags added to the one it joins."""
    keys: dict[int, list[str]] = {}
    tags: dict[int, list[str]] = {}
    kept: dict[int, Entry] = {}
    for item in collapses:
        tail = item.removed.tail
        keys.setdefault(item.kept.first, []).extend(tail.op_keys)
        tags.setdefault(item.kept.first, []).extend(tail.tags)
        kept[item.kept.first] = item.kept
    edits = [(c.removed.first, c.removed.last, "") for c in collapses]
    for first, entry in kept.items():
        edits.append((first, entry.last, with_sources(entry.text, keys[first], tags[first])))
    for first, last, new in sorted(edits, reverse=True):
        text = replace_lines(text, first, last, new)
    return text


def stale_entries(text: str, view: RepoView | None, where: Path) -> list[tuple[Entry, str]]:
    """Entries every checkable reference of which is missing (flagged, never removed)."""
    if view is None:
        return []
    flagged: list[tuple[Entry, str]] = []
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    for entry in entries(text):
        memory = as_memory(
            where, f"line {entry.first + 1}", entry_words_text(entry), kind=None, mtime=epoch
        )
        check = check_refs(memory, view)
        if classify(check) == "FULLY_STALE":
            flagged.append((entry, missing_refs(check)))
    return flagged


# --- I/O edge ---------------------------------------------------------------------------------

_REJECTED_HEADER = b"# Collected entries the dream rejected, each with its reason\n"
_REMOVED_HEADER = b"# Entries the dream removed from MEMORY.md\n"


@dataclass(frozen=True, slots=True)
class _MdPlan:
    """The gate's and the dream's decisions on one ``MEMORY.md``, and the texts they read."""

    store: MemoryMdStore
    holding: str
    old_index: str | None
    records: list[Record]
    decisions: list[MdDecision]
    collapses: list[Collapse]
    new_index: str
    changes: list[str]
    flags: list[str]

    def conflict(self) -> str | None:
        """None: ``MEMORY.md`` is not compared again before it is written (a graph file is)."""
        return None

    def trash(self, run_id: str) -> list[TrashFile]:
        rejected = "".join(
            trash_block(run_id, d.reason, d.held.text)
            for d in self.decisions
            if d.verdict == "reject"
        )
        removed = "".join(trash_block(run_id, c.reason, c.removed.text) for c in self.collapses)
        store = self.store
        return [
            TrashFile(store.holding_name, encode(rejected), _REJECTED_HEADER),
            TrashFile(sidecar_name(store.index_name, "removed"), encode(removed), _REMOVED_HEADER),
        ]

    def commit(self, executor: Executor) -> str | None:
        store = self.store
        ledger = read_text(store.ledger_path) or ""
        known = {key for record in parse_records(ledger) for key in record.keys}
        for decision in ledger_additions(self.decisions, known):
            section = decision.target or DEFAULT_SECTION
            ledger = insert_block(ledger or LEDGER_HEADER, section, decision.held.text)
        if ledger:
            executor.write(store.ledger_path, encode(ledger))
        if self.new_index != (self.old_index or ""):
            if self.old_index is not None:
                executor.write(store.folder / f".{store.index_name}.prev", encode(self.old_index))
            executor.write(store.path, encode(self.new_index))
        remaining = self.holding
        for record in sorted(self.records, key=lambda r: r.first, reverse=True):
            remaining = replace_lines(remaining, record.first, record.last, "")
        executor.write(store.holding_path, encode(remaining))
        return None


def _plan(
    store: MemoryMdStore, views: Mapping[str, RepoView], view: RepoView | None, now: datetime
) -> _MdPlan:
    """Read ``MEMORY.md`` and its holding file (under the lock) and decide."""
    holding = read_text(store.holding_path) or ""
    old_index = read_text(store.path)
    records = parse_records(holding)
    decisions, gated = gate_records(
        records, old_index or "", now=now, views=views, where=store.path
    )
    collapses = duplicate_entries(gated)
    new_index = collapse(gated, collapses)
    flags = [
        f"{store.index_name} line {e.first + 1}: every reference is missing ({missing}); "
        "check the entry"
        for e, missing in stale_entries(new_index, view, store.path)
    ]
    changes = [_report_line(d, store.holding_name) for d in decisions]
    changes += [
        f"collapsed {store.index_name} line {c.removed.first + 1}: {c.reason}" for c in collapses
    ]
    if new_index.strip():
        flags.append(f"{store.index_name}: {health_line(new_index)}")
    return _MdPlan(
        store, holding, old_index, records, decisions, collapses, new_index, changes, flags
    )


def _projects(store: MemoryMdStore) -> list[str | None]:
    """The projects of the held items (read before the lock)."""
    return [r.item.project for r in parse_records(read_text(store.holding_path) or "") if r.item]


def dream_memory_md(
    store: MemoryMdStore,
    *,
    run_dir: Path,
    now: datetime,
    dry_run: bool,
    repo: Path | None = None,
) -> StoreRun:
    """Gate the held records and tidy ``MEMORY.md``; returns the report lines."""
    files = StoreFiles("memory-md", store.folder, store.path, store.holding_path, store.ledger_path)
    return run_gate(
        files,
        locked=store.locked,
        projects=lambda: _projects(store),
        plan=lambda views, view: _plan(store, views, view, now),
        repo=repo,
        run_dir=run_dir,
        now=now,
        dry_run=dry_run,
    )
