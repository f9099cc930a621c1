"""The search query language: words, "quoted phrases", ``or`` and ``-excluded``. Pure.

One query, read the way PostgreSQL's ``websearch_to_tsquery`` reads it, is
rendered for every store so that each finds the same items:

- words are cut where ``words`` cuts text: runs of letters and digits,
  case-folded (``op_key`` is ``op`` and ``key``; ``sql.py`` is ``sql`` and
  ``py``). A bare term that is several words (``foo-bar``) is a phrase;
- every term is required (AND); ``a or b`` needs one of them; ``"a b"`` needs
  the words next to each other, in order; ``-a`` / ``-"a b"`` excludes.
  Accents are kept (``café`` is not ``cafe``), as in both databases' indexes;
- a query with no required word matches nothing (``Query.empty``).

``Query.fts5`` renders it as an SQLite FTS5 expression, ``Query.websearch`` as
PostgreSQL's web-search syntax (each phrase quoted, so no word can read as an
operator), and ``Query.matches`` decides it over a document's words (the file
stores).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Clause", "Phrase", "Query", "parse_query", "positions", "words"]

_WORD = re.compile(r"[^\W_]+")
#: A term: a quoted phrase (its closing quote optional) or a run of non-space characters.
_TERM = re.compile(r'(?P<minus>-?)(?:"(?P<quoted>[^"]*)"?|(?P<bare>[^\s"]+))')


def words(text: str) -> list[str]:
    """The words of ``text``: runs of letters and digits, lower-cased, in order.

    ``lower`` rather than ``casefold``, as the databases fold case (``ß`` stays ``ß``).
    """
    return _WORD.findall(text.lower())


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words that must stand next to each other, in this order (one word: just that word)."""

    words: tuple[str, ...]

    def fts5(self) -> str:
        return '"' + " ".join(self.words) + '"'

    def websearch(self) -> str:
        return '"' + " ".join(self.words) + '"'


@dataclass(frozen=True, slots=True)
class Clause:
    """One required term: any of its phrases will do."""

    alternatives: tuple[Phrase, ...]


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: every clause required, no excluded phrase present."""

    clauses: tuple[Clause, ...]
    excluded: tuple[Phrase, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing is required: such a query finds nothing."""
        return not self.clauses

    @property
    def words(self) -> tuple[str, ...]:
        """Every word a match may contain (what ranking scores), each once."""
        found = (w for c in self.clauses for p in c.alternatives for w in p.words)
        return tuple(dict.fromkeys(found))

    @property
    def required(self) -> tuple[str, ...]:
        """Words every match contains (the clauses that have one alternative)."""
        found = (
            w for c in self.clauses if len(c.alternatives) == 1 for w in c.alternatives[0].words
        )
        return tuple(dict.fromkeys(found))

    def fts5(self) -> str:
        """The query as an SQLite FTS5 expression."""
        terms = ["(" + " OR ".join(p.fts5() for p in c.alternatives) + ")" for c in self.clauses]
        expression = " AND ".join(terms)
        return "".join([expression, *(f" NOT {p.fts5()}" for p in self.excluded)])

    def websearch(self) -> str:
        """The query in PostgreSQL's ``websearch_to_tsquery`` syntax."""
        terms = [" or ".join(p.websearch() for p in c.alternatives) for c in self.clauses]
        return " ".join([*terms, *(f"-{p.websearch()}" for p in self.excluded)])

    def matches(self, where: Mapping[str, Sequence[int]]) -> bool:
        """Whether a document, given as ``positions(its words)``, matches the query."""
        if self.empty:
            return False
        if any(_has_phrase(where, phrase) for phrase in self.excluded):
            return False
        return all(any(_has_phrase(where, p) for p in c.alternatives) for c in self.clauses)


def positions(document: Sequence[str]) -> dict[str, list[int]]:
    """Each word of ``document`` and the positions it stands at."""
    found: dict[str, list[int]] = {}
    for index, word in enumerate(document):
        found.setdefault(word, []).append(index)
    return found


def _has_phrase(where: Mapping[str, Sequence[int]], phrase: Phrase) -> bool:
    first, *rest = phrase.words
    starts = where.get(first, ())
    if not rest:
        return bool(starts)
    following = [set(where.get(word, ())) for word in rest]
    return any(
        all(start + offset + 1 in places for offset, places in enumerate(following))
        for start in starts
    )


def parse_query(text: str) -> Query:
    """Read ``text`` as web-search syntax (see the module docstring)."""
    clauses: list[list[Phrase]] = []
    excluded: list[Phrase] = []
    pending_or = False
    for match in _TERM.finditer(text):
        quoted, bare = match.group("quoted"), match.group("bare")
        if bare is not None and bare.casefold() == "or" and not match.group("minus"):
            pending_or = bool(clauses)
            continue
        found = tuple(words(quoted if quoted is not None else bare))
        if not found:
            continue
        phrase = Phrase(found)
        if match.group("minus"):
            excluded.append(phrase)
        elif pending_or:
            clauses[-1].append(phrase)
        else:
            clauses.append([phrase])
        pending_or = False
    return Query(tuple(Clause(tuple(c)) for c in clauses), tuple(excluded))
