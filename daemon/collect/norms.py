"""Normative statements of the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

The user states how work must be done without a "remember" or "from now on":
a norm over every case ("every X must ...", "we should ... any X"), an
exclusive choice ("there should be only one way to ...", "I only want X"),
a contrast ("use X, not Y"), a priority or standard ("X is crucial", "it
must be fully reversible"), a placement ("keep X in Y") and a conditional
duty ("make sure ... whenever ..."). Each rule is one function
``Sentence -> Hit | None`` with its patterns per language (English, German,
Spanish, Chinese, Japanese) beside it. Bans and roles ("No X!", "let's not
...", "don't guess", "act as ...") are in ``dreamd.collect.bans``; the
helpers both share (``clean``, ``first_match``, ``noun_phrase``,
``generic``) are here.

Invariants:

- a rule reads the masked core (quotes blanked, fillers skipped) and returns
  ``None`` when its clause points at the moment (``scope.points_at_moment``):
  "every test in this file must pass" is the task at hand;
- a ``Hit.clause`` narrows the statement to the clause that carries the norm
  ("... the invariant that every line must fit" states the invariant); the
  guards then read that clause only;
- no rule reads anything but its sentence: no clock, no I/O, no randomness.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re
from collections.abc import Callable

from dreamd.collect.lexicon import (
    DE_IMPERATIVES,
    EMPHATIC_CJK,
    EMPHATIC_LATIN,
    EN_VERBS,
    ES_IMPERATIVES,
    PROFANITY,
    QUALITY_NOUN,
    QUALITY_NOUN_CJK,
    wordset,
)
from dreamd.collect.rules import DEICTIC, Hit, latin_words
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import CJK, TRAILING_MARKS, Sentence

__all__ = [
    "IMPERATIVES",
    "MAX_NOUN_PHRASE_WORDS",
    "NORM_RULES",
    "clean",
    "first_match",
    "generic",
    "noun_phrase",
    "rule_conditional",
    "rule_emphatic",
    "rule_keep",
    "rule_only",
    "rule_universal",
    "rule_use_not",
]

MAX_NOUN_PHRASE_WORDS = 4  # "No <noun phrase>!" and "<noun phrase> is crucial" stay short
_PRONOUNS = wordset(
    """i you he she it we they this that these those there here what which who everything
    something anything nothing one ich du er sie es wir ihr das dies yo tú tu él ella eso esto
    nosotros ellos"""
)
#: Imperative verbs of the Latin-script languages.
IMPERATIVES = EN_VERBS | DE_IMPERATIVES | ES_IMPERATIVES


def clean(text: str) -> str:
    return text.rstrip(TRAILING_MARKS + "?？")


def noun_phrase(text: str, limit: int = MAX_NOUN_PHRASE_WORDS) -> bool:
    """A short noun phrase of content words: no pronoun, no pointer, not only swear words."""
    words = [word for word in latin_words(text) if word not in PROFANITY]
    if not words or len(words) > limit or words[0] in _PRONOUNS:
        return False
    return not DEICTIC.search(text)


def first_match(s: Sentence, patterns: tuple[re.Pattern[str], ...]) -> re.Match[str] | None:
    clause = clean(s.core)
    return next((found for p in patterns if (found := p.search(clause))), None)


# --- "every X must ...", "we should ... any X" ------------------------------------------------

_EN_MODAL = (
    r"must|should|shall|needs? to|has to|have to|(?:is|are) (?:required|supposed) to|ought to"
    r"|must not|mustn't|should not|shouldn't|may not|can't|cannot|can not"
)
_UNIVERSAL = (
    re.compile(
        rf"^(?:every|each|any|no|all)\s+(?!the\b|of\b|these\b|those\b|this\b|that\b)[\w'`.-]+"
        rf"(?:\s+[\w'`.-]+){{0,9}}?\s+(?:{_EN_MODAL})\s+\w+",
        re.I,
    ),
    re.compile(
        r"^(?:we|you)\s+(?:should|must|shall|ought to)\s+(?:always\s+)?\w+\b.*?\b(?:any|every new"
        r"|each new|every time|each time|whenever)\b",
        re.I,
    ),
    re.compile(
        r"^(?:jede[rsnm]?|alle(?!\s+(?:die|der|diese))|jegliche[rsnm]?|kein(?:e|er|es)?)\s+\S+"
        r"(?:\s+\S+){0,9}?\s+(?:muss|müssen|soll|sollen|sollte|sollten|darf|dürfen)\b"
        r"|^wir\s+(?:sollten|müssen|sollen)\b.*?\b(?:jegliche[rsnm]?|jede[rsnm]? neue[rsnm]?"
        r"|jedes mal|immer wenn)\b",
        re.I,
    ),
    re.compile(
        r"^(?:cada|todo|toda|todos los|todas las|cualquier|ningún|ningun|ninguna)\s+\S+"
        r"(?:\s+\S+){0,9}?\s+(?:debe|deben|debería|deberia|deberían|deberian|tiene que|tienen que"
        r"|ha de|han de|no puede|no pueden)\b|^(?:debemos|deberíamos|deberiamos|tenemos que"
        r"|hay que)\s+\w+\b.*?\b(?:cualquier|cada nuev[oa]|cada vez|siempre que)\b",
        re.I,
    ),
    re.compile(
        r"^(?:所有|每个|每一个|每条|每一条|任何|一切)(?:的)?.{1,20}?(?:都)?(?:必须|应该|要|不能|不得|不要"
        r"|需要|得)"
    ),
    re.compile(
        r"^(?:すべての|全ての|全部の|各|あらゆる).{1,20}?(?:は|が|に|を).+?(?:なければならない"
        r"|なければなりません|なければいけません|必要があります|べきです|べき|てください|こと)$"
    ),
)
#: "the invariant that ...": a nominal naming a norm; the clause after it is the norm.
_NORM_NOUN = re.compile(
    r"\b(?:the|an|our|a)\s+(?:invariant|rule|convention|requirement|principle|guideline"
    r"|contract|policy)\s+(?:is\s+)?that\s+(.+)$|\b(?:die|eine|unsere)\s+(?:regel|invariante"
    r"|konvention|anforderung),?\s+dass\s+(.+)$|\b(?:la|una|nuestra)\s+(?:regla|invariante"
    r"|convención|convencion|norma)\s+(?:es\s+)?(?:de\s+)?que\s+(.+)$",
    re.I,
)


def rule_universal(s: Sentence) -> Hit | None:
    """A norm over every case: a modal verb with a universal quantifier (issue 11 item 1).

    "Every endpoint must validate its input", "we should check permissions
    in any handler", "Jede Funktion muss getestet sein", "Cada commit debe
    pasar el linter", 所有函数都必须有类型注解, すべての関数に型を付けてください.
    "All the failing tests must pass" is a task (a definite set), and so is
    any clause that points at the moment. "... the invariant that X must Y"
    states the norm after "that" even in a hedged sentence.
    """
    nominal = _NORM_NOUN.search(s.core)
    clause = next(group for group in nominal.groups() if group) if nominal else clean(s.core)
    if points_at_moment(clause) or not any(p.search(clause) for p in _UNIVERSAL):
        return None
    if nominal is None:
        return Hit("universal", "Rule", "feedback")
    start = s.core_at + nominal.start(nominal.lastindex or 1)
    return Hit("universal", "Rule", "feedback", clause=s.text[start:].rstrip(" .!"))


# --- "there should be only one X", "I only want X" ---------------------------------------------

_ONLY = (
    re.compile(
        r"^there\s+(?:should|must|can|may|needs to|has to)\s+(?:only\s+)?be\s+(?:only\s+)?(?:one"
        r"|a single|exactly one)\s+\w+|^(?:i|we)\s+(?:would\s+|'d\s+)?only\s+(?:want|accept|allow"
        r"|use)\s+(?!you\b|to\b)(?P<what>\w.*)|^(?:i|we)\s+want\s+only\s+(?!you\b|to\b)(?P<w2>\w.*)"
        r"|^(?:only\s+use|use\s+only)\s+(?P<w3>\w.*)",
        re.I,
    ),
    re.compile(
        r"^es\s+(?:sollte|soll|darf|muss)\s+nur\s+(?:einen|eine|ein)\s+\w+|^(?:ich|wir)\s+(?:will"
        r"|wollen|möchte|möchten)\s+nur\s+(?!dass\b)(?P<what>\w.*)|^(?:verwende|nutze|benutze|nimm)"
        r"\s+nur\s+(?P<w2>\w.*)",
        re.I,
    ),
    re.compile(
        r"^(?:solo|sólo|solamente|únicamente|unicamente)\s+(?:debe|puede|tiene que)\s+haber\s+"
        r"(?:un|una)\s+\w+|^(?:solo|sólo|solamente|únicamente|unicamente)\s+(?:quiero|queremos)\s+"
        r"(?!que\b)(?P<what>\w.*)|^(?:quiero|queremos)\s+(?:solo|sólo|solamente|únicamente"
        r"|unicamente)\s+(?!que\b)(?P<w2>\w.*)|^(?:usa|utiliza|use|utilice)\s+(?:solo|sólo|solamente"
        r"|únicamente)\s+(?P<w3>\w.*)",
        re.I,
    ),
    re.compile(
        r"^(?:我|我们)?只(?:要|想要|用|需要|接受)(?!你).{2,}|^只(?:能|应该)有一个.{2,}|^(?:请)?只用.{2,}"
    ),
    re.compile(
        r".{2,}(?:だけ|のみ)(?:を)?(?:使って|使用して|にして|欲しい|ほしい)(?:ください|下さい)?$"
    ),
)
#: Determiners that make a noun phrase a particular thing ("the summary", "this file", "mi
#: rama"), not a kind; Spanish plural articles stay generic ("los commits deben ...").
_SPECIFIC = wordset(
    """the a an this that these those my his her its their der das den dem des ein eine einen
    einem einer dieser diese dieses diesen mein meine el la un una este esta ese esa mi su"""
)


#: German feminine singular endings: "die Funktion" is one function ...
_DE_FEMININE = re.compile(r"(?:ung|ion|heit|keit|schaft|tät|ei|ik|ur|enz|anz)$")
#: ... and the endings of German plurals ("die Tests", "die Dateien", "die Ordner").
_DE_PLURAL = re.compile(r"(?:en|er|n|s)$")


def generic(phrase: str) -> bool:
    """Whether a noun phrase names a kind of thing ("integration tests", "our docs"), not one."""
    words = latin_words(phrase)
    if not words or words[0] in _SPECIFIC or DEICTIC.match(phrase.strip()):
        return False
    if words[0] != "die" or len(words) < 2 or _DE_FEMININE.search(words[1]):
        return words[0] != "die"
    return bool(_DE_PLURAL.search(words[1]))


def rule_only(s: Sentence) -> Hit | None:
    """An exclusive choice: one way only, or only one kind of thing (issue 11 item 1).

    "There should be only one way to read the config", "we only accept
    signed commits", "use only pnpm", "Es darf nur einen Einstiegspunkt
    geben", "solo quiero consultas SQL simples", 我只要端到端测试,
    型ヒントだけを使ってください. The thing wanted must be a kind ("I only want the
    summary" is about the answer at hand); "I only want you to change the
    logo" is an order for now, and so is a clause that points at the moment.
    """
    found = first_match(s, _ONLY)
    if found is None or points_at_moment(clean(s.core)):
        return None
    what = next((found.group(g) for g in ("what", "w2", "w3") if found.groupdict().get(g)), "")
    return None if what and not generic(what) else Hit("only", "Rule", "feedback", found.start())


# --- "use X, not Y", "no X, use Y" ------------------------------------------------------------

_SIDE = r"(.{2,60}?)"
_USE_NOT = (
    re.compile(
        rf"^(?:use|prefer|pick|choose|write|go with)\s+{_SIDE}\s*[,;]\s*(?:not|no|never)\s+{_SIDE}$"
        rf"|^(?:no|not)\s+{_SIDE}\s*[,;:]\s*(?:use|prefer|pick|choose|write)\s+{_SIDE}$",
        re.I,
    ),
    re.compile(
        rf"^(?:verwende|nutze|benutze|nimm|schreib|schreibe)\s+{_SIDE}\s*,\s*(?:nicht|keine?n?)\s+"
        rf"{_SIDE}$|^keine?n?\s+{_SIDE}\s*,\s*sondern\s+{_SIDE}$",
        re.I,
    ),
    re.compile(
        rf"^(?:usa|utiliza|use|utilice|emplea|escribe|escriba)\s+{_SIDE}\s*,\s*(?:no|nada de|nunca"
        rf"|sin)\s+{_SIDE}$|^(?:nada de|no)\s+{_SIDE}\s*,\s*(?:usa|utiliza|use|utilice)\s+{_SIDE}$",
        re.I,
    ),
    re.compile(
        r"^(?:请)?(?:用|使用|改用)(.{1,30}?)[，,](?:不要|别|不用|不许)(?:用|使用)?(.{1,30})$"
        r"|^(?:不要|别|不用)(?:用|使用)(.{1,30}?)[，,](?:要|请)?(?:用|使用|改用)(.{1,30})$"
    ),
    re.compile(
        r"^(.{1,30}?)(?:は使わずに?|を使わずに?)[、,]?(.{1,30}?)を(?:使って|使用して)(?:ください|下さい)?$"
    ),
)


def rule_use_not(s: Sentence) -> Hit | None:
    """A contrast: use one thing and not the other, said as an instruction (issue 11 item 1).

    "Use UTC timestamps, not local time", "no tabs, use spaces",
    "Verwende UTC, nicht Ortszeit", "usa comillas dobles, no simples",
    用UTC时间，不要用本地时间, ローカル時間は使わずにUTCを使ってください. Both
    sides must name things ("use this, not that" points at what is on screen).
    """
    found = first_match(s, _USE_NOT)
    if found is None:
        return None
    sides = [side for side in found.groups() if side]
    if any(DEICTIC.fullmatch(side.strip()) or points_at_moment(side) for side in sides):
        return None
    return Hit("use_not", "Rule", "feedback")


# --- "X is crucial" ---------------------------------------------------------------------------

_EMPHATIC = re.compile(
    rf"^(?:the\s+|la\s+|el\s+|los\s+|las\s+|die\s+|der\s+|das\s+)?(.{{2,40}}?)\s+(?:is|are|ist"
    rf"|sind|es|son)\s+(?:absolutely\s+|really\s+|extremely\s+|super\s+|absolut\s+|extrem\s+"
    rf"|absolutamente\s+)?(?:{EMPHATIC_LATIN})$",
    re.I,
)
_EMPHATIC_ASIAN = re.compile(rf"^(.{{2,12}}?)(?:{EMPHATIC_CJK})$")
_QUALITY = re.compile(QUALITY_NOUN, re.I)
_QUALITY_CJK = re.compile(QUALITY_NOUN_CJK)
#: A standard of completeness: "(it) must be fully reversible", "muss vollständig getestet sein".
_STANDARD = re.compile(
    r"^(?:(?:it|everything|all|the\s+[\w-]+(?:\s+[\w-]+)?)\s+)?(?:needs? to|must|has to|have to"
    r"|should)\s+(?:always\s+)?be\s+(?:fully|completely|entirely|totally|100\s*%|always)\s+"
    r"[\w-]+$|^(?:[\w-]+\s+){0,3}(?:muss|müssen|soll|sollen)\s+(?:immer\s+)?(?:vollständig"
    r"|komplett|absolut|100\s*%)\s+[\w-]+\s+sein$|^(?:[\w-]+\s+){0,3}(?:tiene que|tienen que"
    r"|debe|deben)\s+(?:estar|ser)\s+(?:completamente|totalmente|100\s*%)\s+[\w-]+$"
    r"|^.{0,10}必须(?:完全|彻底|百分之百).{1,10}$|^.{0,10}完全に.{1,10}(?:必要があります|なければなりません)$",
    re.I,
)


def rule_emphatic(s: Sentence) -> Hit | None:
    """A priority or a standard stated flatly (issue 11 item 1: emphatic short rules).

    "Security is paramount", "Backwards compatibility is non-negotiable",
    "Sicherheit ist oberste Priorität", "la legibilidad es fundamental",
    性能至关重要, 後方互換性は必須です; a standard of completeness: "(it) must be
    fully reversible", "muss vollständig getestet sein", "tiene que estar
    completamente documentado". The priority must be an abstract quality
    (``QUALITY_NOUN``): "the fix is critical" is about the task at hand, and
    "this is crucial" points at the moment.
    """
    clause = clean(s.core)
    if _STANDARD.match(clause):
        return None if points_at_moment(clause) else Hit("emphatic", "Rule", "feedback")
    found = _EMPHATIC.match(clause)
    if found is not None:
        what = found.group(1)
        head = (latin_words(what) or [""])[-1]
        quality = noun_phrase(what) and _QUALITY.search(head)
        return Hit("emphatic", "Rule", "project") if quality else None
    found = _EMPHATIC_ASIAN.match(clause)
    if found is None or DEICTIC.search(found.group(1)) or points_at_moment(found.group(1)):
        return None
    quality = _QUALITY_CJK.search(found.group(1).rstrip("はが"))
    return Hit("emphatic", "Rule", "project") if quality else None


# --- "keep X in Y", "keep X short" ------------------------------------------------------------

_KEEP = (
    re.compile(
        r"^keep\s+(?!going\b|trying\b|it\b|that\b|this\b|them\b|in mind\b|up\b|on\b|me\b)"
        r"(.{2,60}?)(?<!\bas)\s+(?:(?:in|inside|within|under|on)\s+(.{2,40})|(?:short|small|simple|minimal"
        r"|concise|lean|tidy|clean|readable|focused|private|sorted|consistent|up to date"
        r"|up-to-date|in sync|separate|out of [\w./-]+(?:\s+[\w./-]+)?))$",
        re.I,
    ),
    re.compile(
        r"^(?:behalte|halte|halt|bewahre|lege|leg)\s+(.{2,60}?)\s+(?:(?:in|im|auf|unter|bei)\s+"
        r"(.{2,40}?)(?:\s+(?:auf|ab))?|kurz|klein|einfach|schlank|aktuell|sauber|konsistent"
        r"|synchron|getrennt)$",
        re.I,
    ),
    re.compile(
        r"^(?:mantén|manten|mantenga|guarda|guarde|deja|deje)\s+(.{2,60}?)\s+(?:en\s+(.{2,40})"
        r"|cort[oa]s?|pequeñ[oa]s?|simples?|actualizad[oa]s?|sincronizad[oa]s?|limpi[oa]s?"
        r"|separad[oa]s?)$",
        re.I,
    ),
    re.compile(
        r"^(?:请)?(?:把)?(.{2,15}?)(?:都|统一|一律|始终)(?:放在|保存在|记录在|写在|保留在|维护在)(.{2,15})$"
    ),
    re.compile(
        r"^(.{2,15}?)は(?:常に|必ず|すべて|全部)?(.{2,15}?)に(?:置いて|保存して|まとめて|残して)"
    ),
)


def rule_keep(s: Sentence) -> Hit | None:
    """A placement or a standing shape: "keep X in Y", "keep X short" (issue 11 item 1).

    "Keep all secrets in the vault", "keep functions short", "Halte
    Commits klein", "mantén los commits pequeños", 把文档都放在wiki里,
    設計メモは常にwikiにまとめてください. What is kept must be a kind of thing:
    "keep the button on the left" places one object of the task at hand;
    "keep going", "keep it" and a clause that points at the moment are not rules.
    """
    found = first_match(s, _KEEP)
    if found is None or points_at_moment(clean(s.core)):
        return None
    thing = found.group(1)
    return Hit("keep", "Rule", "feedback") if CJK.search(thing) or generic(thing) else None


# --- "make sure ... whenever ..." -------------------------------------------------------------

_GENERIC_CONDITION = (
    r"whenever|every time|each time|any time|anytime|when(?:ever)?\s+(?:the user|a user|users"
    r"|someone|somebody|anyone|people|a test|tests|the build|ci)\b"
)
_CONDITIONAL = (
    re.compile(
        r"^(?:(?:in|for|on|with)\s+[^,]{2,40}?,?\s+)?(?:make sure|be sure|ensure|remember)\b.+?"
        r"\b(?:when(?:ever)?|every time|each time"
        r"|any time|before|after)\b.{3,}",
        re.I,
    ),
    re.compile(rf"^(?:{_GENERIC_CONDITION})\b[^,]{{2,80}},\s*(?P<verb>[a-z]+)\b.{{3,}}", re.I),
    re.compile(
        r"^(?:stell(?:e)?\s+sicher|achte\s+darauf|sorg(?:e)?\s+dafür|denk\s+daran)\b.+?\b(?:immer"
        r"\s+wenn|jedes\s+mal|wenn|bevor|nachdem|sobald)\b.{3,}",
        re.I,
    ),
    re.compile(
        r"^(?:asegúrate|asegurate|asegúrese|asegurese|procura|recuerda)\b.+?\b(?:siempre que"
        r"|cada vez que|cuando|antes de|después de|despues de)\b.{3,}",
        re.I,
    ),
    re.compile(r"^(?:请)?(?:确保|务必|一定要|记得).+?(?:的时候|时|之前|之后|每次).{2,}"),
    re.compile(
        r".+?(?:ときは|時は|際は|たびに|前に|後に|場合は)(?:必ず|常に|毎回).+?(?:てください|ようにして|こと)$"
    ),
)


def rule_conditional(s: Sentence) -> Hit | None:
    """A duty tied to a recurring condition: "make sure ... when ..." (issue 11 item 1).

    "Make sure you update the changelog when you add a command", "whenever a
    test fails, show its log", "Stell sicher, dass ... wenn ...",
    "asegúrate de ... cada vez que ...", 确保每次发布之前都跑测试,
    コミットする前に必ずテストを実行してください. Without "make sure" the
    condition must be generic ("whenever", "every time", "when a user ...").
    """
    found = first_match(s, _CONDITIONAL)
    if found is None or points_at_moment(clean(s.core)):
        return None
    verb = found.groupdict().get("verb")
    if verb is not None and verb.lower() not in EN_VERBS:
        return None
    return Hit("conditional", "Rule", "feedback")


#: The rules of this module in the order the heuristic tries them.
NORM_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    rule_use_not,
    rule_only,
    rule_universal,
    rule_keep,
    rule_conditional,
    rule_emphatic,
)
