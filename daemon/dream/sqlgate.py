"""The validate gate for SQL-store items (seed 002 hand-off): ``new`` rows accepted or not.

The same rules as the folder gate, on items instead of files: an item is
rejected when it cannot be traced (a quote citing another session, or no
quote), or when any field holds a credential-shaped value; it is merged when
it duplicates an item already accepted (same type, at least 0.6 overlap of
significant words); otherwise it is accepted. Rows are never deleted: their
status moves from ``new`` to ``accepted``, ``merged`` or ``rejected``, and the
run records every move so that ``dreamd undo`` can move it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dreamd.secrets import contains_secret
from dreamd.dream.similarity import overlap_ratio, significant_words
from dreamd.stores import MemoryItem

__all__ = ["DUPLICATE_OVERLAP", "SqlVerdict", "sql_gate"]

#: Seed 000 STEP 3's duplicate threshold, reused for collected items.
DUPLICATE_OVERLAP = 0.6

Status = Literal["accepted", "merged", "rejected"]


@dataclass(frozen=True, slots=True)
class SqlVerdict:
    """What the gate decided for one row, and why."""

    op_key: str
    status: Status
    reason: str


def _text_fields(item: MemoryItem) -> list[str]:
    return [item.name, item.description, item.body, item.category, item.project or ""] + [
        q.text for q in item.quotes
    ]


def rejection(item: MemoryItem | None) -> str | None:
    """Why an item must not be accepted, or None."""
    if item is None:
        return "malformed: the row holds no valid item"
    if any(contains_secret(text) for text in _text_fields(item)):
        return "credential-shaped value"
    if not item.quotes:
        return "untraceable: no quote cites the session"
    session = item.source.removeprefix("source:")
    if any(not q.message_id.startswith(session + ":") for q in item.quotes):
        return "untraceable: a quote cites another session"
    return None


def sql_gate(
    new: Sequence[tuple[str, MemoryItem | None]],
    accepted: Sequence[tuple[str, MemoryItem | None]],
) -> list[SqlVerdict]:
    """Decide every ``new`` row against the accepted ones (and the new ones accepted before it)."""
    kept = [
        (key, item.type, significant_words(item.body)) for key, item in accepted if item is not None
    ]
    verdicts: list[SqlVerdict] = []
    for key, item in new:
        reason = rejection(item)
        if reason is not None:
            verdicts.append(SqlVerdict(key, "rejected", reason))
            continue
        assert item is not None
        words = significant_words(item.body)
        twin = next(
            (
                k
                for k, kind, other in kept
                if kind == item.type and overlap_ratio(words, other) >= DUPLICATE_OVERLAP
            ),
            None,
        )
        if twin is not None:
            verdicts.append(SqlVerdict(key, "merged", f"duplicate of {twin}"))
            continue
        kept.append((key, item.type, words))
        verdicts.append(SqlVerdict(key, "accepted", "provenance, quotes and content check out"))
    return verdicts
