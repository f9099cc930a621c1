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
    "DESCRIPTION_MIN_SHARED",
    "DESCRIPTION_OVERLAP",
    "NAME_MIN_WORDS",
    "Subject",
    "name_words",
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


def name_words(name: str) -> frozenset[str]:
    """The words of a name or slug: lowercase letter-and-digit runs, no stopwords or type words.

    ``feedback_Cover-Letter_quality_2026-03-26`` gives ``cover letter quality
    2026 03 26``. Type words go because both memories of a pair always share
    the type; numbers stay, so two dated logs of different days are different
    subjects.
    """
    text = ascii_apostrophes(name.lower()).replace("'", "")
    return frozenset(_ALNUM_RUNS.findall(text)) - STOPWORDS - MEMORY_TYPES


@dataclass(frozen=True, slots=True)
class Subject:
    """What a memory is about, by its name and description (seed 000 STEP 3, condition 3)."""

    slug: frozenset[str]  # name_words of the file stem
    title: frozenset[str]  # name_words of the front matter name (empty without one)
    description: frozenset[str]  # significant_words of the description


def subject_of(memory: MemoryFile) -> Subject:
    """The words ``same_subject`` compares, computed once per memory."""
    return Subject(
        slug=name_words(memory.stem),
        title=name_words(memory.title or ""),
        description=significant_words(memory.description or ""),
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


def subjects_match(a: Subject, b: Subject) -> bool:
    """``same_subject`` over precomputed subjects."""
    return (
        _nested(a.slug, b.slug)
        or _nested(a.title, b.title)
        or _described_alike(a.description, b.description)
    )


def same_subject(a: MemoryFile, b: MemoryFile) -> bool:
    """Seed 000 STEP 3, condition 3: name or description refer to the same concept.

    Deterministic and conservative, since body overlap alone never prunes:

    - the names: the words of one file slug (at least ``NAME_MIN_WORDS``) are
      all in the other's, as ``cover_letter_quality`` is in
      ``resume_cover_letter_quality_2026-03-26`` while ``breaker_builder`` and
      ``wall_builder`` do not nest; likewise for front matter ``name``;
    - or the descriptions: they share ``DESCRIPTION_MIN_SHARED`` significant
      words and ``DESCRIPTION_OVERLAP`` of the smaller one's.
    """
    return subjects_match(subject_of(a), subject_of(b))
