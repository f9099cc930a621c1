"""Drift and health checks on memory text: reported, never auto-fixed (seeds 004, 003). Pure.

Seed 004 Phase 2 lists what ages in a memory: relative dates, package versions,
test and issue counts; Phase 4 keeps ``MEMORY.md`` under 200 lines and asks
for a split above 180. Seed 003 adds a sectioned ``MEMORY.md`` with a health
line, a ``[session-id]`` source on every entry and ``[unverified]`` marks.
Each rule is one function below, each finding a ``Finding``. Pure: the
manifests' versions come in as a mapping from ``read_manifests`` (the I/O
edge in ``manifests``, re-exported here); relative dates are found by
``dreamd.dream.folder.dates``, seed-003 entries read by
``dreamd.dream.folder.sections``.

Decisions (conservative: a finding is cheap, a wrong rewrite is not):

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

from dreamd.dream.folder.dates import RelativeDate, relative_date_mentions
from dreamd.dream.folder.manifests import PROJECT_VERSION_KEY, read_manifests
from dreamd.dream.folder.sections import Entry, sectioned_entries, seed_section
from dreamd.dream.folder.textlines import INLINE_CODE, split_lines

__all__ = [
    "MAX_INDEX_LINES",
    "PROJECT_VERSION_KEY",
    "SECTIONED_MIN_HEADINGS",
    "SIZE_LIMIT_BYTES",
    "SPLIT_ADVICE_LINES",
    "UNVERIFIED_MARK",
    "Finding",
    "FindingKind",
    "count_claims",
    "entries_without_source",
    "entry_claims",
    "health_line",
    "is_path_claim",
    "is_sectioned",
    "line_budget",
    "mark_unverified",
    "read_manifests",
    "relative_dates",
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


# --------------------------------------------------------------------------- relative dates


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
_DIGIT = re.compile(r"\d")


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
    findings: list[Finding] = []
    if not known:
        return findings  # nothing to contradict a claim
    for number, line in enumerate(split_lines(text), start=1):
        if not _DIGIT.search(line):
            continue  # every claim carries a version number
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

# A number (its first digit not right after a word character, ``.``, ``,`` or ``/``) and
# a counted noun, on one line. The first digit comes first in the pattern so the search
# can skip to digits; the lookbehind then looks at the character before it.
_COUNT = re.compile(
    r"(\d(?<![\w.,/]\d)(?:\d{0,2}(?:[,_]\d{3})+|\d*))(?:/\d+)?[^\S\n]+"
    r"(?:(?:open|closed|failing|failed|passing|passed|skipped|new|unit|integration|e2e|flaky"
    r"|offene|geschlossene|fehlgeschlagene|bestandene|neue)[^\S\n]+)?"
    r"(?:test cases?|test files?|tests?|specs?|suites?|assertions|issues?|bugs?|PRs?"
    r"|pull requests?|tickets?|passed|failed|failing|passing|skipped|x?failed|xpassed|errors?"
    r"|testfälle|fehler)\b",
    re.IGNORECASE,
)


def count_claims(text: str) -> list[Finding]:
    """Seed 004 Phase 2 step 5 / 3d: test and issue counts, which age fast.

    One search over the whole text: a claim never spans a line end, so this
    finds what a search line by line finds, numbered the same.
    """
    findings = []
    number, counted = 1, 0
    for match in _COUNT.finditer(text):
        number += text.count("\n", counted, match.start())
        counted = match.start()
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


def is_sectioned(text: str) -> bool:
    """Seed 003 Phase 4: at least ``SECTIONED_MIN_HEADINGS`` of the five ``##`` headings."""
    found = {seed_section(line)[1] for line in split_lines(text)} - {None}
    return len(found) >= SECTIONED_MIN_HEADINGS


def health_line(text: str) -> str:
    """Seed 003 output: ``lines N/200 · size X KB/10 KB`` (KB = 1024 bytes, one decimal)."""
    size = len(text.encode("utf-8")) / 1024
    limit = SIZE_LIMIT_BYTES // 1024
    return f"lines {_line_count(text)}/{MAX_INDEX_LINES} · size {size:.1f} KB/{limit} KB"


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
    for match in INLINE_CODE.finditer(text):
        claim = _code_claim(match.group(2))
        if claim:
            claims.append(claim)
    prose = INLINE_CODE.sub(" ", text)
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
    for number, line in enumerate(split_lines(text), start=1):
        if number in last_lines:
            body = line.rstrip("\r\n")
            line = body.rstrip(" \t") + " " + UNVERIFIED_MARK + line[len(body) :]
        out.append(line)
    return "".join(out)
