"""Negation cues: whether one memory denies a claim of another (seed 000 STEP 4). Pure.

Seed 000 STEP 4, condition 2: a contradiction needs a negation signal, the
positive form of a ``NEGATION_PAIRS`` claim in one body and its negative form
in the other, about the same object. A cue's object is the first
``OBJECT_WORDS`` significant, non-cue words after it, within its clause
(``cue_objects``); two objects are the same when they share
``OBJECT_MIN_SHARED`` words, or all of the shorter one's (``same_object``).

Conservative: a positive cue right after a negating word (``never use``,
``not always``) is no positive claim, a claim never runs past its clause, and
a cue with nothing significant after it is dropped.
"""

from __future__ import annotations

import re
from collections import defaultdict

from dreamd.dream.folder.words import MIN_WORD_LENGTH, STOPWORDS, WORD_EDGES, ascii_apostrophes

__all__ = [
    "NEGATIONS_OF",
    "NEGATION_PAIRS",
    "OBJECT_MIN_SHARED",
    "OBJECT_WORDS",
    "POSITIVE_CUES",
    "CueObjects",
    "cue_objects",
    "negation_signal",
    "same_object",
    "signal_between",
]

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

POSITIVE_CUES = frozenset(pos for pos, _ in NEGATION_PAIRS)
NEGATIONS_OF = {pos: tuple(n for p, n in NEGATION_PAIRS if p == pos) for pos in POSITIVE_CUES}
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
        word = token.strip(WORD_EDGES)
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
    return word.strip(WORD_EDGES) in _NEGATORS


def cue_objects(body: str) -> CueObjects:
    """The negation cues of a body (``NEGATION_PAIRS`` forms), each with its objects.

    Read lowercased; a claim never runs past its clause (``.;:!?`` then a
    space, or a line end). A positive cue right after a negating word
    (``never use``, ``not always``) is not a positive claim; a cue with no
    significant word after it has no object and is dropped.
    """
    found: dict[str, set[frozenset[str]]] = defaultdict(set)
    text = ascii_apostrophes(body.lower())
    for match in _CUE.finditer(text):
        cue = " ".join(match.group(1).split()) + " "
        if cue in POSITIVE_CUES and _negated(text, match.start()):
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
