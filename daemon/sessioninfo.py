"""Session metadata: what selection needs to know about a session, without its text.

A ``SessionInfo`` is computed once from a full read (``summarize``) and then
cached against the file's version, so that listing ten thousand unchanged
sessions costs a ``stat`` each, not a parse. Everything here is pure.

The inputs of the trivial filter (seed 002, phase 1) are decided here, at
read time, because they need the text: whether the opening prompt looks
machine-generated, and how many substantive human replies follow it.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from dreamd.readers import FileVersion

if TYPE_CHECKING:
    from dreamd.readers import Conversation, Digest, Message, Unresolved

__all__ = [
    "SessionInfo",
    "from_unresolved",
    "is_machine_opening",
    "is_substantive_reply",
    "summarize",
    "summarize_digest",
]


class SessionInfo(NamedTuple):
    """One session as selection sees it. ``unresolved`` holds the reason a read failed.

    ``damaged_lines`` are the source lines the reader could not decode (the
    session is ``partial``: readable, never resolved while damaged);
    ``notes`` what else the reader reported (an unknown project, say).

    A named tuple with a string ``path``, like ``SessionRef.location``: ten
    thousand of these are loaded from the cache on every listing.
    """

    tool: str
    session_id: str
    path: str
    locator: str
    file_version: FileVersion | None
    activity_at: datetime | None
    project: str | None = None
    first_message_at: datetime | None = None
    last_message_at: datetime | None = None
    messages: int = 0
    user_messages: int = 0
    revision: str | None = None
    machine_opening: bool = False
    human_replies: int = 0
    unresolved: str | None = None
    damaged_lines: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.tool}:{self.session_id}"

    @property
    def partial(self) -> bool:
        """True when the source is damaged: the collector must not mark it resolved."""
        return bool(self.damaged_lines)


def summarize(conversation: Conversation) -> SessionInfo:
    """The metadata of a cleanly read conversation."""
    from dreamd.readers import Digest  # the model: only where a conversation is read

    return summarize_digest(Digest.of(conversation))


def summarize_digest(digest: Digest) -> SessionInfo:
    """The metadata of a conversation from its digest (``summarize`` of the conversation:
    a reader that offers ``read_digest`` is summarized without building its messages)."""
    ref = digest.ref
    users = digest.user_texts
    return SessionInfo(
        tool=ref.tool,
        session_id=ref.session_id,
        path=ref.location,
        locator=ref.locator,
        file_version=ref.file_version,
        activity_at=ref.activity_at,
        project=sys.intern(digest.project) if digest.project else digest.project,  # shared
        first_message_at=digest.first_message_at,  # ``Conversation.first_message_at``
        last_message_at=digest.last_message_at,
        messages=digest.messages,
        user_messages=len(users),
        revision=digest.revision,
        machine_opening=digest.automated or (bool(users) and is_machine_opening(users[0])),
        human_replies=sum(1 for text in users[1:] if _is_substantive_text(text)),
        damaged_lines=digest.damaged_lines,
        notes=digest.notes,
    )


def from_unresolved(source: Unresolved) -> SessionInfo:
    """The metadata of a source that could not be read: only where and why."""
    version = source.file_version
    return SessionInfo(
        tool=source.tool,
        session_id=source.session_id or str(source.path),
        path=str(source.path),
        locator=source.locator,
        file_version=version,
        activity_at=version.mtime if version else None,
        unresolved=source.reason,
    )


# Seed 002, phase 1: "an opening message that is obviously a machine-generated
# job prompt". Signals that a program wrote it: a system-prompt voice, markup
# scaffolding meant for a model, output contracts, or template placeholders.
_SYSTEM_VOICE = re.compile(r"^\s*(you are (a|an|the) |system:|<system>|# (task|job|role)\b)", re.I)
_SCAFFOLD_TAGS = re.compile(r"</?(task|instructions|context|input|output|job|rules)>", re.I)
_OUTPUT_CONTRACT = re.compile(
    r"(respond (only )?with (valid )?json|return only|output format:|"
    r"SUBSTRATE_OUTCOME|do not ask (any )?(clarifying )?questions)",
    re.I,
)
_PLACEHOLDER = re.compile(r"\{\{\s*\w+\s*\}\}|\$ARGUMENTS\b")


def is_machine_opening(text: str) -> bool:
    """True when an opening prompt reads as written by a program for a model.

    Two independent signals are needed (or one that no person types:
    a template placeholder left unfilled), so that a person who starts with
    "You are a careful reviewer" is not taken for a job runner.
    """
    if _PLACEHOLDER.search(text):
        return True
    # The signals are counted cheapest first and the output contract (a slow search,
    # run on every session a scan reads) only when it can decide: the same count.
    signals = bool(_SYSTEM_VOICE.search(text)) + (len(text) > 4000)
    signals += len(_SCAFFOLD_TAGS.findall(text)) >= 2
    if signals != 1:
        return signals >= 2
    return bool(_OUTPUT_CONTRACT.search(text))


_ACKNOWLEDGEMENTS = frozenset(
    {"ok", "okay", "yes", "y", "no", "n", "go", "go on", "continue", "thanks", "thank you", "k"}
)


def is_substantive_reply(message: Message) -> bool:
    """True when a user message says something beyond an acknowledgement."""
    return _is_substantive_text(message.text)


def _is_substantive_text(text: str) -> bool:
    text = text.strip().lower().rstrip(".!")
    if text in _ACKNOWLEDGEMENTS:
        return False
    return len(text) >= 12 or len(text.split()) >= 3
