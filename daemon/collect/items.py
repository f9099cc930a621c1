"""From what a heuristic rule found to a memory item (seed 002 phase 4; issue 11 item 3).

A ``Finding`` is what a rule recognised: the hit, the statement in the
user's words, the verbatim quotes and, where the conversation gives them,
the reason and how to apply it. ``to_item`` makes the ``MemoryItem``:

- ``name`` a short human title: the statement's first words (fillers and
  swear words dropped, case folded where it is only emphasis), or the target
  of a reference; the same statement said again gives the same title, so
  the pipeline's match step (``merge_items``) makes it one item;
- ``description`` one line: the category and the statement;
- ``body`` the statement, then a ``**Why:**`` line (the user's reason:
  "because ...", "since ...", "otherwise ...") and a ``**How to apply:**``
  line (the confirmed fix of a gotcha) when the conversation gives them.

Invariants: quotes are verbatim prefixes of substrings of their messages
(at most ``MAX_QUOTE_CHARS``); nothing here reads a clock or a file.
"""

# The patterns match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from dreamd.collect.lexicon import PROFANITY, wordset
from dreamd.collect.pipeline import Window, merge_items
from dreamd.collect.rules import Hit
from dreamd.collect.sentences import CJK, FILLERS
from dreamd.readers import Message
from dreamd.stores import MemoryItem, Quote

__all__ = [
    "MAX_BODY_CHARS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_QUOTE_CHARS",
    "MAX_TITLE_CHARS",
    "MAX_TITLE_WORDS",
    "Finding",
    "merged",
    "plain",
    "reason_split",
    "title",
    "to_item",
]

MAX_TITLE_WORDS = 9
MAX_TITLE_CHARS = 70
MAX_TITLE_CJK = 30
MIN_SHOUTED = 4  # an all-capitals word this long is emphasis ("NEVER"); shorter is a name ("UTC")
_END_MARKS = " ,;:.!?…。！？、，"
MAX_QUOTE_CHARS = 300
MAX_DESCRIPTION_CHARS = 120
MAX_BODY_CHARS = 600


@dataclass(frozen=True, slots=True)
class Finding:
    """What one rule found, ready to become an item."""

    hit: Hit
    statement: str
    quotes: tuple[tuple[Message, str], ...]
    why: str = ""
    how: str = ""


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _excerpt(text: str) -> str:
    """A quote: the verbatim start of the text (it can always be found in the message again)."""
    return text.strip()[:MAX_QUOTE_CHARS]


#: Function words a title does not end on ("... in any" reads cut off).
_DANGLING = wordset(
    """a an the of to in on at for with and or but that which when if is are be by as from any
    every all not no you we it this der die das den dem ein eine und oder in im zu mit für von
    el la los las un una de del en y o que con para por"""
)


def _title_word(word: str, first: bool) -> str:
    """Emphasis folded ("NEVER" → "never", the capital of the first word); names keep their case."""
    letters = word.strip(_END_MARKS + "'\"")
    shouted = letters.isupper() and len(letters) >= MIN_SHOUTED
    return word.lower() if shouted or (first and word.istitle()) else word


def title(statement: str) -> str:
    """A short human title of a statement: its first words, the same for every restatement.

    At most ``MAX_TITLE_WORDS`` words (``MAX_TITLE_CJK`` characters in Japanese
    and Chinese), never ending on a function word; fillers, swear words and
    code quotes' backticks are dropped; emphasis case is folded, so "ALWAYS
    use pnpm!" and "Always use pnpm." share a title.
    """
    text = FILLERS.sub("", statement.strip()).strip().lstrip("¡¿").rstrip(_END_MARKS)
    if CJK.search(text):
        return text[:MAX_TITLE_CJK].rstrip(_END_MARKS) or "item"
    words = [w.strip("`*_") for w in text.split() if w.lower().strip("`*_,.!") not in PROFANITY]
    words = [w for w in words if w][:MAX_TITLE_WORDS]
    while len(words) > 1 and words[-1].lower().strip(",;:") in _DANGLING:
        words.pop()
    kept = " ".join(_title_word(w, i == 0) for i, w in enumerate(words)).rstrip(_END_MARKS)
    kept = kept[:MAX_TITLE_CHARS].rstrip(_END_MARKS)
    return (kept[:1].upper() + kept[1:]) or "item"


_REASON = re.compile(
    r"(?:,\s*|\s+[-–—]\s+|\s+)(?=(?:because|since|otherwise|so that|as otherwise|weil|denn|sonst"
    r"|damit|porque|ya que|puesto que|si no|de lo contrario)\b)|[，,]?(?=(?:因为|否则|不然|由于))"
    r"|(?<=(?:ので|から))[、,]",
    re.I,
)


def reason_split(statement: str) -> tuple[str, str]:
    """The statement and the reason it gives for itself ("X because Y" → "X", "because Y")."""
    found = _REASON.search(statement)
    if found is None or found.start() < len(statement) // 4:
        return statement, ""
    return statement[: found.start()].rstrip(" ,"), statement[found.end() :].strip()


_SWEARING = re.compile(rf"\b(?:{'|'.join(sorted(PROFANITY))})\b\s*", re.I)


_MARKDOWN_EMPHASIS = re.compile(r"(?<![\w*_])([*_]{1,2})(?=\w)([^*_\n]{1,40}?)(?<=\w)\1(?![\w*_])")


def plain(statement: str) -> str:
    """The statement as the item says it: no swear words, no emphasis marks (quotes keep them)."""
    return " ".join(_MARKDOWN_EMPHASIS.sub(r"\2", _SWEARING.sub("", statement)).split())


def _body(finding: Finding) -> str:
    lines = [_one_line(plain(finding.statement), MAX_BODY_CHARS)]
    if finding.why:
        lines.append(f"**Why:** {_one_line(finding.why, MAX_BODY_CHARS // 2)}")
    if finding.how:
        lines.append(f"**How to apply:** {_one_line(finding.how, MAX_BODY_CHARS // 2)}")
    return "\n".join(lines)[:MAX_BODY_CHARS]


def to_item(window: Window, finding: Finding) -> MemoryItem:
    """The memory item of one finding, tagged with the window's session."""
    hit, session = finding.hit, window.session
    name = _one_line(hit.key, MAX_TITLE_CHARS) if hit.key else title(finding.statement)
    description = _one_line(f"{hit.category}: {plain(finding.statement)}", MAX_DESCRIPTION_CHARS)
    quotes = tuple(Quote(window.qualify(m), _excerpt(text)) for m, text in finding.quotes)
    return MemoryItem(
        type=hit.type,
        category=hit.category,
        name=name,
        description=description,
        body=_body(finding),
        confidence=hit.confidence,
        source=session.source,
        collected=session.collected,
        quotes=quotes,
        project=session.project,
    )


def merged(items: Iterable[MemoryItem]) -> list[MemoryItem]:
    """The match step within a window: the same statement twice is one item, both quotes."""
    by_name: dict[tuple[str, str, str], MemoryItem] = {}
    for item in items:
        identity = (item.type, item.category, item.name)
        known = by_name.get(identity)
        by_name[identity] = item if known is None else merge_items(known, item)
    return list(by_name.values())
