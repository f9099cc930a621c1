"""Replies to the assistant in the heuristic extractor (seed 002 phase 3 topics scan; issue 11).

Some durable statements exist only as a reply: "yes, let's do that" after
the assistant recommended a choice (a decision the user accepted), "bad idea,
since ..." after a proposal (a decision with its reason), per-option verdicts
to a numbered list of options ("2. weakest option, let's skip"), and the
correction that follows an assistant's unasked change ("why did you change
the colours? keep the ones I gave"). Each rule reads one user message and
the assistant turn before it, in English, German, Spanish, Chinese and
Japanese. A declined design change ("Should we batch the writes?" — "no,
then it's fine") is a decision too.

Invariants:

- acceptance needs an assistant *recommendation* of one choice ("I'd
  recommend X", "Option B (recommended)") right before the reply; an offer
  to act ("Shall I run the tests?", "Want me to commit?") is not a proposal,
  and a bare "yes" to it plants nothing;
- the reply must be nothing but agreement: "yes, and also rename the file"
  is an order, not an acceptance;
- quotes are verbatim substrings of their messages; the assistant's
  sentence is quoted only beside the user's own words;
- pure functions of the messages: no clock, no I/O, no randomness.
"""

# The patterns match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise, takewhile

from dreamd.collect.lexicon import ACCEPT_CJK, ACCEPT_WORDS, RECOMMENDATION, REFUSAL
from dreamd.collect.rules import Hit
from dreamd.collect.scope import points_at_moment
from dreamd.collect.sentences import (
    TRAILING_MARKS,
    Sentence,
    is_question,
    sentences,
    sized,
    user_prose,
)
from dreamd.readers import Message

__all__ = [
    "MAX_ACCEPT_CHARS",
    "Reply",
    "reply_findings",
    "rule_accepted",
    "rule_correction",
    "rule_declined",
    "rule_option_verdicts",
    "rule_rejected",
]

MAX_ACCEPT_CHARS = 60  # an acceptance is a short reply; more is an order of its own
MIN_OPTIONS = 2  # a numbered list of at least this many lines offers options


@dataclass(frozen=True, slots=True)
class Reply:
    """What a reply rule found: the hit, what the item states, its quotes and the reason."""

    hit: Hit
    statement: str
    quotes: tuple[tuple[Message, str], ...]
    why: str = ""


_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.M | re.S)
_OFFER = re.compile(
    r"\b(?:should i|shall i|want me to|would you like|do you want|soll ich|möchtest du"
    r"|¿?quieres que|¿?debo)\b|要我|需要我|しましょうか",
    re.I,
)
_RECOMMENDS = re.compile(RECOMMENDATION, re.I)
_ACCEPTS = re.compile(
    rf"^(?:(?:{ACCEPT_WORDS})(?:[\s,.!]+|$))+(?:please|thanks|thank you|danke|gracias)?$"
    rf"|^(?:(?:{ACCEPT_CJK})[、，。！!\s]*)+$",
    re.I,
)
_OPTION_PICK = re.compile(r"\b(?:option\s+)?(\d+|[a-c])\b\s*$", re.I)
_NUMBERED = re.compile(
    r"^\s*(?:#+\s*)?(?:\*\*)?(?:option\s+)?(\d+|[A-C])[.):]\s*(.+)$", re.I | re.M
)


def _assistant_sentences(message: Message) -> list[Sentence]:
    return sentences(_FENCED.sub("\n", message.text.replace("\r\n", "\n")))


def recommendation(turn: Sequence[Message]) -> str:
    """The last sentence of the assistant turn that recommends a choice, or ``""``."""
    for message in reversed(turn):
        found = [
            s.text
            for s in _assistant_sentences(message)
            if _RECOMMENDS.search(s.text) and not _OFFER.search(s.text)
        ]
        if found:
            return found[-1]
    return ""


def options(turn: Sequence[Message]) -> dict[str, tuple[Message, str]]:
    """The numbered options of the assistant turn's last list: number → (message, line)."""
    for message in reversed(turn):
        listed = {
            m.group(1).lower(): (message, m.group(0).strip())
            for m in _NUMBERED.finditer(message.text)
        }
        if len(listed) >= MIN_OPTIONS:
            return listed
    return {}


def _quoted(line: str) -> str:
    """A proposal line without its Markdown lead ("### ", "> "): still a verbatim substring."""
    return line.strip().lstrip("#> ").strip()


def _said(line: str) -> str:
    """A proposal as the item states it: no emphasis marks."""
    return _quoted(line).replace("**", "").replace("__", "")


def _reply_text(message: Message) -> str:
    return " ".join(user_prose(message.text).split())


def rule_accepted(reply: Message, turn: Sequence[Message]) -> Reply | None:
    """A short agreement to the assistant's recommendation: the recommended choice is decided.

    Issue 11 item 1: "yes", "sounds good", "ok do it", "go with 2", "ja, machen
    wir so", "sí, dale", はい, 好的 — but only right after an assistant
    sentence that recommends one choice ("I'd recommend X", "X
    (recommended)"); "go with 2" takes option 2 of the list instead. The
    reply must be agreement and nothing else, and not a question.
    """
    text = _reply_text(reply)
    if len(text) > MAX_ACCEPT_CHARS or not _ACCEPTS.match(text.lower().rstrip(TRAILING_MARKS)):
        return None
    picked = _OPTION_PICK.search(text)
    listed = options(turn) if picked else {}
    if picked and picked.group(1).lower() in listed:
        source, proposal = listed[picked.group(1).lower()]
    else:
        proposal = recommendation(turn)
        source = next((m for m in reversed(turn) if proposal and proposal in m.text), reply)
    if not proposal or points_at_moment(proposal):
        return None
    hit = Hit("accepted", "Decision", "project")
    quotes = ((source, _quoted(proposal)), (reply, reply.text.strip()))
    return Reply(hit, f"Accepted: {_said(proposal)}", quotes)


_REFUSES = re.compile(REFUSAL, re.I)
_REASON = re.compile(
    r"\b(?:because|since|as|otherwise|weil|denn|da|sonst|porque|ya que|puesto que)\b|因为|由于"
    r"|から|ので|なぜなら",
    re.I,
)


def rule_rejected(reply: Message, turn: Sequence[Message]) -> Reply | None:
    """A refusal of the assistant's recommendation, with its reason (issue 11 item 1).

    "It's a bad idea, since one lock would block every reader",
    "schlechte Idee, weil ...", "mala idea, porque ...", 不行，因为…, よくない、
    なぜなら… — after a recommendation or a numbered list of options. A
    refusal without a reason ("no", "bad idea") plants nothing.
    """
    first = next(iter(sentences(user_prose(reply.text))), None)
    if first is None or not _REFUSES.match(first.core):
        return None
    reason = _REASON.search(first.core)
    proposal = recommendation(turn)
    if reason is None or not proposal or not sized(first.core[reason.start() :]):
        return None
    source = next(m for m in reversed(turn) if proposal in m.text)
    why = first.text[first.core_at + reason.start() :]
    hit = Hit("rejected", "Decision", "project")
    quotes = ((source, _quoted(proposal)), (reply, first.text))
    return Reply(hit, f"Rejected: {_said(proposal)}", quotes, why)


#: An assistant question that proposes a change of design ("Should we fix this by adding X?").
_PROPOSES_CHANGE = re.compile(
    r"\b(?:should|shall)\s+(?:we|i)\s+(?:also\s+)?(?:fix|change|implement|add|introduce|switch"
    r"|refactor|replace|rewrite|move|split|merge|remove|drop)\b|\bsollen\s+wir\b"
    r"|\bsoll\s+ich\b.*\b(?:ändern|einbauen|umbauen|hinzufügen|ersetzen)\b"
    r"|\b¿?(?:deberíamos|deberiamos|quieres que)\b.*\b(?:cambi|implement|agreg|añad|reemplaz)"
    r"|(?:要不要|是否)(?:改|修改|实现|添加|替换|重构)|(?:変更|実装|追加|修正)しましょうか",
    re.I,
)
#: A refusal that judges the present state good enough: "no, then it's fine", "nein, passt so".
_DECLINES = re.compile(
    r"^(?:no|nope|nah|nein|不|いいえ)\b[\s,.!，、]*(?:then\s+|dann\s+|entonces\s+)?(?:it'?s|that'?s"
    r"|this is|it is|es|das ist|das|está|esta|那|それで)?\s*(?:good|fine|ok|okay|acceptable|enough"
    r"|gut|in ordnung|passt|bien|vale|está bien|可以|没问题|大丈夫|いいです|not needed"
    r"|nicht nötig|no hace falta)\b",
    re.I,
)


def rule_declined(reply: Message, turn: Sequence[Message]) -> Reply | None:
    """A declined design change: the current state stays, by the user's judgement (issue 11).

    After an assistant question that proposes a change of design ("Should we
    add a lock around both caches?", "Sollen wir ...?", "¿Deberíamos
    cambiar ...?", 要不要重构…, 変更しましょうか), a reply that refuses it and
    judges what exists good enough ("no, then it's fine", "nein, passt so",
    "no, está bien", 不，没问题) decides to keep the current behaviour. An offer
    to act ("Should I commit?") is not a design change.
    """
    first = next(iter(sentences(user_prose(reply.text))), None)
    question = next(
        (
            s.text
            for m in reversed(turn)
            for s in reversed(_assistant_sentences(m))
            if s.text.rstrip().endswith(("?", "？")) and _PROPOSES_CHANGE.search(s.text)
        ),
        "",
    )
    if first is None or not question or not _DECLINES.match(first.text.strip()):
        return None
    source = next(m for m in reversed(turn) if question in m.text)
    hit = Hit("declined", "Decision", "project")
    quotes = ((source, _quoted(question)), (reply, first.text))
    return Reply(hit, f"Declined: {_said(question)}", quotes, first.statement)


_VERDICT_NO = re.compile(
    r"(?:let'?s\s+)?(?:skip|drop)(?:\s+(?:it|that|this))?|not needed|not worth it|no|nope"
    r"|weglassen|streichen|brauchen wir nicht|nein|descartar|descártalo|descartalo|sáltalo"
    r"|saltalo|no hace falta|不要|跳过|不用|不需要|不要了|いらない|不要です|なし|やめましょう",
    re.I,
)
_VERDICT_AT_END = re.compile(rf"[\s,;.!—–-]+(?:{_VERDICT_NO.pattern})\s*[.!]*$", re.I)
_USER_NUMBERED = re.compile(r"^\s*(\d+|[a-c])[.)]\s*(.+)$", re.I)


def rule_option_verdicts(reply: Message, turn: Sequence[Message]) -> Iterator[Reply]:
    """Per-option refusals with a reason, replying to a numbered list of options (issue 11).

    "2. too slow on a laptop, let's drop it" after the
    assistant listed options 1-4: option 2 is decided against, with that
    reason. German "weglassen", Spanish "descartar", Chinese 跳过/不要,
    Japanese いらない. A bare "2. no" gives no reason and plants nothing.
    """
    listed = options(turn)
    for line in user_prose(reply.text).split("\n") if listed else ():
        found = _USER_NUMBERED.match(line)
        verdict = _VERDICT_AT_END.search(found.group(2)) if found else None
        if found is None or verdict is None or found.group(1).lower() not in listed:
            continue
        comment = found.group(2)[: verdict.start()].strip(" ,;.")
        if sized(comment) and not comment.rstrip().endswith(("?", "？")):
            source, option = listed[found.group(1).lower()]
            hit = Hit("option_verdict", "Decision", "project")
            quotes = ((source, _quoted(option)), (reply, line.strip()))
            yield Reply(hit, f"Rejected option: {_said(option)}", quotes, comment)


_COMPLAINT = re.compile(
    r"^(?:why|how come)\s+(?:did|do|would|have|are)\s+you\s+(?:\w+\s+){0,2}?(?:change|changed"
    r"|changing|modify|modified|remove|removed|delete|deleted|rename|renamed|touch|touched"
    r"|replace|replaced|move|moved|rewrite|rewrote|revert|reverted|reformat|reformatted|switch"
    r"|switched|drop|dropped)\b|^warum\s+(?:hast|hattest)\s+du\b.*\b(?:geändert|entfernt"
    r"|gelöscht|umbenannt|ersetzt|verschoben)\b|^¿?por\s*qu[eé]\s+(?:has\s+|lo\s+|la\s+)?"
    r"(?:cambiaste|modificaste|borraste|eliminaste|quitaste|renombraste|moviste|cambiado"
    r"|modificado|borrado|eliminado|quitado)\b|^(?:你)?为什么(?:要)?(?:改|修改|删|删除|换|替换|动"
    r"|移动|重命名)|^(?:なぜ|どうして|なんで).{1,20}?(?:変えた|変更した|削除した|消した|書き換えた)",
    re.I,
)
_RESTORE = re.compile(
    r"^(?:keep|leave|use|restore|put back|revert|don'?t|do not|stop)\b|^(?:behalte|lass|lasse"
    r"|verwende|nimm|ändere)\b|^(?:mantén|manten|mantenga|deja|deje|usa|use|vuelve|restaura|no)\b"
    r"|^(?:保留|保持|用回|改回|恢复|不要|别)|(?:戻して|そのままにして|元に戻して|維持して|変えないで)",
    re.I,
)


def rule_correction(reply: Message, turn: Sequence[Message]) -> Reply | None:
    """A correction after an assistant's change: "why did you change X? keep Y" (issue 11).

    The complaint ("why did you rename the config keys?", "warum hast du
    ... geändert", "¿por qué cambiaste ...?", 你为什么改了…, なぜ…を変えたの)
    followed in the same message by an instruction to keep, restore or leave
    something is a rule about what the assistant must not change. A complaint
    alone, or one not after an assistant turn, plants nothing.
    """
    found = sentences(user_prose(reply.text)) if turn else []
    for complaint, order in pairwise(found):
        restores = _RESTORE.search(order.core.rstrip(TRAILING_MARKS))
        if _COMPLAINT.match(complaint.core) and restores and not is_question(order):
            if points_at_moment(order.core) or not sized(order.core):
                return None
            hit = Hit("correction", "Rule", "feedback")
            quotes = ((reply, order.text), (reply, complaint.text))
            return Reply(hit, order.statement, quotes, f"The user objected: {complaint.statement}")
    return None


def reply_findings(messages: Sequence[Message]) -> Iterator[Reply]:
    """Every reply rule over every user message of a window, with the assistant turn before it."""
    for index, message in enumerate(messages):
        if message.role != "user":
            continue
        before = messages[:index]
        turn = list(takewhile(lambda m: m.role == "assistant", reversed(before)))[::-1]
        if not turn:
            continue
        for rule in (rule_correction, rule_accepted, rule_rejected, rule_declined):
            found = rule(message, turn)
            if found is not None:
                yield found
                break
        else:
            yield from rule_option_verdicts(message, turn)
