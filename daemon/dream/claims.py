"""What a seed-003 index claims and cites, and how a claim is found in trajectory text. Pure.

Seed 003 Phase 3 checks memory claims against the trajectories. The claims
are the paths and symbols the index's seed-section entries name
(``dreamd.dream.folder.checks.entry_claims``); the sources are the
``[session-id]`` ids an entry ends with (``source_ids``). Both are bounded:
at most ``MAX_CLAIMS`` claims, in text order, and ``MAX_CITED`` cited ids.

A claim is looked for in ``part.data``, OpenCode's JSON text, as a whole word
(``Needle``): a substring test, then a word-boundary check at each hit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from dreamd.dream.folder import checks, sections

__all__ = [
    "MAX_CITED",
    "MAX_CLAIMS",
    "Needle",
    "cited_sessions",
    "claims_with_sources",
    "source_ids",
]

#: Claims checked per folder, in text order; a 10 KB index holds far fewer.
MAX_CLAIMS = 200
#: Cited session ids looked up per folder.
MAX_CITED = 1000

_MARK_TAIL = re.compile(r"\s*\[unverified\]\s*$", re.IGNORECASE)
_SOURCE_TAIL = re.compile(r"\[([^\[\]\n]+)\]\s*$")
_SOURCE_ID = re.compile(r"^[\w.:\-]*[\d_:\-][\w.:\-]*$")


def source_ids(entry_text: str) -> tuple[str, ...]:
    """The ``[session-id]`` sources an entry ends with (``[a, b]`` gives both), marks ignored.

    An id holds a digit, ``_``, ``-`` or ``:`` (as ``checks`` requires), so
    ``[TODO]`` is not a source.
    """
    tail = entry_text.rstrip()
    while _MARK_TAIL.search(tail):
        tail = _MARK_TAIL.sub("", tail)
    match = _SOURCE_TAIL.search(tail)
    if match is None:
        return ()
    ids = [part.strip() for part in re.split(r"[,;]", match.group(1))]
    if not all(_SOURCE_ID.match(sid) for sid in ids):
        return ()
    return tuple(dict.fromkeys(ids))


def claims_with_sources(index_text: str) -> dict[str, frozenset[str]]:
    """Every claim of the index's seed-section entries and the sessions those entries cite.

    Text order, first ``MAX_CLAIMS`` claims; marked entries count too, so a
    mark that could be lifted is seen.
    """
    claims: dict[str, set[str]] = {}
    for entry in sections.sectioned_entries(index_text):
        cited = source_ids(entry.text)
        for claim in checks.entry_claims(entry.text):
            if claim in claims or len(claims) < MAX_CLAIMS:
                claims.setdefault(claim, set()).update(cited)
    return {claim: frozenset(cited) for claim, cited in claims.items()}


def cited_sessions(index_text: str) -> list[str]:
    """Every cited session id of the index, in text order, at most ``MAX_CITED``."""
    ids = dict.fromkeys(
        sid for entry in sections.sectioned_entries(index_text) for sid in source_ids(entry.text)
    )
    return list(ids)[:MAX_CITED]


@dataclass(frozen=True, slots=True)
class Needle:
    """A claim as it appears in a part's JSON text, matched only as a whole word.

    A boundary is required only on a side where the claim has a word
    character; a JSON escape (``\\n``, ``\\t``, ``\\r``) right before the
    claim counts as one. Found with ``str.find`` (fast literal search), the
    boundaries checked at each hit: a regular expression with a lookbehind
    ran at about 25 MB/s here, far slower than the scan it guards.
    """

    text: str
    bounded_start: bool
    bounded_end: bool

    @classmethod
    def of(cls, claim: str) -> Needle:
        """The needle for one claim."""
        text = _json_form(claim)
        return cls(text, _is_word(text[:1]), _is_word(text[-1:]))

    def found_in(self, haystack: str) -> bool:
        """Whether the claim occurs in ``haystack`` as a whole word."""
        at = haystack.find(self.text)
        while at >= 0:
            if self._bounded(haystack, at):
                return True
            at = haystack.find(self.text, at + 1)
        return False

    def _bounded(self, haystack: str, at: int) -> bool:
        end = at + len(self.text)
        if self.bounded_end and _is_word(haystack[end : end + 1]):
            return False
        if not self.bounded_start or not _is_word(haystack[at - 1 : at] if at else ""):
            return True
        return haystack[max(0, at - 2) : at] in ("\\n", "\\t", "\\r")


def _is_word(char: str) -> bool:
    """A word character, as ``\\w`` means it (letters, digits, underscore)."""
    return bool(char) and (char.isalnum() or char == "_")


def _json_form(text: str) -> str:
    """``text`` as a JSON string body: how OpenCode stores it inside ``data``."""
    return json.dumps(text, ensure_ascii=False)[1:-1]
