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

Legacy processed records (seed 002 phase 2): a session the earlier collector
recorded as processed, with a last-message or resolved time but no message
fingerprints (``LegacyRecord``). Until the session has V2 state of its own:

- only messages after the recorded time are analysed (``legacy_boundary``,
  ``legacy_split``); the time is never guessed: a record without a usable one,
  or a session with a message that has no timestamp, is ``legacy-review``;
- the first V2 transition acknowledges the messages at or before that time
  at their current fingerprints without analysing them and sets
  ``legacy_baseline`` (``adopt_legacy_baseline``); from then on edits are
  found by fingerprint like any other session's. A same-timestamp rewrite
  made before the baseline cannot be told apart: a limit of the legacy
  record, not a reason to re-analyse everything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal

import msgspec

from dreamd.selection import READABLE_DONE, CursorEntry

if TYPE_CHECKING:
    from dreamd.readers import Conversation, Message

__all__ = [
    "Cursor",
    "Intent",
    "LegacyRecord",
    "SessionState",
    "Status",
    "Window",
    "acknowledge",
    "adopt_legacy_baseline",
    "begin_window",
    "checkpoint_window",
    "complete_readable",
    "complete_session",
    "governed_by_legacy",
    "legacy_boundary",
    "legacy_note",
    "legacy_review_reason",
    "legacy_split",
    "observe",
    "pending_messages",
    "plan_source",
    "qualified_id",
    "reconcile_window",
    "selection_view",
    "skip_trivial",
    "source_unchanged",
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


class Intent(msgspec.Struct, frozen=True):
    """A window whose plan was saved and whose writes may have started.

    ``message_ids`` are what its checkpoint acknowledges; ``source`` is what the
    plan was made from (each analysed message's id and fingerprint) and
    ``revision`` the session's revision then, so a later run can tell whether
    the plan still describes the text (``source_unchanged``). ``source`` is
    None for an intent recorded before dreamd kept it.
    """

    window_key: str
    plan_id: str
    message_ids: tuple[str, ...]
    source: Mapping[str, str] | None = None
    revision: str = ""


class SessionState(msgspec.Struct, frozen=True):
    """What the cursor knows about one session on this host."""

    revision: str | None = None
    generation: int = 0
    status: Status = "partial"
    reason: str = ""
    acked: Mapping[str, str] = msgspec.field(default_factory=dict)  # message id -> fingerprint
    receipts: tuple[str, ...] = ()
    intent: Intent | None = None
    legacy_baseline: bool = False  # the legacy-resolved part was fingerprinted, not analysed
    reconciled: tuple[str, ...] = ()  # plans closed by reconciliation (their source changed)


class LegacyRecord(msgspec.Struct, frozen=True):
    """A session the earlier collector recorded as processed (times only, no fingerprints).

    ``origin`` says where in the cursor document it was found, for the report.
    """

    last_message_at: datetime | None = None
    resolved_at: datetime | None = None
    origin: str = ""
    skipped: bool = False  # recorded skipped as trivial (``skipped_trivial``), not processed


class Cursor(msgspec.Struct, frozen=True):
    """Per-host collection state: sessions by ``tool:id``, plus what must pass through.

    ``legacy`` is the imported document, kept verbatim; ``legacy_sessions`` are
    the processed records read from its legacy fields, by ``tool:id``.
    """

    host: str
    sessions: Mapping[str, SessionState] = msgspec.field(default_factory=dict)
    legacy: Mapping[str, object] = msgspec.field(default_factory=dict)
    legacy_sessions: Mapping[str, LegacyRecord] = msgspec.field(default_factory=dict)

    def state(self, key: str) -> SessionState:
        return self.sessions.get(key, SessionState())

    def with_state(self, key: str, state: SessionState) -> Cursor:
        return msgspec.structs.replace(self, sessions={**self.sessions, key: state})


def selection_view(cursor: Cursor) -> dict[str, CursorEntry]:
    """What selection needs to know: each session's state at the revision it was recorded.

    - a session with an open window (a pending plan) is ``partial`` whatever its
      status says: the plan is reconciled before the session can complete;
    - a session a legacy record still governs (``governed_by_legacy``) carries the
      record's time as ``until``: finished up to then (``skipped_trivial`` when the
      record says it was skipped), so selection applies it before the budget;
    - a legacy record with no usable time holds the session (``held``).
    """
    view = {
        key: CursorEntry(
            "partial" if state.intent is not None else state.status, state.revision, state.reason
        )
        for key, state in cursor.sessions.items()
        if state.revision is not None
    }
    for key, record in cursor.legacy_sessions.items():
        reason = legacy_review_reason(cursor, key)
        if reason is not None:
            view[key] = CursorEntry("held", "", f"legacy review: {reason}")
            continue
        state = cursor.state(key)
        boundary = legacy_boundary(record)
        if boundary is None or state.intent is not None or not governed_by_legacy(state, record):
            continue
        known = view.get(key)
        if known is None or known.state == "partial":
            kind: Status = "skipped_trivial" if record.skipped else "resolved"
            note = legacy_note(record)
            view[key] = CursorEntry(kind, state.revision or "", until=boundary, note=note)
        else:  # finished at a revision of its own: that decides, the record's time is a fallback
            view[key] = msgspec.structs.replace(known, until=boundary, note=legacy_note(record))
    return view


def legacy_note(record: LegacyRecord) -> str:
    """Where the legacy record that finished a session is, in words."""
    what = "skipped as trivial" if record.skipped else "finished"
    return f"{what} in the legacy cursor ({record.origin})"


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
        key, msgspec.structs.replace(state, revision=revision, generation=generation, status=status)
    )


def legacy_boundary(record: LegacyRecord) -> datetime | None:
    """Seed 002 phase 2: the recorded last-message time, else the resolved time, else None."""
    return record.last_message_at if record.last_message_at is not None else record.resolved_at


def governed_by_legacy(state: SessionState, record: LegacyRecord | None) -> bool:
    """Whether a legacy record still decides what is new: it exists and V2 has no state yet.

    Once a baseline was taken, or any message was acknowledged, fingerprints decide.
    """
    return record is not None and not state.legacy_baseline and not state.acked


def legacy_review_reason(cursor: Cursor, key: str) -> str | None:
    """Why a session is held for legacy review (a processed record with no usable time)."""
    record = cursor.legacy_sessions.get(key)
    if record is None or not governed_by_legacy(cursor.state(key), record):
        return None
    if legacy_boundary(record) is None:
        return f"legacy record ({record.origin}) has no usable time; not guessed"
    return None


def legacy_split(
    messages: Sequence[Message], boundary: datetime
) -> tuple[tuple[Message, ...], tuple[Message, ...]] | None:
    """(resolved by the legacy collector, after it): at or before ``boundary``, and after.

    None when a message has no timestamp: it cannot be placed, and is never guessed.
    """
    before: list[Message] = []
    after: list[Message] = []
    for message in messages:
        if message.timestamp is None:
            return None
        (before if message.timestamp <= boundary else after).append(message)
    return tuple(before), tuple(after)


def adopt_legacy_baseline(cursor: Cursor, key: str, resolved: Sequence[Message]) -> Cursor:
    """The first V2 transition of a legacy session: its resolved part acknowledged, unanalysed.

    The messages are acknowledged at their current fingerprints and
    ``legacy_baseline`` is set, so later edits of them are found by hash.
    """
    state = cursor.state(key)
    if state.legacy_baseline or state.acked:
        raise ValueError(f"{key} already has V2 state; a legacy baseline comes first")
    updated = msgspec.structs.replace(
        state, acked=acknowledge(state, resolved), legacy_baseline=True
    )
    return cursor.with_state(key, updated)


def pending_messages(state: SessionState, messages: Sequence[Message]) -> list[Message]:
    """Seed 002 phase 2 ``pendingMessages``: messages not acknowledged at their fingerprint."""
    return [m for m in messages if state.acked.get(m.id) != m.fingerprint]


class Window(msgspec.Struct, frozen=True):
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
    return cursor.with_state(key, msgspec.structs.replace(state, intent=intent))


def plan_source(messages: Iterable[Message]) -> dict[str, str]:
    """What a plan is made from, as its intent records it: message id -> fingerprint."""
    return {m.id: m.fingerprint for m in messages}


def source_unchanged(intent: Intent, messages: Sequence[Message]) -> bool:
    """Whether every message the intent's plan was made from still has its fingerprint.

    Seed 002: a plan whose source changed is never reused. An intent recorded
    before sources were kept cannot be checked: one that names messages counts
    as changed (re-analysing is harmless, replaying stale text is not); one
    that names none (a session-level plan) is replayed as before.
    """
    if intent.source is None:
        return not intent.message_ids
    current = plan_source(messages)
    return all(current.get(mid) == fingerprint for mid, fingerprint in intent.source.items())


def reconcile_window(cursor: Cursor, key: str, receipts: Sequence[str]) -> Cursor:
    """Seed 002 ``reconcileWindow``: close an open window whose plan is stale.

    Every planned operation was looked up (``receipts`` are those found
    written); the receipts and the plan's id are kept as provenance and the
    intent is closed, but no message is acknowledged: the window's messages
    stay pending and are analysed again at their current fingerprints.
    """
    state = cursor.state(key)
    if state.intent is None:
        raise ValueError(f"{key} has no open window to reconcile")
    updated = msgspec.structs.replace(
        state,
        receipts=(*state.receipts, *(r for r in receipts if r not in state.receipts)),
        reconciled=(*state.reconciled, state.intent.plan_id),
        intent=None,
    )
    return cursor.with_state(key, updated)


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
    updated = msgspec.structs.replace(
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
    return cursor.with_state(key, msgspec.structs.replace(state, status="resolved", reason=""))


def complete_readable(cursor: Cursor, key: str, conversation: Conversation) -> Cursor:
    """A damaged session whose every readable message is acknowledged now: still partial
    (never resolved while damaged, seed 002), recorded so selection waits for a change."""
    state = cursor.state(key)
    if state.revision != conversation.revision or state.intent is not None:
        raise ValueError(f"{key} changed or has an open window; reconcile it first")
    if pending_messages(state, conversation.messages):
        raise ValueError(f"{key}: messages not acknowledged at their fingerprint")
    return cursor.with_state(
        key, msgspec.structs.replace(state, status="partial", reason=READABLE_DONE)
    )


def skip_trivial(cursor: Cursor, key: str, revision: str, reason: str) -> Cursor:
    """Seed 002 ``skipTrivial``: recorded for this revision, with a factual reason."""
    if not reason.strip():
        raise ValueError("skipping a session as trivial needs a reason")
    state = cursor.state(key)
    return cursor.with_state(
        key,
        msgspec.structs.replace(state, revision=revision, status="skipped_trivial", reason=reason),
    )
