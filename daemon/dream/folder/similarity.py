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
- the candidate search is exact: it finds every pair the seed's all-pairs loop
  would, and compares far fewer pairs on real folders (``Comparisons``).

Chains are resolved newest first: the newest memory is kept; each older one,
in turn, is pruned when it duplicates (then: contradicts) a memory already
kept, and kept otherwise. In a chain A ~ B ~ C (oldest to newest) where A and
C are not themselves duplicates, B goes into C and A stays.
"""

from __future__ import annotations

import re
import string
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Literal

from dreamd.dream.model import MEMORY_TYPES, MemoryFile

__all__ = [
    "CONTRADICTION_OVERLAP",
    "DESCRIPTION_MIN_SHARED",
    "DESCRIPTION_OVERLAP",
    "DUPLICATE_OVERLAP",
    "MIN_WORD_LENGTH",
    "NAME_MIN_WORDS",
    "NEGATION_PAIRS",
    "OBJECT_MIN_SHARED",
    "OBJECT_WORDS",
    "STOPWORDS",
    "Comparisons",
    "CueObjects",
    "IndexPair",
    "Pair",
    "PairKind",
    "Similarity",
    "Subject",
    "age_key",
    "all_pairs_count",
    "candidate_pairs",
    "cue_objects",
    "find_contradictions",
    "find_duplicates",
    "find_similar",
    "is_contradiction_overlap",
    "is_duplicate_overlap",
    "name_words",
    "negation_signal",
    "nesting_pairs",
    "overlap_ratio",
    "overlap_reaches",
    "same_object",
    "same_subject",
    "signal_between",
    "signal_pairs",
    "significant_words",
    "subject_of",
    "subject_pairs",
    "subjects_match",
]

# --- significant words (seed 000 STEP 3) ---------------------------------------------------------

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

# Stripped from both ends of a word: ASCII punctuation plus the typographic marks
# memory files are full of (Markdown emphasis, backticks, brackets, quotes, dashes).
_EDGE = string.punctuation + "\u201c\u201d\u2018\u2019\u00ab\u00bb\u2026\u2014\u2013\u00b7\u2022"


def _ascii_apostrophes(text: str) -> str:
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
    tokens = set(_ascii_apostrophes(text.lower()).split())
    words = {token.strip(_EDGE) for token in tokens}
    return frozenset(w for w in words if len(w) >= MIN_WORD_LENGTH and w not in STOPWORDS)


def overlap_ratio(a: frozenset[str], b: frozenset[str]) -> float:
    """Seed 000 STEP 3: shared words over the smaller set's size; 0 when either is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _reaches(shared: int, smaller: int, threshold: Fraction) -> bool:
    """``shared / smaller >= threshold`` in exact arithmetic (no float edge at 0.6)."""
    return smaller > 0 and shared * threshold.denominator >= threshold.numerator * smaller


@cache
def _exact(threshold: float) -> Fraction:
    """The threshold as written (0.6 is 3/5, not the nearest binary float)."""
    return Fraction(repr(threshold))


# --- same subject (seed 000 STEP 3, condition 3) -------------------------------------------------

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
    text = _ascii_apostrophes(name.lower()).replace("'", "")
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
    return shared >= DESCRIPTION_MIN_SHARED and _reaches(
        shared, smaller, _exact(DESCRIPTION_OVERLAP)
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


# --- negation signal (seed 000 STEP 4) -----------------------------------------------------------

#: Seed 000 STEP 4: (positive form, negative form) of a claim.
NEGATION_PAIRS: tuple[tuple[str, str], ...] = (
    ("do ", "do not "),
    ("do ", "don't "),
    ("use ", "avoid "),
    ("use ", "stop using "),
    ("prefer ", "don't prefer "),
    ("always ", "never "),
)
#: The object of a cue: this many significant words after it, in the same clause.
OBJECT_WORDS = 3
#: Two objects are the same when they share this many words (or all of the shorter one's).
OBJECT_MIN_SHARED = 2

_POSITIVE_CUES = frozenset(pos for pos, _ in NEGATION_PAIRS)
_NEGATIONS_OF = {pos: tuple(n for p, n in NEGATION_PAIRS if p == pos) for pos in _POSITIVE_CUES}
_ALL_CUES = sorted({cue for pair in NEGATION_PAIRS for cue in pair}, key=lambda c: (-len(c), c))
# Longest form first, matches never overlap: "do not X" is one negative cue, not also
# a positive "do"; "don't prefer X" is not also "don't". A cue starts a word (so "use"
# is not found in "because"), its words may be apart by any spaces but not a line end,
# and a space must follow it.
_CUE = re.compile(
    r"(?<![\w'])("
    + "|".join(r"[^\S\n]+".join(map(re.escape, cue.split())) for cue in _ALL_CUES)
    + r")[^\S\n]"
)
# A word right before a positive cue that turns it negative ("never use X", "not always X").
_NEGATORS = frozenset({"not", "never", "don't", "doesn't", "didn't", "no", "avoid", "stop"})
# Cue words are the claim's verb, not its object: "always use tabs" and "never use
# spaces" share "use" but are about different things.
_CUE_WORDS = frozenset(word for cue in _ALL_CUES for word in cue.split())
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|\n")
_CLAUSE_PUNCTUATION = ".;:!?"
_INLINE_SPACE = " \t\r\f\v"

#: The negation cues found in a body, each with the objects it was found with.
CueObjects = dict[str, tuple[frozenset[str], ...]]


def _object(rest: str) -> frozenset[str]:
    """The first ``OBJECT_WORDS`` significant, non-cue words of the text after a cue."""
    found: list[str] = []
    for token in rest.split():
        word = token.strip(_EDGE)
        if len(word) >= MIN_WORD_LENGTH and word not in STOPWORDS and word not in _CUE_WORDS:
            found.append(word)
            if len(found) == OBJECT_WORDS:
                break
    return frozenset(found)


def _negated(text: str, start: int) -> bool:
    """True when the word before a positive cue, in the same clause, negates it."""
    end = start
    while end > 0 and text[end - 1] in _INLINE_SPACE:
        end -= 1
    begin = end
    while begin > 0 and not text[begin - 1].isspace():
        begin -= 1
    word = text[begin:end]
    if not word or word[-1] in _CLAUSE_PUNCTUATION:
        return False  # the cue starts its clause
    return word.strip(_EDGE) in _NEGATORS


def cue_objects(body: str) -> CueObjects:
    """The negation cues of a body (``NEGATION_PAIRS`` forms), each with its objects.

    Read lowercased; a claim never runs past its clause (``.;:!?`` then a
    space, or a line end). A positive cue right after a negating word
    (``never use``, ``not always``) is not a positive claim; a cue with no
    significant word after it has no object and is dropped.
    """
    found: dict[str, set[frozenset[str]]] = defaultdict(set)
    text = _ascii_apostrophes(body.lower())
    for match in _CUE.finditer(text):
        cue = " ".join(match.group(1).split()) + " "
        if cue in _POSITIVE_CUES and _negated(text, match.start()):
            continue
        stop = _CLAUSE_END.search(text, match.end())
        if obj := _object(text[match.end() : stop.start() if stop else len(text)]):
            found[cue].add(obj)
    return {cue: tuple(sorted(objs, key=sorted)) for cue, objs in found.items()}


def same_object(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two cue objects name the same thing: ``OBJECT_MIN_SHARED`` shared words, or all of
    the shorter object's when it has fewer."""
    return len(a & b) >= min(OBJECT_MIN_SHARED, len(a), len(b))


def _denied(claims: tuple[frozenset[str], ...], denials: tuple[frozenset[str], ...]) -> bool:
    return any(same_object(c, d) for c in claims for d in denials)


def signal_between(a: CueObjects, b: CueObjects) -> tuple[str, str] | None:
    """``negation_signal`` over cue objects computed once per body."""
    for pos, neg in NEGATION_PAIRS:
        if _denied(a.get(pos, ()), b.get(neg, ())) or _denied(b.get(pos, ()), a.get(neg, ())):
            return (pos, neg)
    return None


def negation_signal(a_body: str, b_body: str) -> tuple[str, str] | None:
    """Seed 000 STEP 4, condition 2: one body negates a claim of the other.

    Returns the first pair of ``NEGATION_PAIRS`` (in the seed's order) whose
    positive form is in one body and negative form in the other about the
    same object (``same_object`` of the first ``OBJECT_WORDS`` significant,
    non-cue words after each cue, within its clause). ``None`` when no pair
    does.
    """
    return signal_between(cue_objects(a_body), cue_objects(b_body))


# --- candidate search ---------------------------------------------------------------------------
#
# The seed compares every pair. A pair can only be pruned when it is a duplicate (so its
# subjects match) or a contradiction (so its bodies give a negation signal); both conditions
# are looked up through inverted indexes, and only the pairs they return have their bodies
# compared. Each index returns every pair that can meet its condition, so the result is the
# all-pairs result (``find_similar(..., exhaustive=True)`` checks it).

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
    exact = _exact(threshold)
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
    """Index pairs whose word sets nest (``_nested``), through an index of every word.

    A set nests in another only if the other holds its rarest word, so each
    set looks up that one word's list and tests only those sets.
    """
    index: dict[str, list[int]] = defaultdict(list)
    for i, words in enumerate(sets):
        for word in words:
            index[word].append(i)
    pairs: set[IndexPair] = set()
    for i, words in enumerate(sets):
        if len(words) < NAME_MIN_WORDS:
            continue
        rarest = min(words, key=lambda w: (len(index[w]), w))
        pairs.update(_ordered(i, j) for j in index[rarest] if j != i and words <= sets[j])
    return pairs


def subject_pairs(subjects: Sequence[Subject]) -> set[IndexPair]:
    """Every index pair whose subjects may match (seed 000 STEP 3, condition 3)."""
    return (
        nesting_pairs([s.slug for s in subjects])
        | nesting_pairs([s.title for s in subjects])
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
        for cue in found.keys() - _POSITIVE_CUES:
            for word in _union(found[cue]):
                denials[(cue, word)].append(i)
    pairs: set[IndexPair] = set()
    for i, found in enumerate(cues):
        for pos in found.keys() & _POSITIVE_CUES:
            words = _union(found[pos])
            for key in ((neg, w) for neg in _NEGATIONS_OF[pos] for w in words):
                pairs.update(_ordered(i, j) for j in denials.get(key, ()) if j != i)
    return pairs


# --- duplicates and contradictions (seed 000 STEPs 3 and 4) -------------------------------------

#: Seed 000 STEP 3: body overlap from which two same-subject memories are duplicates.
DUPLICATE_OVERLAP = 0.6
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
    """Duplicates, then contradictions among the rest, and what finding them cost."""

    duplicates: tuple[Pair, ...]
    contradictions: tuple[Pair, ...]
    comparisons: Comparisons

    def survivor_of(self, name: str) -> str | None:
        """The file that finally stands for a pruned one (None when ``name`` is not pruned).

        Usually ``Pair.newer``; when that file was itself contradicted by a
        newer one (A duplicates B, C contradicts B), the chain is followed to
        the file that is kept (C).
        """
        newer = {p.older.name: p.newer.name for p in (*self.duplicates, *self.contradictions)}
        if name not in newer:
            return None
        while name in newer:
            name = newer[name]
        return name


def age_key(memory: MemoryFile) -> tuple[float, str]:
    """Seed 000 STEPs 3-4 "keep the newer": by mtime; on a tie the later file name is newer."""
    return (memory.mtime.timestamp(), memory.name)


def overlap_reaches(shared: int, smaller: int, threshold: float) -> bool:
    """Whether ``shared`` words reach ``threshold`` of the ``smaller`` set, in exact arithmetic."""
    return _reaches(shared, smaller, _exact(threshold))


def is_duplicate_overlap(shared: int, smaller: int) -> bool:
    """Seed 000 STEP 3, condition 2: at least 60 % of the smaller set's words are shared."""
    return overlap_reaches(shared, smaller, DUPLICATE_OVERLAP)


def is_contradiction_overlap(shared: int, smaller: int) -> bool:
    """Seed 000 STEP 4, condition 1: related but not duplicate, 0.4 <= overlap < 0.6."""
    return _reaches(shared, smaller, _exact(CONTRADICTION_OVERLAP)) and not is_duplicate_overlap(
        shared, smaller
    )


class _Group:
    """One type's memories, oldest first, and the pairs among them that can be pruned.

    ``duplicates[i]`` and ``contradictions[i]`` list the newer memories ``j``
    that memory ``i`` duplicates (same subject, overlap at least 0.6) or
    contradicts (negation signal, overlap from 0.4 up to 0.6). Body words are
    computed only for memories in a pair that passed its subject or signal test.
    """

    def __init__(self, files: Sequence[MemoryFile], *, exhaustive: bool = False) -> None:
        self.files = sorted(files, key=age_key)
        self.cues = [cue_objects(f.body) for f in self.files]
        self.subjects = [subject_of(f) for f in self.files]
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
        """Seed 000 STEP 3 for a same-type, same-subject pair (``i`` older)."""
        shared, smaller = self._overlap(i, j)
        if is_duplicate_overlap(shared, smaller):
            self.pairs[(i, j)] = Pair(self.files[i], self.files[j], shared / smaller, "duplicate")
            self.duplicates[i].append(j)

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
            found = [self.pairs[(i, k)] for k in partners.get(i, ()) if k in kept]
            if found:
                pruned[i] = max(found, key=lambda p: (p.ratio, age_key(p.newer)))
            else:
                kept.add(i)
        return pruned


def _similar_in_group(files: Sequence[MemoryFile], exhaustive: bool) -> Similarity:
    group = _Group(files, exhaustive=exhaustive)
    duplicates = group.newest_first(range(len(group.files)), "duplicate")
    alive = [i for i in range(len(group.files)) if i not in duplicates]
    contradictions = group.newest_first(alive, "contradiction")
    n = len(group.files)
    return Similarity(
        tuple(duplicates.values()),
        tuple(contradictions.values()),
        Comparisons(group.screened, group.compared, n * (n - 1) // 2),
    )


def _by_older_name(pairs: Iterable[Pair]) -> tuple[Pair, ...]:
    return tuple(sorted(pairs, key=lambda p: p.older.name))


def find_similar(files: Iterable[MemoryFile], *, exhaustive: bool = False) -> Similarity:
    """Seed 000 STEPs 3 then 4 over one folder's memories (file names unique).

    Duplicates first; a memory pruned as a duplicate is not used again, and
    contradictions are sought among the rest. Memories without a type never
    pair. Pairs come sorted by the pruned file's name; the order of ``files``
    never changes the result. ``exhaustive`` compares every pair within a type,
    as the seed's loop does: the result is the same, only slower (a check).
    """
    by_type: dict[str, list[MemoryFile]] = defaultdict(list)
    for memory in files:
        if memory.type is not None:
            by_type[memory.type].append(memory)
    parts = [_similar_in_group(by_type[kind], exhaustive) for kind in sorted(by_type)]
    comparisons = Comparisons(0, 0, 0)
    for part in parts:
        comparisons += part.comparisons
    return Similarity(
        _by_older_name(p for part in parts for p in part.duplicates),
        _by_older_name(p for part in parts for p in part.contradictions),
        comparisons,
    )


def find_duplicates(files: Iterable[MemoryFile]) -> list[Pair]:
    """Seed 000 STEP 3: older duplicates to prune, each with the newer memory it duplicates."""
    return list(find_similar(files).duplicates)


def find_contradictions(files: Iterable[MemoryFile]) -> list[Pair]:
    """Seed 000 STEP 4: older contradicted memories, among those not pruned as duplicates."""
    return list(find_similar(files).contradictions)
