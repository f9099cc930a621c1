"""The standing-instruction rules of the heuristic extractor (seed 002 phase 3 topics scan).

What a rule recognises is a ``Hit``: the item's category, type, calibrated
confidence (``CONFIDENCE``) and where the trigger sits. This module holds that
type, the lexicon the statement rules share (verbs, stop words, deictic
words, directive prefixes) and the rules for instructions the user means to
last: "always/never ...", "don't ...", "from now on ...", "remember ...",
"<thing> must always ...", each in English, German, Japanese and Chinese.
The rules for choices and references are in ``dreamd.collect.choices``.

Invariants:

- a rule is a pure function ``Sentence -> Hit | None`` that reads the masked
  ``core`` (fillers skipped, quoted spans blanked), so quoted words never fire;
- a rule is narrow on purpose (noise is worse than a miss, safety contract 6):
  a clause that points at the moment ("this", "for now", 今回, 这次) or has no
  content word returns ``None``;
- a ``Hit`` is not yet an item: the guards in ``dreamd.collect.sentences``
  (question, hedge, size) still reject it;
- every ``Hit.rule`` is a key of ``CONFIDENCE``.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamd.collect.lexicon import DE_IMPERATIVES, DE_STOP, DEICTIC, EN_STOP, EN_VERBS, wordset
from dreamd.collect.sentences import (
    CJK,
    MIN_WORDS,
    TRAILING_MARKS,
    Sentence,
    sized,
)
from dreamd.stores import ItemType

__all__ = [
    "CONFIDENCE",
    "DEICTIC",
    "DE_STOP",
    "EN_STOP",
    "MIN_DONT_WORDS",
    "Hit",
    "has_content",
    "latin_words",
    "rule_always_never",
    "rule_dont",
    "rule_from_now_on",
    "rule_must",
    "rule_remember",
    "wordset",
]

# --- Hits ------------------------------------------------------------------------------------

#: Calibrated confidence of each rule: explicit durable markers score highest,
#: bare prohibitions and "X instead of Y" (often one-off instructions) lowest.
CONFIDENCE: dict[str, float] = {
    "from_now_on": 0.85,
    "always_never": 0.8,
    "remember": 0.75,
    "decision_because": 0.7,
    "preference": 0.7,
    "reference": 0.7,
    "must": 0.65,
    "instead_of": 0.6,
    "dont": 0.55,
    "dont_durable": 0.7,
    "gotcha": 0.6,
    "fact": 0.6,
}

MIN_DONT_WORDS = 4  # "don't add notes" is a one-off; "don't mock the database" may not be


@dataclass(frozen=True, slots=True)
class Hit:
    """What one rule recognised: the item's category, type and confidence, and where.

    ``at`` is the trigger's offset in the sentence core (guards look before it);
    ``key`` replaces the statement as the identity of the item when set (a URL).
    """

    rule: str
    category: str
    type: ItemType
    at: int = 0
    key: str = ""

    @property
    def confidence(self) -> float:
        """The rule's calibrated constant."""
        return CONFIDENCE[self.rule]


# --- Rules -----------------------------------------------------------------------------------

_EN_CONDITION = re.compile(
    r"^(?:when(?:ever)?|before|after|each time|every time)\b[^,]{2,80},\s*", re.I
)
_EN_REQUEST = re.compile(
    r"^(?:i (?:want|need) you to|i'?d like you to|i would like you to|make sure (?:to|that you|you)"
    r"|be sure to|you(?:\s+(?:should|must|need to|have to|will)|'ll)"
    r"|we (?:should|must|need to|have to)"
    r"|(?:in|for) (?:this|our|the) (?:repo|repository|project|codebase|code base|team),? we)\s+",
    re.I,
)
_EN_ALWAYS = re.compile(r"^(?:always|never|(?:don'?t|do not) ever)\s+([a-z][a-z-]*)(.*)$", re.I)
_DE_ALWAYS = re.compile(
    r"\b(?:immer|stets|grundsätzlich|nie|niemals|keinesfalls)\b(?!\s+(?:noch|wieder|mehr|weniger"
    r"|schon|öfter))",
    re.I,
)
_DE_NOT = re.compile(r"\b(?:nicht|kein(?:e|en|em|er|es)?)\b", re.I)
_DE_INFINITIVE = re.compile(r"\w+(?:en|ern|eln)$", re.I)
_JA_ASK = re.compile(
    r"(?:て|で)(?:ください|下さい|ほしい(?:です)?)$|(?:る|う|く|す|つ|ぬ|む|ぶ|ぐ)こと$|ないこと$"
    r"|ないで(?:ください|下さい|ね)?$|べき(?:です|だ)?$|ように(?:して(?:ください|ね)?|お願いします)$"
    r"|禁止(?:です)?$|お願いします$|ましょう$"
)
_JA_GREETING = re.compile(r"よろしく|ありがとう|お疲れ|お世話")
_ZH_VERBS = (
    "用|使用|先|写|跑|运行|执行|检查|提交|回复|回答|保持|加|添加|测试|确认|遵循|格式化|更新|记得|把|在|给"
    "|以|说明|注明|标注|引用|附上|询问|删除|避免|保留|备份|锁定|固定"
)


def latin_words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def has_content(text: str, stop: frozenset[str]) -> bool:
    return any(word not in stop and not word.isdigit() for word in latin_words(text))


def _en_directive(core: str) -> tuple[int, str]:
    """Offset and rest of an English directive after a condition and a request prefix."""
    at = 0
    for prefix in (_EN_CONDITION, _EN_REQUEST):
        found = prefix.match(core[at:])
        if found:
            at += found.end()
    return at, core[at:]


def _ja_clause(core: str) -> str:
    return core.rstrip(TRAILING_MARKS)


def _ja_request(clause: str) -> bool:
    """A Japanese request or obligation ending (…してください, …すること), not a greeting."""
    return bool(_JA_ASK.search(clause)) and not _JA_GREETING.search(clause)


def rule_always_never(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a rule with "always"/"never" the user states.

    English imperatives ("Always run ...", "please never ...", "you must always
    ..."), German ("Verwende immer ...", "Nie direkt auf main pushen"), Japanese
    (常に/必ず/いつも/絶対に…ない + a request ending), Chinese (总是/始终/永远不要).
    """
    at, rest = _en_directive(s.core)
    found = _EN_ALWAYS.match(rest)
    if found and found.group(1).split("-")[0].lower() in EN_VERBS:
        clause = re.split(r"[,;:(]", found.group(2))[0]
        return Hit("always_never", "Rule", "feedback", at) if has_content(clause, EN_STOP) else None
    return _de_always(s.core) or _ja_always(s.core) or _zh_always(s.core)


def _de_always(core: str) -> Hit | None:
    words = latin_words(core)
    if not words or not _DE_ALWAYS.search(core):
        return None
    imperative = words[0] in DE_IMPERATIVES or (
        len(words) > 1 and words[1] == "sie" and words[0].endswith("en")
    )
    infinitive_style = words[0] in ("immer", "stets", "nie", "niemals") and _DE_INFINITIVE.search(
        core.rstrip(TRAILING_MARKS)
    )
    modal = re.match(r"^du\s+(?:sollst|solltest|musst)\s+(?:immer|stets|nie|niemals)\b", core, re.I)
    if (imperative or infinitive_style or modal) and has_content(" ".join(words[1:]), DE_STOP):
        return Hit("always_never", "Rule", "feedback")
    return None


def _ja_always(core: str) -> Hit | None:
    clause = _ja_clause(core)
    found = re.search(r"常に|必ず|いつも|絶対に?|決して|毎回", clause)
    if not found or not _ja_request(clause):
        return None
    return Hit("always_never", "Rule", "feedback", found.start())


def _zh_always(core: str) -> Hit | None:
    lead = r"^(?:请(?:你)?|(?:你|我们)?(?:要|必须|应该|务必))?"
    always = re.match(rf"{lead}(?:总是|始终|一律|每次都要?)(?:{_ZH_VERBS})(.{{2,}})", core)
    never = re.match(rf"{lead}(?:永远|千万|绝对|决不|绝不)(?:不要|别|不能|不可以)(.{{3,}})", core)
    found = always or never
    if found is None or DEICTIC.search(found.group(1)):
        return None
    return Hit("always_never", "Rule", "feedback")


_EN_DONT = re.compile(
    r"^(?:don'?t|do not|(?:you|we) (?:must|should) not|(?:you|we) mustn't|(?:you|we) shouldn't)"
    r"\s+(?:ever\s+)?([a-z][a-z-]*)\b([^,;:(]*)(.*)$",
    re.I,
)
#: Words that may follow "don't X," without making it a "don't X, do Y" redirect.
_CONTINUATIONS = wordset(
    """they it its it's that that's this because since as ever even otherwise unless except or
    especially not no we you i the a an so which every any in on for with please"""
)
_THIS_REPO = re.compile(r"\b(?:in|for) this (?:repo|repository|project|codebase|code base)\b", re.I)
_DURABLE = re.compile(
    r"\b(?:ever|again|anymore|any more|in general|unless|every time|each time|whenever"
    r"|in this (?:repo|repository|project|codebase))\b",
    re.I,
)


def rule_dont(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a prohibition the user states ("don't ...", "do not ...").

    Bare prohibitions are most often one-off instructions, so the clause must
    stand alone (no "don't X, do Y" redirect), be at least ``MIN_DONT_WORDS``
    long and point at nothing in the moment ("don't commit this yet"). German
    ("Bitte nicht ... pushen", "Verwende keine ..."), Japanese (…しないでください)
    and Chinese (不要/别 …) likewise.
    """
    at, rest = _en_directive(s.core)
    found = _EN_DONT.match(rest)
    if found:
        verb, clause, tail = found.groups()
        then = re.match(r"\s*[,;:]\s*([\w']+)", tail)
        redirect = then is not None and then.group(1).lower() not in _CONTINUATIONS
        if (
            verb.split("-")[0].lower() not in EN_VERBS
            or redirect
            or len(rest[: found.end(2)].split()) < MIN_DONT_WORDS
            or DEICTIC.search(_THIS_REPO.sub(" ", clause))
            or not has_content(clause, EN_STOP)
        ):
            return None
        rule = "dont_durable" if _DURABLE.search(s.core) else "dont"
        return Hit(rule, "Rule", "feedback", at)
    return _de_dont(s.core) or _cjk_dont(s.core)


def _de_dont(core: str) -> Hit | None:
    words = latin_words(core)
    if len(words) < MIN_DONT_WORDS or DEICTIC.search(core):
        return None
    infinitive = _DE_INFINITIVE.search(core.rstrip(TRAILING_MARKS))
    if re.match(r"^(?:nicht|kein(?:e|en|em|er|es)?)\b", core, re.I) and infinitive:
        return Hit("dont", "Rule", "feedback")
    if words[0] in DE_IMPERATIVES and _DE_NOT.search(" ".join(words[1:3])):
        return Hit("dont", "Rule", "feedback")
    return None


def _cjk_dont(core: str) -> Hit | None:
    clause = _ja_clause(core)
    if DEICTIC.search(clause) or len(CJK.findall(clause)) < 8:
        return None
    if re.search(r"ないで(?:ください|下さい)?$|ないこと$|禁止(?:です)?$", clause):
        return Hit("dont", "Rule", "feedback")
    if re.match(r"^(?:请)?(?:你)?(?:不要|别(?!人)|不许|禁止)", clause):
        return Hit("dont", "Rule", "feedback")
    return None


_EN_FROM_NOW = re.compile(
    r"^(?:from now on|going forward|moving forward|from here on(?: out)?|in (?:the )?future"
    r"|henceforth)\s*,?\s*(.+)$|^(.+?)\s*,?\s*(?:from now on|going forward|moving forward"
    r"|from here on(?: out)?|in (?:the )?future|henceforth)\s*[.!]*$",
    re.I,
)
_EN_WE_YOU = re.compile(
    r"^(?:we|you)\s+(?:(?:will|'ll|should|must|are going to|'re going to|always|never|only)\s+)?"
    r"([a-z][a-z-]*)",
    re.I,
)
_DE_FROM_NOW = re.compile(
    r"\b(?:ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|ab heute)\b",
    re.I,
)
_JA_FROM_NOW = re.compile(r"今後は?|これからは|以後は?|以降は|次回から|これ以降")
_ZH_FROM_NOW = re.compile(
    r"^(?:从现在开始|从今以后|从今天起|从现在起|今后|以后|往后)[，,]?"
    r"(?:都|请|一律|要|必须|不要|别|统一|全部|一定|总是)(.{2,})"
)


def _en_directive_ok(rest: str) -> bool:
    """An English directive: an imperative verb, or "we/you (will|should|...) <verb>"."""
    _, rest = _en_directive(rest.strip())
    found = re.match(r"^(?:(?:always|never|only|don'?t|do not)\s+)?([a-z][a-z-]*)", rest, re.I)
    verb = found.group(1).split("-")[0].lower() if found else ""
    if verb in EN_VERBS:
        return has_content(rest[found.end() :] if found else "", EN_STOP)
    we_you = _EN_WE_YOU.match(rest)
    if we_you is None or we_you.group(1).split("-")[0].lower() not in EN_VERBS:
        return False
    return has_content(rest[we_you.end() :], EN_STOP)


def rule_from_now_on(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a standing instruction ("from now on ...", "going forward").

    German "ab jetzt/ab sofort/künftig", Japanese 今後は/これからは + a request
    ending, Chinese 从现在开始/以后都 … (never 以后再说, "later").
    """
    found = _EN_FROM_NOW.match(s.core)
    if found:
        return (
            Hit("from_now_on", "Rule", "feedback")
            if _en_directive_ok(found.group(1) or found.group(2))
            else None
        )
    if _DE_FROM_NOW.search(s.core):
        rest = _DE_FROM_NOW.sub(" ", s.core).strip(" ,")
        words = latin_words(rest)
        starts = bool(words) and (
            words[0] in DE_IMPERATIVES
            or words[0] in ("bitte", "immer", "stets", "nie", "niemals", "nicht", "keine")
            or bool(re.match(r"^\w+en\s+(?:wir|sie)\b", rest, re.I))
            or (words[0] == "wir" and len(words) > 1 and words[1].endswith("en"))
        )
        return (
            Hit("from_now_on", "Rule", "feedback") if starts and len(words) >= MIN_WORDS else None
        )
    clause = _ja_clause(s.core)
    found = _JA_FROM_NOW.search(clause)
    we_will = re.search(r"(?:を使います|にします|でいきます|で行きます)$", clause)
    if found and (_ja_request(clause) or (we_will and not _JA_GREETING.search(clause))):
        return Hit("from_now_on", "Rule", "feedback", found.start())
    return Hit("from_now_on", "Rule", "feedback") if _ZH_FROM_NOW.match(clause) else None


_EN_REMEMBER = re.compile(
    r"^(?:always\s+)?(?:remember|keep in mind|for future reference|make a note)"
    r"(?:\s+(that)\b|\s*[:,\-–—]|\s+(to)\b)\s*(.+)$",
    re.I,
)
_EN_EVERY_TIME = re.compile(
    r"\b(?:always|every time|each time|whenever|before (?:every|each|any)|after (?:every|each)"
    r"|in (?:the )?future)\b",
    re.I,
)
_DE_REMEMBER = re.compile(
    r"^(?:merk(?:e)? dir|merken sie sich|denk(?:e)? daran|denken sie daran|zur erinnerung"
    r"|für die zukunft)\s*[:,]?\s*(?:dass\s+)?(.+)$",
    re.I,
)


def rule_remember(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: something the user asks to be remembered.

    "Remember that ...", "remember: ...", "keep in mind that ..."; "remember to X"
    only with a standing cue (always, every time, before each ...). German "merk
    dir/denk daran", Japanese 覚えておいて, Chinese 记住.
    """
    found = _EN_REMEMBER.match(s.core)
    if found:
        to, rest = found.group(2), found.group(3)
        if to and not _EN_EVERY_TIME.search(rest):
            return None
        enough = len(rest.split()) >= MIN_WORDS and has_content(rest, EN_STOP)
        return Hit("remember", "Rule", "feedback") if enough else None
    found = _DE_REMEMBER.match(s.core)
    if found:
        enough = len(found.group(1).split()) >= MIN_WORDS
        return Hit("remember", "Rule", "feedback") if enough else None
    clause = _ja_clause(s.core)
    found = re.search(
        r"覚えて(?:お|と)いて(?:ください|下さい|ほしい|ね)?|^(?:请)?(?:你)?记住", clause
    )
    if found:
        rest = (clause[: found.start()] + clause[found.end() :]).strip("：:、，, ")
        if sized(rest) and not DEICTIC.search(rest):
            return Hit("remember", "Rule", "feedback", found.start())
    return None


_EN_MUST = re.compile(
    r"^([\w`'./@#-]+(?:\s+[\w`'./@#-]+){0,5}?)\s+(?:must|should|need to|have to)\s+(?:always|never"
    r"|not ever)\s+([a-z][a-z-]*)(.*)$",
    re.I,
)
_PRONOUNS = wordset(
    """it this that these those they he she i you we there which what who something everything
    nothing someone one"""
)


def rule_must(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a standing requirement on a named thing.

    "Invalid themes must never explode", "the main branch should always build":
    the subject must be a noun phrase, not a pronoun or a pointer ("that should
    never happen" is a complaint, not a rule).
    """
    found = _EN_MUST.match(s.core.rstrip(TRAILING_MARKS))
    if not found or DEICTIC.search(s.core):
        return None
    subject = latin_words(found.group(1))
    if not subject or subject[0] in _PRONOUNS:
        return None
    return Hit("must", "Rule", "feedback")
