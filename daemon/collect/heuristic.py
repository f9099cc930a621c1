"""The default extractor: deterministic, offline, zero tokens (seed 002 phase 3; issue 4 item 2).

It plants only what a user explicitly establishes in a window: rules and
preferences, decisions with their reason, gotchas the user confirmed fixed,
and references the user points to, in English, German, Japanese and Chinese.
Safety contract 6 rules it: the empty result is the common answer and noise is
worse than a miss, so every rule below is narrow and every guard rejects.

Invariants:

- only user messages are read for statements; assistant text is never planted
  (a gotcha's fix sentence is quoted from the assistant, but only after the user
  reported the failure and confirmed the fix);
- a sentence that is a question, hedged, hypothetical or reported speech, a
  fragment, or that sits in pasted output (logs, code, quoted lines, a pasted
  document) plants nothing;
- the same statement said twice in a session is one item with both quotes
  (same normalised statement → same name; the pipeline merges across windows);
- the result depends on the window alone: no clock, no I/O, no randomness.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import takewhile

from dreamd.collect.extract import Window, merge_items
from dreamd.readers import Message
from dreamd.stores import ItemType, MemoryItem, Quote

__all__ = [
    "CONFIDENCE",
    "HEURISTIC",
    "HeuristicExtractor",
    "Hit",
    "Sentence",
    "fact_stated",
    "rule_always_never",
    "rule_decision_because",
    "rule_dont",
    "rule_from_now_on",
    "rule_gotcha",
    "rule_instead_of",
    "rule_must",
    "rule_preference",
    "rule_reference",
    "rule_remember",
    "sentences",
    "user_prose",
]

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

MIN_WORDS = 3  # a statement shorter than this (Latin script) is a fragment
MIN_CJK_CHARS = 6  # the same for Japanese and Chinese, counted in characters
MIN_DONT_WORDS = 4  # "don't add notes" is a one-off; "don't mock the database" may not be
MAX_SENTENCE_CHARS = 300  # longer run-on sentences are not clean statements
MAX_PROSE_CHARS = 1500  # more user prose than this is a pasted document
PASTE_MIN_LINES = 3  # a message of at least this many lines ...
PASTE_LINE_SHARE = 0.5  # ... mostly pasted output keeps only its lead-in prose
MAX_CONFIRM_WORDS = 15  # a fix confirmation is short
MAX_QUOTE_CHARS = 300
MAX_DESCRIPTION_CHARS = 120
MAX_BODY_CHARS = 600

# --- Text preparation ------------------------------------------------------------------------

_MACHINE = re.compile(
    r"^(?:<|\[Request interrupted|Implement the following plan|This session is being continued"
    r"|Caveat:|/[\w-]+(?:\s|$)|\{|\[\{)",
    re.I,
)
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.M | re.S)
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
_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|「[^」\n]*」")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_FILLERS = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|but|btw|oh|hey|alright|right|yes|yeah|yep|no|nope|please"
    r"|pls|plz|again|important|note|nb|reminder|one more thing|rule|und|bitte|übrigens|ja"
    r"|nein|wichtig|hinweis)\b[\s,:;!.\-–—]*|(?:另外|还有|对了|好的|注意|重要|あと|それと|なお"
    r"|ちなみに)[：:，,、\s]*)+",
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
    lines = [line for line in _FENCED.sub("\n", text).split("\n") if line.strip()]
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


def _mask(text: str) -> str:
    """Same length as ``text``: quoted spans blanked, curly apostrophes made straight."""
    blanked = _QUOTED.sub(lambda m: m.group()[0] + "x" * (len(m.group()) - 2) + m.group()[-1], text)
    return blanked.replace("’", "'")


def sentences(prose: str) -> list[Sentence]:
    """Split prose into sentences: per line (lists are typed one item a line), then per stop.

    Each sentence is a verbatim substring of ``prose`` (so quotes can be found again).
    """
    parts: list[str] = []
    for line in prose.split("\n"):
        line = _BULLET.sub("", line)
        parts.extend(part.strip() for part in _SENTENCE_END.split(line))
    parts = [part for part in parts if part]
    result = []
    for index, part in enumerate(parts):
        masked = _mask(part)
        filler = _FILLERS.match(masked)
        follow = parts[index + 1] if index + 1 < len(parts) else ""
        result.append(Sentence(part, masked, filler.end() if filler else 0, follow))
    return result


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
    r"|glaube ich)\b|かもしれ|たぶん|多分|でしょう|だろう|と思う|と思います|也许|可能|或许|大概"
    r"|我觉得|我想",
    re.I,
)
_POLITE_REQUEST = re.compile(r"\bi(?:'d| would) like you to\b", re.I)
_BEFORE_TRIGGER = re.compile(
    r"\b(?:if|what if|suppose|supposing|imagine|assuming|in case|hypothetically|wenn|falls"
    r"|angenommen|sofern|you said|you told|you wrote|you mentioned|you promised|he said|she said"
    r"|they said|it says|the docs say|as you said|du hast gesagt|sagtest du)\b|もし|仮に|たとえば"
    r"|例えば|如果|假如|要是|假设|万一|比如|って言った|と言った|你说",
    re.I,
)
_TRAILING_MARKS = " \t.!。！…~)）"


def is_question(sentence: Sentence) -> bool:
    """A question asks; it establishes nothing (chit-chat and "can you always ...?" alike)."""
    text = sentence.core.strip()
    if "?" in text or "？" in text or _QUESTION_START.match(text):
        return True
    return bool(_QUESTION_END.search(text.rstrip(_TRAILING_MARKS)) or _QUESTION_WORDS.search(text))


def _hedged(core: str, at: int) -> bool:
    """Hedges anywhere, or a hypothetical / reported-speech marker before the trigger."""
    return bool(_HEDGES.search(_POLITE_REQUEST.sub(" ", core)) or _BEFORE_TRIGGER.search(core[:at]))


def _sized(text: str) -> bool:
    """Long enough to be a statement: ``MIN_WORDS`` words, or ``MIN_CJK_CHARS`` characters
    in Japanese and Chinese (where a Latin word such as ``pnpm`` counts as two)."""
    if _CJK.search(text):
        latin = re.findall(r"[A-Za-z0-9]+", _URL.sub(" x ", text))
        return len(_CJK.findall(text)) + 2 * len(latin) >= MIN_CJK_CHARS
    return len(text.split()) >= MIN_WORDS


def _wordset(text: str) -> frozenset[str]:
    """A word list written as one string, as a set."""
    return frozenset(text.split())


# --- Rules -----------------------------------------------------------------------------------


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


_EN_VERBS = _wordset(
    """add address adopt align amend annotate answer apply ask assume avoid await back benchmark
    build bump bundle bypass cache call cast catch cd check chmod cite clean clear clone close
    comment commit compile confirm consult convert copy create debug declare default define
    delete deploy describe disable document double downgrade download drop edit emit enable
    encrypt escape explain export expose extract fetch fix follow force format generate give
    guard handle hardcode hard hash ignore import include inline install keep label leave lint
    list load lock log make mark mask measure mention merge migrate mock modify move name
    normalize notify open override overwrite pass paste patch persist pin ping place plan prefer
    prefix print profile prompt pull push put quote raise read rebase rebuild redact refactor
    reference reinstall release reload rely remember remove rename reply report request require
    reset respond restart retry return reuse review revert rewrite run sanitize save say send set
    ship show sign silence skip sort speak specify split squash stage start stay stick stop store
    strip stub submit suggest summarize suppress switch sync tag talk target tell test throw touch
    translate trust truncate type typecheck uninstall update upgrade upload use validate vendor
    verify wait wrap write"""
)
_EN_STOP = _wordset(
    """a all also always an any anything else everything for here in it just like me more much
    never nothing now of off on once one ones out please so something stuff that the them there
    these they thing things this those to too up us way with yet you"""
)
_DEICTIC = re.compile(
    r"\b(?:this|that|it|these|those|them|here|yet|now|today|for now|right now|this time"
    r"|anything|everything|something|das|dies|diese[nmrs]?|es|hier|jetzt|noch|gerade|heute"
    r"|erstmal|vorerst)\b|これ|それ|あれ|この|その|あの|ここ|そこ|今回|いま|まだ|一旦|いったん"
    r"|とりあえず|しばらく|ちょっと|这|那|它|现在|先|暂时|还|这次|刚才|目前",
    re.I,
)
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
_DE_IMPERATIVES = _wordset(
    """achte aktiviere aktualisiere antworte baue benenne benutze benutzt bestätige checke
    committe deaktiviere denk denke dokumentiere entferne erstelle exportiere formatiere frag frage
    führe füge gib halte ignoriere importiere installiere kommentiere lass lasse lies logge lösche
    mach mache merge nenne nimm nutze nutzt pinne prüfe pushe räume rebase rede rufe schreib
    schreibe setze sortiere speichere sprich starte stoppe squashe teste update validiere
    verifiziere vermeide verwende verwendet überprüfe ändere"""
)
_DE_ALWAYS = re.compile(
    r"\b(?:immer|stets|grundsätzlich|nie|niemals|keinesfalls)\b(?!\s+(?:noch|wieder|mehr|weniger"
    r"|schon|öfter))",
    re.I,
)
_DE_NOT = re.compile(r"\b(?:nicht|kein(?:e|en|em|er|es)?)\b", re.I)
_DE_STOP = _wordset(
    """auch bitte das dem den der des die dies doch du es hier ihr immer jetzt mal man mir nicht
    nie niemals noch sie so stets wieder wir"""
)
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


def _latin_words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


def _has_content(text: str, stop: frozenset[str]) -> bool:
    return any(word not in stop and not word.isdigit() for word in _latin_words(text))


def _en_directive(core: str) -> tuple[int, str]:
    """Offset and rest of an English directive after a condition and a request prefix."""
    at = 0
    for prefix in (_EN_CONDITION, _EN_REQUEST):
        found = prefix.match(core[at:])
        if found:
            at += found.end()
    return at, core[at:]


def _ja_clause(core: str) -> str:
    return core.rstrip(_TRAILING_MARKS)


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
    if found and found.group(1).split("-")[0].lower() in _EN_VERBS:
        clause = re.split(r"[,;:(]", found.group(2))[0]
        return (
            Hit("always_never", "Rule", "feedback", at) if _has_content(clause, _EN_STOP) else None
        )
    return _de_always(s.core) or _ja_always(s.core) or _zh_always(s.core)


def _de_always(core: str) -> Hit | None:
    words = _latin_words(core)
    if not words or not _DE_ALWAYS.search(core):
        return None
    imperative = words[0] in _DE_IMPERATIVES or (
        len(words) > 1 and words[1] == "sie" and words[0].endswith("en")
    )
    infinitive_style = words[0] in ("immer", "stets", "nie", "niemals") and _DE_INFINITIVE.search(
        core.rstrip(_TRAILING_MARKS)
    )
    modal = re.match(r"^du\s+(?:sollst|solltest|musst)\s+(?:immer|stets|nie|niemals)\b", core, re.I)
    if (imperative or infinitive_style or modal) and _has_content(" ".join(words[1:]), _DE_STOP):
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
    if found is None or _DEICTIC.search(found.group(1)):
        return None
    return Hit("always_never", "Rule", "feedback")


_EN_DONT = re.compile(
    r"^(?:don'?t|do not|(?:you|we) (?:must|should) not|(?:you|we) mustn't|(?:you|we) shouldn't)"
    r"\s+(?:ever\s+)?([a-z][a-z-]*)\b([^,;:(]*)(.*)$",
    re.I,
)
#: Words that may follow "don't X," without making it a "don't X, do Y" redirect.
_CONTINUATIONS = _wordset(
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
            verb.split("-")[0].lower() not in _EN_VERBS
            or redirect
            or len(rest[: found.end(2)].split()) < MIN_DONT_WORDS
            or _DEICTIC.search(_THIS_REPO.sub(" ", clause))
            or not _has_content(clause, _EN_STOP)
        ):
            return None
        rule = "dont_durable" if _DURABLE.search(s.core) else "dont"
        return Hit(rule, "Rule", "feedback", at)
    return _de_dont(s.core) or _cjk_dont(s.core)


def _de_dont(core: str) -> Hit | None:
    words = _latin_words(core)
    if len(words) < MIN_DONT_WORDS or _DEICTIC.search(core):
        return None
    infinitive = _DE_INFINITIVE.search(core.rstrip(_TRAILING_MARKS))
    if re.match(r"^(?:nicht|kein(?:e|en|em|er|es)?)\b", core, re.I) and infinitive:
        return Hit("dont", "Rule", "feedback")
    if words[0] in _DE_IMPERATIVES and _DE_NOT.search(" ".join(words[1:3])):
        return Hit("dont", "Rule", "feedback")
    return None


def _cjk_dont(core: str) -> Hit | None:
    clause = _ja_clause(core)
    if _DEICTIC.search(clause) or len(_CJK.findall(clause)) < 8:
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
    if verb in _EN_VERBS:
        return _has_content(rest[found.end() :] if found else "", _EN_STOP)
    we_you = _EN_WE_YOU.match(rest)
    if we_you is None or we_you.group(1).split("-")[0].lower() not in _EN_VERBS:
        return False
    return _has_content(rest[we_you.end() :], _EN_STOP)


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
        words = _latin_words(rest)
        starts = bool(words) and (
            words[0] in _DE_IMPERATIVES
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
        enough = len(rest.split()) >= MIN_WORDS and _has_content(rest, _EN_STOP)
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
        if _sized(rest) and not _DEICTIC.search(rest):
            return Hit("remember", "Rule", "feedback", found.start())
    return None


_EN_PREFER = re.compile(
    r"^(?:i|we)\s+(?:(?:really|generally|usually|always|strongly)\s+)?prefer\s+(.+)$"
    r"|^my preference is\s+(?:to\s+|for\s+|that\s+)?(.+)$"
    r"|^prefer\s+(.+?\s+(?:over|to|rather than)\s+.+)$",
    re.I,
)
_ONE_OFF_CHOICE = re.compile(
    r"^(?:this|that|it|the (?:first|second|third|last|former|latter|other|new|old|previous|current)"
    r"\b|#?\d+\b)|\b(?:option|approach|proposal|suggestion|variant|alternative|solution"
    r"|plan)s?\b|方案|选项|这个|那个|案|方法|オプション",
    re.I,
)
_DE_PREFER = re.compile(
    r"^ich\s+(?:bevorzuge|mag lieber|nutze lieber|verwende lieber|arbeite lieber mit"
    r"|schreibe lieber)\s+(.+)$|^mir ist\s+(.+?)\s+lieber\b",
    re.I,
)
_CJK_PREFER = re.compile(
    r"^我(?:更|比较)?(?:更喜欢|比较喜欢|偏好|倾向于)(?:用|使用)?(.{2,})"
    r"|^(?:私|僕|俺|わたし)は(.{2,}?)(?:の方が好きです|が好きです|を好みます|の方が好みです|派です)"
    r"|^(.{2,}?)(?:の方が好きです|を好みます|の方が好みです)"
)
_ADDRESSES_ASSISTANT = re.compile(r"\b(?:you|your|du|dich|dir|dein\w*)\b|你|あなた", re.I)


def rule_preference(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a preference the user states ("I prefer ...").

    Type ``user`` for a personal preference ("I prefer tabs"), ``feedback`` when
    it is about how the assistant works ("I prefer you ask first") or is an
    imperative ("prefer X over Y"). A choice among options on the table ("I
    prefer the second approach") is not a preference. German "ich bevorzuge",
    Japanese …の方が好きです/を好みます, Chinese 我更喜欢/偏好.
    """
    found = _EN_PREFER.match(s.core) or _DE_PREFER.match(s.core) or _CJK_PREFER.match(s.core)
    if not found:
        return None
    what = next(group for group in found.groups() if group)
    if _ONE_OFF_CHOICE.search(what.strip()) or not _sized(s.core):
        return None
    imperative = s.core.lower().startswith("prefer")
    kind: ItemType = "feedback" if imperative or _ADDRESSES_ASSISTANT.search(what) else "user"
    return Hit("preference", "Preference", kind)


_EN_DECIDED = re.compile(
    r"^(?:we\s+(?:(?:have|'ve|had|just|finally|already)\s+)*(?:decided|agreed|settled on|chose"
    r"|went with)\b|i\s+(?:(?:have|'ve|just|finally|already)\s+)*decided\b|let'?s\s+(?:go with"
    r"|use|stick with|pick|choose|adopt|switch to|keep|stay with)\b|we(?:'ll| will|'re going to"
    r"| are going to)\s+(?:go with|use|stick with|switch to)\b|decision\s*:)(.+?)\s*,?\s*"
    r"\b(?:because|since|so that|due to|given that)\b(.+)$",
    re.I,
)
_DE_DECIDED = re.compile(
    r"^((?:wir|ich)\s+(?:haben|habe)\b.*?\b(?:entschieden|beschlossen|festgelegt|geeinigt)\b.*?"
    r"|(?:lass(?:t)? uns|wir (?:nehmen|verwenden|nutzen|bleiben bei|gehen mit)|entscheidung\s*:)"
    r".*?)\s*,?\s*\b(?:weil|da|denn|damit)\b(.+)$",
    re.I,
)
_DECISION_WORDS = _wordset(
    """we i decided agreed settled chose picked went with let's lets go use stick pick choose adopt
    switch keep stay decision to have had just finally already 've will 'll going are 're on
    wir ich haben habe uns entschieden beschlossen festgelegt geeinigt lass lasst für nehmen
    verwenden nutzen bleiben bei gehen mit entscheidung zu"""
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
    ...", Japanese …ことにしました + ので/から, Chinese 我们决定…因为….
    A decision without a stated reason is not planted.
    """
    found = _EN_DECIDED.match(s.core) or _DE_DECIDED.match(s.core)
    if found:
        what, why = found.group(1), found.group(2)
        stop = _EN_STOP | _DE_STOP | _DECISION_WORDS
        enough = len(why.split()) >= MIN_WORDS and _has_content(what, stop)
        return Hit("decision_because", "Decision", "project") if enough else None
    found = _JA_DECIDED.search(s.core)
    if found and _JA_REASON.search(s.core) and _sized(s.core):
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
    clause = s.core.rstrip(_TRAILING_MARKS)
    found = _EN_INSTEAD.match(clause) or _DE_INSTEAD.match(clause) or _CJK_INSTEAD.search(clause)
    if not found or _HERE_AND_NOW.search(clause):
        return None
    sides = [group for group in found.groups() if group]
    if any(len(side.split()) > 6 or _DEICTIC.fullmatch(side.strip()) for side in sides):
        return None
    return Hit("instead_of", "Decision", "project", found.start())


_EN_MUST = re.compile(
    r"^([\w`'./@#-]+(?:\s+[\w`'./@#-]+){0,5}?)\s+(?:must|should|need to|have to)\s+(?:always|never"
    r"|not ever)\s+([a-z][a-z-]*)(.*)$",
    re.I,
)
_PRONOUNS = _wordset(
    """it this that these those they he she i you we there which what who something everything
    nothing someone one"""
)


def rule_must(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a standing requirement on a named thing.

    "Invalid themes must never explode", "the main branch should always build":
    the subject must be a noun phrase, not a pronoun or a pointer ("that should
    never happen" is a complaint, not a rule).
    """
    found = _EN_MUST.match(s.core.rstrip(_TRAILING_MARKS))
    if not found or _DEICTIC.search(s.core):
        return None
    subject = _latin_words(found.group(1))
    if not subject or subject[0] in _PRONOUNS:
        return None
    return Hit("must", "Rule", "feedback")


_LABELS_EN = (
    r"dashboard|docs|documentation|doc|runbook|playbook|wiki|spec|specification|design doc|tracker"
    r"|board|grafana|kibana|sentry|confluence|notion|status page|api reference|handbook|guide"
    r"|style guide|adr|doku|dokumentation|spezifikation|handbuch|anleitung"
)
_TARGET = (
    r"(https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+|(?:~?/|\./|[\w.-]+/)[\w./-]+|[\w./-]+\.md)"
)
_REFERENCE = (
    re.compile(
        rf"^(?:[\w-]+\s+){{0,3}}?(?:{_LABELS_EN})s?\b[^.?!]{{0,40}}?\s(?:is|are|lives?|sits?"
        rf"|can be found|are kept|is kept|is hosted|ist|liegt|liegen|sind|findest du|findet man"
        rf"|gibt es|steht)\s+(?:at|in|on|under|here|unter|bei|auf|hier)?\s*:?\s*{_TARGET}",
        re.I,
    ),
    re.compile(rf"^(?:[\w-]+\s+){{0,3}}?(?:{_LABELS_EN})s?\s*:\s*{_TARGET}", re.I),
    re.compile(rf"^see\s+{_TARGET}\s+for\s+\S.*$|^for\s+[^,]{{3,60}},?\s+see\s+{_TARGET}", re.I),
    re.compile(
        rf"(?:ダッシュボード|ドキュメント|資料|仕様書|手順書|ランブック|ウィキ|設計書|仪表盘|仪表板|文档"
        rf"|看板|手册|说明文档|监控面板|wiki)(?:は|：|:|在|是|地址是|位于)\s*{_TARGET}",
        re.I,
    ),
)


def rule_reference(s: Sentence) -> Hit | None:
    """Seed 002 phase 3 topics scan: a reference the user points to.

    A named kind of resource and where it is: "the dashboard is at https://...",
    "docs: docs/architecture.md", "see https://... for the API", German "die
    Doku liegt unter ...", Japanese ダッシュボードは https://..., Chinese 文档在
    https://.... A bare link with no such name is not a reference.
    """
    for pattern in _REFERENCE:
        found = pattern.search(s.core)
        if found:
            group = next(index for index in range(pattern.groups, 0, -1) if found.group(index))
            target = found.group(group).rstrip(".,;:!?)'").rstrip("/")
            return Hit("reference", "Reference", "reference", found.start(group), key=target)
    return None


#: Sentence rules in the order they are tried; the first that fires names the item.
SENTENCE_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    rule_decision_because,
    rule_from_now_on,
    rule_remember,
    rule_preference,
    rule_instead_of,
    rule_always_never,
    rule_must,
    rule_dont,
    rule_reference,
)

# --- Gotchas (a window rule) -----------------------------------------------------------------

_FAILURE = re.compile(
    r"\b(?:error|errors|exception|traceback|crash(?:es|ed|ing)?|fail(?:s|ed|ing|ure)?|broken|panic"
    r"|segfault|doesn't work|not working|won't (?:start|build|compile|run)|ENOENT|EACCES"
    r"|cannot find|can't find|no such file|exit code [1-9]|Fehler|schlägt fehl|fehlgeschlagen"
    r"|kaputt|stürzt ab|funktioniert nicht|geht nicht)\b|エラー|失敗|落ち|クラッシュ|動かない"
    r"|動きません|例外|报错|错误|失败|崩溃|异常|挂了|跑不起来",
    re.I,
)
_FIX = re.compile(
    r"\b(?:the (?:issue|problem|bug|cause|culprit|error) (?:was|is)|root cause|caused by"
    r"|was missing"
    r"|the fix|fixed (?:it|this|the)|i(?:'ve| have)? (?:fixed|changed|updated|added|removed"
    r"|replaced|switched|moved)|this fixes|ursache|behoben)\b"
    r"|原因|修正しました|直しました|修复|改成",
    re.I,
)
_CONFIRMED = re.compile(
    r"\b(?:(?:that|this|it)\s+(?:fixed|solved|did)\s+(?:it|the trick)|(?:works|working|runs|passes"
    r"|passing|builds)\s+(?:now|again)|that worked|(?:problem|issue|bug)\s+(?:solved|fixed|gone)"
    r"|fixed now|it'?s fixed|(?:jetzt|nun)\s+(?:geht|geht's|gehts|funktioniert|läuft|klappt)"
    r"|(?:geht|funktioniert|läuft|klappt)\s+(?:jetzt|wieder)"
    r"|das hat(?:'s| es)? (?:gelöst|behoben))\b"
    r"|直りました|直った|解決しました|解決した|動きました|動くようになりました|うまくいきました"
    r"|修好了|解决了|能用了|可以用了|正常了|跑通了|没问题了",
    re.I,
)
_STILL_BROKEN = re.compile(
    r"\b(?:still|but|not|doesn't|isn't|except|nicht|noch|aber)\b|まだ|けど|けれど|でも|が、|還|还|但|不行",
    re.I,
)


def _first_matching_line(text: str, pattern: re.Pattern[str]) -> str:
    for line in text.split("\n"):
        if pattern.search(line):
            return line.strip()
    return ""


def _first_matching_sentence(text: str, pattern: re.Pattern[str]) -> str:
    for sentence in sentences(text):
        if pattern.search(sentence.text):
            return sentence.text
    return ""


def rule_gotcha(window: Window) -> Iterator[tuple[str, str, tuple[Message, ...]]]:
    """Seed 002 phase 3 topics scan: a failure and the fix the user confirmed.

    In one window: a user message reporting a failure, then the assistant's
    reply naming a cause or fix, then the user's next message confirming it
    ("that fixed it", "works now", 直りました, 修好了, "jetzt geht's") with no
    "still"/"but". Yields (failure line, fix sentence, the three messages).
    Only in technical context: a gotcha is a coding lesson.
    """
    if not window.technical_context:
        return
    messages = window.messages
    for index, confirm in enumerate(messages):
        if confirm.role != "user" or not _is_confirmation(confirm.text):
            continue
        replies = list(takewhile(lambda m: m.role == "assistant", reversed(messages[:index])))
        report_at = index - len(replies) - 1
        if not replies or report_at < 0:
            continue
        failure = _first_matching_line(messages[report_at].text, _FAILURE)
        fix = next(
            (_first_matching_sentence(m.text, _FIX) for m in replies if _FIX.search(m.text)), ""
        )
        if failure and fix:
            fixer = next(m for m in replies if _FIX.search(m.text))
            yield failure, fix, (messages[report_at], fixer, confirm)


def _is_confirmation(text: str) -> bool:
    prose = " ".join(text.split())
    if "?" in prose or "？" in prose or _STILL_BROKEN.search(prose):
        return False
    size = len(_CJK.findall(prose)) // 2 if _CJK.search(prose) else len(prose.split())
    return size <= MAX_CONFIRM_WORDS and bool(_CONFIRMED.search(prose))


# --- Facts -----------------------------------------------------------------------------------


def fact_stated(s: Sentence, fact: str) -> str:
    """Seed 002 phase 3 facts stage: the value the user gives for one missing fact, or ``""``.

    "my <fact> is <value>", German "mein(e) <fact> ist <value>", Japanese
    私の<fact>は<value>です, Chinese 我的<fact>是<value>.
    """
    name = re.escape(fact.strip())
    pattern = re.compile(
        rf"\bmy\s+{name}\s+(?:is|are|=|:)\s+([^.?!\n]{{1,80}})"
        rf"|\bmein(?:e|en)?\s+{name}\s+(?:ist|sind|:)\s+([^.?!\n]{{1,80}})"
        rf"|(?:私|僕|俺|わたし)の{name}は(.{{1,40}}?)(?:です|だ)?$"
        rf"|我的{name}(?:是|：|:)(.{{1,40}})$",
        re.I,
    )
    found = pattern.search(s.core.rstrip(_TRAILING_MARKS))
    if not found or is_question(s) or _hedged(s.core, found.start()):
        return ""
    return next(group for group in found.groups() if group).strip()


# --- Items -----------------------------------------------------------------------------------

_REASON_START = re.compile(
    r"^(?:because|since|otherwise|the reason|that's because|weil|denn|sonst|なぜなら|理由は"
    r"|因为|否则|不然)",
    re.I,
)


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _excerpt(text: str) -> str:
    """A quote: the verbatim start of the text (it can always be found in the message again)."""
    return text.strip()[:MAX_QUOTE_CHARS]


def _key(text: str) -> str:
    """A statement's identity: case, punctuation and spacing do not count."""
    return " ".join(re.findall(r"\w+", _FILLERS.sub("", text.casefold())))


def _name(category: str, key: str) -> str:
    slug = "-".join(key.split()[:6])[:40].strip("-") or "item"
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    return f"{category.lower()}-{slug}-{digest}"


def _item(
    window: Window,
    hit: Hit,
    statement: str,
    body: str,
    quotes: Sequence[tuple[Message, str]],
) -> MemoryItem:
    key = _key(hit.key or statement)
    session = window.session
    return MemoryItem(
        type=hit.type,
        category=hit.category,
        name=_name(hit.category, key),
        description=_one_line(f"{hit.category}: {statement}", MAX_DESCRIPTION_CHARS),
        body=_one_line(body, MAX_BODY_CHARS),
        confidence=hit.confidence,
        source=session.source,
        collected=session.collected,
        quotes=tuple(Quote(window.qualify(message), _excerpt(text)) for message, text in quotes),
        project=session.project,
    )


def _scan_message(message: Message) -> Iterator[tuple[Sentence, Hit]]:
    """Every sentence of one user message that a rule recognises and no guard rejects."""
    for sentence in sentences(user_prose(message.text)):
        if len(sentence.text) > MAX_SENTENCE_CHARS or is_question(sentence):
            continue
        for rule in SENTENCE_RULES:
            hit = rule(sentence)
            if hit is not None:
                # "docs: <url>" is a whole reference in two words; anything else that short
                # is a fragment.
                sized = hit.rule == "reference" or _sized(sentence.core)
                if sized and not _hedged(sentence.core, hit.at):
                    yield sentence, hit
                break


def _statement_items(window: Window) -> Iterator[MemoryItem]:
    for message in window.messages:
        if message.role != "user":
            continue
        for sentence, hit in _scan_message(message):
            body = sentence.statement
            if sentence.follow and _REASON_START.match(sentence.follow):
                body = f"{body} {sentence.follow}"
            yield _item(window, hit, sentence.statement, body, [(message, sentence.text)])


def _gotcha_items(window: Window) -> Iterator[MemoryItem]:
    for failure, fix, (report, fixer, confirm) in rule_gotcha(window):
        statement = _one_line(failure, 100)
        body = f"Failure: {failure} Fix (confirmed by the user): {fix}"
        quotes = [(report, failure), (fixer, fix), (confirm, confirm.text)]
        yield _item(
            window, Hit("gotcha", "Gotcha", "project", key=failure), statement, body, quotes
        )


def _merged(items: Iterable[MemoryItem]) -> list[MemoryItem]:
    """The match step within a window: the same statement twice is one item, both quotes."""
    by_name: dict[str, MemoryItem] = {}
    for item in items:
        known = by_name.get(item.name)
        by_name[item.name] = item if known is None else merge_items(known, item)
    return list(by_name.values())


def _fact_items(window: Window, missing_facts: Sequence[str]) -> Iterator[MemoryItem]:
    for message in window.messages:
        if message.role != "user":
            continue
        for sentence in sentences(user_prose(message.text)):
            for fact in missing_facts:
                value = fact_stated(sentence, fact)
                if value:
                    hit = Hit("fact", "Fact", "user", key=f"{fact} {value}")
                    quote = [(message, sentence.text)]
                    yield _item(window, hit, f"{fact}: {value}", sentence.statement, quote)


class HeuristicExtractor:
    """The built-in extractor: rules over the user's own words, no model, no tokens."""

    name = "heuristic"

    @property
    def tokens_used(self) -> int:
        """Always 0: nothing is sent to a model."""
        return 0

    def topics(self, window: Window) -> list[MemoryItem]:
        """Scan (statements and gotchas) → match (same statement, one item) → update (items)."""
        found = [*_statement_items(window), *_gotcha_items(window)]
        return _merged(found)

    def people(self, window: Window) -> list[MemoryItem]:
        """No people: naming a person reliably needs a model (seed: most windows have none)."""
        return []

    def events(self, session_windows: Sequence[Window]) -> list[MemoryItem]:
        """No events: the campaign retrospective needs a model (seed: none is the norm)."""
        return []

    def facts(self, window: Window, missing_facts: Sequence[str]) -> list[MemoryItem]:
        """A missing fact the user states outright about themself ("my timezone is CET")."""
        return _merged(_fact_items(window, missing_facts))


#: The default extractor (stateless, so one instance serves every run).
HEURISTIC = HeuristicExtractor()
