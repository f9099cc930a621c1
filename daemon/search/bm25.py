"""Okapi BM25 over a handful of documents: the one score every search hit is ordered by. Pure.

Why not a library: ``rank_bm25`` (last release 2022) and ``bm25s`` both need
numpy (``bm25s`` scipy too, for sparse matrices) to score what here are a few
hundred short memories, and ``rank_bm25``'s Okapi variant gives common terms
a negative weight. This is the textbook formula, in a few lines:

    score(D, Q) = Σ_{t ∈ Q} idf(t) · f(t, D) · (k1 + 1)
                            / (f(t, D) + k1 · (1 - b + b · |D| / avgdl))
    idf(t)     = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

with ``f(t, D)`` the count of ``t`` in ``D``, ``|D|`` its length in words,
``avgdl`` the mean length, ``N`` the number of documents and ``n(t)`` how many
contain ``t`` (Lucene's idf, never negative). ``K1 = 1.2``, ``B = 0.75``.

A document is the words of its title (counted ``TITLE_WEIGHT`` times: a title
is the memory's subject), description and body.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["K1", "TITLE_WEIGHT", "B", "Document", "document", "scores"]

K1 = 1.2
B = 0.75
#: How many times a title's words count.
TITLE_WEIGHT = 2


@dataclass(frozen=True, slots=True)
class Document:
    """What BM25 needs of a document: its length and how often each word occurs."""

    length: int
    counts: Counter[str]


def document(title: Sequence[str], text: Sequence[str]) -> Document:
    """The document of a memory whose title has words ``title`` and whose text ``text``."""
    counts = Counter(text)
    for word in title:
        counts[word] += TITLE_WEIGHT
    return Document(len(text) + TITLE_WEIGHT * len(title), counts)


def scores(documents: Sequence[Document], query: Sequence[str]) -> list[float]:
    """The BM25 score of each document for the query words (each word counted once)."""
    if not documents:
        return []
    total = len(documents)
    average = sum(d.length for d in documents) / total or 1.0
    terms = list(dict.fromkeys(query))
    idf = {}
    for term in terms:
        holding = sum(1 for d in documents if term in d.counts)
        idf[term] = math.log(1.0 + (total - holding + 0.5) / (holding + 0.5))
    result = []
    for doc in documents:
        norm = K1 * (1.0 - B + B * doc.length / average)
        score = 0.0
        for term in terms:
            count = doc.counts.get(term, 0)
            if count:
                score += idf[term] * count * (K1 + 1.0) / (count + norm)
        result.append(score)
    return result
