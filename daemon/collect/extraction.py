"""The extractor as one collector run uses it: made from the settings, capped, accounted.

The collector calls ``window`` for each window and ``session`` once per
session (its ``ExtractWindow`` and ``ExtractSession`` callables); ``finish``
adds what the run spent and dropped to the collector's result.

Invariants:

- the per-run token cap (``collect.max_tokens_per_run``, 0 = none) is checked
  before each window starts: once the tokens spent reach it, the window is not
  begun and ``TokenBudgetExhausted`` stops the run between windows. A window
  already begun, and a session's events scan after its last window, are
  finished, so a run ends at most one window and one events scan over the cap;
- tokens are counted per session (``tool:id``), every request included,
  whether its window was planted, left pending or stopped;
- an events scan without a valid answer is reported and skipped; it never
  stops the run or keeps the session's windows from being planted;
- the events scan reads the whole session, not only this run's windows; the
  facts stage runs only with a missing-facts list (``missingfacts``), and
  asks only for the facts no store of the session holds yet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from dreamd.collect.collector import CollectResult
from dreamd.collect.cursorstate import Window as CursorWindow
from dreamd.collect.missingfacts import FILE_NAME as MISSING_FACTS_FILE
from dreamd.collect.missingfacts import facts_for, load_missing_facts, still_missing
from dreamd.collect.pipeline import Extractor, SessionInfo, run_window
from dreamd.collect.pipeline import Window as ExtractWindow
from dreamd.collect.signals import TokenBudgetExhausted, WindowPending
from dreamd.config import Config
from dreamd.logs import get_logger
from dreamd.readers import Conversation
from dreamd.stores import KnownMemory, MemoryItem, Store, project_memories

if TYPE_CHECKING:
    from dreamd.collect.llm import LlmExtractor

__all__ = [
    "MAX_FACT_LOOKUP",
    "MAX_KNOWN_MEMORIES",
    "ExtractionRun",
    "cap_reached",
    "held_fact_names",
    "known_in",
    "whole_session",
]

#: Stored memories of a project one session's match step is shown, at most (the newest).
MAX_KNOWN_MEMORIES = 40
#: Stored memories looked through for facts already found.
MAX_FACT_LOOKUP = 2000

log = get_logger("dreamd.collect")


def known_in(stores: Mapping[str, Store], project: str | None) -> list[KnownMemory]:
    """The newest memories the stores hold for ``project`` (``MAX_KNOWN_MEMORIES`` in all),
    from every store that offers the read; one name once."""
    found: dict[str, KnownMemory] = {}
    for store in stores.values():
        for memory in project_memories(store, project, MAX_KNOWN_MEMORIES):
            found.setdefault(memory.name, memory)
    return list(found.values())[:MAX_KNOWN_MEMORIES]


def held_fact_names(stores: Mapping[str, Store], project: str | None) -> set[str]:
    """Names of the fact items the stores hold for ``project`` (facts no longer missing)."""
    return {
        memory.name
        for store in stores.values()
        for memory in project_memories(store, project, MAX_FACT_LOOKUP)
        if memory.category == "Fact"
    }


def whole_session(
    session: SessionInfo, conversation: Conversation, size: int
) -> list[ExtractWindow]:
    """Every message of the session, in windows of ``size`` (the events stage reads them all)."""
    messages = conversation.messages
    return [
        ExtractWindow(session, messages[start : start + size])
        for start in range(0, len(messages), max(1, size))
    ]


def cap_reached(used: int, cap: int) -> bool:
    """Whether a run that spent ``used`` tokens may not begin another window (0 = no cap)."""
    return cap > 0 and used >= cap


class ExtractionRun:
    """One run's extractor, with its token cap and per-session accounting.

    ``extractor`` None is the heuristic, loaded with the first window: its rules
    compile a few hundred patterns, which a collect with nothing to collect never
    needs (nor the LLM package, the secret filter's patterns with it).
    """

    def __init__(
        self,
        extractor: Extractor | None,
        *,
        machine: str,
        collected: date,
        max_tokens: int = 0,
        window_messages: int = 30,
    ) -> None:
        self._extractor = extractor
        self._heuristic = extractor is None  # made on first use, never a model
        self.machine = machine
        self.collected = collected
        self.max_tokens = max_tokens
        self.tokens_by_session: Counter[str] = Counter()
        self.pending: list[str] = []
        self.dropped_low_confidence = 0
        #: The memories the target stores hold for a session's project (set by ``wire``).
        self.known_for: Callable[[Conversation], Sequence[KnownMemory]] | None = None
        #: The missing facts a session is asked for (set by ``wire`` when a list exists).
        self.missing_for: Callable[[Conversation], Sequence[str]] | None = None
        self._known: set[str] = set()  # sessions whose project memories the extractor has
        self._found: set[str] = set()  # names of the fact items found so far this run
        self.window_messages = window_messages

    @classmethod
    def configured(
        cls,
        config: Config,
        env: Mapping[str, str],
        *,
        machine: str,
        collected: date,
        path: Path | None = None,
    ) -> ExtractionRun:
        """The run for ``collect.extractor``; raises ``ConfigError`` before anything runs."""
        extractor: Extractor | None = None  # the heuristic, with the first window
        if config.collect.extractor != "heuristic":
            from dreamd.collect.llm import build_extractor

            extractor = build_extractor(config, env, path)
        return cls(
            extractor,
            machine=machine,
            collected=collected,
            max_tokens=config.collect.max_tokens_per_run,
            window_messages=config.collect.window_messages,
        )

    def wire(
        self, stores_for: Callable[[Conversation], Mapping[str, Store]], data_dir: Path
    ) -> None:
        """Connect the run to the stores each session plants into: the match step reads the
        project's memories, and the facts stage the missing-facts list beside the cursor
        (``missingfacts``; no list, no facts stage)."""
        self.known_for = lambda c: known_in(stores_for(c), c.project)
        listed = load_missing_facts(data_dir / MISSING_FACTS_FILE)
        if listed.empty:
            return

        def missing_for(conversation: Conversation) -> list[str]:
            wanted = facts_for(listed, conversation.project)
            held = held_fact_names(stores_for(conversation), conversation.project)
            return still_missing(wanted, held | self._found)

        self.missing_for = missing_for

    @property
    def extractor(self) -> Extractor:
        """The backend, made on first use when it is the heuristic."""
        if self._extractor is None:
            from dreamd.collect.heuristic import HEURISTIC

            self._extractor = HEURISTIC
        return self._extractor

    def _model(self) -> LlmExtractor | None:
        """The LLM extractor, when the run has one (never for the heuristic)."""
        if self._heuristic:
            return None
        from dreamd.collect.llm import LlmExtractor

        return self._extractor if isinstance(self._extractor, LlmExtractor) else None

    def _session(self, conversation: Conversation) -> SessionInfo:
        return SessionInfo.of(conversation, machine=self.machine, collected=self.collected)

    def window(
        self, conversation: Conversation, window: CursorWindow, missing: Sequence[str]
    ) -> Sequence[MemoryItem]:
        """One window through the pipeline (the collector's ``ExtractWindow``)."""
        used = self.extractor.tokens_used
        if cap_reached(used, self.max_tokens):
            raise TokenBudgetExhausted(used, self.max_tokens)
        session = self._session(conversation)
        self._know(session, conversation)
        piece = ExtractWindow(session, window.messages, window.digest)
        wanted = list(missing) or (list(self.missing_for(conversation)) if self.missing_for else [])
        try:
            result = run_window(self.extractor, piece, missing_facts=wanted or None)
        finally:
            self._spent(conversation, used)
        self.dropped_low_confidence += result.dropped_low_confidence
        self._found.update(item.name for item in result.facts)
        return result.items

    def session(
        self, conversation: Conversation, windows: Sequence[CursorWindow]
    ) -> Sequence[MemoryItem]:
        """The events scan, once per session (the ``ExtractSession``), over the *whole*
        session: a campaign is told by all of it, not by the windows this run analysed.

        ``windows`` (this run's) only says that the session had new messages.
        """
        if not any(w.messages for w in windows):
            return []
        session = self._session(conversation)
        pieces = whole_session(session, conversation, self.window_messages)
        if not pieces:
            return []
        used = self.extractor.tokens_used
        try:
            return self.extractor.events(pieces)
        except WindowPending as pending:
            key = f"{conversation.tool}:{conversation.session_id}"
            self.pending.append(f"{key}: events scan skipped: {pending}")
            log.warning("collect.events.skipped", session=key, reason=str(pending))
            return []
        finally:
            self._spent(conversation, used)

    def _know(self, session: SessionInfo, conversation: Conversation) -> None:
        """Give the LLM extractor the project's stored memories, once per session."""
        model = self._model()
        if model is None or self.known_for is None:
            return
        if session.source in self._known:
            return
        self._known.add(session.source)
        model.know(session.source, self.known_for(conversation))

    def _spent(self, conversation: Conversation, before: int) -> None:
        spent = self.extractor.tokens_used - before
        if spent:
            self.tokens_by_session[f"{conversation.tool}:{conversation.session_id}"] += spent

    def finish(self, result: CollectResult) -> None:
        """Add the tokens spent and what the extractor dropped to the run's result."""
        result.tokens = self._extractor.tokens_used if self._extractor is not None else 0
        result.tokens_by_session = dict(self.tokens_by_session)
        result.blocked.extend(self.pending)
        result.dropped_low_confidence += self.dropped_low_confidence
        model = self._model()
        if model is not None:
            result.dropped_secrets += model.dropped_secrets

    def shortened(self) -> list[str]:
        """Requests that left a window's oldest messages out to fit the model's context."""
        model = self._model()
        return list(model.shortened) if model is not None else []

    def close(self) -> None:
        """Release the model backend, if any."""
        model = self._model()
        if model is not None:
            model.close()
