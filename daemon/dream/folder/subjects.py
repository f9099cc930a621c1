"""Whether two memories are about the same subject (seed 000 STEP 3, condition 3). Pure.

Deterministic and conservative, since body overlap alone never prunes: two
memories name the same concept when the words of one name (file slug, or
front matter ``name``) all appear in the other's, the smaller having at least
``NAME_MIN_WORDS``, or when their descriptions share ``DESCRIPTION_MIN_SHARED``
significant words and ``DESCRIPTION_OVERLAP`` of the smaller one's.
``subject_of`` computes the words once per memory; ``subjects_match``
compares them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamd.dream.folder.words import (
    STOPWORDS,
    ascii_apostrophes,
    exact_ratio,
    reaches,
    significant_words,
)
from dreamd.dream.model import MEMORY_TYPES, MemoryFile

__all__ = [
    "ABBREVIATIONS",
    "CORE_MIN_WORDS",
    "DESCRIPTION_MIN_SHARED",
    "DESCRIPTION_OVERLAP",
    "KIND_WORDS",
    "NAME_MIN_WORDS",
    "Subject",
    "description_core",
    "name_words",
    "same_core",
    "same_subject",
    "subject_of",
    "subjects_match",
]

#: Seed 000 STEP 3, condition 3: share of the smaller description's words two descriptions
#: must have in common to name the same concept. Higher than the body threshold: real
#: folders write templated descriptions ("Typestate builder ... all approved") for
#: different subjects.
DESCRIPTION_OVERLAP = 0.8
#: And at least this many shared words, so two one-line descriptions never match on a word.
DESCRIPTION_MIN_SHARED = 3

#: Seed 000 STEP 3, condition 3: the smaller of two nesting names needs this many words; a
#: one-word name ("todo", "notes") nests in too many others to name a concept.
NAME_MIN_WORDS = 2

_ALNUM_RUNS = re.compile(r"[^\W_]+")

#: Short descriptions name the same subject when their core words are equal
#: (``description_core``), and there are at least this many.
CORE_MIN_WORDS = 2
#: Abbreviations real descriptions use, read as the word they stand for (db/database).
ABBREVIATIONS: dict[str, str] = {
    **dict.fromkeys(("db", "dbs"), "database"),
    **dict.fromkeys(("cfg", "conf", "configuration"), "config"),
    **dict.fromkeys(("repo", "repos"), "repository"),
    **dict.fromkeys(("env", "envs"), "environment"),
    **dict.fromkeys(("doc", "docs"), "documentation"),
    **dict.fromkeys(("dep", "deps", "dependencies"), "dependency"),
    **dict.fromkeys(("pkg", "pkgs"), "package"),
    **dict.fromkeys(("dir", "dirs"), "directory"),
    **dict.fromkeys(("spec", "specs"), "specification"),
    "auth": "authentication",
    "perf": "performance",
    "prod": "production",
    "k8s": "kubernetes",
}
#: Words that name the kind of note rather than its subject: "deploy key rotation schedule"
#: and "deploy-key rotation plan" are one subject; "wall builder spawn pattern" and "breaker
#: builder spawn pattern" are not, because the word that differs is a subject word.
KIND_WORDS = frozenset(
    {
        *("plan", "schedule", "choice", "note", "overview", "summary", "detail", "decision"),
        *("guide", "information", "strategy", "approach", "memo", "writeup", "thought"),
    }
)


def name_words(name: str) -> frozenset[str]:
    """The words of a name or slug: lowercase letter-and-digit runs, no stopwords or type words.

    ``feedback_Cover-Letter_quality_2026-03-26`` gives ``cover letter quality
    2026 03 26``. Type words go because both memories of a pair always share
    the type; numbers stay, so two dated logs of different days are different
    subjects.
    """
    text = ascii_apostrophes(name.lower()).replace("'", "")
    return frozenset(_ALNUM_RUNS.findall(text)) - STOPWORDS - MEMORY_TYPES


def _normal_word(word: str) -> str:
    """A word as a subject word: abbreviation expanded, a plain plural made singular."""
    word = ABBREVIATIONS.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = ABBREVIATIONS.get(word[:-1], word[:-1])
    return word


def description_core(description: str) -> frozenset[str]:
    """The subject words of a description (seed 000 STEP 3, condition 3; issue 12, 14).

    Letter-and-digit runs, so ``deploy-key`` is ``deploy key`` and ``CI`` counts
    (two-letter names are subjects here, unlike body words), stopwords
    dropped, abbreviations expanded (``db`` is ``database``, ``cfg``
    ``config``), plain plurals made singular and the kind-of-note words
    (``plan``, ``schedule``, ``choice`` ...) left out.
    """
    text = ascii_apostrophes(description.lower()).replace("'", "")
    words = (_normal_word(w) for w in _ALNUM_RUNS.findall(text) if len(w) >= 2)
    return frozenset(w for w in words if w not in STOPWORDS and w not in KIND_WORDS)


@dataclass(frozen=True, slots=True)
class Subject:
    """What a memory is about, by its name and description (seed 000 STEP 3, condition 3)."""

    slug: frozenset[str]  # name_words of the file stem
    title: frozenset[str]  # name_words of the front matter name (empty without one)
    description: frozenset[str]  # significant_words of the description
    core: frozenset[str] = frozenset()  # description_core of the description


def subject_of(memory: MemoryFile) -> Subject:
    """The words ``same_subject`` compares, computed once per memory."""
    return Subject(
        slug=name_words(memory.stem),
        title=name_words(memory.title or ""),
        description=significant_words(memory.description or ""),
        core=description_core(memory.description or ""),
    )


def _nested(a: frozenset[str], b: frozenset[str]) -> bool:
    """One word set holds the other, which has at least ``NAME_MIN_WORDS`` words."""
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small) >= NAME_MIN_WORDS and small <= large


def _described_alike(a: frozenset[str], b: frozenset[str]) -> bool:
    shared, smaller = len(a & b), min(len(a), len(b))
    return shared >= DESCRIPTION_MIN_SHARED and reaches(
        shared, smaller, exact_ratio(DESCRIPTION_OVERLAP)
    )


def same_core(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two descriptions name one subject when their core words are the same words.

    Equality, not overlap: templated descriptions ("Typestate builder ... all
    approved") share most words while naming different subjects, which is why
    overlap needs 80 %; equal cores after dropping only kind-of-note words do
    not have that problem.
    """
    return len(a) >= CORE_MIN_WORDS and a == b


def subjects_match(a: Subject, b: Subject) -> bool:
    """``same_subject`` over precomputed subjects."""
    return (
        _nested(a.slug, b.slug)
        or _nested(a.title, b.title)
        or _described_alike(a.description, b.description)
        or same_core(a.core, b.core)
    )


def same_subject(a: MemoryFile, b: MemoryFile) -> bool:
    """Seed 000 STEP 3, condition 3: name or description refer to the same concept.

    Deterministic and conservative, since body overlap alone never prunes:

    - the names: the words of one file slug (at least ``NAME_MIN_WORDS``) are
      all in the other's, as ``cover_letter_quality`` is in
      ``resume_cover_letter_quality_2026-03-26`` while ``breaker_builder`` and
      ``wall_builder`` do not nest; likewise for front matter ``name``;
    - or the descriptions: they share ``DESCRIPTION_MIN_SHARED`` significant
      words and ``DESCRIPTION_OVERLAP`` of the smaller one's;
    - or their core words are equal (``same_core``): short, near-identical
      descriptions such as "CI runner image" and "CI runner image choice".
    """
    return subjects_match(subject_of(a), subject_of(b))
