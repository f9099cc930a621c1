"""Relative dates in memory text: where they are and what day they mean (seeds 004, 001). Pure.

Seed 004 Phase 2 lists what ages in a memory; relative dates come first.
``relative_date_mentions`` finds them, in English and German; the checks
report them (``dreamd.dream.folder.checks.relative_dates``) and git mode
converts the day-precise ones (``dreamd.dream.gitmode``).

Decisions (conservative: a finding is cheap, a wrong rewrite is not):

- Relative dates inside code (fenced blocks, inline backticks) are commands
  or examples, not statements: skipped. "today's date" (English) and "das
  heutige Datum" (German) name a concept, not a day: skipped. A relative word
  that already carries its ISO date ("today (2026-05-27)") is anchored:
  skipped. Everything else is reported, with a *precision*: ``day`` words can
  be converted to a date, ``coarse`` ones (last week, next month) and
  ``vague`` ones (recently) cannot. A day word is marked *generic* when it is
  possessive ("yesterday's settlement") or sits in a line that states a rule
  or condition ("if it does not fill today, come back tomorrow"): such words
  often mean "the day the rule is applied", so git mode leaves them for the
  user instead of converting them.
- German "morgen" is tomorrow; capitalised "Morgen" is tomorrow only where a
  sentence starts ("Morgen deployen wir"), elsewhere it is the morning
  ("heute Morgen", "Guten Morgen").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple, dataclass
from typing import Literal

from dreamd.dream.folder.facts import Kind, remembered
from dreamd.dream.folder.textlines import INLINE_CODE, split_lines
from dreamd.markdown import fenced_flags

__all__ = ["Precision", "RelativeDate", "relative_date_mentions"]

Precision = Literal["day", "coarse", "vague"]


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code, inline code spans blanked to spaces.

    Blanking keeps every offset, so a match in the result is a match in the text.
    """
    for number, (line, fenced) in enumerate(fenced_flags(split_lines(text)), start=1):
        if not fenced:
            yield number, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


@dataclass(frozen=True, slots=True)
class RelativeDate:
    """One relative date in a text.

    ``start``/``end`` are offsets within line ``line`` (1-based). ``offset_days``
    is set for ``day`` precision only: the day meant, relative to the day the
    line was written. ``generic`` marks words that may mean "the day the rule
    is applied" rather than a day in the past (see the module notes).
    """

    line: int
    start: int
    end: int
    phrase: str
    precision: Precision
    offset_days: int | None
    generic: bool


_EN_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_DE_WORDS = ("einem", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn")
_EN_NUMBERS = {word: n for n, word in enumerate(_EN_WORDS, start=1)} | {"a": 1}
_DE_NUMBERS = {word: n for n, word in enumerate(_DE_WORDS, start=1)}


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _EN_NUMBERS.get(word) or _DE_NUMBERS[word]


_EN_N = r"(\d+|" + "|".join(w for w in _EN_NUMBERS if w != "a") + r"|a)"
_DE_N = r"(\d+|" + "|".join(_DE_NUMBERS) + r")"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_DE_WEEKDAY = r"(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag)"
_DE_ADJ = r"(?:letzt|vorig|vergangen|dies|nächst|kommend)(?:e|en|er|es)"

_DE_ADJECTIVE_OFFSET = {"gestrig": -1, "heutig": 0, "morgig": 1}

# Offset: a number of days, a function of the match, or None (not day-precise).
_Offset = int | Callable[[re.Match[str]], int] | None
_Rule = tuple[re.Pattern[str], Precision, _Offset]


def _rule(pattern: str, precision: Precision, offset: _Offset) -> _Rule:
    return re.compile(pattern, re.IGNORECASE), precision, offset


_RULES: tuple[_Rule, ...] = (
    _rule(r"\bthe day before yesterday\b", "day", -2),
    _rule(r"\bthe day after tomorrow\b", "day", 2),
    _rule(r"\byesterday\b", "day", -1),
    _rule(r"\btoday\b", "day", 0),
    _rule(r"\btomorrow\b", "day", 1),
    _rule(r"\ba (?:few|couple of) days ago\b", "vague", None),
    _rule(rf"\b{_EN_N} days? ago\b", "day", lambda m: -_count(m.group(1))),
    _rule(rf"\b{_EN_N} (?:weeks?|months?|years?) ago\b", "coarse", None),
    _rule(r"\b(?:last|this|next|past) (?:week|weekend|month|year)\b", "coarse", None),
    _rule(rf"\b(?:last|this|next) {_WEEKDAY}\b", "coarse", None),
    _rule(r"\b(?:tonight|last night|this (?:morning|afternoon|evening))\b", "coarse", None),
    _rule(r"\b(?:recently|lately|the other day)\b", "vague", None),
    _rule(r"\bvorgestern\b", "day", -2),
    _rule(r"\bübermorgen\b", "day", 2),
    _rule(r"\bgestern\b", "day", -1),
    _rule(r"\bheute\b", "day", 0),
    _rule(
        r"\b(gestrig|heutig|morgig)(?:e|en|er|es|em)?\b",
        "day",
        lambda m: _DE_ADJECTIVE_OFFSET[m.group(1).lower()],
    ),
    _rule(rf"\bvor {_DE_N} tag(?:en)?\b", "day", lambda m: -_count(m.group(1))),
    _rule(rf"\bvor (?:{_DE_N}|einer|einem) (?:wochen?|monat(?:en)?|jahr(?:en)?)\b", "coarse", None),
    _rule(rf"\b{_DE_ADJ} (?:woche|wochenende|monat|jahr)\b", "coarse", None),
    _rule(rf"\b(?:letzt|vorig|nächst|kommend)(?:e|en|er|es) {_DE_WEEKDAY}\b", "coarse", None),
    _rule(r"\b(?:kürzlich|neulich|unlängst|letztens|vor kurzem)\b", "vague", None),
)
_MORGEN = re.compile(r"\b[Mm]orgen\b")
_SENTENCE_START = re.compile(r"(?:^\s*|[.!?:;]\s+|^\s*(?:[-*+>]|\d+[.)]|#+)\s+)$")
_PART_OF_DAY_BEFORE = re.compile(
    r"\b(?:heute|gestern|vorgestern|guten|am|jeden|den|der|dem)\s+$", re.I
)
# "today's date" / "das heutige Datum": a concept, not a day.
_APOSTROPHE = "'\u2019"  # straight and typographic
_DASHES = "\u2013\u2014-"
_CONCEPT_AFTER = re.compile(rf"^[{_APOSTROPHE}]s\s+date\b|^\s+datums?\b", re.IGNORECASE)
_ISO_DATE = r"\d{4}-\d{2}-\d{2}"
_ANCHOR_AFTER = re.compile(rf"^\s*[(\[,:{_DASHES}]?\s*{_ISO_DATE}")
_ANCHOR_BEFORE = re.compile(rf"{_ISO_DATE}\s*[(\[,:{_DASHES}]?\s*$")
_POSSESSIVE = re.compile(rf"^[{_APOSTROPHE}]s\b")
# A line stating a rule or a condition: a day word in it may mean "the day it applies".
_RULE_WORDS = re.compile(
    r"\b(?:if|when|whenever|unless|every|each|always|never|should|must|don't|do not"
    r"|wenn|falls|sobald|immer|nie|niemals|jede[nrs]?|sollte[n]?|muss|müssen)\b",
    re.IGNORECASE,
)


#: A word every rule above needs (lower case). Most memories hold no relative
#: date: one cheap substring scan rules them out before any rule runs.
_KEYWORDS = (
    "yesterday", "today", "tomorrow", "ago", "week", "month", "year", "night", "morning",
    "afternoon", "evening", "recent", "lately", "other day", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday", "gestern", "heute", "heutig", "morgen", "morgig",
    "gestrig", "tag", "woche", "monat", "jahr", "kürzlich", "neulich", "unlängst", "letztens",
    "kurzem", "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
)  # fmt: skip


def _may_hold_relative_date(text: str) -> bool:
    lowered = text.lower()
    return any(keyword in lowered for keyword in _KEYWORDS)


def _candidates(line: str) -> Iterator[tuple[int, int, Precision, int | None]]:
    for pattern, precision, offset in _RULES:
        for match in pattern.finditer(line):
            days = offset(match) if callable(offset) else offset
            yield match.start(), match.end(), precision, days
    for match in _MORGEN.finditer(line):
        if _is_tomorrow(line, match):
            yield match.start(), match.end(), "day", 1


def _is_tomorrow(line: str, match: re.Match[str]) -> bool:
    """Lower-case "morgen" is tomorrow; "Morgen" only where a sentence starts."""
    before = line[: match.start()]
    if _PART_OF_DAY_BEFORE.search(before):
        return False
    return match.group(0) == "morgen" or bool(_SENTENCE_START.search(before))


def _skipped(line: str, start: int, end: int) -> bool:
    """A concept ("today's date") or a word already anchored by an ISO date."""
    after, before = line[end:], line[:start]
    return bool(
        _CONCEPT_AFTER.match(after) or _ANCHOR_AFTER.match(after) or _ANCHOR_BEFORE.search(before)
    )


def _non_overlapping(
    found: Iterable[tuple[int, int, Precision, int | None]],
) -> list[tuple[int, int, Precision, int | None]]:
    """Longest match wins where matches overlap ("the day before yesterday" over "yesterday")."""
    kept: list[tuple[int, int, Precision, int | None]] = []
    for item in sorted(found, key=lambda f: (f[0], -(f[1] - f[0]))):
        if not kept or item[0] >= kept[-1][1]:
            kept.append(item)
    return kept


#: The relative dates of a text, kept between dreams (``facts``).
MENTIONS: Kind[list[RelativeDate]] = Kind(
    "relative_date_mentions",
    lambda found: [list(astuple(m)) for m in found],
    lambda kept: [RelativeDate(*fields) for fields in kept],
)


def relative_date_mentions(text: str) -> list[RelativeDate]:
    """Seed 004 Phase 2 step 3 / seed 001 Phase 2: every relative date, in text order.

    English and German; skips code, concepts and anchored words (module notes).
    From the last dream when the text is the same (``facts``).
    """
    return remembered(MENTIONS, text, lambda: _mentions(text))


def _mentions(text: str) -> list[RelativeDate]:
    mentions: list[RelativeDate] = []
    if not _may_hold_relative_date(text):
        return mentions
    for number, line in _prose_lines(text):
        if not _may_hold_relative_date(line):
            continue
        rule_line = bool(_RULE_WORDS.search(line))
        for start, end, precision, days in _non_overlapping(_candidates(line)):
            if _skipped(line, start, end):
                continue
            phrase = line[start:end]
            possessive = bool(_POSSESSIVE.match(line[end:])) or phrase.lower().startswith(
                ("gestrig", "heutig", "morgig")
            )
            generic = precision == "day" and (rule_line or possessive)
            mentions.append(RelativeDate(number, start, end, phrase, precision, days, generic))
    return mentions
