"""The per-line budget of ``MEMORY.md`` and hook shortening (seed 000 STEP 5). Pure.

``MEMORY.md`` is read at every session start and silently stops working past
its load limit, so every size here is bytes once written (``nbytes``), not
lines. Rules, one function each:

1. ``per_line_budget`` — ``(budget - non-entry overhead) / entries``.
2. ``shorten_hook`` — each entry longer than the per-line budget has its hook
   cut at a word boundary, keeping the leading clause, never below about 90
   characters of line. ``shorten_entries`` applies it to a whole index, and
   only to one over its budget: shortening comes before anything moves to the
   archive (``dreamd.dream.folder.budget``).

Invariants: a shortened hook ends in ``…`` and is never longer than it was;
code, bold, parentheses and links are never cut through.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from dreamd.dream.folder.indexfile import Index, IndexLine, find_links, with_hook

__all__ = [
    "ELLIPSIS",
    "LINE_FLOOR_CHARS",
    "entry_bytes",
    "leading_clause",
    "nbytes",
    "per_line_budget",
    "shorten_entries",
    "shorten_hook",
]

#: Seed 000 STEP 5: hooks are shortened to about 90 characters of line, no further.
LINE_FLOOR_CHARS = 90
#: Marks a shortened hook, so a reader knows the file says more.
ELLIPSIS = "…"

# Spans a cut must not split (links are found by the index parser).
_PROTECTED = re.compile(r"`[^`]*`|\*\*[^*]+\*\*|\([^()]*\)")
# Where a hook's leading clause ends: a spaced dash or hyphen, ``;``, ``,``/``.`` before a space.
_CLAUSE_END = re.compile(
    r"[ \t]+(?:\u2014|\u2013|--|-)[ \t]+|;|,(?=\s)|\.(?=\s)|[\u3002\uff1b\uff0c]"
)
# Ideographic comma and full stop, fullwidth comma and semicolon: breaks in unspaced text.
_CJK_BREAKS = "\u3001\u3002\uff0c\uff1b"
#: A word end (``\\s`` is ``str.isspace``) or the position after a CJK break, in one pass.
_CUT_POINT = re.compile(rf"(?<=\S)(?=\s)|(?<=[{_CJK_BREAKS}])")
_TRIM = " \t,;:.\u2014\u2013-("


# --------------------------------------------------------------------------- sizes


def nbytes(text: str) -> int:
    """Size of a text once written (UTF-8; undecodable bytes count as themselves)."""
    return len(text.encode("utf-8", "surrogateescape"))


def per_line_budget(budget: int, overhead: int, entries: int) -> int | None:
    """Bytes one entry line may take (seed 000 STEP 5); None without entries.

    ``(budget - non_entry_overhead) / entry_count``, rounded down; it may be
    zero or negative when the prose alone fills the budget.
    """
    return (budget - overhead) // entries if entries > 0 else None


def entry_bytes(index: Index) -> int:
    """Bytes of the entry lines of an index, line endings included."""
    newline = nbytes(index.newline)
    return sum(nbytes(line.text) + newline for line in index.lines if line.entry)


# --------------------------------------------------------------------------- shortening


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans a cut must not split: code, bold, parentheses and links."""
    spans = [match.span() for match in _PROTECTED.finditer(text)]
    return spans + [(link.start, link.end) for link in find_links(text)]


def _inside(position: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < position < end for start, end in spans)


def leading_clause(hook: str) -> str | None:
    """The part of a hook before its first clause break, or None when it has none.

    Breaks are a spaced dash or hyphen, ``;``, and ``,`` or ``.`` followed by a space
    (so ``23,470`` and ``v2.3`` do not break), outside code and links. A
    hook already shortened (ending in ``…``) without a break is all leading
    clause: it is not cut again.
    """
    text = hook.rstrip()
    spans = _protected_spans(text)
    for match in _CLAUSE_END.finditer(text):
        if not _inside(match.start(), spans) and text[: match.start()].strip():
            return text[: match.start()].rstrip()
    if text.endswith(ELLIPSIS):
        return text[: -len(ELLIPSIS)].rstrip()
    return None


def _cut_points(hook: str) -> list[int]:
    """Word ends inside a hook (positions before a space or after CJK punctuation)."""
    spans = _protected_spans(hook)
    return [
        position
        for match in _CUT_POINT.finditer(hook)
        if 0 < (position := match.start()) < len(hook) and not _inside(position, spans)
    ]


def _cut(hook: str, position: int) -> str:
    return hook[:position].rstrip().rstrip(_TRIM).rstrip() + ELLIPSIS


def shorten_hook(hook: str, max_bytes: int) -> str:
    """Shorten a hook to ``max_bytes`` at a word boundary, keeping its leading clause.

    Seed 000 STEP 5: never mid-word; the leading clause (the detail that tells
    the subject apart) stays even when it alone is over ``max_bytes``. A
    hook without a clause break is cut after its last whole word that fits,
    its first word at least. A cut hook ends in ``…``. Never longer than the
    input.
    """
    if nbytes(hook) <= max_bytes:
        return hook
    lead = leading_clause(hook)
    points = _cut_points(hook)
    if lead is not None:
        points = sorted({len(lead), *(p for p in points if p > len(lead))})
    if not points:
        return hook
    # Sizes grow with the cut position, so the last fitting cut is found by bisection.
    fitting = bisect_right(points, max_bytes, key=lambda p: nbytes(_cut(hook, p)))
    choice = points[max(fitting - 1, 0)]
    shortened = _cut(hook, choice)
    return shortened if nbytes(shortened) < nbytes(hook) else hook


def _shorten_line(line: IndexLine, line_budget: int, newline: int) -> IndexLine:
    """One entry line cut to the per-line budget, or to ~90 characters, whichever is longer."""
    entry = line.entry
    if entry is None or not entry.hook.strip():
        return line
    if nbytes(line.text) + newline <= line_budget:
        return line
    floor_chars = max(0, LINE_FLOOR_CHARS - len(entry.head))
    room = max(line_budget - newline - nbytes(entry.head), nbytes(entry.hook[:floor_chars]))
    hook = shorten_hook(entry.hook, room)
    return line if hook == entry.hook else with_hook(line, hook)


def shorten_entries(index: Index, budget: int) -> tuple[Index, int | None, tuple[str, ...]]:
    """Cut the hooks of entries over the per-line budget (seed 000 STEP 5).

    Returns the new index, the per-line budget used and the files shortened.
    Only call it for an index over budget: one that fits is left alone.
    """
    entries = sum(1 for line in index.lines if line.entry)
    overhead = nbytes(index.render()) - entry_bytes(index)
    line_budget = per_line_budget(budget, overhead, entries)
    if line_budget is None:
        return index, None, ()
    newline = nbytes(index.newline)
    lines = [_shorten_line(line, line_budget, newline) for line in index.lines]
    shortened = tuple(
        new.entry.file
        for old, new in zip(index.lines, lines, strict=True)
        if new.entry is not None and new is not old
    )
    return index.with_lines(lines), line_budget, shortened
