"""The default extractor: deterministic, offline, zero tokens (seed 002 phase 3; issues 4 and 11).

It plants only what a user establishes in a window: rules and preferences
(with or without a "remember" or "from now on"), decisions with their reason
or accepted from an assistant's recommendation, gotchas the user confirmed
fixed, facts about the project and references the user points to, in
English, German, Spanish, Japanese and Chinese. Safety contract 6 rules it:
the empty result is the common answer and noise is worse than a miss, so
every rule is narrow and every guard rejects.

Invariants:

- statements are read from user messages only; assistant text is quoted
  only beside the user's words (a recommendation the user accepted or
  refused, a fix the user confirmed);
- a sentence that is a question, hedged, hypothetical or reported speech, a
  fragment, the task of the moment, or that sits in pasted output (logs,
  code, quoted lines, a pasted document) plants nothing;
- the same statement said twice in a session is one item with both quotes
  (same statement → same title; the pipeline merges across windows);
- the result depends on the window alone: no clock, no I/O, no randomness.

Layout: ``sentences`` prepares text and holds the guards, ``scope`` the
task-of-the-moment tests, ``lexicon`` the word lists; the sentence rules are
in ``rules`` (the ``Hit`` type, always/never, don't), ``standing`` (from now
on, remember, must always), ``norms`` (normative statements), ``bans`` (bans
and roles), ``choices`` (choices and designs), ``references`` and ``facts``;
``acceptance`` holds the rules over replies to the assistant, ``gotchas`` the
window rule, ``items`` turns findings into items. This module orders the
rules and is the entry point: ``HeuristicExtractor`` and ``HEURISTIC``.
"""

# The facts rule matches Japanese and Chinese on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from dreamd.collect.acceptance import reply_findings
from dreamd.collect.bans import BAN_RULES
from dreamd.collect.choices import (
    rule_decision_because,
    rule_instead_of,
    rule_like,
    rule_need_instead,
    rule_preference,
    rule_want,
)
from dreamd.collect.facts import rule_project_fact, rule_verified_fact
from dreamd.collect.gotchas import rule_gotcha
from dreamd.collect.items import Finding, merged, reason_split, to_item
from dreamd.collect.norms import IMPERATIVES, NORM_RULES
from dreamd.collect.pipeline import Window
from dreamd.collect.references import rule_command, rule_outside_path, rule_reference
from dreamd.collect.rules import CONFIDENCE, Hit, rule_always_never, rule_dont
from dreamd.collect.scope import is_progress_request, is_specification, is_task_list
from dreamd.collect.sentences import (
    MAX_SENTENCE_CHARS,
    TRAILING_MARKS,
    Sentence,
    clauses,
    hedged,
    is_question,
    sentences,
    sized,
    user_prose,
)
from dreamd.collect.standing import rule_from_now_on, rule_must, rule_remember
from dreamd.readers import Message
from dreamd.stores import MemoryItem

__all__ = [
    "CONFIDENCE",
    "HEURISTIC",
    "SENTENCE_RULES",
    "STANDING_RULES",
    "HeuristicExtractor",
    "Hit",
    "Sentence",
    "fact_stated",
    "sentences",
    "user_prose",
]

#: Instructions marked as standing ("always", "from now on", "remember") and choices.
STANDING_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    rule_decision_because,
    rule_from_now_on,
    rule_remember,
    rule_preference,
    rule_like,
    rule_need_instead,
    rule_instead_of,
    rule_always_never,
    rule_must,
    rule_dont,
    rule_reference,
    rule_command,
)
#: Sentence rules in the order they are tried; the first that fires names the item.
SENTENCE_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    *STANDING_RULES,
    *BAN_RULES,
    *NORM_RULES,
    rule_want,
    rule_verified_fact,
    rule_project_fact,
)
#: Rules that may read one clause of a run-on sentence: each checks its own clause's scope
#: (the standing-instruction rules read whole sentences: "don't X, do Y" is a redirect).
CLAUSE_RULES: tuple[Callable[[Sentence], Hit | None], ...] = (
    rule_need_instead,
    *BAN_RULES,
    *NORM_RULES,
    rule_want,
    rule_verified_fact,
    rule_project_fact,
)
#: Rules whose statement may be shorter than ``MIN_WORDS`` ("docs: <url>", "No mocks!").
SHORT_RULES = frozenset(
    {"reference", "outside_path", "command", "no_exclaim", "manner", "emphatic", "language"}
)

_REASON_START = re.compile(
    r"^(?:because|since|otherwise|the reason|that's because|weil|denn|sonst|porque|ya que"
    r"|de lo contrario|si no|なぜなら|理由は|因为|否则|不然)",
    re.I,
)


def _guarded(sentence: Sentence, hit: Hit) -> bool:
    """The guards every hit passes: long enough, not hedged (in the clause it states)."""
    text = hit.clause or sentence.core
    long_enough = hit.rule in SHORT_RULES or sized(text)
    return long_enough and not hedged(text, 0 if hit.clause else hit.at)


def _recognised(
    sentence: Sentence, project: str | None, rules: Sequence[Callable[[Sentence], Hit | None]]
) -> Hit | None:
    """The hit of the first of ``rules`` that recognises the sentence, guards not yet applied."""
    if is_question(sentence):
        return None
    found = (hit for rule in rules if (hit := rule(sentence)) is not None)
    return next(found, None) or rule_outside_path(sentence, project)


def _clause_hits(
    sentence: Sentence, project: str | None, rules: Sequence[Callable[[Sentence], Hit | None]]
) -> Iterator[tuple[Sentence, Hit]]:
    """Hits in the clauses of a run-on sentence; a hedged or hypothetical clause ends the scan.

    "if we ever need it, every handler must log" is hypothetical as a whole:
    the "if" clause scopes over the clauses after it.
    """
    for clause in clauses(sentence):
        if hedged(clause.core, len(clause.core)):
            return
        hit = _recognised(clause, project, rules)
        if hit is not None and _guarded(clause, hit):
            yield clause, hit


def _scan_message(message: Message, project: str | None) -> Iterator[tuple[Sentence, Hit]]:
    """Every sentence (or clause of a run-on sentence) of one user message a rule recognises.

    A progress request plants nothing; in a list of steps or a specification
    (``scope.is_task_list``, ``scope.is_specification``) only explicitly
    standing instructions count, not the normative rules.
    """
    prose = user_prose(message.text)
    if is_progress_request(prose):
        return
    parts = sentences(prose)
    steps = is_task_list(prose, IMPERATIVES) or is_specification(
        [part.core for part in parts], IMPERATIVES
    )
    rules, clause_rules = (STANDING_RULES, ()) if steps else (SENTENCE_RULES, CLAUSE_RULES)
    for sentence in parts:
        fits = len(sentence.text) <= MAX_SENTENCE_CHARS
        hit = _recognised(sentence, project, rules) if fits else None
        if hit is not None:  # recognised as a whole: its guards decide, not its clauses
            if _guarded(sentence, hit):
                yield sentence, hit
        elif clause_rules:
            yield from _clause_hits(sentence, project, clause_rules)


def _statement_finding(message: Message, sentence: Sentence, hit: Hit) -> Finding:
    statement = hit.clause or sentence.statement
    said, why = reason_split(statement)
    if not why and sentence.follow and _REASON_START.match(sentence.follow):
        why = sentence.follow
    return Finding(hit, said if why else statement, ((message, sentence.text),), why)


def _statement_findings(window: Window) -> Iterator[Finding]:
    project = window.session.project
    for message in window.messages:
        if message.role == "user":
            for sentence, hit in _scan_message(message, project):
                yield _statement_finding(message, sentence, hit)


def _reply_findings(window: Window) -> Iterator[Finding]:
    for reply in reply_findings(window.messages):
        yield Finding(reply.hit, reply.statement, reply.quotes, reply.why)


def _gotcha_findings(window: Window) -> Iterator[Finding]:
    for failure, fix, (report, fixer, confirm) in rule_gotcha(window):
        hit = Hit("gotcha", "Gotcha", "project")
        quotes = ((report, failure), (fixer, fix), (confirm, confirm.text))
        yield Finding(hit, failure, quotes, how=f"{fix} (confirmed by the user)")


# --- Facts stage -----------------------------------------------------------------------------


def fact_stated(s: Sentence, fact: str) -> str:
    """Seed 002 phase 3 facts stage: the value the user gives for one missing fact, or ``""``.

    "my <fact> is <value>", German "mein(e) <fact> ist <value>", Spanish
    "mi <fact> es <value>", Japanese 私の<fact>は<value>です, Chinese 我的<fact>是<value>.
    """
    name = re.escape(fact.strip())
    pattern = re.compile(
        rf"\bmy\s+{name}\s+(?:is|are|=|:)\s+([^.?!\n]{{1,80}})"
        rf"|\bmein(?:e|en)?\s+{name}\s+(?:ist|sind|:)\s+([^.?!\n]{{1,80}})"
        rf"|\bmis?\s+{name}\s+(?:es|son|:)\s+([^.?!\n]{{1,80}})"
        rf"|(?:私|僕|俺|わたし)の{name}は(.{{1,40}}?)(?:です|だ)?$"
        rf"|我的{name}(?:是|：|:)(.{{1,40}})$",
        re.I,
    )
    found = pattern.search(s.core.rstrip(TRAILING_MARKS))
    if not found or is_question(s) or hedged(s.core, found.start()):
        return ""
    return next(group for group in found.groups() if group).strip()


def _fact_findings(window: Window, missing_facts: Sequence[str]) -> Iterator[Finding]:
    for message in window.messages:
        if message.role != "user":
            continue
        for sentence in sentences(user_prose(message.text)):
            for fact in missing_facts:
                value = fact_stated(sentence, fact)
                if value:
                    hit = Hit("fact", "Fact", "user")
                    yield Finding(hit, f"{fact}: {value}", ((message, sentence.text),))


class HeuristicExtractor:
    """The built-in extractor: rules over the user's own words, no model, no tokens."""

    name = "heuristic"

    @property
    def tokens_used(self) -> int:
        """Always 0: nothing is sent to a model."""
        return 0

    def topics(self, window: Window) -> list[MemoryItem]:
        """Scan (statements, replies, gotchas) → match (same statement, one item) → update."""
        found = [
            *_statement_findings(window),
            *_reply_findings(window),
            *_gotcha_findings(window),
        ]
        return merged(to_item(window, finding) for finding in found)

    def people(self, window: Window) -> list[MemoryItem]:
        """No people: naming a person reliably needs a model (seed: most windows have none)."""
        return []

    def events(self, session_windows: Sequence[Window]) -> list[MemoryItem]:
        """No events: the campaign retrospective needs a model (seed: none is the norm)."""
        return []

    def facts(self, window: Window, missing_facts: Sequence[str]) -> list[MemoryItem]:
        """A missing fact the user states outright about themself ("my timezone is CET")."""
        return merged(to_item(window, f) for f in _fact_findings(window, missing_facts))


#: The default extractor (stateless, so one instance serves every run).
HEURISTIC = HeuristicExtractor()
