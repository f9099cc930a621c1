"""Text preparation and guards for the heuristic extractor (seed 002 phase 3).

A user message becomes sentences the statement rules can read: ``user_prose``
keeps only what the user typed (no machine prompts, slash commands, fenced
code, pasted logs or documents), ``sentences`` splits it per line and per stop
and masks quoted spans (Markdown emphasis marks become plain), ``clauses``
splits a run-on sentence at commas, colons and dashes. The guards reject a
sentence whatever rule recognised it: a question, a hedge (volition such as
"I would like" is none), a hypothetical or reported speech, a fragment.

Invariants:

- every ``Sentence.text`` is a verbatim substring of the prose it came from,
  so a quote taken from it can be found in the message again;
- ``Sentence.masked`` has the same length as ``text`` (offsets carry over)
  with quoted spans and inline code blanked, so a trigger word in quotes
  never counts;
- guards only reject: none of them makes a sentence plant anything;
- pure functions of their arguments: no clock, no I/O, no randomness.
"""

# The patterns match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import takewhile

from dreamd.markdown import without_fenced

__all__ = [
    "CJK",
    "FILLERS",
    "MAX_PROSE_CHARS",
    "MAX_SENTENCE_CHARS",
    "MIN_CJK_CHARS",
    "MIN_WORDS",
    "PASTE_LINE_SHARE",
    "PASTE_MIN_LINES",
    "TRAILING_MARKS",
    "Sentence",
    "clauses",
    "hedged",
    "is_question",
    "sentences",
    "sized",
    "user_prose",
]

MIN_WORDS = 3  # a statement shorter than this (Latin script) is a fragment
MIN_CJK_CHARS = 6  # the same for Japanese and Chinese, counted in characters
MAX_SENTENCE_CHARS = 300  # longer run-on sentences are not clean statements
MAX_PROSE_CHARS = 1500  # more user prose than this is a pasted document
PASTE_MIN_LINES = 3  # a message of at least this many lines ...
PASTE_LINE_SHARE = 0.5  # ... mostly pasted output keeps only its lead-in prose

# --- Text preparation ------------------------------------------------------------------------

_MACHINE = re.compile(
    r"^(?:<|\[Request interrupted|Implement the following plan|This session is being continued"
    r"|Caveat:|/[\w-]+(?:\s|$)|\{|\[\{)",
    re.I,
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")
_LOG_LINE = re.compile(
    r"^(?:at\s+\S.*[(:]\d|File \".*\", line \d|Traceback|[\w.$]*(?:Error|Exception|Warning):"
    r"|npm (?:ERR|WARN)|(?:error|warning|fatal|panic)(?:\[\w+\])?:|E\s{2,}|[$❯➜%#»]\s|>>>\s"
    r"|\.\.\.\s|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|\d+\s*[|:]\s|\d+\s{2,}"
    r"|[{\[<}\])]|[-=_─━*~#]{3,})",
    re.I,
)
_CODE_LINE = re.compile(
    r"(?:[;{]|=>)\s*$|^(?:def|class|function|func|fn)\s+\w+\s*\(|^(?:const|let|var)\s+\w+\s*="
    r"|^(?:import\s+[\w.{]+|from\s+[\w.]+\s+import)\b|^#include\b"
)
_BOX = re.compile(r"[\u2500-\u257f\u2800-\u28ff]")
_SYMBOLS = frozenset("{}[]()<>;=|\\$#@*&^%~`_/:")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
_CLAUSE_END = re.compile(r"[,;:，；：](?=\s|[^\x00-\x7f])|\s[-–—]\s")
_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|「[^」\n]*」")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
FILLERS = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|but|btw|oh|hey|alright|right|yes|yeah|yep|please|pls|plz"
    r"|again|important|note|nb|reminder|one more thing|rule|actually|hmm+|hm|omg|omfg|ugh|argh"
    r"|und|bitte|übrigens|ja|wichtig|hinweis|vale|bueno|oye|mira|por favor|sí|además"
    r"|ademas|importante|ojo|nota)\b[\s,:;!.\-–—]*"
    r"|(?:no|nope|nein|well|wait|dude|man|look|listen|ok so)\s*[,:;!.\-–—]+\s*"
    r"|(?:另外|还有|对了|好的|注意|重要|嗯|あと|それと|なお|ちなみに)[：:，,、\s]*)+",
    re.I,
)


def _is_pasted(line: str) -> bool:
    """Whether one line looks like program output, code or a quote rather than typed prose."""
    if line.startswith(("    ", "\t")):
        return True
    stripped = line.strip()
    if stripped.startswith(">") or _LOG_LINE.match(stripped) or _BOX.search(stripped):
        return True
    if _CODE_LINE.search(stripped):
        return True
    text = _URL.sub("", stripped).replace(" ", "")
    return len(text) > 8 and sum(ch in _SYMBOLS for ch in text) / len(text) > 0.25


def user_prose(text: str) -> str:
    """The prose a user typed in a message, or ``""`` when it is not the user's own words.

    Seed 002 safety contract 6: machine prompts, slash commands, pasted
    documents and tool output plant nothing. Fenced code and pasted lines are
    removed; a message that is mostly pasted output keeps only the lead-in the
    user typed before it.
    """
    text = text.replace("\r\n", "\n")
    if _MACHINE.match(text.lstrip()):
        return ""
    lines = [line for line in without_fenced(text).split("\n") if line.strip()]
    if sum(1 for line in lines if _HEADING.match(line)) >= 2:
        return ""
    pasted = [_is_pasted(line) for line in lines]
    if len(lines) >= PASTE_MIN_LINES and sum(pasted) / len(lines) >= PASTE_LINE_SHARE:
        kept = [
            line for line, _ in takewhile(lambda pair: not pair[1], zip(lines, pasted, strict=True))
        ]
    else:
        kept = [line for line, is_pasted in zip(lines, pasted, strict=True) if not is_pasted]
    prose = "\n".join(kept)
    return "" if len(prose) > MAX_PROSE_CHARS else prose


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of user prose, ready for the rules.

    ``masked`` has the same length as ``text`` with quoted spans and inline
    code blanked, so a trigger word inside quotes does not count;
    ``core_at`` skips leading fillers ("ok, please ..."); ``follow`` is the next
    sentence of the same message (a reason may be there).
    """

    text: str
    masked: str
    core_at: int
    follow: str = ""

    @property
    def core(self) -> str:
        """The masked sentence without its leading fillers (what the rules match)."""
        return self.masked[self.core_at :]

    @property
    def statement(self) -> str:
        """The user's words without leading fillers (what the item says)."""
        return self.text[self.core_at :].strip()


#: Markdown emphasis around a word ("only _one_ way", "**never**"): the word counts, not the marks.
_EMPHASIS = re.compile(r"(?<![\w*_])([*_]{1,2})(?=\w)([^*_\n]{1,40}?)(?<=\w)\1(?![\w*_])")


def _mask(text: str) -> str:
    """Same length as ``text``: quoted spans blanked, emphasis marks and curly apostrophes plain."""
    blanked = _QUOTED.sub(lambda m: m.group()[0] + "x" * (len(m.group()) - 2) + m.group()[-1], text)
    plain = _EMPHASIS.sub(
        lambda m: " " * len(m.group(1)) + m.group(2) + " " * len(m.group(1)), blanked
    )
    return plain.replace("’", "'")


def _sentence(part: str, follow: str = "") -> Sentence:
    masked = _mask(part)
    filler = FILLERS.match(masked)
    return Sentence(part, masked, filler.end() if filler else 0, follow)


def clauses(sentence: Sentence) -> list[Sentence]:
    """The clauses of a run-on sentence, each a verbatim substring of it (issue 11 item 1).

    Users chain instructions with commas and colons ("fix the parser, no
    mocks in tests"); a rule may read one clause alone. A sentence that ends
    with a question mark gives no clauses (the question scopes over all of
    it: "never push to main, right?"); a clause that opens with a question
    word is dropped by the question guard as any sentence would be.
    """
    text = sentence.text
    if text.rstrip(TRAILING_MARKS).endswith(("?", "？")):
        return []
    cuts = [(m.start(), m.end()) for m in _CLAUSE_END.finditer(sentence.masked)]
    starts = [0, *(end for _, end in cuts)]
    ends = [*(start for start, _ in cuts), len(text)]
    parts = (text[start:end].strip() for start, end in zip(starts, ends, strict=True))
    found = [_sentence(part, sentence.follow) for part in parts if part]
    return found if len(found) > 1 else []


def sentences(prose: str) -> list[Sentence]:
    """Split prose into sentences: per line (lists are typed one item a line), then per stop.

    Each sentence is a verbatim substring of ``prose`` (so quotes can be found again).
    """
    parts: list[str] = []
    for line in prose.split("\n"):
        line = _BULLET.sub("", line)
        parts.extend(part.strip() for part in _SENTENCE_END.split(line))
    parts = [part for part in parts if part]
    follows = [*parts[1:], ""][: len(parts)]
    return [_sentence(part, follow) for part, follow in zip(parts, follows, strict=True)]


# --- Guards ----------------------------------------------------------------------------------

_QUESTION_START = re.compile(
    r"^(?:(?:why|what|how|where|which|who|whom|whose|wtf|warum|wieso|weshalb|wie|wo|wann|wer"
    r"|welche[rsmn]?|woher|wohin|womit)\b|(?:can|could|would|will|should|shall|may|might|must"
    r"|do|does|did|is|are|was|were|am|have|has|had|isn't|aren't|doesn't|don't|didn't|won't"
    r"|wouldn't|shouldn't|can't|couldn't)\s+(?:you|we|i|they|it|he|she|this|that|there|these"
    r"|those|the|our|my|your)\b|(?:kannst|kann|können|könnt|könntest|könnten|sollen|sollten|soll"
    r"|sollte|musst|muss|müssen|darf|dürfen|willst|wollen|würdest|würde|würden|hast|hat|haben"
    r"|habt|ist|sind|bist|gibt|wird|werden|wirst)\s+(?:du|wir|ihr|sie|es|man|er|ich|das|die|der)\b"
    r"|\w+s?t\s+(?:du|ihr)\b)",
    re.I,
)
_QUESTION_END = re.compile(r"(?:か|かな|かね|っけ|の|吗|呢|么|嗎|呀)$")
_QUESTION_WORDS = re.compile(
    r"为什么|怎么|什么|如何|哪|是不是|能不能|可不可以|要不要|是否|有没有|なぜ|どうして|どうやって"
    r"|どうすれば|どうしたら|なんで"
)
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|might|could|would|probably|possibly|i guess|i think|i feel like|not sure"
    r"|wondering|vielleicht|eventuell|könnte|könnten|würde|würden|wahrscheinlich|ich glaube"
    r"|glaube ich|quizás|quizas|quizá|quiza|tal vez|a lo mejor|probablemente|creo que"
    r"|me parece que|podría|podria|podríamos|podriamos|no estoy seguro)\b"
    r"|かもしれ|たぶん|多分|でしょう|だろう|と思う|と思います|也许|可能|或许|大概"
    r"|我觉得|我想",
    re.I,
)
#: "I would like", "I'd only want", "ich würde gern", "me gustaría": volition, not a hedge.
_POLITE_REQUEST = re.compile(
    r"\b(?:i|we)(?:'d| would)\s+(?:only\s+|rather\s+|really\s+)?(?:like|want|prefer)\b"
    r"|\b(?:ich|wir)\s+(?:würde|würden)\s+(?:gerne?|lieber|nur)\b|\bme gustaría\b",
    re.I,
)
_BEFORE_TRIGGER = re.compile(
    r"\b(?:if|what if|suppose|supposing|imagine|assuming|in case|hypothetically|wenn|falls"
    r"|angenommen|sofern|you said|you told|you wrote|you mentioned|you promised|he said|she said"
    r"|they said|it says|the docs say|as you said|du hast gesagt|sagtest du|si|en caso de que"
    r"|suponiendo que|supongamos que|imagina que|dijiste|me dijiste|dijo que)\b|もし|仮に|たとえば"
    r"|例えば|如果|假如|要是|假设|万一|比如|って言った|と言った|你说",
    re.I,
)
TRAILING_MARKS = " \t.!。！…~)）"


def is_question(sentence: Sentence) -> bool:
    """A question asks; it establishes nothing (chit-chat and "can you always ...?" alike)."""
    text = sentence.core.strip()
    if "?" in text or "？" in text or _QUESTION_START.match(text):
        return True
    return bool(_QUESTION_END.search(text.rstrip(TRAILING_MARKS)) or _QUESTION_WORDS.search(text))


def hedged(core: str, at: int) -> bool:
    """Hedges anywhere, or a hypothetical / reported-speech marker before the trigger."""
    return bool(_HEDGES.search(_POLITE_REQUEST.sub(" ", core)) or _BEFORE_TRIGGER.search(core[:at]))


def sized(text: str) -> bool:
    """Long enough to be a statement: ``MIN_WORDS`` words, or ``MIN_CJK_CHARS`` characters
    in Japanese and Chinese (where a Latin word such as ``pnpm`` counts as two)."""
    if CJK.search(text):
        latin = re.findall(r"[A-Za-z0-9]+", _URL.sub(" x ", text))
        return len(CJK.findall(text)) + 2 * len(latin) >= MIN_CJK_CHARS
    return len(text.split()) >= MIN_WORDS
