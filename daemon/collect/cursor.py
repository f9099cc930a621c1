"""The collector's cursor and its transitions (seed 002 phases 2, 4 and 5). Pure.

Every transition takes a cursor and returns a new one; nothing here reads or
writes storage. The caller saves the result, reads it back and compares.

Invariants:

- a message is acknowledged only at the fingerprint it had when its window
  was checkpointed; an edited message is pending again;
- a session is resolved only when every current message is acknowledged at
  its current fingerprint, and only at that revision;
- every change of a session's revision starts a new *generation*, so a
  source that goes A → B → A is new work, never a retry of the first A;
- an intent (a window begun but not checkpointed) stays visible until it is
  checkpointed or reconciled: selection sees it and the run resumes it;
- nothing is ever removed: legacy fields and unknown sources pass through.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from dreamd.readers import Conversation, Message
from dreamd.selection import CursorEntry

__all__ = [
    "Cursor",
    "Intent",
    "SessionState",
    "Window",
    "acknowledge",
    "begin_window",
    "checkpoint_window",
    "complete_session",
    "observe",
    "pending_messages",
    "qualified_id",
    "selection_view",
    "skip_trivial",
    "split_windows",
    "window_key",
]

Status = Literal["partial", "resolved", "skipped_trivial"]

#: Seed 002 phase 2: windows of about 20 to 40 messages.
MIN_WINDOW, MAX_WINDOW = 20, 40
#: How much of the earlier conversation a window's digest carries.
DIGEST_PROMPTS, DIGEST_CHARS = 6, 160


def qualified_id(tool: str, machine: str, session: str, message: str) -> str:
    """Seed 002 phase 2: ``<tool>:<machine>:<session>:<reader msg id>``."""
    return f"{tool}:{machine}:{session}:{message}"


@dataclass(frozen=True, slots=True)
class Intent:
    """A window whose plan was saved and whose writes may have started."""

    window_key: str
    plan_id: str
    message_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SessionState:
    """What the cursor knows about one session on this host."""

    revision: str | None = None
    generation: int = 0
    status: Status = "partial"
    reason: str = ""
    acked: Mapping[str, str] = field(default_factory=dict)  # message id -> fingerprint
    receipts: tuple[str, ...] = ()
    intent: Intent | None = None


@dataclass(frozen=True, slots=True)
class Cursor:
    """Per-host collection state: sessions by ``tool:id``, plus what must pass through."""

    host: str
    sessions: Mapping[str, SessionState] = field(default_factory=dict)
    legacy: Mapping[str, object] = field(default_factory=dict)

    def state(self, key: str) -> SessionState:
        return self.sessions.get(key, SessionState())

    def with_state(self, key: str, state: SessionState) -> Cursor:
        return replace(self, sessions={**self.sessions, key: state})


def selection_view(cursor: Cursor) -> dict[str, CursorEntry]:
    """What selection needs to know: each session's state at the revision it was recorded."""
    return {
        key: CursorEntry(state.status, state.revision, state.reason)
        for key, state in cursor.sessions.items()
        if state.revision is not None
    }


def observe(cursor: Cursor, key: str, revision: str) -> Cursor:
    """Record the revision a session has now; a different one starts a new generation.

    A resolved or skipped session whose revision changed becomes partial again.
    """
    state = cursor.state(key)
    if state.revision == revision:
        return cursor
    generation = state.generation + 1 if state.revision is not None else 0
    status: Status = "partial" if state.status != "partial" else state.status
    return cursor.with_state(
        key, replace(state, revision=revision, generation=generation, status=status)
    )


def pending_messages(state: SessionState, messages: Sequence[Message]) -> list[Message]:
    """Seed 002 phase 2 ``pendingMessages``: messages not acknowledged at their fingerprint."""
    return [m for m in messages if state.acked.get(m.id) != m.fingerprint]


@dataclass(frozen=True, slots=True)
class Window:
    """20 to 40 pending messages and a short digest of what came before them."""

    messages: tuple[Message, ...]
    digest: str


def split_windows(
    conversation: Conversation, pending: Sequence[Message], size: int = 30
) -> list[Window]:
    """Cut pending messages into windows of ``size`` (the last may be shorter).

    A trailing window of fewer than ``MIN_WINDOW`` messages is merged into the
    previous one while the result stays within ``MAX_WINDOW``. Each window's
    digest quotes the beginnings of the user prompts before it, so the
    extractor knows the context without re-reading it.
    """
    if not MIN_WINDOW <= size <= MAX_WINDOW:
        raise ValueError(f"window size must be {MIN_WINDOW} to {MAX_WINDOW}, got {size}")
    chunks = [list(pending[i : i + size]) for i in range(0, len(pending), size)]
    short_tail = len(chunks) > 1 and len(chunks[-1]) < MIN_WINDOW
    if short_tail and len(chunks[-2]) + len(chunks[-1]) <= MAX_WINDOW:
        chunks[-2].extend(chunks.pop())
    order = {m.id: index for index, m in enumerate(conversation.messages)}
    return [
        Window(tuple(chunk), _digest(conversation.messages[: order.get(chunk[0].id, 0)]))
        for chunk in chunks
    ]


def _digest(earlier: Sequence[Message]) -> str:
    prompts = [m.text.strip().splitlines()[0][:DIGEST_CHARS] for m in earlier if m.role == "user"]
    if not prompts:
        return ""
    shown = prompts[-DIGEST_PROMPTS:]
    skipped = len(prompts) - len(shown)
    head = f"({skipped} earlier prompts) " if skipped else ""
    return head + " | ".join(shown)


def window_key(
    host: str, tool: str, session: str, generation: int, messages: Iterable[Message]
) -> str:
    """Seed 002 phase 4: a stable key for one window's work.

    Host, tool, session, the revision generation and the message fingerprints:
    the same window retried within a generation gets the same key; the same
    text after A → B → A is a new generation and a new key.
    """
    digest = hashlib.sha256(f"{host}\n{tool}\n{session}\n{generation}\n".encode())
    for message in messages:
        digest.update(f"{message.id}\t{message.fingerprint}\n".encode())
    return digest.hexdigest()[:32]


def begin_window(cursor: Cursor, key: str, intent: Intent) -> Cursor:
    """Record the intent (plan saved, writes about to start) before any store write."""
    state = cursor.state(key)
    if state.intent is not None and state.intent.window_key != intent.window_key:
        raise ValueError(f"{key} already has an open window {state.intent.window_key}")
    return cursor.with_state(key, replace(state, intent=intent))


def acknowledge(state: SessionState, messages: Iterable[Message]) -> dict[str, str]:
    """The acknowledged fingerprints after ``messages`` were analysed at their current text."""
    acked = dict(state.acked)
    acked.update({m.id: m.fingerprint for m in messages})
    return acked


def checkpoint_window(
    cursor: Cursor,
    key: str,
    window: Window,
    receipts: Sequence[str],
    *,
    window_key_: str,
) -> Cursor:
    """Seed 002 phase 5 ``checkpointWindow``: after every write of the window is confirmed.

    Acknowledges the window's messages at their fingerprints, keeps the
    receipts, and closes the intent. Refuses a checkpoint for another window
    than the one begun.
    """
    state = cursor.state(key)
    if state.intent is not None and state.intent.window_key != window_key_:
        raise ValueError(
            f"{key}: checkpoint for {window_key_} but {state.intent.window_key} is open"
        )
    updated = replace(
        state,
        acked=acknowledge(state, window.messages),
        receipts=(*state.receipts, *(r for r in receipts if r not in state.receipts)),
        intent=None,
    )
    return cursor.with_state(key, updated)


def complete_session(cursor: Cursor, key: str, conversation: Conversation) -> Cursor:
    """Seed 002 ``completeSession``: resolved only when every message is acknowledged now."""
    state = cursor.state(key)
    if state.revision != conversation.revision:
        raise ValueError(f"{key} changed since it was observed; re-read it first")
    if state.intent is not None:
        raise ValueError(f"{key} has an open window; reconcile it first")
    missing = pending_messages(state, conversation.messages)
    if missing:
        raise ValueError(f"{key}: {len(missing)} message(s) not acknowledged at their fingerprint")
    return cursor.with_state(key, replace(state, status="resolved", reason=""))


def skip_trivial(cursor: Cursor, key: str, revision: str, reason: str) -> Cursor:
    """Seed 002 ``skipTrivial``: recorded for this revision, with a factual reason."""
    if not reason.strip():
        raise ValueError("skipping a session as trivial needs a reason")
    state = cursor.state(key)
    return cursor.with_state(
        key, replace(state, revision=revision, status="skipped_trivial", reason=reason)
    )
