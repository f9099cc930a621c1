"""The choice and reference rules of the heuristic extractor (seed 002 phase 3 topics scan).

What the user chooses and points to: a preference ("I prefer ..."), a
decision with its reason ("we decided ... because ..."), one thing over
another ("use X instead of Y"), and a reference ("the dashboard is at
https://..."), each in English, German, Japanese and Chinese. The ``Hit``
type and the shared lexicon are in ``dreamd.collect.rules``.

Invariants:

- a rule is a pure function ``Sentence -> Hit | None`` over the masked core;
- a choice among options on the table ("the second approach", "this one")
  and a decision without a stated reason are not planted;
- a reference needs a named kind of resource and where it is; its ``Hit.key``
  (the target) is the item's identity, so the same link is one item.
"""

# The rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re

from dreamd.collect.rules import DE_STOP, DEICTIC, EN_STOP, Hit, has_content, wordset
from dreamd.collect.sentences import MIN_WORDS, TRAILING_MARKS, Sentence, sized
from dreamd.stores import ItemType

__all__ = [
    "rule_decision_because",
    "rule_instead_of",
    "rule_preference",
    "rule_reference",
]

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
    if _ONE_OFF_CHOICE.search(what.strip()) or not sized(s.core):
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
_DECISION_WORDS = wordset(
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
    found = _EN_INSTEAD.match(clause) or _DE_INSTEAD.match(clause) or _CJK_INSTEAD.search(clause)
    if not found or _HERE_AND_NOW.search(clause):
        return None
    sides = [group for group in found.groups() if group]
    if any(len(side.split()) > 6 or DEICTIC.fullmatch(side.strip()) for side in sides):
        return None
    return Hit("instead_of", "Decision", "project", found.start())


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
