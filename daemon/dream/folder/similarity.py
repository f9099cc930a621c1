"""Duplicates and contradictions among one folder's memories (seed 000 STEPs 3 and 4). Pure.

Invariants:

- only memories of the same, known ``type`` are compared; a memory without a
  type (no front matter, or none the seed knows) never pairs with anything, so
  it is never pruned here (the seed's error table treats it as EVERGREEN);
- every pruned memory names a newer one (``Pair.newer``, newer by ``(mtime,
  file name)``) that survives the step that pruned it: a duplicate's survives
  the duplicate step, a contradiction's is kept. A duplicate's survivor may
  still be contradicted by a newer memory (A duplicates B, C contradicts B:
  A and B both go, as in the seed's STEP 5); ``Similarity.survivor_of``
  follows such a chain to the file that is kept;
- the survivors are pairwise neither duplicates nor contradictions of one
  another, whatever order the files came in;
- the candidate search (``dreamd.dream.folder.pairsearch``) is exact: it finds
  every pair the seed's all-pairs loop would, and compares far fewer pairs on
  real folders (``Comparisons``).

A duplicate is a same-subject pair (``dreamd.dream.folder.subjects``) whose
bodies share ``DUPLICATE_OVERLAP`` of the smaller one's significant words
(``dreamd.dream.folder.words``); a contradiction a pair with a negation signal
(``dreamd.dream.folder.cues``) and an overlap from ``CONTRADICTION_OVERLAP`` up
to the duplicate threshold.

Chains are resolved newest first: the newest memory is kept; each older one,
in turn, is pruned when it duplicates (then: contradicts) a memory already
kept, and kept otherwise. In a chain A ~ B ~ C (oldest to newest) where A and
C are not themselves duplicates, B goes into C and A stays.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from dreamd.dream.folder.ages import Age, age_of, newer_of, sort_key
from dreamd.dream.folder.cues import CueObjects, cue_objects, signal_between
from dreamd.dream.folder.facts import Kind, remembered
from dreamd.dream.folder.pairsearch import Comparisons, IndexPair, signal_pairs, subject_pairs
from dreamd.dream.folder.subjects import Subject, subject_of, subjects_match
from dreamd.dream.folder.words import exact_ratio, overlap_reaches, reaches, significant_words
from dreamd.dream.model import MemoryFile

__all__ = [
    "CONTRADICTION_OVERLAP",
    "DUPLICATE_OVERLAP",
    "LARGER_OVERLAP",
    "Pair",
    "PairKind",
    "Similarity",
    "age_key",
    "find_contradictions",
    "find_duplicates",
    "find_similar",
    "holds_both_ways",
    "is_contradiction_overlap",
    "is_duplicate_overlap",
]

#: Seed 000 STEP 3: body overlap from which two same-subject memories are duplicates.
DUPLICATE_OVERLAP = 0.6
#: Issue 12 item 4: the shared words must also be this share of the *larger* set. Seed
#: 000's ratio is measured against the smaller set only: a 25 KB note of 875 distinct
#: words sharing 129 with a 2.8 KB note of 193 passes at 0.67, while 85 % of the large
#: note is its own. Two writings of one memory differ in vocabulary by about a factor of
#: two at most (a rewrite adds or drops detail, it does not quadruple it): with the seed's
#: 0.6 of the smaller and the smaller at least half the larger, the shared words are at
#: least 0.6 / 2 = 0.3 of the larger. A pair below that bound is flagged, never pruned.
LARGER_OVERLAP = 0.3
#: Seed 000 STEP 4: body overlap from which (up to ``DUPLICATE_OVERLAP``) two memories may
#: contradict each other.
CONTRADICTION_OVERLAP = 0.4

PairKind = Literal["duplicate", "contradiction"]


@dataclass(frozen=True, slots=True)
class Pair:
    """An older memory pruned in favour of a newer one (seed 000 STEPs 3 and 4).

    ``ratio`` is the bodies' ``overlap_ratio``; ``signal`` the negation pair
    of a contradiction (None for a duplicate).
    """

    older: MemoryFile
    newer: MemoryFile
    ratio: float
    kind: PairKind
    signal: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Similarity:
    """Duplicates, then contradictions among the rest, and what finding them cost.

    ``undecided``: pairs that would be pruned but whose newer memory cannot be
    told (same age by every evidence): both kept, flagged. ``one_way``: pairs
    whose overlap holds only against the smaller memory: kept, flagged.
    """

    duplicates: tuple[Pair, ...]
    contradictions: tuple[Pair, ...]
    comparisons: Comparisons
    undecided: tuple[Pair, ...] = ()
    one_way: tuple[Pair, ...] = ()

    def survivor_of(self, name: str) -> str | None:
        """The file that finally stands for a pruned one (None when ``name`` is not pruned).

        Usually ``Pair.newer``; when that file was itself contradicted by a
        newer one (A duplicates B, C contradicts B), the chain is followed to
        the file that is kept (C).
        """
        return self.survivors().get(name)

    def survivors(self) -> dict[str, str]:
        """``survivor_of`` for every pruned file at once (one pass, not one per file)."""
        newer = {p.older.name: p.newer.name for p in (*self.duplicates, *self.contradictions)}
        final: dict[str, str] = {}
        for name in newer:
            current = name
            while current in newer:
                current = newer[current]
            final[name] = current
        return final


def age_key(memory: MemoryFile) -> tuple[float, int]:
    """Seed 000 STEPs 3-4 "keep the newer": the order of ``ages.sort_key`` (mtime, own date).

    Only an order to visit memories in: a tie is never decided by it, nor by
    the file name (``ages.newer_of`` decides, or leaves the pair undecided).
    """
    return sort_key(age_of(memory))


def is_duplicate_overlap(shared: int, smaller: int) -> bool:
    """Seed 000 STEP 3, condition 2: at least 60 % of the smaller set's words are shared."""
    return overlap_reaches(shared, smaller, DUPLICATE_OVERLAP)


def holds_both_ways(shared: int, smaller: int, larger: int) -> bool:
    """Issue 12 item 4: the seed's overlap of the smaller set, and ``LARGER_OVERLAP`` of the
    larger one, so a large distinct document is never pruned as a small one's duplicate."""
    return is_duplicate_overlap(shared, smaller) and overlap_reaches(shared, larger, LARGER_OVERLAP)


def is_contradiction_overlap(shared: int, smaller: int) -> bool:
    """Seed 000 STEP 4, condition 1: related but not duplicate, 0.4 <= overlap < 0.6."""
    return reaches(
        shared, smaller, exact_ratio(CONTRADICTION_OVERLAP)
    ) and not is_duplicate_overlap(shared, smaller)


#: A body's negation cues and a memory's subject words, kept between dreams (``facts``).
CUES: Kind[CueObjects] = Kind(
    "cue_objects",
    lambda cues: {cue: [sorted(o) for o in objects] for cue, objects in cues.items()},
    lambda kept: {cue: tuple(frozenset(o) for o in objects) for cue, objects in kept.items()},
)
SUBJECT: Kind[Subject] = Kind(
    "subject_of",
    lambda s: [sorted(s.slug), sorted(s.title), sorted(s.description), sorted(s.core)],
    lambda kept: Subject(*(frozenset(words) for words in kept[:4])),
)


def kept_cue_objects(body: str) -> CueObjects:
    """``cue_objects``, from the last dream when the body is the same."""
    return remembered(CUES, body, lambda: cue_objects(body))


def kept_subject_of(memory: MemoryFile) -> Subject:
    """``subject_of``, from the last dream when the stem, name and description are the same."""
    text = f"{memory.stem}\0{memory.title or ''}\0{memory.description or ''}"
    return remembered(SUBJECT, text, lambda: subject_of(memory))


class _Group:
    """One type's memories, oldest first, and the pairs among them that can be pruned.

    ``duplicates[i]`` and ``contradictions[i]`` list the newer memories ``j``
    that memory ``i`` duplicates (same subject, overlap at least 0.6) or
    contradicts (negation signal, overlap from 0.4 up to 0.6). Body words are
    computed only for memories in a pair that passed its subject or signal test.
    """

    def __init__(
        self, files: Sequence[MemoryFile], ages: Mapping[str, Age], *, exhaustive: bool = False
    ) -> None:
        self.ages = [ages.get(f.name) or age_of(f) for f in files]
        order = sorted(range(len(files)), key=lambda k: (sort_key(self.ages[k]), files[k].name))
        self.files = [files[k] for k in order]
        self.ages = [self.ages[k] for k in order]
        self.undecided: dict[int, Pair] = {}
        self.one_way: list[Pair] = []
        self.cues = [kept_cue_objects(f.body) for f in self.files]
        self.subjects = [kept_subject_of(f) for f in self.files]
        self._words: dict[int, frozenset[str]] = {}
        self.pairs: dict[IndexPair, Pair] = {}
        self.duplicates: dict[int, list[int]] = defaultdict(list)
        self.contradictions: dict[int, list[int]] = defaultdict(list)
        if exhaustive:  # the seed's loop: the reference the indexes must equal
            alike = signalled = set(combinations(range(len(self.files)), 2))
        else:
            alike, signalled = subject_pairs(self.subjects), signal_pairs(self.cues)
        self.screened = len(alike | signalled)
        alike = {p for p in alike if subjects_match(self.subjects[p[0]], self.subjects[p[1]])}
        signals = {p: signal_between(self.cues[p[0]], self.cues[p[1]]) for p in signalled}
        self.compared = len(alike | {p for p, signal in signals.items() if signal})
        for i, j in sorted(alike):
            self._duplicate(i, j)
        for (i, j), signal in sorted(signals.items()):
            if signal is not None and (i, j) not in self.pairs:
                self._contradiction(i, j, signal)

    def words(self, i: int) -> frozenset[str]:
        if i not in self._words:
            self._words[i] = significant_words(self.files[i].body)
        return self._words[i]

    def _overlap(self, i: int, j: int) -> tuple[int, int]:
        a, b = self.words(i), self.words(j)
        return len(a & b), min(len(a), len(b))

    def _duplicate(self, i: int, j: int) -> None:
        """Seed 000 STEP 3 for a same-type, same-subject pair (``i`` older), both ways."""
        shared, smaller = self._overlap(i, j)
        if not is_duplicate_overlap(shared, smaller):
            return
        pair = Pair(self.files[i], self.files[j], shared / smaller, "duplicate")
        larger = max(len(self.words(i)), len(self.words(j)))
        if holds_both_ways(shared, smaller, larger):
            self.pairs[(i, j)] = pair
            self.duplicates[i].append(j)
        else:
            self.one_way.append(pair)

    def _contradiction(self, i: int, j: int, signal: tuple[str, str]) -> None:
        """Seed 000 STEP 4 for a same-type pair with a negation signal (``i`` older)."""
        shared, smaller = self._overlap(i, j)
        if is_contradiction_overlap(shared, smaller):
            ratio = shared / smaller
            self.pairs[(i, j)] = Pair(self.files[i], self.files[j], ratio, "contradiction", signal)
            self.contradictions[i].append(j)

    def newest_first(self, alive: Iterable[int], kind: PairKind) -> dict[int, Pair]:
        """Keep the newest; prune each older memory that pairs with one already kept.

        Among several kept partners the highest overlap wins, then the newest.
        Returns the pruned memories (by index) with their pair.
        """
        partners = self.duplicates if kind == "duplicate" else self.contradictions
        kept: set[int] = set()
        pruned: dict[int, Pair] = {}
        for i in sorted(alive, reverse=True):
            found = [k for k in partners.get(i, ()) if k in kept]
            decided = [k for k in found if newer_of(self.ages[k], self.ages[i]) == 1]
            if decided:
                best = max(decided, key=lambda k: (self.pairs[(i, k)].ratio, k))
                pruned[i] = self.pairs[(i, best)]
                continue
            if found:  # same age by every evidence: no decision beats a guess
                self.undecided[i] = self.pairs[(i, max(found))]
            kept.add(i)
        return pruned


def _similar_in_group(
    files: Sequence[MemoryFile], ages: Mapping[str, Age], exhaustive: bool
) -> Similarity:
    group = _Group(files, ages, exhaustive=exhaustive)
    duplicates = group.newest_first(range(len(group.files)), "duplicate")
    alive = [i for i in range(len(group.files)) if i not in duplicates]
    contradictions = group.newest_first(alive, "contradiction")
    n = len(group.files)
    return Similarity(
        tuple(duplicates.values()),
        tuple(contradictions.values()),
        Comparisons(group.screened, group.compared, n * (n - 1) // 2),
        tuple(group.undecided.values()),
        tuple(group.one_way),
    )


def _by_older_name(pairs: Iterable[Pair]) -> tuple[Pair, ...]:
    return tuple(sorted(pairs, key=lambda p: p.older.name))


def find_similar(
    files: Iterable[MemoryFile],
    *,
    exhaustive: bool = False,
    ages: Mapping[str, Age] | None = None,
) -> Similarity:
    """Seed 000 STEPs 3 then 4 over one folder's memories (file names unique).

    Duplicates first; a memory pruned as a duplicate is not used again, and
    contradictions are sought among the rest. Memories without a type never
    pair. Pairs come sorted by the pruned file's name; the order of ``files``
    never changes the result. ``exhaustive`` compares every pair within a type,
    as the seed's loop does: the result is the same, only slower (a check).
    ``ages`` (``dreamd.dream.folder.ages``) say which memory is newer; by default
    each memory's mtime and own date.
    """
    by_type: dict[str, list[MemoryFile]] = defaultdict(list)
    for memory in files:
        if memory.type is not None:
            by_type[memory.type].append(memory)
    parts = [_similar_in_group(by_type[kind], ages or {}, exhaustive) for kind in sorted(by_type)]
    comparisons = Comparisons(0, 0, 0)
    for part in parts:
        comparisons += part.comparisons
    return Similarity(
        _by_older_name(p for part in parts for p in part.duplicates),
        _by_older_name(p for part in parts for p in part.contradictions),
        comparisons,
        _by_older_name(p for part in parts for p in part.undecided),
        _by_older_name(p for part in parts for p in part.one_way),
    )


def find_duplicates(files: Iterable[MemoryFile]) -> list[Pair]:
    """Seed 000 STEP 3: older duplicates to prune, each with the newer memory it duplicates."""
    return list(find_similar(files).duplicates)


def find_contradictions(files: Iterable[MemoryFile]) -> list[Pair]:
    """Seed 000 STEP 4: older contradicted memories, among those not pruned as duplicates."""
    return list(find_similar(files).contradictions)
