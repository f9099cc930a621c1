"""The candidate pair search behind duplicates and contradictions: exact, through indexes. Pure.

The seed compares every pair. A pair can only be pruned when it is a duplicate
(so its subjects match) or a contradiction (so its bodies give a negation
signal); both conditions are looked up through inverted indexes, and only the
pairs they return have their bodies compared.

Invariant: each index returns every pair that can meet its condition, so the
search finds every pair the seed's all-pairs loop would
(``find_similar(..., exhaustive=True)`` checks it), and compares far fewer
pairs on real folders (``Comparisons``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dreamd.dream.folder.cues import NEGATIONS_OF, POSITIVE_CUES, CueObjects
from dreamd.dream.folder.subjects import (
    DESCRIPTION_MIN_SHARED,
    DESCRIPTION_OVERLAP,
    NAME_MIN_WORDS,
    Subject,
)
from dreamd.dream.folder.words import exact_ratio
from dreamd.dream.model import MemoryFile

__all__ = [
    "Comparisons",
    "IndexPair",
    "all_pairs_count",
    "candidate_pairs",
    "nesting_pairs",
    "signal_pairs",
    "subject_pairs",
]

IndexPair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Comparisons:
    """What the search cost, against the seed's all-pairs loop.

    ``screened``: pairs the indexes proposed, whose names, descriptions or
    cues were then tested; ``compared``: pairs that passed, whose bodies'
    overlap was computed; ``all_pairs``: n·(n-1)/2 within each type.
    """

    screened: int
    compared: int
    all_pairs: int

    @property
    def share(self) -> float:
        """Screened pairs as a fraction of all pairs (0 when there are no pairs)."""
        return self.screened / self.all_pairs if self.all_pairs else 0.0

    def __add__(self, other: Comparisons) -> Comparisons:
        return Comparisons(
            self.screened + other.screened,
            self.compared + other.compared,
            self.all_pairs + other.all_pairs,
        )


def all_pairs_count(files: Iterable[MemoryFile]) -> int:
    """Pairs the seed's loop would compare: n·(n-1)/2 within each known type."""
    sizes = Counter(f.type for f in files if f.type is not None)
    return sum(n * (n - 1) // 2 for n in sizes.values())


def _ordered(i: int, j: int) -> IndexPair:
    return (i, j) if i < j else (j, i)


def _rank_words(sets: Sequence[frozenset[str]]) -> list[list[int]]:
    """Each set as word ids sorted rarest first (document frequency, then the word)."""
    frequency = Counter(w for s in sets for w in s)
    order = sorted(frequency, key=lambda w: (frequency[w], w))
    rank = {w: i for i, w in enumerate(order)}
    return [sorted(rank[w] for w in s) for s in sets]


def candidate_pairs(
    sets: Sequence[frozenset[str]], threshold: float, min_shared: int = 1
) -> set[IndexPair]:
    """Index pairs ``(i, j)``, ``i < j``, that may share ``threshold`` of the smaller set's
    words and at least ``min_shared`` words.

    Exact as a filter: every pair that meets both is returned (the rest may or
    may not be). Prefix filtering: for the smaller set ``x`` of a pair, an
    overlap of ``need = max(ceil(threshold·|x|), min_shared)`` words means one
    of its ``|x| - need + 1`` rarest words is in the other set. So only that
    prefix of each set is indexed, sets are visited smallest first, and each
    probes the index with all its words; rare words keep the lists short.
    """
    if threshold <= 0:
        raise ValueError("threshold must be positive: a zero ratio pairs everything")
    exact = exact_ratio(threshold)
    ranked = _rank_words(sets)
    index: dict[int, list[int]] = defaultdict(list)
    pairs: set[IndexPair] = set()
    for i in sorted(range(len(sets)), key=lambda k: (len(ranked[k]), k)):
        words = ranked[i]
        if len(words) < min_shared:
            continue
        hits: set[int] = set()
        for word in words:
            if word in index:
                hits.update(index[word])
        pairs.update([(j, i) if j < i else (i, j) for j in hits])
        need = max(-(-exact.numerator * len(words) // exact.denominator), min_shared)
        for word in words[: len(words) - need + 1]:
            index[word].append(i)
    return pairs


def nesting_pairs(sets: Sequence[frozenset[str]]) -> set[IndexPair]:
    """Index pairs whose word sets nest (one holds the other), through an index of every word.

    A set nests in another only if the other holds its rarest word, so each
    set looks up that one word's list and tests only those sets.
    """
    index: dict[str, list[int]] = defaultdict(list)
    for i, words in enumerate(sets):
        for word in words:
            index[word].append(i)
    # Any word of a set finds every set holding it; the rarest has the shortest list. Which
    # of several equally rare words is taken changes nothing but which list is walked.
    frequency = {word: len(holders) for word, holders in index.items()}.__getitem__
    pairs: set[IndexPair] = set()
    for i, words in enumerate(sets):
        if len(words) < NAME_MIN_WORDS:
            continue
        rarest = min(words, key=frequency)
        pairs.update(_ordered(i, j) for j in index[rarest] if j != i and words <= sets[j])
    return pairs


def subject_pairs(subjects: Sequence[Subject]) -> set[IndexPair]:
    """Every index pair whose subjects may match (seed 000 STEP 3, condition 3)."""
    return (
        nesting_pairs([s.slug for s in subjects])
        | nesting_pairs([s.title for s in subjects])
        | nesting_pairs([s.core for s in subjects])  # equal cores nest
        | candidate_pairs(
            [s.description for s in subjects], DESCRIPTION_OVERLAP, DESCRIPTION_MIN_SHARED
        )
    )


def _union(sets: Iterable[frozenset[str]]) -> frozenset[str]:
    return frozenset(w for s in sets for w in s)


def signal_pairs(cues: Sequence[CueObjects]) -> set[IndexPair]:
    """Every index pair whose bodies may give a negation signal (seed 000 STEP 4, condition 2).

    Negative cues are indexed by (cue, object word); each positive claim looks
    up its negations. Same objects share a word, so no signalled pair is missed.
    """
    denials: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, found in enumerate(cues):
        for cue in found.keys() - POSITIVE_CUES:
            for word in _union(found[cue]):
                denials[(cue, word)].append(i)
    pairs: set[IndexPair] = set()
    for i, found in enumerate(cues):
        for pos in found.keys() & POSITIVE_CUES:
            words = _union(found[pos])
            for key in ((neg, w) for neg in NEGATIONS_OF[pos] for w in words):
                pairs.update(_ordered(i, j) for j in denials.get(key, ()) if j != i)
    return pairs
