"""Drift and health checks on memory text: reported, never auto-fixed (seeds 004, 003). Pure.

Seed 004 Phase 2 lists what ages in a memory: relative dates, package versions,
test and issue counts; Phase 4 keeps ``MEMORY.md`` under 200 lines and asks
for a split above 180. Seed 003 adds a sectioned ``MEMORY.md`` with a health
line, a ``[session-id]`` source on every entry and ``[unverified]`` marks.
Each rule is one function below. Pure: the manifests' versions come in as a
mapping from ``read_manifests`` (the I/O edge in ``manifests``, re-exported
here).

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
- A version claim is only compared when its name is a package the manifests
  know; ``name 1.2`` needs a dot or a ``v`` (``react 18`` alone is too often
  not a version). Versions agree when they agree on every component both
  give: ``react 18.2`` agrees with ``^18.2.0``, not with ``^18.3.1``.
- A file is sectioned (seed 003) when it has at least three of the five seed
  headings: the seed says to use the sections "when useful", so not all five
  need exist, while one or two such headings are common in other indexes.
- ``mark_unverified`` marks an entry when a path or symbol it names is
  missing (``verify`` gives False) and, by default, when one cannot be
  checked at all (None): seed 003 marks "plausible but unverifiable" claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from dreamd.dream.folder.manifests import PROJECT_VERSION_KEY, read_manifests
from dreamd.markdown import fenced_flags
from dreamd.stores.sectioned import SEED_SECTIONS  # seed 003 phase 4: the five sections

__all__ = [
    "MAX_INDEX_LINES",
    "PROJECT_VERSION_KEY",
    "SECTIONED_MIN_HEADINGS",
    "SEED_SECTIONS",
    "SIZE_LIMIT_BYTES",
    "SPLIT_ADVICE_LINES",
    "UNVERIFIED_MARK",
    "Entry",
    "Finding",
    "FindingKind",
    "Precision",
    "RelativeDate",
    "count_claims",
    "entries_without_source",
    "entry_claims",
    "health_line",
    "is_path_claim",
    "is_sectioned",
    "line_budget",
    "mark_unverified",
    "read_manifests",
    "relative_date_mentions",
    "relative_dates",
    "sectioned_entries",
    "unverified_entries",
    "version_drift",
]

FindingKind = Literal[
    "relative-date",
    "version-drift",
    "count-claim",
    "index-over-limit",
    "index-split-advised",
    "no-source",
    "unverified",
]
Precision = Literal["day", "coarse", "vague"]

#: Seed 004 Phase 4: lines after 200 are cut off when the index is loaded.
MAX_INDEX_LINES = 200
#: Seed 004 Phase 4: above 180 lines, detail moves into topic files.
SPLIT_ADVICE_LINES = 180
#: Seed 003 Phase 5: keep a sectioned MEMORY.md within 10 KB.
SIZE_LIMIT_BYTES = 10 * 1024
#: How many of the five headings make a file "sectioned" (see the module notes).
SECTIONED_MIN_HEADINGS = 3
#: Seed 003 Phase 5: the mark on claims that could not be verified.
UNVERIFIED_MARK = "[unverified]"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a check reports: where (1-based line, None for the whole file), what, why."""

    kind: FindingKind
    line: int | None
    text: str
    message: str


# --------------------------------------------------------------------------- lines and code


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, endings kept (``str.splitlines`` also splits on form feeds)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code, inline code spans blanked to spaces.

    Blanking keeps every offset, so a match in the result is a match in the text.
    """
    for number, (line, fenced) in enumerate(fenced_flags(_lines(text)), start=1):
        if not fenced:
            yield number, _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


# --------------------------------------------------------------------------- relative dates


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


def relative_date_mentions(text: str) -> list[RelativeDate]:
    """Seed 004 Phase 2 step 3 / seed 001 Phase 2: every relative date, in text order.

    English and German; skips code, concepts and anchored words (module notes).
    """
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


def relative_dates(text: str) -> list[Finding]:
    """Seed 004 Phase 2 step 3 and 3b: relative dates, reported with their line numbers."""
    return [_date_finding(m) for m in relative_date_mentions(text)]


def _date_finding(mention: RelativeDate) -> Finding:
    advice = {
        "day": "write the absolute date (YYYY-MM-DD)",
        "coarse": "name the week or month as dates (YYYY-MM-DD)",
        "vague": "say when, as a date (YYYY-MM-DD), or drop the time word",
    }[mention.precision]
    if mention.generic:
        advice += "; it may be a general rule, then leave it"
    message = f"relative date '{mention.phrase}': {advice}"
    return Finding("relative-date", mention.line, mention.phrase, message)


# --------------------------------------------------------------------------- version drift

_VERSION = r"(\d+(?:\.\d+)*)"
_NAME = r"(@?[A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)*)"
_CLAIMS = (
    # pkg@1.2.3, @scope/pkg@1.2.3
    re.compile(rf"(?<![\w@/.\-]){_NAME}@[\^~=]?v?{_VERSION}\b"),
    # pkg==1.2.3, pkg[extra]===1.2
    re.compile(rf"(?<![\w@/.\-]){_NAME}(?:\[[^\]]*\])?\s*===?\s*v?{_VERSION}\b"),
    # "react": "^18.2.0", "version": "1.2.3"
    re.compile(rf'"{_NAME}"\s*:\s*"\s*(?:\^|~|=|>=|v)?\s*v?{_VERSION}'),
    # serde = "1.0", version = "1.2.3" (TOML, at the start of a line)
    re.compile(rf'^\s*{_NAME}\s*=\s*"\s*(?:\^|~|=|>=|v)?\s*v?{_VERSION}'),
    # react 18.2, react v18, github.com/x/y v1.2.3
    re.compile(rf"(?<![\w@/.\-]){_NAME}\s+v?(\d+\.\d+(?:\.\d+)*)\b"),
    re.compile(rf"(?<![\w@/.\-]){_NAME}\s+v(\d+)\b"),
)
_SELF_KEYS = frozenset({"version"})


def _normal_name(name: str) -> str:
    """Case and separators do not tell packages apart (PEP 503 style)."""
    return re.sub(r"[-_.]+", "-", name.strip().rstrip(".-").lower())


def _components(version: str) -> list[int]:
    return [int(part) for part in re.findall(r"\d+", version.split("-")[0].split("+")[0])]


def _agrees(claimed: str, actual: str) -> bool:
    """Equal on every component both versions give."""
    left, right = _components(claimed), _components(actual)
    width = min(len(left), len(right))
    return left[:width] == right[:width]


def _version_claims(line: str) -> list[tuple[str, str, str]]:
    """(package key, name as written, claimed version) in the order they appear."""
    found = []
    for pattern in _CLAIMS:
        for match in pattern.finditer(line):
            name = match.group(1).rstrip(".-")
            if name.lower() in _SELF_KEYS:
                key, name = PROJECT_VERSION_KEY, "the project"
            else:
                key = _normal_name(name)
            found.append((match.start(), key, name, match.group(2)))
    return [(key, name, version) for _, key, name, version in sorted(found)]


def version_drift(text: str, manifests: Mapping[str, str]) -> list[Finding]:
    """Seed 004 Phase 2 step 4 / 3d: versions in memory that the manifests contradict.

    ``manifests`` maps package name to version (``read_manifests``); names are
    compared case- and separator-insensitively; ``"version": "x"`` claims are
    compared with the project's own version (``PROJECT_VERSION_KEY``).
    """
    known = {(k if k == PROJECT_VERSION_KEY else _normal_name(k)): v for k, v in manifests.items()}
    findings = []
    for number, line in enumerate(_lines(text), start=1):
        seen = set()
        for key, shown, claimed in _version_claims(line):
            actual = known.get(key)
            if actual is None or (key, claimed) in seen or _agrees(claimed, actual):
                continue
            seen.add((key, claimed))
            message = f"memory says {shown} {claimed}; the manifests have {actual}"
            findings.append(Finding("version-drift", number, f"{shown} {claimed}", message))
    return findings


# --------------------------------------------------------------------------- counts, line budget

_COUNT = re.compile(
    r"(?<![\w.,/])(\d{1,3}(?:[,_]\d{3})+|\d+)(?:/\d+)?\s+"
    r"(?:(?:open|closed|failing|failed|passing|passed|skipped|new|unit|integration|e2e|flaky"
    r"|offene|geschlossene|fehlgeschlagene|bestandene|neue)\s+)?"
    r"(?:test cases?|test files?|tests?|specs?|suites?|assertions|issues?|bugs?|PRs?"
    r"|pull requests?|tickets?|passed|failed|failing|passing|skipped|x?failed|xpassed|errors?"
    r"|testfälle|fehler)\b",
    re.IGNORECASE,
)


def count_claims(text: str) -> list[Finding]:
    """Seed 004 Phase 2 step 5 / 3d: test and issue counts, which age fast."""
    findings = []
    for number, line in enumerate(_lines(text), start=1):
        for match in _COUNT.finditer(line):
            claim = match.group(0)
            message = f"count claim '{claim}' ages fast: check it against the current state"
            findings.append(Finding("count-claim", number, claim, message))
    return findings


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def line_budget(index_text: str) -> Finding | None:
    """Seed 004 Phase 4 steps 1 and 2: over 200 lines is cut off; above 180, split by topic."""
    lines = _line_count(index_text)
    if lines <= SPLIT_ADVICE_LINES:
        return None
    advice = (
        "move detail into topic files named {type}_{topic}.md "
        "(type: user, feedback, project or reference; e.g. project_sessions.md, "
        "reference_decisions.md, reference_packages.md) and keep one line per file"
    )
    if lines > MAX_INDEX_LINES:
        message = (
            f"MEMORY.md has {lines} lines; lines after {MAX_INDEX_LINES} are never loaded: {advice}"
        )
        return Finding("index-over-limit", MAX_INDEX_LINES + 1, f"{lines} lines", message)
    message = f"MEMORY.md has {lines} lines (over {SPLIT_ADVICE_LINES}): {advice}"
    return Finding("index-split-advised", None, f"{lines} lines", message)


# --------------------------------------------------------------------------- seed 003: sections

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SECTION_KEYS = {s.casefold(): s for s in SEED_SECTIONS}


def _seed_section(line: str) -> tuple[bool, str | None]:
    """(is a heading, the seed section it opens or None)."""
    heading = _HEADING.match(line.rstrip("\r\n"))
    if heading is None:
        return False, None
    if heading.group(1) != "##":
        return True, None
    return True, _SECTION_KEYS.get(heading.group(2).casefold())


def is_sectioned(text: str) -> bool:
    """Seed 003 Phase 4: at least ``SECTIONED_MIN_HEADINGS`` of the five ``##`` headings."""
    found = {_seed_section(line)[1] for line in _lines(text)} - {None}
    return len(found) >= SECTIONED_MIN_HEADINGS


def health_line(text: str) -> str:
    """Seed 003 output: ``lines N/200 · size X KB/10 KB`` (KB = 1024 bytes, one decimal)."""
    size = len(text.encode("utf-8")) / 1024
    limit = SIZE_LIMIT_BYTES // 1024
    return f"lines {_line_count(text)}/{MAX_INDEX_LINES} · size {size:.1f} KB/{limit} KB"


@dataclass(frozen=True, slots=True)
class Entry:
    """One bullet entry under a seed section; lines are 1-based and inclusive."""

    section: str
    first_line: int
    last_line: int
    text: str


_BULLET = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])\s+\S")


def sectioned_entries(text: str) -> list[Entry]:
    """Seed 003 Phase 4: the bullet entries under the five seed headings.

    An entry is a bullet plus the non-blank lines that follow it (indented or
    lazy continuations, nested bullets included); a blank line, a heading or
    the next top-level bullet ends it. Text outside bullets and inside code
    fences is not an entry.
    """
    entries: list[Entry] = []
    section: str | None = None
    current: list[tuple[int, str]] = []

    def close() -> None:
        if current and section is not None:
            body = "".join(line for _, line in current)
            entries.append(Entry(section, current[0][0], current[-1][0], body))
        current.clear()

    for number, (line, fenced) in enumerate(fenced_flags(_lines(text)), start=1):
        if fenced:
            close()
            continue
        is_heading, opens = _seed_section(line)
        if is_heading or not line.strip():
            close()
            section = opens if is_heading else section
        elif _BULLET.match(line):
            close()
            current.append((number, line))
        elif current:
            current.append((number, line))
    close()
    return entries


_SOURCE = re.compile(r"\[\s*[\w.:\-]*[\d_:\-][\w.:\-]*(?:\s*[,;]\s*[\w.:\-]+)*\s*\]$")
_TRAILING_MARK = re.compile(r"\s*\[unverified\]\s*$", re.IGNORECASE)


def _has_source(entry: Entry) -> bool:
    """Ends in ``[session-id]`` (ignoring ``[unverified]`` marks after it).

    An id must hold a digit, ``_``, ``-`` or ``:`` so that ``[TODO]`` or
    ``[WIP]`` are not taken for sources.
    """
    tail = entry.text.rstrip()
    while _TRAILING_MARK.search(tail):
        tail = _TRAILING_MARK.sub("", tail)
    return bool(_SOURCE.search(tail))


def entries_without_source(text: str) -> list[Finding]:
    """Seed 003 Phase 4: entries that do not end in their source session id ``[ses_…]``."""
    return [
        Finding(
            "no-source",
            entry.first_line,
            entry.text.splitlines()[0].strip(),
            f"entry under '## {entry.section}' has no [session-id] source",
        )
        for entry in sectioned_entries(text)
        if not _has_source(entry)
    ]


# --------------------------------------------------------------------------- seed 003: [unverified]

_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|json|md|yaml|yml|toml|sh|bash|zsh|rs|go|rb|java|kt|swift"
    "|c|h|cc|cpp|hpp|cs|css|scss|html|sql|r|R|lua|php|ini|cfg|conf|txt|lock|env|xml|vue|svelte"
)
_PATH_LIKE = re.compile(rf"^[\w.~$@\-/]*[\w\-]\.(?:{_EXTENSIONS})$|^[\w.~$@\-]*/[\w.~$@\-/]+$")
_BARE_PATH = re.compile(rf"(?<![\w/.:])((?:[\w.\-]+/)+[\w.\-]+\.(?:{_EXTENSIONS}))(?![\w/])")
_CALL = re.compile(r"(?<![\w.`])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(\)")
_SYMBOL = re.compile(
    r"^(?:def |class |fn |func )?([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)(?:\(\))?$"
)
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+", re.IGNORECASE)


def is_path_claim(claim: str) -> bool:
    """Whether a claim from ``entry_claims`` is a path (else it is a symbol)."""
    return bool(_PATH_LIKE.match(claim))


def _code_claim(span: str) -> str | None:
    span = span.strip()
    if not span or any(c.isspace() for c in span.replace("def ", "").replace("class ", "")):
        return None  # a command or a phrase, not a name
    path = re.sub(r":\d+(?::\d+)?$", "", span)  # file.ts:186 names file.ts
    if _PATH_LIKE.match(path):
        return path
    symbol = _SYMBOL.match(span)
    if symbol is None:
        return None
    name = symbol.group(1)
    looks_like_code = (
        span.endswith("()")
        or span.startswith(("def ", "class ", "fn ", "func "))
        or "_" in name.strip("_")
        or "." in name
        or "::" in name
        or bool(re.search(r"[a-z0-9][A-Z]", name))
    )
    return name if looks_like_code else None


def entry_claims(text: str) -> tuple[str, ...]:
    """Seed 003 Phase 5: the paths and symbols an entry names, in order, each once.

    Paths: backticked paths (``file.ts:186`` names ``file.ts``) and bare
    ``dir/file.ext`` paths. Symbols: backticked identifiers that look like code
    (``name()``, snake_case, CamelCase, dotted) and bare ``name()`` calls.
    URLs are not claims.
    """
    text = _URL.sub(" ", text)
    claims: list[str] = []
    for match in _INLINE_CODE.finditer(text):
        claim = _code_claim(match.group(2))
        if claim:
            claims.append(claim)
    prose = _INLINE_CODE.sub(" ", text)
    claims.extend(m.group(1) for m in _BARE_PATH.finditer(prose))
    claims.extend(m.group(1) for m in _CALL.finditer(prose))
    return tuple(dict.fromkeys(claims))


def _unverified(
    entries: Iterable[Entry], verify: Callable[[str], bool | None], include_unverifiable: bool
) -> Iterator[tuple[Entry, str]]:
    """(entry, first failing claim) for entries to mark; ``verify`` runs once per claim."""
    results: dict[str, bool | None] = {}
    for entry in entries:
        if UNVERIFIED_MARK in entry.text.lower():
            continue
        for claim in entry_claims(entry.text):
            if claim not in results:
                results[claim] = verify(claim)
            result = results[claim]
            if result is False or (result is None and include_unverifiable):
                yield entry, claim
                break


def unverified_entries(
    text: str, verify: Callable[[str], bool | None], *, include_unverifiable: bool = True
) -> list[Finding]:
    """Seed 003 Phase 5: entries ``mark_unverified`` would mark, for the report."""
    return [
        Finding(
            "unverified",
            entry.first_line,
            claim,
            f"'{claim}' could not be verified: entry marked {UNVERIFIED_MARK}",
        )
        for entry, claim in _unverified(sectioned_entries(text), verify, include_unverifiable)
    ]


def mark_unverified(
    text: str, verify: Callable[[str], bool | None], *, include_unverifiable: bool = True
) -> str:
    """Seed 003 Phase 5: append `` [unverified]`` to entries whose claims do not verify.

    ``verify(claim)`` returns True (found), False (missing) or None (cannot be
    checked, e.g. outside the repository). An entry is marked when a claim is
    False, or None unless ``include_unverifiable`` is off. An entry already
    carrying the mark is left alone, so marking twice changes nothing. Only the
    last line of a marked entry changes; every other byte is kept.
    """
    entries = sectioned_entries(text)
    last_lines = {e.last_line for e, _ in _unverified(entries, verify, include_unverifiable)}
    if not last_lines:
        return text
    out = []
    for number, line in enumerate(_lines(text), start=1):
        if number in last_lines:
            body = line.rstrip("\r\n")
            line = body.rstrip(" \t") + " " + UNVERIFIED_MARK + line[len(body) :]
        out.append(line)
    return "".join(out)
