"""The standing-instruction rules of the heuristic extractor (seed 002 phase 3 topics scan).

What a rule recognises is a ``Hit``: the item's category, type, calibrated
confidence (``CONFIDENCE``) and where the trigger sits. This module holds that
type, the helpers the statement rules share (directive prefixes, content
words, Japanese request endings) and the rules for "always/never ..." and
"don't ...", each in English, German, Spanish, Japanese and Chinese. The word
lists are in ``dreamd.collect.lexicon``; "from now on", "remember" and
"<thing> must always" in ``dreamd.collect.standing``; choices and references
in ``dreamd.collect.choices``; normative statements in ``dreamd.collect.norms``.

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

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamd.collect.lexicon import (
    DE_IMPERATIVES,
    DE_STOP,
    DEICTIC,
    EN_STOP,
    EN_VERBS,
    ES_IMPERATIVES,
    ES_PROHIBITIVES,
    ES_STOP,
    wordset,
)
from dreamd.collect.sentences import (
    CJK,
    TRAILING_MARKS,
    Sentence,
)
from dreamd.stores import ItemType

__all__ = [
    "CONFIDENCE",
    "DEICTIC",
    "DE_STOP",
    "EN_STOP",
    "JA_GREETING",
    "MIN_DONT_WORDS",
    "Hit",
    "en_directive",
    "has_content",
    "ja_clause",
    "ja_request",
    "latin_words",
    "rule_always_never",
    "rule_dont",
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
    # normative statements (dreamd.collect.norms)
    "conditional": 0.75,
    "use_not": 0.75,
    "universal": 0.7,
    "only": 0.7,
    "no_exclaim": 0.7,
    "manner": 0.65,
    "keep": 0.6,
    "lets_not": 0.6,
    "emphatic": 0.6,
    # decisions, facts and references (dreamd.collect.choices, dreamd.collect.facts)
    "need_instead": 0.65,
    "want": 0.6,
    "outside_path": 0.6,
    "command": 0.6,
    "like": 0.6,
    "forbidden": 0.7,
    "language": 0.75,
    "stop": 0.6,
    "project_fact": 0.6,
    "verified_fact": 0.65,
    # replies to the assistant (dreamd.collect.acceptance)
    "correction": 0.7,
    "accepted": 0.65,
    "rejected": 0.65,
    "declined": 0.6,
    "option_verdict": 0.6,
}

MIN_DONT_WORDS = 4  # "don't add notes" is a one-off; "don't mock the database" may not be


@dataclass(frozen=True, slots=True)
class Hit:
    """What one rule recognised: the item's category, type and confidence, and where.

    ``at`` is the trigger's offset in the sentence core (guards look before it);
    ``key`` replaces the statement as the identity of the item when set (a URL);
    ``clause`` narrows the statement to the verbatim part of the sentence that
    carries it ("... the invariant that every line must fit"): the guards then
    read the clause alone.
    """

    rule: str
    category: str
    type: ItemType
    at: int = 0
    key: str = ""
    clause: str = ""

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
JA_GREETING = re.compile(r"よろしく|ありがとう|お疲れ|お世話")
_ZH_VERBS = (
    "用|使用|先|写|跑|运行|执行|检查|提交|回复|回答|保持|加|添加|测试|确认|遵循|格式化|更新|记得|把|在|给"
    "|以|说明|注明|标注|引用|附上|询问|删除|避免|保留|备份|锁定|固定"
)


def latin_words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def has_content(text: str, stop: frozenset[str]) -> bool:
    return any(word not in stop and not word.isdigit() for word in latin_words(text))


def en_directive(core: str) -> tuple[int, str]:
    """Offset and rest of an English directive after a condition and a request prefix."""
    at = 0
    for prefix in (_EN_CONDITION, _EN_REQUEST):
        found = prefix.match(core[at:])
        if found:
            at += found.end()
    return at, core[at:]


def ja_clause(core: str) -> str:
    return core.rstrip(TRAILING_MARKS)


def ja_request(clause: str) -> bool:
    """A Japanese request or obligation ending (…してください, …すること), not a greeting."""
    return bool(_JA_ASK.search(clause)) and not JA_GREETING.search(clause)


def rule_always_never(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a rule with "always"/"never" the user states.

    English imperatives ("Always run ...", "please never ...", "you must always
    ..."), German ("Verwende immer ...", "Nie direkt auf main pushen"), Spanish
    ("usa siempre ...", "nunca hagas ..."), Japanese (常に/必ず/いつも/絶対に…ない
    + a request ending), Chinese (总是/始终/永远不要).
    """
    at, rest = en_directive(s.core)
    found = _EN_ALWAYS.match(rest)
    if found and found.group(1).split("-")[0].lower() in EN_VERBS:
        clause = re.split(r"[,;:(]", found.group(2))[0]
        return Hit("always_never", "Rule", "feedback", at) if has_content(clause, EN_STOP) else None
    return _de_always(s.core) or _es_always(s.core) or _ja_always(s.core) or _zh_always(s.core)


_ES_ALWAYS = frozenset({"siempre", "nunca", "jamás", "jamas"})
_ES_CLITICS = frozenset({"me", "te", "lo", "la", "le", "les", "los", "las", "nos", "se"})


def _es_verb_at(words: list[str], at: int) -> str:
    """The Spanish verb at ``words[at]``, after any clitic pronouns ("no me expliques")."""
    while at < len(words) and words[at] in _ES_CLITICS:
        at += 1
    return words[at] if at < len(words) else ""


def _es_always(core: str) -> Hit | None:
    """Spanish: "usa siempre pnpm", "siempre ejecuta ...", "nunca hagas push a main"."""
    words = latin_words(core)
    if len(words) < MIN_DONT_WORDS - 1:
        return None
    if words[0] in _ES_ALWAYS:
        verb = _es_verb_at(words, 1)
        forms = ES_IMPERATIVES if words[0] == "siempre" else ES_PROHIBITIVES
    else:
        verb, forms = (words[0], ES_IMPERATIVES) if words[1] == "siempre" else ("", ES_STOP)
    rest = " ".join(words[words.index(verb) + 1 :]) if verb in words else ""
    if verb not in forms or DEICTIC.search(core) or not has_content(rest, ES_STOP | _ES_ALWAYS):
        return None
    return Hit("always_never", "Rule", "feedback")


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
    clause = ja_clause(core)
    found = re.search(r"常に|必ず|いつも|絶対に?|決して|毎回", clause)
    if not found or not ja_request(clause):
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


def _redirects(follow: str) -> bool:
    """Whether the next sentence gives the alternative order ("Don't X. Put it in Y.")."""
    found = re.match(r"^(?:please\s+|just\s+|instead\s*,?\s*)?([a-z]+)\b", follow.strip(), re.I)
    return found is not None and found.group(1).lower() in EN_VERBS


def rule_dont(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a prohibition the user states ("don't ...", "do not ...").

    Bare prohibitions are most often one-off instructions, so the clause must
    stand alone (no "don't X, do Y" redirect, in the same sentence or the next),
    be at least ``MIN_DONT_WORDS`` long and point at nothing in the moment
    ("don't commit this yet"). German ("Bitte nicht ... pushen", "Verwende
    keine ..."), Spanish ("no uses ..."), Japanese (…しないでください) and
    Chinese (不要/别 …) likewise.
    """
    at, rest = en_directive(s.core)
    found = _EN_DONT.match(rest)
    if found:
        verb, clause, tail = found.groups()
        then = re.match(r"\s*[,;:]\s*([\w']+)", tail)
        redirect = then is not None and then.group(1).lower() not in _CONTINUATIONS
        redirect = redirect or _redirects(s.follow)
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
    return _de_dont(s.core) or _es_dont(s.core) or _cjk_dont(s.core)


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


def _es_dont(core: str) -> Hit | None:
    """Spanish: "no uses mocks en los tests de integración" (no + subjunctive)."""
    words = latin_words(core)
    if len(words) < MIN_DONT_WORDS or words[0] != "no" or DEICTIC.search(core):
        return None
    verb = _es_verb_at(words, 1)
    rest = " ".join(words[words.index(verb) + 1 :]) if verb else ""
    return (
        Hit("dont", "Rule", "feedback")
        if verb in ES_PROHIBITIVES and has_content(rest, ES_STOP)
        else None
    )


def _cjk_dont(core: str) -> Hit | None:
    clause = ja_clause(core)
    if DEICTIC.search(clause) or len(CJK.findall(clause)) < 8:
        return None
    if re.search(r"ないで(?:ください|下さい)?$|ないこと$|禁止(?:です)?$", clause):
        return Hit("dont", "Rule", "feedback")
    if re.match(r"^(?:请)?(?:你|我们)?(?:不要|别(?!人)|不许|禁止)", clause):
        return Hit("dont", "Rule", "feedback")
    return None
