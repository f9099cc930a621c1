"""Scope tests of the heuristic extractor: is an instruction durable, or the task of the moment?

Seed 002 safety contract 6 ("noise is worse than omission") and the labelling
guide: the task of the moment ("now add a button", "fix the failing test"),
progress requests ("continue"), one-off instructions ("for this", "in this
PR") and lists of steps are not memories, whatever modal verb they use. The
tests here only reject: a clause that points at the moment, a progress
request, a task list. They hold in English, German, Spanish, Chinese and
Japanese.

Invariants:

- a durable scope ("in this repo", "every time", "from now on") is not a
  pointer at the moment, so "never push to main in this repo" stays a rule;
- the tests are pure functions of the text: no clock, no I/O, no randomness.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "MIN_SPEC_DIRECTIVES",
    "MIN_TASK_LIST_ITEMS",
    "is_progress_request",
    "is_specification",
    "is_task_list",
    "points_at_moment",
]

MIN_TASK_LIST_ITEMS = 2  # a message with this many imperative bullet lines is a task spec
MIN_SPEC_DIRECTIVES = 4  # ... and one with this many directive sentences is a specification

#: Scopes that outlast the session: they never make a clause momentary.
_DURABLE_SCOPE = re.compile(
    r"\b(?:in|for|across|throughout)\s+(?:this|our|the)\s+(?:repo|repository|project|codebase"
    r"|code base|team|company|organi[sz]ation|monorepo)\b|\bevery\s*time\b|\beach time\b"
    r"|\bfrom now on\b|\bgoing forward\b|\bin general\b|\bin diesem (?:repo|projekt)\b"
    r"|\bin (?:este|nuestro) (?:repo|repositorio|proyecto)\b|\bde ahora en adelante\b"
    r"|\ba partir de ahora\b|这个(?:项目|仓库|代码库)|このリポジトリ|このプロジェクト|今後",
    re.I,
)

#: Pointers at the moment: time, place and the thing at hand, and one-off scopes.
_MOMENT = re.compile(
    r"\b(?:now|right now|for now|just now|at the moment|currently|today|tonight|tomorrow|yet"
    r"|this time|for this|this one|just this once|first|afterwards|after that|later|here"
    r"|next(?=\s*,)|next (?:step|thing|task|part|one)|(?:do|does|is) next"
    r"|(?:when|once|after)\s+(?:you(?:'re| are)|we(?:'re| are)|it'?s|it is|that'?s|this is)\s+"
    r"(?:done|finished|ready|through)|(?:start|begin|starting|beginning)\s+(?:with|by)"
    r"|this|these|those|that one|in (?:this|the) (?:pr|pull request|commit|branch|file|function"
    r"|method|class|step|test|page|component|line|ticket|issue))\b|(?:^|,\s*|\band\s+)then\b"
    r"|\b(?:jetzt|gerade|heute|morgen|hier|diesmal|erstmal|vorerst|zuerst|danach|dann|noch"
    r"|dies|diese[nmrs]?|in diesem (?:pr|commit|branch))\b"
    r"|\b(?:ahora|ahorita|aquí|aqui|acá|aca|esto|este|esta|estos|estas|hoy|mañana|todavía"
    r"|todavia|aún|luego|después|despues|primero|por ahora|de momento|esta vez|en este pr)\b"
    r"|这|那(?!么)|现在|暂时|这次|刚才|目前|然后|接下来|下一步|先(?!前)"
    r"|^next\b|(?:^|[,;]\s*)(?:now|then)\b"
    r"|これ|この|その|あの|ここ|そこ|今回|今(?!後)|いま(?![すせしさ])|まだ|一旦|いったん|とりあえず"
    r"|しばらく|次に|その後|まず",
    re.I,
)

#: Requests to go on with the work: "continue", "keep going", "weiter", "sigue", 继续, 続けて.
_PROGRESS = re.compile(
    r"^(?:ok(?:ay)?[,.!]?\s+|yes[,.!]?\s+|now[,.!]?\s+|please\s+)*(?:continue|go on|proceed"
    r"|keep going|carry on|resume|next|start implementing|go ahead|mach weiter|weiter(?:machen)?"
    r"|fahre fort|sigue|continúa|continua|adelante|siguiente|继续|接着|下一步|続けて|続き|次へ)"
    r"\b|^(?:now|then|next|and now)\s+\w+",
    re.I,
)

_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+(\S+)")
#: A lead-in that announces rules, not steps: "Some rules:", "Regeln:", "Convenciones:", 规则.
_RULES_LEAD = re.compile(
    r"\b(?:rules?|conventions?|guidelines?|principles?|regeln|konventionen|richtlinien|reglas"
    r"|convenciones|normas|pautas)\b|规则|规范|约定|ルール|規約|方針",
    re.I,
)


def points_at_moment(text: str) -> bool:
    """Whether a clause points at the moment ("now", "this", "for now", 今回, 这次, ahora).

    Durable scopes are blanked first, so "in this repo" and "every time" do
    not count; the pronouns "it" and "that" alone do not count either (a rule
    may refer back: "no, we want it in the worker").
    """
    return bool(_MOMENT.search(_DURABLE_SCOPE.sub(" ", text)))


def is_progress_request(text: str) -> bool:
    """Whether a message asks to go on with the work ("continue", "now add a button")."""
    return bool(_PROGRESS.match(" ".join(text.split())))


def is_task_list(prose: str, imperative: frozenset[str]) -> bool:
    """Whether prose lists steps: ``MIN_TASK_LIST_ITEMS`` bullet lines opening with a verb.

    A list of instructions is the specification of the task at hand (a page to
    build, a plan to follow), not standing rules, even when one bullet says
    "keep" or "always" — unless its lead-in announces rules ("Our conventions:").
    """
    lines = prose.split("\n")
    lead = next((line for line in lines if line.strip() and not _BULLET.match(line)), "")
    if _RULES_LEAD.search(lead):
        return False
    starts = (_BULLET.match(line) for line in lines)
    verbs = [found.group(1).strip("*_`").lower() for found in starts if found]
    return sum(verb in imperative for verb in verbs) >= MIN_TASK_LIST_ITEMS


_DIRECTIVE = re.compile(
    r"\b(?:must|should|shall|needs? to|has to|have to|muss|müssen|soll|sollen|sollte|debe|deben"
    r"|tiene que|tienen que)\b|必须|应该|要求|べき|なければ|てください",
    re.I,
)


def is_specification(texts: Sequence[str], imperative: frozenset[str]) -> bool:
    """Whether a message specifies a task: ``MIN_SPEC_DIRECTIVES`` directive sentences or more.

    A user who writes out what a feature must do ("The page must show ...
    Each row should have ... Add a button ...") describes the task at hand;
    its norms hold for that feature, not for every later session.
    """

    return sum(_is_directive(text, imperative) for text in texts) >= MIN_SPEC_DIRECTIVES


def _is_directive(text: str, imperative: frozenset[str]) -> bool:
    lead = re.match(r"[\w'-]+", text.lower())
    return bool(_DIRECTIVE.search(text)) or (lead is not None and lead.group() in imperative)
