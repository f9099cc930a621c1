"""The messages sent to a model for each pipeline stage (seed 002 phases 2 and 3).

A request is the shared rules and the stage's prompt (system), then the
window as the model reads it (user): the session, the "Earlier Conversation"
digest as context only, and the "Most Recent Messages", each headed by its
fully qualified id ``<tool>:<machine>:<session>:<msg>`` so answers can cite
it; then the stage's own inputs (candidates, known items, missing facts).

Invariants:

- every piece of transcript text goes through the secret filter before it is
  put in a request (``outbound``): a credential-shaped value never leaves
  the machine; the model sees ``[REDACTED:<kind>]`` in its place;
- a long message is cut (``MAX_MESSAGE_CHARS``; less for the whole-session
  events stage) with a marker, so one pasted log cannot crowd out the window;
- building a request is pure: the same window gives the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dreamd import prompts
from dreamd.collect.llm.backend import Request
from dreamd.collect.llm.fitting import omitted_note
from dreamd.collect.pipeline import Window
from dreamd.readers import Message, isoformat
from dreamd.secrets import redact

__all__ = [
    "MAX_EVENT_MESSAGE_CHARS",
    "MAX_MESSAGE_CHARS",
    "Existing",
    "events_request",
    "facts_request",
    "message_block",
    "outbound",
    "people_request",
    "retry_request",
    "topics_match_request",
    "topics_scan_request",
    "topics_update_request",
    "window_text",
]

#: A message longer than this is cut in a window's request.
MAX_MESSAGE_CHARS = 4000
#: The events stage reads every window of a session at once: each message is cut shorter.
MAX_EVENT_MESSAGE_CHARS = 800


def outbound(text: str) -> str:
    """Text as it may leave the machine: every credential-shaped value redacted."""
    clean, _ = redact(text)
    return clean


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters not shown]"


def message_block(window: Window, message: Message, limit: int = MAX_MESSAGE_CHARS) -> str:
    """One message as the model reads it: ``[id] role (time):`` then its (redacted) text."""
    when = f" ({isoformat(message.timestamp)})" if message.timestamp else ""
    return (
        f"[{window.qualify(message)}] {message.role}{when}:\n{_cut(outbound(message.text), limit)}"
    )


def _session_header(window: Window) -> str:
    session = window.session
    project = outbound(session.project) if session.project else "unknown"
    return (
        f"## Session\ntool: {session.tool}\nproject: {project}\n"
        f"technical_context: {'true' if window.technical_context else 'false'}"
    )


def window_text(window: Window, limit: int = MAX_MESSAGE_CHARS) -> str:
    """The session, the Earlier Conversation digest and the Most Recent Messages."""
    digest = outbound(window.digest) if window.digest else "(none: this is the start)"
    messages = "\n\n".join(message_block(window, m, limit) for m in window.messages)
    return (
        f"{_session_header(window)}\n\n## Earlier Conversation (context only)\n{digest}\n\n"
        f"## Most Recent Messages\n{messages}"
    )


def _request(stage: str, user: str, max_output_tokens: int) -> Request:
    system = f"{prompts.prompt('common')}\n\n{prompts.prompt(stage)}"
    return Request(stage, system, user, prompts.schema(stage), max_output_tokens)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


class Existing(Protocol):
    """A memory a candidate may match: an item of this session (``MemoryItem``) or one the
    store holds for the project (``KnownMemory``), read by the match and update steps."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def category(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def body(self) -> str: ...


def _known(items: Sequence[Existing]) -> list[dict[str, str]]:
    """Existing items as the match and update steps see them (model output: no transcript)."""
    return [
        {"name": i.name, "category": i.category, "description": outbound(i.description)}
        for i in items
    ]


def topics_scan_request(window: Window, max_output_tokens: int) -> Request:
    """Topics step 1: find the candidates in the window."""
    return _request("topics_scan", window_text(window), max_output_tokens)


def topics_match_request(
    window: Window,
    candidates: Sequence[Mapping[str, Any]],
    known: Sequence[Existing],
    max_output_tokens: int,
) -> Request:
    """Topics step 2: which existing item, if any, each candidate is about."""
    user = (
        f"{window_text(window)}\n\n## Candidates\n{_json(list(candidates))}\n\n"
        f"## Existing items\n{_json(_known(known))}"
    )
    return _request("topics_match", user, max_output_tokens)


def topics_update_request(
    window: Window,
    candidates: Sequence[Mapping[str, Any]],
    existing: Mapping[str, Existing],
    max_output_tokens: int,
) -> Request:
    """Topics step 3: the record of each candidate, over the item it matched if any.

    ``existing`` maps a candidate's title to the item it matched.
    """
    entries = []
    for candidate in candidates:
        item = existing.get(str(candidate["title"]))
        current = (
            {"name": item.name, "category": item.category, "body": outbound(item.body)}
            if item is not None
            else None
        )
        entries.append({**candidate, "existing": current})
    user = f"{window_text(window)}\n\n## Candidates to write\n{_json(entries)}"
    return _request("topics_update", user, max_output_tokens)


def people_request(window: Window, max_output_tokens: int) -> Request:
    """People: the real people the window says something lasting about."""
    return _request("people", window_text(window), max_output_tokens)


def events_request(windows: Sequence[Window], max_output_tokens: int, omitted: int = 0) -> Request:
    """Events, once per session: every window's messages, each cut shorter.

    ``omitted`` oldest messages were left out to fit the model's context; the
    request says so.
    """
    first = windows[0]
    messages = "\n\n".join(
        message_block(window, message, MAX_EVENT_MESSAGE_CHARS)
        for window in windows
        for message in window.messages
    )
    left_out = "" if not omitted else f"{omitted_note(omitted)}\n\n"
    user = (
        f"{_session_header(first)}\n\n## Most Recent Messages (the whole session)\n"
        f"{left_out}{messages}"
    )
    return _request("events", user, max_output_tokens)


def facts_request(window: Window, missing: Sequence[str], max_output_tokens: int) -> Request:
    """Facts: look for the listed missing facts only."""
    user = f"{window_text(window)}\n\n## Missing facts\n{_json([outbound(f) for f in missing])}"
    return _request("facts", user, max_output_tokens)


def retry_request(request: Request, problem: str) -> Request:
    """The one retry of a stage: the same request, saying what was wrong with the answer.

    A server that ignored the schema answered in prose or in another shape;
    the note points back at the shape the prompt states (``problem`` is
    already redacted and cut short).
    """
    note = (
        "\n\n## Your previous answer could not be used\n"
        f"{problem}\n"
        "Answer again with only the JSON object, in the shape described under "
        '"The answer\'s shape".'
    )
    return replace(request, user=request.user + note)
