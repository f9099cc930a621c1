"""An ``Extractor`` over a model backend: the seed's prompt pipeline, validated, with tokens.

Per window (seed 002 phase 3): topics as scan → match → update (match only
when earlier windows of the session produced items to match against, update
only when the scan found candidates), then people (scan, then matched by
identifier and name in code); events once per session; facts only with a
missing-facts list.

Invariants:

- every answer is validated against its stage's type; an invalid or truncated
  answer is asked again once (saying what was wrong, so a server that ignored
  the schema is pointed back at the shape the prompt states), and a second
  failure raises ``WindowPending``
  (nothing of the window is returned, so nothing is planted and the window
  stays pending with the reason);
- ``tokens_used`` counts every token every request cost, retries included,
  whether or not the answer was usable;
- items carry only verified quotes (``records.verified_quotes``); an item left
  without one is dropped and counted as untraceable, and one that touched a
  credential is dropped and counted as a dropped secret;
- a request never exceeds ``context_tokens`` (when set): a window that does
  not fit loses its oldest messages, the request says so, and ``shortened``
  lists it for the report (``fitting``);
- what earlier windows of a session produced is kept in memory for that
  session only (the "existing items" the match step compares with); nothing
  is written anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from dreamd.collect.llm import prompting, records
from dreamd.collect.llm.backend import Backend, Request, server_text
from dreamd.collect.llm.fitting import Fitted, fit_session, fit_window, output_reserve
from dreamd.collect.llm.records import Citable, Existing, KnownPerson
from dreamd.collect.llm.schema import (
    EventsAnswer,
    FactsAnswer,
    InvalidAnswer,
    PeopleAnswer,
    QuoteRef,
    TopicCandidate,
    TopicsMatchAnswer,
    TopicsScanAnswer,
    TopicsUpdateAnswer,
    decode_answer,
)
from dreamd.collect.pipeline import Window
from dreamd.collect.signals import WindowPending
from dreamd.logs import get_logger
from dreamd.stores import KnownMemory, MemoryItem, Quote

__all__ = ["DEFAULT_MAX_OUTPUT_TOKENS", "LlmExtractor"]

log = get_logger("dreamd.collect")

T = TypeVar("T")

#: The longest answer asked for, in tokens (an extraction answer is short JSON).
DEFAULT_MAX_OUTPUT_TOKENS = 4096


@dataclass
class _SessionMemory:
    """The match steps' existing items: what earlier windows of one session produced, and
    what the target stores already hold for the session's project (``know``)."""

    topics: dict[str, MemoryItem] = field(default_factory=dict)
    people: dict[str, KnownPerson] = field(default_factory=dict)
    held: dict[str, KnownMemory] = field(default_factory=dict)

    def existing(self) -> dict[str, Existing]:
        """Every memory a candidate may match, by name (this session's finds win)."""
        return {**self.held, **self.topics}


class LlmExtractor:
    """The prompt pipeline over one backend, counting tokens and what it dropped."""

    def __init__(
        self,
        backend: Backend,
        *,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        context_tokens: int = 0,
    ) -> None:
        self._backend = backend
        self._context = context_tokens  # 0: the backend's context is not a concern
        self._max_output = output_reserve(max_output_tokens, context_tokens)
        self._tokens = 0
        #: "<source>: <stage>: N of M messages not shown" for every request that was shortened.
        self.shortened: list[str] = []
        self._sessions: dict[str, _SessionMemory] = {}
        self.dropped_secrets = 0
        self.dropped_untraceable = 0

    @property
    def name(self) -> str:
        """The backend's configured name."""
        return self._backend.name

    @property
    def tokens_used(self) -> int:
        """Tokens every request so far cost, retries included."""
        return self._tokens

    def close(self) -> None:
        """Release the backend."""
        self._backend.close()

    # --- the stages ------------------------------------------------------------------------

    def know(self, source: str, memories: Sequence[KnownMemory]) -> None:
        """What the stores hold for the project of session ``source``: the match step compares
        candidates with them too, so a restated rule updates its memory, not a new one."""
        memory = self._sessions.setdefault(source, _SessionMemory())
        for known in memories:
            if known.source != source:  # this session's own items come back as it runs
                memory.held.setdefault(known.name, known)

    def topics(self, window: Window) -> list[MemoryItem]:
        """Scan → match → update over one window."""
        request = self._fit(window, prompting.topics_scan_request)
        candidates = [c for c in self._ask(request, TopicsScanAnswer).topics if c.title.strip()]
        if not candidates:
            return []
        memory = self._memory(window)
        matched = self._match(window, candidates, list(memory.existing().values()))
        shown = [_candidate(c) for c in candidates]
        request = self._fit(
            window, lambda w, out: prompting.topics_update_request(w, shown, matched, out)
        )
        answer = self._ask(request, TopicsUpdateAnswer)
        cite = records.citable([window])
        items: list[MemoryItem] = []
        for record in answer.records:
            existing = memory.existing().get(record.existing) or matched.get(record.title)
            item = records.topic_item(window, record, existing, self._quotes(record.quotes, cite))
            self._count(item, record.quotes, record.title, record.body, record.description)
            if item is not None:
                memory.topics[item.name] = item
                items.append(item)
        return items

    def people(self, window: Window) -> list[MemoryItem]:
        """Scan for people, drop the guarded ones, match by identifier then name, update."""
        answer = self._ask(self._fit(window, prompting.people_request), PeopleAnswer)
        memory = self._memory(window)
        cite = records.citable([window])
        items: list[MemoryItem] = []
        for find in answer.people:
            if records.is_guarded_person(find):
                continue
            known = records.match_person(find, memory.people.values())
            person = records.person_item(window, find, known, self._quotes(find.quotes, cite))
            self._count(person.item if person else None, find.quotes, find.name, find.description)
            if person is not None:
                memory.people[person.item.name] = person
                items.append(person.item)
        return items

    def events(self, session_windows: Sequence[Window]) -> list[MemoryItem]:
        """The retrospective test, once for the session; at most one event (the surest)."""
        if not session_windows:
            return []
        fitted = fit_session(
            session_windows,
            lambda windows, omitted: prompting.events_request(windows, self._max_output, omitted),
            self._context,
        )
        self._note(session_windows[0], fitted, sum(len(w.messages) for w in session_windows))
        answer = self._ask(fitted.request, EventsAnswer)
        cite = records.citable(session_windows)
        found: list[MemoryItem] = []
        for find in answer.events:
            item = records.event_item(session_windows[0], find, self._quotes(find.quotes, cite))
            self._count(item, find.quotes, find.title, find.body, find.description)
            if item is not None:
                found.append(item)
        return sorted(found, key=lambda item: -item.confidence)[:1]

    def facts(self, window: Window, missing_facts: Sequence[str]) -> list[MemoryItem]:
        """The listed missing facts the user states in the window; nothing without a list."""
        if not missing_facts:
            return []
        request = self._fit(window, lambda w, out: prompting.facts_request(w, missing_facts, out))
        answer = self._ask(request, FactsAnswer)
        cite = records.citable([window])
        items: list[MemoryItem] = []
        for find in answer.facts:
            quotes = self._quotes(find.quotes, cite)
            item = records.fact_item(window, find, missing_facts, quotes)
            self._count(item, find.quotes, find.value)
            if item is not None:
                items.append(item)
        return items

    # --- helpers ---------------------------------------------------------------------------

    def _memory(self, window: Window) -> _SessionMemory:
        return self._sessions.setdefault(window.source, _SessionMemory())

    def _match(
        self, window: Window, candidates: list[TopicCandidate], known: list[Existing]
    ) -> dict[str, Existing]:
        """Match step: candidate title → the existing item it is about (skipped with none)."""
        if not known:
            return {}
        shown = [_candidate(c) for c in candidates]
        request = self._fit(
            window, lambda w, out: prompting.topics_match_request(w, shown, known, out)
        )
        by_name = {item.name: item for item in known}
        titles = {c.title for c in candidates}
        return {
            match.title: by_name[match.existing]
            for match in self._ask(request, TopicsMatchAnswer).matches
            if match.title in titles and match.existing in by_name
        }

    def _fit(self, window: Window, build: Callable[[Window, int], Request]) -> Request:
        """A stage's request for ``window``, its oldest messages left out to fit the context."""
        fitted = fit_window(window, lambda w: build(w, self._max_output), self._context)
        self._note(window, fitted, len(window.messages))
        return fitted.request

    def _note(self, window: Window, fitted: Fitted, total: int) -> None:
        """Say that a request was shortened (kept for the report, and logged)."""
        if not fitted.omitted:
            return
        stage = fitted.request.stage
        self.shortened.append(
            f"{window.source.removeprefix('source:')}: {stage}: {fitted.omitted} of {total} "
            "messages not shown to fit the model's context"
        )
        log.warning(
            "collect.llm.window_shortened",
            stage=stage,
            omitted=fitted.omitted,
            messages=total,
            context_tokens=self._context,
        )

    def _quotes(self, quotes: Sequence[QuoteRef], cite: Citable) -> tuple[Quote, ...]:
        kept, redacted = records.verified_quotes(quotes, cite)
        self.dropped_secrets += redacted
        return kept

    def _count(self, item: MemoryItem | None, quotes: Sequence[QuoteRef], *texts: str) -> None:
        """Count a find that gave no item: it touched a credential, or nothing was verifiable."""
        if item is not None:
            return
        if records.has_redaction(*texts):
            self.dropped_secrets += 1
        elif not records.has_redaction(*(q.text for q in quotes)):  # those are counted already
            self.dropped_untraceable += 1

    def _ask(self, request: Request, kind: type[T]) -> T:
        """One stage's answer, validated; asked once more when invalid, then ``WindowPending``."""
        problem = ""
        for attempt in (1, 2):
            asked = request if attempt == 1 else prompting.retry_request(request, problem)
            reply = self._backend.complete(asked)
            self._tokens += reply.tokens
            log.info(
                "collect.llm.answer", stage=request.stage, attempt=attempt, tokens=reply.tokens
            )
            if reply.truncated:
                problem = "the answer was cut at the output token limit"
                continue
            try:
                return decode_answer(reply.text, kind)
            except InvalidAnswer as error:
                problem = server_text(error)  # it may quote the model: redacted and cut short
            log.warning("collect.llm.invalid_answer", stage=request.stage, problem=problem)
        raise WindowPending(f"{request.stage}: no valid answer after one retry ({problem})")


def _candidate(candidate: TopicCandidate) -> dict[str, Any]:
    """A scan candidate as the match and update steps are shown it."""
    shown: dict[str, Any] = msgspec.to_builtins(candidate)
    return shown
