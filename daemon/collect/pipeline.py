"""The extraction pipeline (seed 002 phase 3): windows of a session in, memory items out.

An ``Extractor`` has one method per pipeline stage, called in the seed's order:

1. ``topics`` for every window (scan → match → update; the heuristic default
   and any LLM backend meet the same signature);
2. ``people`` for every window (in coding sessions nearly always nothing);
3. ``events`` once per session, after all its windows (a campaign retrospective;
   nothing is the norm);
4. ``facts`` for every window, and only when a non-empty missing-facts list exists.

Invariants:

- an extractor only reads: it gets a window (or one session's windows) and
  returns items; the pipeline never writes anything;
- provenance is mandatory (safety contract 7): an item whose source is not its
  window's session, or that quotes no message of its window (of its session,
  for events), is dropped and counted as untraceable;
- an item below ``MIN_CONFIDENCE`` is dropped and counted (the report's
  "low-confidence extractions");
- within one session the same item (same type, category and name) is one item:
  a later window's find is merged into the earlier one, quotes of both kept
  (the "update" step), so a window's result holds the item as it should now read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Protocol

from dreamd.readers import Conversation, Message
from dreamd.stores import MemoryItem

__all__ = [
    "MIN_CONFIDENCE",
    "Extractor",
    "PipelineResult",
    "SessionInfo",
    "SessionResult",
    "Window",
    "WindowResult",
    "item_identity",
    "merge_items",
    "qualify_message_id",
    "run_pipeline",
    "run_session",
    "run_window",
]

#: Seed 002 safety contract 6: items an extractor is less sure of are noise, not memory.
MIN_CONFIDENCE = 0.5

_TOOL = re.compile(r"^[a-z0-9-]+$")
_PART = re.compile(r"^[^:\s]+$")
_UNSAFE_IN_ID = re.compile(r"[\s%]")


def qualify_message_id(source: str, reader_id: str) -> str:
    """``<tool>:<machine>:<session>:<msg>`` (seed 002 phase 2) from a source tag and a reader id.

    Whitespace and ``%`` in the reader's id are percent-encoded (reversibly), so
    an id such as ``[trimmed for fixture]`` still makes one citable token.
    """
    encoded = _UNSAFE_IN_ID.sub(lambda m: f"%{ord(m.group()):02X}", reader_id)
    return f"{source.removeprefix('source:')}:{encoded}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Who said it where: the session a window comes from, and when it was collected."""

    tool: str
    machine: str
    session_id: str
    project: str | None
    collected: date

    def __post_init__(self) -> None:
        if not _TOOL.match(self.tool):
            raise ValueError(f"tool {self.tool!r} must be lower-case letters, digits, dashes")
        for what, value in (("machine", self.machine), ("session id", self.session_id)):
            if not _PART.match(value):
                raise ValueError(f"{what} {value!r} cannot be part of a source tag")

    @classmethod
    def of(cls, conversation: Conversation, *, machine: str, collected: date) -> SessionInfo:
        """The session info of a conversation read on ``machine``."""
        return cls(
            conversation.tool, machine, conversation.session_id, conversation.project, collected
        )

    @property
    def source(self) -> str:
        """``source:<tool>:<machine>:<session>`` (seed 002 phase 4)."""
        return f"source:{self.tool}:{self.machine}:{self.session_id}"

    def message_id(self, message: Message) -> str:
        """The fully qualified id of one of this session's messages."""
        return qualify_message_id(self.source, message.id)


@dataclass(frozen=True, slots=True)
class Window:
    """One slice of a session to analyse (seed 002 phase 2): the "Most Recent Messages".

    ``digest`` is the short "Earlier Conversation" summary, context only: an
    extractor analyses and quotes ``messages`` alone. ``technical_context`` is
    true for coding-tool sessions (the Technical category takes precedence).
    """

    session: SessionInfo
    messages: tuple[Message, ...]
    digest: str = ""
    technical_context: bool = True
    message_ids: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a window needs at least one message")
        ids = tuple(self.session.message_id(message) for message in self.messages)
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate message ids in a window of {self.session.source}")
        object.__setattr__(self, "message_ids", ids)

    @property
    def source(self) -> str:
        """The session's source tag."""
        return self.session.source

    def qualify(self, message: Message) -> str:
        """The fully qualified id of ``message`` (one of this window's)."""
        return self.session.message_id(message)


class Extractor(Protocol):
    """One extraction backend. Stages return items; an empty list is the common answer.

    ``tokens_used`` counts every model token spent so far (0 for the heuristic);
    the pipeline reads it before and after each call to account per window.
    """

    @property
    def name(self) -> str:
        """The backend's name as configured (``heuristic``...)."""
        ...

    @property
    def tokens_used(self) -> int:
        """Tokens spent since the extractor was made."""
        ...

    def topics(self, window: Window) -> list[MemoryItem]:
        """Topics stage (prompts/topics.md): scan → match → update over one window."""
        ...

    def people(self, window: Window) -> list[MemoryItem]:
        """People stage (prompts/people.md) over one window."""
        ...

    def events(self, session_windows: Sequence[Window]) -> list[MemoryItem]:
        """Events stage (prompts/events.md), once per session over all its windows."""
        ...

    def facts(self, window: Window, missing_facts: Sequence[str]) -> list[MemoryItem]:
        """Facts stage (prompts/facts.md): look for the listed missing facts only."""
        ...


def item_identity(item: MemoryItem) -> tuple[str, str, str, str]:
    """What makes two finds the same item: session, type, category and name."""
    return item.source, item.type, item.category, item.name


def merge_items(earlier: MemoryItem, later: MemoryItem) -> MemoryItem:
    """The update step: one item from two finds of it, every quote kept once.

    The earlier wording stands; the confidence is the higher of the two.
    """
    if item_identity(earlier) != item_identity(later):
        raise ValueError(f"cannot merge {item_identity(earlier)} with {item_identity(later)}")
    quotes = tuple(dict.fromkeys(earlier.quotes + later.quotes))
    return replace(earlier, quotes=quotes, confidence=max(earlier.confidence, later.confidence))


def _merge_all(items: Iterable[MemoryItem]) -> tuple[MemoryItem, ...]:
    """Items with duplicates merged, in first-seen order."""
    merged: dict[tuple[str, str, str, str], MemoryItem] = {}
    for item in items:
        key = item_identity(item)
        merged[key] = merge_items(merged[key], item) if key in merged else item
    return tuple(merged.values())


@dataclass(frozen=True, slots=True)
class _Screened:
    kept: tuple[MemoryItem, ...]
    untraceable: int
    low_confidence: int


def _screen(items: Iterable[MemoryItem], source: str, cited: frozenset[str]) -> _Screened:
    """Safety contract 7 and 6: keep traceable items at or above ``MIN_CONFIDENCE``."""
    kept: list[MemoryItem] = []
    untraceable = low = 0
    for item in items:
        cites = [quote.message_id for quote in item.quotes]
        if item.source != source or not cites or not cited.issuperset(cites):
            untraceable += 1
        elif item.confidence < MIN_CONFIDENCE:
            low += 1
        else:
            kept.append(item)
    return _Screened(tuple(kept), untraceable, low)


@dataclass(frozen=True, slots=True)
class WindowResult:
    """What the per-window stages found in one window, merged with earlier finds."""

    window: Window
    topics: tuple[MemoryItem, ...] = ()
    people: tuple[MemoryItem, ...] = ()
    facts: tuple[MemoryItem, ...] = ()
    facts_run: bool = False
    dropped_untraceable: int = 0
    dropped_low_confidence: int = 0
    tokens_used: int = 0

    @property
    def items(self) -> tuple[MemoryItem, ...]:
        """Every item of this window, stage by stage."""
        return self.topics + self.people + self.facts


@dataclass(frozen=True, slots=True)
class SessionResult:
    """One session's windows and its once-per-session events."""

    session: SessionInfo
    windows: tuple[WindowResult, ...]
    events: tuple[MemoryItem, ...] = ()
    dropped_untraceable: int = 0
    dropped_low_confidence: int = 0
    tokens_used: int = 0

    @property
    def items(self) -> tuple[MemoryItem, ...]:
        """Every distinct item of the session as it finally reads (later finds merged in)."""
        found = [item for result in self.windows for item in result.items]
        return _merge_all(found + list(self.events))


@dataclass(frozen=True, slots=True)
class PipelineResult:
    """The whole extraction run: per session, per window, with the report's counts."""

    extractor: str
    sessions: tuple[SessionResult, ...]

    @property
    def windows(self) -> tuple[WindowResult, ...]:
        """Every window result, session by session."""
        return tuple(result for session in self.sessions for result in session.windows)

    @property
    def items(self) -> tuple[MemoryItem, ...]:
        """Every distinct item of every session."""
        return tuple(item for session in self.sessions for item in session.items)

    @property
    def tokens_used(self) -> int:
        """Tokens the extractor spent on this run."""
        return sum(session.tokens_used for session in self.sessions)

    @property
    def dropped_untraceable(self) -> int:
        """Items dropped because they could not be traced to a message of their window."""
        return sum(session.dropped_untraceable for session in self.sessions)

    @property
    def dropped_low_confidence(self) -> int:
        """Items dropped for a confidence below ``MIN_CONFIDENCE``."""
        return sum(session.dropped_low_confidence for session in self.sessions)

    def counts(self) -> dict[str, int]:
        """Distinct items per stage and quotes in all, for the collection report."""
        distinct = {item_identity(item): item for item in self.items}
        per_stage: dict[str, set[tuple[str, str, str, str]]] = {
            stage: set() for stage in ("topics", "people", "facts", "events")
        }
        for session in self.sessions:
            for result in session.windows:
                per_stage["topics"].update(map(item_identity, result.topics))
                per_stage["people"].update(map(item_identity, result.people))
                per_stage["facts"].update(map(item_identity, result.facts))
            per_stage["events"].update(map(item_identity, session.events))
        counts = {stage: len(keys) for stage, keys in per_stage.items()}
        counts["quotes"] = sum(len(item.quotes) for item in distinct.values())
        return counts


def run_window(
    extractor: Extractor,
    window: Window,
    *,
    missing_facts: Sequence[str] | None = None,
    earlier: Sequence[MemoryItem] = (),
) -> WindowResult:
    """Seed 002 phase 3 for one window: topics, people, then facts if a non-empty list exists.

    ``earlier`` are the items earlier windows of the same session produced; a
    find of the same item is returned merged with them (the update step).
    """
    before = extractor.tokens_used
    cited = frozenset(window.message_ids)
    stages = {"topics": extractor.topics(window), "people": extractor.people(window)}
    facts_run = bool(missing_facts)
    if missing_facts:
        stages["facts"] = extractor.facts(window, missing_facts)
    known = {item_identity(item): item for item in earlier}
    kept: dict[str, tuple[MemoryItem, ...]] = {}
    untraceable = low = 0
    for stage, found in stages.items():
        screened = _screen(found, window.source, cited)
        untraceable += screened.untraceable
        low += screened.low_confidence
        updated = (_update(known.get(item_identity(item)), item) for item in screened.kept)
        kept[stage] = _merge_all(updated)
    return WindowResult(
        window,
        topics=kept["topics"],
        people=kept["people"],
        facts=kept.get("facts", ()),
        facts_run=facts_run,
        dropped_untraceable=untraceable,
        dropped_low_confidence=low,
        tokens_used=extractor.tokens_used - before,
    )


def _update(known: MemoryItem | None, found: MemoryItem) -> MemoryItem:
    return found if known is None else merge_items(known, found)


def run_session(
    extractor: Extractor,
    windows: Sequence[Window],
    *,
    missing_facts: Sequence[str] | None = None,
) -> SessionResult:
    """Every window of one session in order, then the events stage once (seed 002 phase 3)."""
    if not windows:
        raise ValueError("a session needs at least one window")
    session = windows[0].session
    if any(window.session != session for window in windows):
        raise ValueError("all windows of a session must share its session info")
    results: list[WindowResult] = []
    found: list[MemoryItem] = []
    for window in windows:
        result = run_window(extractor, window, missing_facts=missing_facts, earlier=found)
        results.append(result)
        found = list(_merge_all([*found, *result.items]))
    before = extractor.tokens_used
    cited = frozenset(mid for window in windows for mid in window.message_ids)
    screened = _screen(extractor.events(windows), session.source, cited)
    return SessionResult(
        session,
        tuple(results),
        events=_merge_all(screened.kept),
        dropped_untraceable=screened.untraceable + sum(r.dropped_untraceable for r in results),
        dropped_low_confidence=screened.low_confidence
        + sum(r.dropped_low_confidence for r in results),
        tokens_used=extractor.tokens_used - before + sum(r.tokens_used for r in results),
    )


def run_pipeline(
    extractor: Extractor,
    windows: Sequence[Window],
    *,
    missing_facts: Sequence[str] | None = None,
) -> PipelineResult:
    """Run the pipeline over windows of one or more sessions (each session's windows in order).

    Sessions are taken in the order their first window appears; the facts
    stage runs only when ``missing_facts`` is a non-empty list (seed 002
    phase 3, step 4: no list, no facts).
    """
    by_session: dict[SessionInfo, list[Window]] = {}
    for window in windows:
        by_session.setdefault(window.session, []).append(window)
    sessions = tuple(
        run_session(extractor, session_windows, missing_facts=missing_facts)
        for session_windows in by_session.values()
    )
    return PipelineResult(extractor.name, sessions)
