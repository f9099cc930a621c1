"""The validate gate for Gemini CLI's memory file (issue 11 item 3).

Gate (``gate_facts``, pure): each record of ``GEMINI.inbox.md`` is

- *rejected* (copied into ``.trash/<date>/GEMINI.inbox.md`` with its reason)
  when it holds no valid item, its line is not the item's fact as Gemini
  would save it (``fact_problem``), or ``rejection`` refuses the item
  (secrets, quotes, provenance, stale at birth) — the rules every store's
  gate applies;
- *merged* when a fact of the ``## Gemini Added Memories`` section states
  the same (``near_duplicate``, seed 000's 0.6): ``GEMINI.md`` keeps that
  line as it is, and the ledger records the item under it (sources kept);
- *accepted* otherwise: its fact is added the way Gemini's ``save_memory``
  adds one (``stores.gemini_md.append_fact``).

Accepted and merged records move into the ledger ``GEMINI.sources.md``
under the line that shows them; nothing leaves the holding file before it is
in the ledger or the trash. A record whose keys the ledger already holds,
with its line still in ``GEMINI.md`` (a run cut off after writing both), is
accepted again without a change.

``dream_gemini`` is the I/O edge, run by ``flow.run_gate``: under the store's
lock, through the journaling ``Executor`` (``dreamd undo`` restores every
file). Gemini CLI writes ``GEMINI.md`` without a lock, so the gate writes it
only if it still holds the bytes the gate read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dreamd.dream.execute import Executor
from dreamd.dream.folder.repoview import RepoView
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
from dreamd.dream.gates.rules import credential_reason, near_duplicate, rejection
from dreamd.stores.gemini_md import (
    LEDGER_HEADER,
    GeminiStore,
    append_fact,
    fact_line,
    gemini_fact,
    ledger_record,
    section_facts,
    shown_line,
)
from dreamd.stores.memory_md import Record, encode, parse_records
from dreamd.stores.sectioned import replace_lines

__all__ = ["GeminiDecision", "dream_gemini", "fact_problem", "gate_facts"]


class GeminiDecision(Decision[Record]):
    """What the gate decided for one held record (``target``: the line that shows it)."""

    __slots__ = ()


def fact_problem(record: Record) -> str | None:
    """Why a held record is not its item's fact as ``save_memory`` writes it, or None."""
    item = record.item
    if item is None:
        return "malformed: the record holds no valid item"
    line = shown_line(record)
    if line is None:
        return "malformed: no one-line fact above the record"
    if line != fact_line(gemini_fact(item)):
        return "malformed: the line is not the item's fact"
    return credential_reason([line])


def _shown_keys(ledger: Sequence[Record], facts: Sequence[str]) -> set[str]:
    """Keys of ledger records whose line ``GEMINI.md`` shows."""
    lines = set(facts)
    return {key for r in ledger if shown_line(r) in lines for key in r.keys}


def _twin(fact: str, facts: Sequence[str]) -> tuple[str, float] | None:
    """The section's line that says what ``fact`` says, best overlap first."""
    best: tuple[str, float] | None = None
    for line in facts:
        ratio = near_duplicate(fact, line.removeprefix("- "))
        if ratio is not None and (best is None or ratio > best[1]):
            best = (line, ratio)
    return best


def gate_facts(
    records: Sequence[Record],
    index_text: str,
    ledger: Sequence[Record],
    *,
    now: datetime,
    views: Mapping[str, RepoView],
    where: Path,
) -> tuple[list[GeminiDecision], str]:
    """Decide each held record in order; returns the decisions and ``GEMINI.md``'s new text.

    A later record that says what one accepted earlier in the run says is
    merged into it.
    """
    text = index_text
    done = _shown_keys(ledger, section_facts(text))
    decisions: list[GeminiDecision] = []
    for record in records:
        if record.keys and set(record.keys) & done:
            decisions.append(GeminiDecision(record, "accept", "already in GEMINI.md", None))
            continue
        item = record.item
        reason = fact_problem(record) or rejection(item, now=now, views=views, where=where)
        if reason is not None:
            decisions.append(GeminiDecision(record, "reject", reason))
            continue
        assert item is not None
        fact = gemini_fact(item)
        twin = _twin(fact, section_facts(text))
        if twin is not None:
            line, ratio = twin
            why = f"says the same as {line[2:62]!r} (overlap {ratio:.2f}); sources kept"
            decisions.append(GeminiDecision(record, "merge", why, line))
            continue
        text = append_fact(text, fact)
        session = item.source.removeprefix("source:")
        decisions.append(GeminiDecision(record, "accept", f"provenance {session}", fact_line(fact)))
    return decisions, text


# --- I/O edge ---------------------------------------------------------------------------------

_REJECTED_HEADER = b"# Collected facts the dream rejected, each with its reason\n"


def _report_line(decision: GeminiDecision, holding: str) -> str:
    record = decision.held
    where = f"{holding}:{record.op_key or f'line {record.last + 1}'}"
    return decision.line(where, "into GEMINI.md")


@dataclass(frozen=True, slots=True)
class _GeminiPlan:
    """The gate's decisions on one ``GEMINI.md``, and the texts they were made from."""

    store: GeminiStore
    holding: str
    old_index: str | None
    ledger: str
    records: list[Record]
    decisions: list[GeminiDecision]
    new_index: str
    changes: list[str]
    flags: list[str]

    def conflict(self) -> str | None:
        """Gemini CLI takes no lock: a ``GEMINI.md`` changed since it was read is not written."""
        if read_text(self.store.path) != self.old_index:
            return f"{self.store.path} changed while the gate ran; gated next time"
        return None

    def trash(self, run_id: str) -> list[TrashFile]:
        rejected = "".join(
            trash_block(run_id, d.reason, d.held.text)
            for d in self.decisions
            if d.verdict == "reject"
        )
        return [TrashFile(self.store.holding_name, encode(rejected), _REJECTED_HEADER)]

    def commit(self, executor: Executor) -> str | None:
        store = self.store
        ledger = self.ledger
        known = {key for record in parse_records(ledger) for key in record.keys}
        for decision in ledger_additions(self.decisions, known):
            line = decision.target or shown_line(decision.held) or ""
            base = ledger or LEDGER_HEADER
            ledger = (
                base + ("" if base.endswith("\n") else "\n") + ledger_record(decision.held, line)
            )
        if ledger != self.ledger:
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


def _plan(store: GeminiStore, views: Mapping[str, RepoView], now: datetime) -> _GeminiPlan:
    """Read ``GEMINI.md``, its holding file and ledger (under the lock) and decide."""
    holding = read_text(store.holding_path) or ""
    old_index = read_text(store.path)
    ledger = read_text(store.ledger_path) or ""
    records = parse_records(holding)
    decisions, new_index = gate_facts(
        records, old_index or "", parse_records(ledger), now=now, views=views, where=store.path
    )
    changes = [_report_line(d, store.holding_name) for d in decisions]
    return _GeminiPlan(
        store, holding, old_index, ledger, records, decisions, new_index, changes, []
    )


def _projects(store: GeminiStore) -> list[str | None]:
    """The projects of the held items (read before the lock)."""
    return [r.item.project for r in parse_records(read_text(store.holding_path) or "") if r.item]


def dream_gemini(store: GeminiStore, *, run_dir: Path, now: datetime, dry_run: bool) -> StoreRun:
    """Gate the held facts into ``GEMINI.md``; returns the report lines."""
    files = StoreFiles("gemini", store.folder, store.path, store.holding_path, store.ledger_path)
    return run_gate(
        files,
        locked=store.locked,
        projects=lambda: _projects(store),
        plan=lambda views, _view: _plan(store, views, now),
        repo=None,
        run_dir=run_dir,
        now=now,
        dry_run=dry_run,
    )
