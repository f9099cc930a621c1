"""The significant words of a memory and the overlap of two word sets (seed 000 STEP 3). Pure.

As in the seed: a text's topic words are its lowercase whitespace-split words
without stopwords or words of two characters or fewer (``significant_words``);
the overlap of two sets is their shared words over the smaller set's size
(``overlap_ratio``). Thresholds are compared in exact arithmetic
(``overlap_reaches``): 0.6 is 3/5, so no float rounding decides a pair at its
edge.
"""

from __future__ import annotations

import string
from fractions import Fraction
from functools import cache

__all__ = [
    "MIN_WORD_LENGTH",
    "STOPWORDS",
    "WORD_EDGES",
    "ascii_apostrophes",
    "exact_ratio",
    "overlap_ratio",
    "overlap_reaches",
    "reaches",
    "significant_words",
]

#: Seed 000 STEP 3: words that say nothing about a memory's topic.
STOPWORDS: frozenset[str] = frozenset(
    {
        "the", "a", "an", "is", "are", "was", "were", "be", "been",
        "have", "has", "had", "do", "does", "did", "will", "would",
        "could", "should", "may", "might", "can", "shall", "to", "of",
        "in", "for", "on", "with", "at", "by", "from", "as", "into",
        "through", "during", "before", "after", "this", "that", "it",
        "not", "no", "but", "or", "and", "if", "then", "than", "so",
    }
)  # fmt: skip
#: Seed 000 STEP 3: only words longer than two characters are significant.
MIN_WORD_LENGTH = 3

#: Stripped from both ends of a word: ASCII punctuation plus the typographic marks
#: memory files are full of (Markdown emphasis, backticks, brackets, quotes, dashes).
WORD_EDGES = (
    string.punctuation + "\u201c\u201d\u2018\u2019\u00ab\u00bb\u2026\u2014\u2013\u00b7\u2022"
)


def ascii_apostrophes(text: str) -> str:
    """A typographic apostrophe (U+2019) reads as an ASCII one; replace beats translate here."""
    return text.replace("\u2019", "'")


def significant_words(text: str) -> frozenset[str]:
    """Seed 000 STEP 3: the topic words of a text.

    As in the seed: lowercase, split on whitespace, drop the stopwords and
    every word of two characters or fewer. Before the stopword and length
    tests each word loses the punctuation around it, so ``**Why:**``, a
    backticked name, ``(retry)`` and ``retry,`` all count as the word they wrap.
    Punctuation *inside* a word stays (``don't``, ``src/app.ts``,
    ``snake_case``); a typographic apostrophe is read as ``'``.
    """
    tokens = set(ascii_apostrophes(text.lower()).split())
    words = {token.strip(WORD_EDGES) for token in tokens}
    return frozenset(w for w in words if len(w) >= MIN_WORD_LENGTH and w not in STOPWORDS)


def overlap_ratio(a: frozenset[str], b: frozenset[str]) -> float:
    """Seed 000 STEP 3: shared words over the smaller set's size; 0 when either is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def reaches(shared: int, smaller: int, threshold: Fraction) -> bool:
    """``shared / smaller >= threshold`` in exact arithmetic (no float edge at 0.6)."""
    return smaller > 0 and shared * threshold.denominator >= threshold.numerator * smaller


@cache
def exact_ratio(threshold: float) -> Fraction:
    """The threshold as written (0.6 is 3/5, not the nearest binary float)."""
    return Fraction(repr(threshold))


def overlap_reaches(shared: int, smaller: int, threshold: float) -> bool:
    """Whether ``shared`` words reach ``threshold`` of the ``smaller`` set, in exact arithmetic."""
    return reaches(shared, smaller, exact_ratio(threshold))
