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

Layout: ``dreamd.collect.sentences`` prepares the text and holds the guards,
``dreamd.collect.rules`` the ``Hit`` type, ``CONFIDENCE`` and the
standing-instruction rules, ``dreamd.collect.choices`` the choice and
reference rules. This module orders the sentence rules, holds the window rule
(gotchas) and the facts rule, turns hits into items and is the entry point:
``HeuristicExtractor`` and ``HEURISTIC``, with the rule names re-exported.
"""

# The gotcha and fact rules match Japanese, Chinese and typographic punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import takewhile

from dreamd.collect.choices import (
    rule_decision_because,
    rule_instead_of,
    rule_preference,
    rule_reference,
)
from dreamd.collect.pipeline import Window, merge_items
from dreamd.collect.rules import (
    CONFIDENCE,
    Hit,
    rule_always_never,
    rule_dont,
    rule_from_now_on,
    rule_must,
    rule_remember,
)
from dreamd.collect.sentences import (
    CJK,
    FILLERS,
    MAX_SENTENCE_CHARS,
    TRAILING_MARKS,
    Sentence,
    hedged,
    is_question,
    sentences,
    sized,
    user_prose,
)
from dreamd.readers import Message
from dreamd.stores import MemoryItem, Quote

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

MAX_CONFIRM_WORDS = 15  # a fix confirmation is short
MAX_QUOTE_CHARS = 300
MAX_DESCRIPTION_CHARS = 120
MAX_BODY_CHARS = 600

# --- Sentence rules --------------------------------------------------------------------------

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
    size = len(CJK.findall(prose)) // 2 if CJK.search(prose) else len(prose.split())
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
    found = pattern.search(s.core.rstrip(TRAILING_MARKS))
    if not found or is_question(s) or hedged(s.core, found.start()):
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
    return " ".join(re.findall(r"\w+", FILLERS.sub("", text.casefold())))


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
                long_enough = hit.rule == "reference" or sized(sentence.core)
                if long_enough and not hedged(sentence.core, hit.at):
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
