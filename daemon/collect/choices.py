"""The choice rules of the heuristic extractor (seed 002 phase 3 topics scan; issue 11 item 1).

What the user chooses: a preference ("I prefer ...", "I hate long
functions"), a decision with its reason ("we decided ... because ..."), one
thing over another ("use X instead of Y"), one design dropped for another
("we don't need X, we just use Y") and a design the user insists on ("no,
we want X", "..., that's what I want"), each in English, German, Spanish,
Japanese and Chinese. The ``Hit`` type is in ``dreamd.collect.rules``;
references are in ``dreamd.collect.references``.

Invariants:

- a rule is a pure function ``Sentence -> Hit | None`` over the masked core;
- a choice among options on the table ("the second approach", "this one")
  and a decision without a stated reason are not planted;
- a liking is about a kind of thing ("I like small commits"), never praise
  of the thing at hand ("I like the new logo").
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re

from dreamd.collect.lexicon import alternation
from dreamd.collect.norms import IMPERATIVES, generic
from dreamd.collect.rules import DE_STOP, DEICTIC, EN_STOP, Hit, has_content, wordset
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import CJK, MIN_WORDS, TRAILING_MARKS, Sentence, sized
from dreamd.stores import ItemType

__all__ = [
    "rule_decision_because",
    "rule_instead_of",
    "rule_like",
    "rule_need_instead",
    "rule_preference",
    "rule_want",
]

_EN_PREFER = re.compile(
    r"^(?:i|we)\s+(?:(?:really|generally|usually|always|strongly)\s+)?prefer\s+(.+)$"
    r"|^my preference is\s+(?:to\s+|for\s+|that\s+)?(.+)$"
    r"|^prefer\s+(.+?\s+(?:over|to|rather than)\s+.+)$",
    re.I,
)
_ONE_OFF_CHOICE = re.compile(
    r"^(?:this|that|it|the (?:first|second|third|last|former|latter|other|new|old|previous|current)"
    r"\b|#?\d+\b|(?:die|das|den|der) (?:erste|zweite|dritte|letzte|andere|neue|alte)\b"
    r"|(?:la|el|lo) (?:primera|primero|segunda|segundo|tercera|tercero|última|ultima|último"
    r"|ultimo|otra|otro|nueva|nuevo|anterior|actual)\b|esto|eso)|\b(?:option|approach|proposal"
    r"|suggestion|variant|alternative|solution|plan|variante|ansatz|vorschlag|lösung|opción|opcion"
    r"|propuesta|alternativa|enfoque|solución|solucion)(?:s|en|es|e)?\b|方案|选项|这个|那个|案|方法"
    r"|オプション",
    re.I,
)
_DE_PREFER = re.compile(
    r"^ich\s+(?:bevorzuge|mag lieber|nutze lieber|verwende lieber|arbeite lieber mit"
    r"|schreibe lieber)\s+(.+)$|^mir ist\s+(.+?)\s+lieber\b",
    re.I,
)
_ES_PREFER = re.compile(
    r"^(?:yo\s+)?(?:prefiero|preferimos)\s+(.+)$|^me gusta más\s+(.+)$|^me gusta mas\s+(.+)$",
    re.I,
)
_CJK_PREFER = re.compile(
    r"^我(?:更|比较)?(?:更喜欢|比较喜欢|偏好|倾向于)(?:用|使用)?(.{2,})"
    r"|^(?:私|僕|俺|わたし)は(.{2,}?)(?:の方が好きです|が好きです|を好みます|の方が好みです|派です)"
    r"|^(.{2,}?)(?:の方が好きです|を好みます|の方が好みです)"
)
_PREFER = (_EN_PREFER, _DE_PREFER, _ES_PREFER, _CJK_PREFER)
_ADDRESSES_ASSISTANT = re.compile(
    r"\b(?:you|your|du|dich|dir|dein\w*|tú|tu|te|usted)\b|你|あなた", re.I
)


def rule_preference(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a preference the user states ("I prefer ...").

    Type ``user`` for a personal preference ("I prefer tabs"), ``feedback`` when
    it is about how the assistant works ("I prefer you ask first") or is an
    imperative ("prefer X over Y"). A choice among options on the table ("I
    prefer the second approach") is not a preference. German "ich bevorzuge",
    Spanish "prefiero", Japanese …の方が好きです/を好みます, Chinese 我更喜欢/偏好.
    """
    found = next((p.match(s.core) for p in _PREFER if p.match(s.core)), None)
    if not found:
        return None
    what = next(group for group in found.groups() if group)
    if _ONE_OFF_CHOICE.search(what.strip()) or not sized(s.core):
        return None
    imperative = s.core.lower().startswith("prefer")
    kind: ItemType = "feedback" if imperative or _ADDRESSES_ASSISTANT.search(what) else "user"
    return Hit("preference", "Preference", kind)


_EN_DECIDED = re.compile(
    r"^(?:we\s+(?:(?:have|'ve|had|just|finally|already)\s+)*(?:decided|agreed|settled on|chose"
    r"|went with)\b|i\s+(?:(?:have|'ve|just|finally|already)\s+)*decided\b|let'?s\s+(?:go with"
    r"|use|stick with|pick|choose|adopt|switch to|keep|stay with|try)\b|we(?:'ll| will|'re going to"
    r"| are going to)\s+(?:go with|use|stick with|switch to)\b|decision\s*:)(.+?)\s*,?\s*"
    r"(?:\b(?:because|since|so that|due to|given that)\b|\s[-–—:]\s*(?=(?:i|we)\s+(?:need|want"
    r"|require)\b))(.+)$",
    re.I,
)
_DE_DECIDED = re.compile(
    r"^((?:wir|ich)\s+(?:haben|habe)\b.*?\b(?:entschieden|beschlossen|festgelegt|geeinigt)\b.*?"
    r"|(?:lass(?:t)? uns|wir (?:nehmen|verwenden|nutzen|bleiben bei|gehen mit)|entscheidung\s*:)"
    r".*?)\s*,?\s*\b(?:weil|da|denn|damit)\b(.+)$",
    re.I,
)
_ES_DECIDED = re.compile(
    r"^((?:hemos|habíamos|habiamos)\s+decidido|decidimos|elegimos|optamos por|vamos a usar"
    r"|usaremos|nos quedamos con)(.+?)\s*,?\s*\b(?:porque|ya que|dado que|puesto que|para que)\b"
    r"(.+)$",
    re.I,
)
_DECISION_WORDS = wordset(
    """we i decided agreed settled chose picked went with let's lets go use stick pick choose adopt
    switch keep stay decision to have had just finally already 've will 'll going are 're on
    wir ich haben habe uns entschieden beschlossen festgelegt geeinigt lass lasst für nehmen
    verwenden nutzen bleiben bei gehen mit entscheidung zu hemos decidido decidimos elegimos
    optamos por vamos a usar usaremos nos quedamos con try instead"""
)
_JA_DECIDED = re.compile(
    r"ことにしました|ことにした|に決めました|に決めた|と決めました|と決めた|に決定しました|を採用しました"
)
_JA_REASON = re.compile(r"ので|なので|から[、,]|からです|だから|なぜなら|理由は|ため[、,]")
_ZH_DECIDED = re.compile(
    r"(?:我们|我)(?:已经)?(?:决定|选择了|选了|定了)(.+?)[，,]?\s*(?:因为|由于|原因是)(.{3,})"
    r"|因为(.{3,}?)[，,]\s*(?:所以)?(?:我们|我)(?:决定|选择)"
)


def rule_decision_because(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a decision with its reason ("we decided ... because ...").

    Also "let's go with X because ...", German "wir haben entschieden ..., weil
    ...", Spanish "decidimos usar X porque ...", Japanese …ことにしました + ので/から,
    Chinese 我们决定…因为…. "Let's try X instead - I need Y" gives its reason
    after the dash. A decision without a stated reason is not planted.
    """
    found = _EN_DECIDED.match(s.core) or _DE_DECIDED.match(s.core) or _ES_DECIDED.match(s.core)
    if found:
        last = found.lastindex or 2
        what, why = found.group(last - 1), found.group(last)
        stop = EN_STOP | DE_STOP | _DECISION_WORDS
        enough = len(why.split()) >= MIN_WORDS and has_content(what, stop)
        return Hit("decision_because", "Decision", "project") if enough else None
    found = _JA_DECIDED.search(s.core)
    if found and _JA_REASON.search(s.core) and sized(s.core):
        return Hit("decision_because", "Decision", "project", found.start())
    found = _ZH_DECIDED.search(s.core)
    return Hit("decision_because", "Decision", "project", found.start()) if found else None


_EN_INSTEAD = re.compile(
    r"^(?:(?:we|let'?s)\s+)?(?:use|go with|stick with|switch to|adopt|pick|choose)\s+(.+?)\s+"
    r"(?:instead of|rather than|in place of)\s+(.+?)$",
    re.I,
)
_DE_INSTEAD = re.compile(
    r"^(?:verwende|verwendet|benutze|benutzt|nutze|nutzt|nimm|nehmt|(?:verwenden|benutzen|nutzen"
    r"|nehmen) sie|wir (?:verwenden|nutzen|nehmen))\s+(.+?)\s+(?:statt|anstatt|anstelle von"
    r"|anstelle|an stelle von)\s+(.+?)$",
    re.I,
)
_ES_INSTEAD = re.compile(
    r"^(?:usa|utiliza|use|utilice|usemos|usamos|emplea|elige)\s+(.+?)\s+(?:en lugar de|en vez de"
    r"|y no)\s+(.+?)$",
    re.I,
)
_CJK_INSTEAD = re.compile(
    r"(.{1,20}?)(?:の代わりに|ではなく)(.{1,20}?)を(?:使って|使用して)(?:ください|下さい)"
    r"|^(?:请)?(?:用|使用|改用)(.{1,20}?)(?:代替|替代|取代|而不是|而非)(.{1,20})"
)
_HERE_AND_NOW = re.compile(
    r"\b(?:here|this (?:file|function|method|test|case|time|one|class|module|pr)|that one|for now"
    r"|in this (?:file|function|method|test|case|class|module))\b|ここ|今回|この|这里|这次|这个",
    re.I,
)


def rule_instead_of(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a choice of one thing over another ("use X instead of Y").

    Both sides must be short names, not pointers at the code in front of the
    user ("use the typed id instead of a string here"). German "verwende X statt
    Y", Japanese Yの代わりにXを使ってください, Chinese 用X代替Y.
    """
    clause = s.core.rstrip(TRAILING_MARKS)
    found = (
        _EN_INSTEAD.match(clause)
        or _DE_INSTEAD.match(clause)
        or _ES_INSTEAD.match(clause)
        or _CJK_INSTEAD.search(clause)
    )
    if not found or _HERE_AND_NOW.search(clause):
        return None
    sides = [group for group in found.groups() if group]
    if any(len(side.split()) > 6 or DEICTIC.fullmatch(side.strip()) for side in sides):
        return None
    return Hit("instead_of", "Decision", "project", found.start())


_LIKE = (
    re.compile(
        r"^i\s+(?:really\s+|do\s+)?(?:like|love|hate|dislike|can'?t stand|don'?t like|do not like)"
        r"\s+(?P<what>.{3,60})$",
        re.I,
    ),
    re.compile(r"^ich\s+(?:mag|liebe|hasse)\s+(?:keine?n?\s+)?(?P<what>.{3,60})$", re.I),
    re.compile(
        r"^(?:no\s+)?me\s+(?:gusta|gustan|encanta|encantan)\s+(?P<what>.{3,60})$|^odio\s+(?P<w2>.{3,60})$",
        re.I,
    ),
    re.compile(r"^我(?:很|非常|特别)?(?:不喜欢|讨厌|喜欢)(?P<what>.{2,30})$"),
    re.compile(r"^(?:私は|僕は)?(?P<what>.{2,30}?)(?:が|は)(?:嫌いです|苦手です|大嫌いです)$"),
)


def rule_like(s: Sentence) -> Hit | None:
    """A taste the user states about a kind of thing: "I hate long functions" (issue 11 item 1).

    "I like small commits", "I don't like magic numbers", "ich mag keine
    Abkürzungen", "no me gustan los comentarios obvios", 我不喜欢魔法数字,
    マジックナンバーは嫌いです. What is liked must be a kind of thing, not the
    thing at hand ("I like the new logo", "I love it", "I like your
    approach" are praise).
    """
    clause = s.core.rstrip(TRAILING_MARKS)
    found = next((found for p in _LIKE if (found := p.match(clause))), None)
    if found is None:
        return None
    what = found.groupdict().get("what") or found.groupdict().get("w2") or ""
    if _ONE_OFF_CHOICE.search(what):
        return None
    if CJK.search(what):
        return None if DEICTIC.search(what) else Hit("like", "Preference", "user")
    if not generic(what) or DEICTIC.search(what) or points_at_moment(what):
        return None
    return Hit("like", "Preference", "user")


_NEED_INSTEAD = (
    re.compile(
        r"^(?:i\s+don'?t\s+think\s+)?we\s+(?:don'?t|do not|won'?t)?\s*(?:really\s+)?need\s+"
        r"(?P<old>.{2,40}?)\s*,?\s*(?:but\s+)?(?:instead\s+)?(?:we\s+)?(?:just\s+|can\s+|should\s+"
        r"|will\s+|'ll\s+)*(?:use|go with|keep|have)\s+(?P<new>.{2,40}?)$",
        re.I,
    ),
    re.compile(
        r"^wir\s+brauchen\s+kein(?:e|en)?\s+(?P<old>.{2,40}?)\s*,?\s*sondern\s+(?:nehmen|verwenden"
        r"|nutzen)?\s*(?:einfach\s+)?(?P<new>.{2,40}?)$",
        re.I,
    ),
    re.compile(
        r"^no\s+(?:necesitamos|hace falta)\s+(?P<old>.{2,40}?)\s*,?\s*(?:sino que\s+|sino\s+)?"
        r"(?:usamos|usemos|usaremos|basta con)\s+(?P<new>.{2,40}?)$",
        re.I,
    ),
    re.compile(r"^(?:我们)?不需要(?P<old>.{1,20}?)[，,](?:直接|只要)?(?:用|使用)(?P<new>.{1,20})$"),
    re.compile(
        r"^(?P<old>.{1,20}?)は(?:不要|いらない)(?:で|です[。、]?)(?P<new>.{1,20}?)を使います$"
    ),
)


_NEGATED_NEED = re.compile(
    r"don'?t|do not|won'?t|kein|no necesitamos|no hace|不需要|いらない|不要", re.I
)


def rule_need_instead(s: Sentence) -> Hit | None:
    """A decision dropping one design for another: "we don't need X, we use Y" (issue 11).

    "We don't need a queue, we just use a table", "I don't think we need
    a broker but instead we use the jobs table", "Wir brauchen keinen Cache,
    sondern nehmen die Datenbank", "no necesitamos Redis, usamos la base de
    datos", 我们不需要缓存，直接用数据库, キャッシュは不要で、DBを使います.
    Both sides must name things, not point at the moment.
    """
    clause = s.core.rstrip(TRAILING_MARKS)
    found = next((found for p in _NEED_INSTEAD if (found := p.match(clause))), None)
    if found is None or "need" in found.group("old").lower():
        return None
    sides = (found.group("old"), found.group("new"))
    if any(DEICTIC.fullmatch(side.strip()) or _HERE_AND_NOW.search(side) for side in sides):
        return None
    negated = re.search(
        r"don'?t|do not|won'?t|kein|no necesitamos|no hace|不需要|不要|いらない", clause, re.I
    )
    return Hit("need_instead", "Decision", "project") if negated else None


_WANT = (
    re.compile(r"^(?:no|nope|nein|不)\s*[,.!，、]\s*(?:we|wir|queremos|我们)\b", re.I),
    re.compile(
        r"(?P<what>.{8,}?)[\s,.;:!—–-]+(?:that'?s|that is|this is|that|exactly|das ist"
        r"|genau das|eso es|esto es|这就是|这是)\s+(?:exactly\s+|genau\s+|justo\s+"
        r"|exactamente\s+)?(?:what|was|lo que|我)\s*(?:i|we|ich|wir)?\s*(?:want|wanted|need|meant"
        r"|will|wollen|möchte|quiero|queremos|necesito|想要的|要的)\b",
        re.I,
    ),
)
#: What "that's what I want" may mark: an instruction or a requirement, not praise.
_INSTRUCTION = re.compile(
    rf"^(?:please\s+|just\s+)?(?:{alternation(IMPERATIVES)})\b|^(?:we|it|they|wir|es)\s+"
    r"(?:should|must|needs? to|has to|sollte|muss|soll)\b|^(?:请|要|把|用)",
    re.I,
)
_WE_WANT = re.compile(
    r"^(?:we\s+(?:really\s+|just\s+|only\s+)?want|wir\s+wollen|queremos|我们(?:要|想要|希望))\s*",
    re.I,
)


def rule_want(s: Sentence) -> Hit | None:
    """A design the user insists on: "no, we want X", "X, that's what I want" (issue 11 item 1).

    A refusal of what the assistant did followed by what the team wants ("no,
    we want the retries in the worker"), or an instruction the user marks as
    the point ("put the retry logic in the client, that's what I want"; a
    dropped copula, "that what I want", counts too). German "nein, wir
    wollen ...", "genau das will ich", Spanish "no, queremos ...", "eso es lo
    que quiero", Chinese 不，我们要…, 这就是我想要的. "We want you to ..." is an
    order, and a clause that points at the moment is the task at hand.
    """
    marked = _WANT[1].search(s.core)
    if marked is not None:
        what = marked.group("what")
        if points_at_moment(what) or not _INSTRUCTION.match(what):
            return None
        return Hit("want", "Decision", "project")
    if not _WANT[0].match(s.text.strip()):
        return None
    rest = _WE_WANT.sub("", s.core, count=1)
    if rest == s.core or re.match(r"(?:you|du|que|你)\b", rest, re.I) or points_at_moment(rest):
        return None
    return Hit("want", "Decision", "project") if sized(rest) else None
