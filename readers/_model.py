"""The data every reader produces: session references and cleaned conversations.

Invariants (checked on construction, so a reader cannot emit a bad value):

- every string handed on is valid text (strict UTF-8, no NUL): message text
  loses NULs and gets U+FFFD for lone surrogates, ids and session ids get a
  visible escape instead (``dreamd.readers._text``);
- a ``Message`` has role ``user`` or ``assistant`` and non-empty text, with
  every ``<private>…</private>`` span removed (``strip_private``: nothing a
  person marked private reaches a store, plan, report, log or ``sources
  show``; a message that was all private is no message); its
  ``fingerprint`` is derived from role and that text, never passed in;
- a ``Conversation``'s ``project`` is a plausible folder or None: a recorded
  working directory that cannot be one (``project_problem``) becomes None
  with a note saying why, so the session is reported, never a crash;
- a ``Conversation`` read from a damaged file carries the damaged line
  numbers (``damaged_lines``) and is ``partial``: it must never be treated as
  resolved while the damage is there;
- a ``Conversation``'s ``revision`` is derived from its messages' ids and
  fingerprints, so two reads of unchanged content give the same revision and
  any edit, insertion or reordering gives a new one;
- every timestamp is timezone-aware UTC;
- a ``Digest`` (what selection needs of a conversation, without its
  messages) holds what the ``Conversation`` would: ``Digest.build`` applies
  the same rules to the fields ``message_fields`` gives for each message, so
  a reader's digest equals ``Digest.of`` its full read.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, NamedTuple

import msgspec
from msgspec.structs import force_setattr

from ._stamps import FileVersion, isoformat
from ._text import clean_id, clean_text, is_valid_text, project_problem, strip_private

__all__ = [
    "Conversation",
    "Digest",
    "FileVersion",
    "Message",
    "Role",
    "SessionRef",
    "Unresolved",
    "fingerprint",
    "isoformat",
    "message_fields",
]

Role = Literal["user", "assistant"]
_ROLES: frozenset[str] = frozenset({"user", "assistant"})


def fingerprint(role: str, text: str) -> str:
    """Content hash of one message: 32 hex digits of SHA-256 over role and text
    (``Message.build`` computes it inline)."""
    digest = hashlib.sha256(f"{role}\n{text}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


_sha256 = hashlib.sha256
_new = object.__new__


def _require_utc(moment: datetime | None, what: str) -> None:
    if moment is not None and moment.utcoffset() is None:
        raise ValueError(f"{what} must be timezone-aware, got {moment!r}")


class SessionRef(msgspec.Struct, frozen=True):
    """A session found by cheap discovery: enough to read it and to cache it.

    A frozen struct rather than a dataclass: discovery makes one per file, and a
    struct is built in a seventh of the time (``msgspec.structs.replace`` makes a
    changed copy, checked like a new one).

    ``location`` is the file's path as a string (a ``Path`` is accepted and
    converted): discovery makes one ref per file on every rescan, and building
    a ``Path`` object per file would cost more than the ``stat`` itself.
    ``path`` gives the ``Path`` when a reader needs one.

    ``locator`` tells the reader where inside the file the session lives when
    one file holds several (a row id, a chat header); empty otherwise.
    ``aliases`` are other ids a person may know the session by (the file stem
    when the tool's own id differs, an id an older reader gave it): looking a
    session up accepts them, listing and citing use ``session_id``.
    ``updated_at`` is the newest activity the reader could learn cheaply
    (a database row's update time); None means "use the file's mtime".
    """

    tool: str
    session_id: str
    location: str
    file_version: FileVersion
    locator: str = ""
    updated_at: datetime | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.session_id:
            raise ValueError("a session needs an id")
        if not is_valid_text(self.session_id):
            force_setattr(self, "session_id", clean_id(self.session_id))
        if self.aliases:
            force_setattr(self, "aliases", tuple(map(clean_id, self.aliases)))
        if type(self.location) is not str:
            force_setattr(self, "location", os.fspath(self.location))
        if self.updated_at is not None:
            _require_utc(self.updated_at, "updated_at")

    @property
    def path(self) -> Path:
        """The session's file."""
        return Path(self.location)

    @property
    def key(self) -> str:
        """``tool:session_id``, the name users type in ``sources show``."""
        return f"{self.tool}:{self.session_id}"

    @property
    def activity_at(self) -> datetime:
        """The newest cheap evidence that the session was written to."""
        return self.updated_at if self.updated_at is not None else self.file_version.mtime


def message_fields(
    id: str, role: Role, text: str, timestamp: datetime | None
) -> tuple[str, str, str] | None:
    """What ``Message.build`` makes of its arguments: the id as valid text, the text
    without NULs, lone surrogates and private spans, and the fingerprint; None when
    no text is left. Raises ``ValueError`` for what the constructor refuses.

    Readers that only summarize a conversation (``Digest``) call it for each message
    instead of building the message.
    """
    if "\x00" in text or not text.isascii():  # what ``clean_text`` changes
        text = clean_text(text)
    if "<" in text:  # what ``strip_private`` looks for
        text = strip_private(text)
    if not text or text.isspace():  # ``not text.strip()``, without the copy
        return None
    if role not in _ROLES:
        raise ValueError(f"role must be user or assistant, got {role!r}")
    if not id:
        raise ValueError("a message needs an id")
    if "\x00" in id or not id.isascii():
        id = clean_id(id)
    if timestamp is not None and timestamp.utcoffset() is None:
        _require_utc(timestamp, f"timestamp of message {id}")
    digest = _sha256(f"{role}\n{text}".encode("utf-8", "surrogatepass"))
    return id, text, digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Message:
    """One human or assistant turn, cleaned of everything but its text.

    Text and id are made valid text on construction (``clean_text``,
    ``clean_id``); ``build`` is the constructor for readers, which gives None
    when nothing is left of the text.
    """

    id: str
    role: Role
    text: str
    timestamp: datetime | None
    fingerprint: str = field(init=False)

    @classmethod
    def build(cls, id: str, role: Role, text: str, timestamp: datetime | None) -> Message | None:
        """The message, or None when its text is empty once made valid (only NULs, say) and
        its private spans are gone.

        The text is cleaned once, here (``__post_init__`` would clean it again):
        readers build hundreds of thousands of messages in a scan.
        """
        fields = message_fields(id, role, text, timestamp)
        if fields is None:
            return None
        message = _new(cls)
        _set_id(message, fields[0])
        _set_role(message, role)
        _set_text(message, fields[1])
        _set_timestamp(message, timestamp)
        _set_fingerprint(message, fields[2])
        return message

    def __post_init__(self) -> None:
        self._set(self.id, self.role, self.text, self.timestamp, cleaned=False)

    def _set(
        self, id: str, role: Role, text: str, timestamp: datetime | None, *, cleaned: bool = True
    ) -> None:
        """Check and set every field (``cleaned``: ``text`` is already valid and non-empty)."""
        if role not in _ROLES:
            raise ValueError(f"role must be user or assistant, got {role!r}")
        if not id:
            raise ValueError("a message needs an id")
        id = clean_id(id)
        if not cleaned:
            text = strip_private(clean_text(text))
            if not text.strip():
                raise ValueError(f"message {id} has no text")
        if timestamp is not None and timestamp.utcoffset() is None:
            _require_utc(timestamp, f"timestamp of message {id}")
        _set_id(self, id)
        _set_role(self, role)
        _set_text(self, text)
        _set_timestamp(self, timestamp)
        _set_fingerprint(self, fingerprint(role, text))


# The slots' own setters: what ``object.__setattr__`` ends up calling on a frozen
# dataclass, at half its cost (a scan builds a hundred thousand messages).
_set_id, _set_role, _set_text, _set_timestamp, _set_fingerprint = (
    Message.__dict__[name].__set__ for name in ("id", "role", "text", "timestamp", "fingerprint")
)


@dataclass(frozen=True, slots=True)
class Conversation:
    """A session as the collector reads it: human and assistant text only.

    ``automated`` is set by readers whose records say the session was started
    by a program rather than a person (a headless ``-p``/``exec`` run), so the
    selection can treat it as a machine job.

    ``damaged_lines`` are the (1-based) lines of the source that could not be
    decoded; the messages are what the rest of the file holds. Such a
    conversation is ``partial``: a collector may read it but must not mark it
    resolved while the damage is there. ``notes`` say what else was wrong
    with the source without making it unreadable (an impossible working
    directory, for one), in words for ``sources list``.
    """

    ref: SessionRef
    project: str | None
    messages: tuple[Message, ...]
    automated: bool = False
    damaged_lines: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    revision: str = field(init=False)

    def __post_init__(self) -> None:
        project, notes = _checked_project(self.project, self.notes)
        object.__setattr__(self, "project", project)
        object.__setattr__(self, "notes", notes)
        damaged = self.damaged_lines  # most conversations have none: nothing to sort then
        object.__setattr__(self, "damaged_lines", tuple(sorted(set(damaged))) if damaged else ())
        ids = [message.id for message in self.messages]
        fingerprints = [message.fingerprint for message in self.messages]
        object.__setattr__(self, "revision", _revision(self.ref, ids, fingerprints))

    @property
    def tool(self) -> str:
        return self.ref.tool

    @property
    def session_id(self) -> str:
        return self.ref.session_id

    @property
    def partial(self) -> bool:
        """True when part of the source could not be read (see ``damaged_lines``)."""
        return bool(self.damaged_lines)

    @property
    def user_messages(self) -> int:
        return sum(1 for message in self.messages if message.role == "user")

    @property
    def first_message_at(self) -> datetime | None:
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        return min(stamps) if stamps else None

    @property
    def last_message_at(self) -> datetime | None:
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        return max(stamps) if stamps else None


def _checked_project(
    project: str | None, notes: Sequence[str]
) -> tuple[str | None, tuple[str, ...]]:
    """A plausible project folder (else None, with a note saying why) and the notes as
    valid text."""
    if project is not None:
        problem = project_problem(project)
        if problem is not None:
            notes = (*notes, f"project unknown: the recorded working directory {problem}")
            project = None
    return project, tuple([clean_text(note) for note in notes]) if notes else ()


def _revision(ref: SessionRef, ids: list[str], fingerprints: list[str]) -> str:
    """The revision of messages with these ids and fingerprints; ``ValueError`` when an
    id is there twice."""
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for id in ids:
            if id in seen:
                raise ValueError(f"duplicate message id {id} in {ref.key}")
            seen.add(id)
    # One update of the concatenation: the same digest as one update per message.
    lines = "".join([f"{id}\t{print_}\n" for id, print_ in zip(ids, fingerprints, strict=True)])
    return hashlib.sha256(lines.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Digest(NamedTuple):
    """What a conversation tells selection, without its messages: the catalog
    summarizes every session a scan reads, and shows none.

    ``project``, ``notes``, ``damaged_lines`` and ``revision`` are what the
    ``Conversation`` would hold; of its messages only their number, the user
    messages' texts (in order) and the first and last timestamps are kept.
    ``Digest.of`` takes them from a conversation; a reader that can skip
    building the messages makes the same from their fields (``Digest.build``).
    """

    ref: SessionRef
    project: str | None
    automated: bool
    damaged_lines: tuple[int, ...]
    notes: tuple[str, ...]
    revision: str
    messages: int
    user_texts: tuple[str, ...]
    first_message_at: datetime | None
    last_message_at: datetime | None

    @classmethod
    def of(cls, conversation: Conversation) -> Digest:
        """The digest of a conversation read in full."""
        messages = conversation.messages
        stamps = [m.timestamp for m in messages if m.timestamp is not None]
        return cls(
            conversation.ref,
            conversation.project,
            conversation.automated,
            conversation.damaged_lines,
            conversation.notes,
            conversation.revision,
            len(messages),
            tuple([m.text for m in messages if m.role == "user"]),
            min(stamps) if stamps else None,
            max(stamps) if stamps else None,
        )

    @classmethod
    def build(
        cls,
        ref: SessionRef,
        project: str | None,
        *,
        automated: bool,
        damaged_lines: Iterable[int],
        ids: list[str],
        fingerprints: list[str],
        user_texts: list[str],
        stamps: list[datetime],
    ) -> Digest:
        """The digest of the ``Conversation`` of messages whose ``message_fields`` gave
        ``ids`` and ``fingerprints``, with the texts of its user messages and its
        messages' timestamps (those that have one); ``ValueError`` for an id there twice,
        as the conversation would raise."""
        project, notes = _checked_project(project, ())
        damaged = tuple(damaged_lines)
        return cls(
            ref,
            project,
            automated,
            tuple(sorted(set(damaged))) if damaged else (),
            notes,
            _revision(ref, ids, fingerprints),
            len(ids),
            tuple(user_texts),
            min(stamps) if stamps else None,
            max(stamps) if stamps else None,
        )


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A source that could not be read or parsed, and why.

    Never an empty conversation in disguise: selection lists it as
    ``unresolved`` so that the user sees it and no cursor marks it done.
    """

    tool: str
    path: Path
    reason: str
    session_id: str | None = None
    file_version: FileVersion | None = None
    locator: str = ""

    def __post_init__(self) -> None:
        if not self.reason:
            raise ValueError("an unresolved source needs a reason")
        # Nothing reads an unresolved source again: its strings only need to be shown.
        object.__setattr__(self, "reason", clean_text(self.reason))
        if self.session_id is not None:
            object.__setattr__(self, "session_id", clean_id(self.session_id) or None)
        shown = str(self.path)
        if not is_valid_text(shown):
            object.__setattr__(self, "path", Path(clean_id(shown)))

    @property
    def key(self) -> str:
        """``tool:session_id``, or ``tool:<path>`` when no session id is known."""
        return f"{self.tool}:{self.session_id or self.path}"
