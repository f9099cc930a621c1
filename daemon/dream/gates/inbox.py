"""What a collected item must be to enter a folder: the strict parse and the gate's rules.

Issue 4 item 8 names the tests of the validate gate: an item is well formed
(strict YAML front matter, a known type, a name, a body: ``parse_inbox_item``),
secret-free (``check_secrets``), its provenance present and traceable
(``check_provenance``, ``check_quotes``: seed 002's
``source:<tool>:<machine>:<session>`` and quotes of that session's messages)
and its references verifiable (``check_refs_at_birth``: not stale at birth).

Pure. Each rule raises ``Rejected``, whose message is the reason the report
shows; a reason never repeats a secret.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from dreamd.dream.folder.inventory import memory_type
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.rules import (
    credential_reason,
    future_reason,
    quotes_reason,
    stale_at_birth_reason,
)
from dreamd.dream.model import MEMORY_TYPES, MemoryFile, MemoryType
from dreamd.stores import safe_yaml

__all__ = [
    "FRONT_MATTER_FENCE",
    "MAX_INBOX_ITEM_BYTES",
    "ParsedItem",
    "Rejected",
    "check_provenance",
    "check_quotes",
    "check_refs_at_birth",
    "check_secrets",
    "parse_inbox_item",
    "split_front_matter",
]

#: An inbox file larger than this is no collected item (the store caps items at 4 MiB).
MAX_INBOX_ITEM_BYTES = 4 * 1024 * 1024

# Same shapes as ``MemoryItem`` checks on construction (stores/_item.py).
_SOURCE = re.compile(r"^source:(?P<session>[a-z0-9-]+:[^:\s]+:[^:\s]+)$")
_MESSAGE_ID = re.compile(r"^(?P<session>[a-z0-9-]+:[^:\s]+:[^:\s]+):[^\s]+$")
#: The line that opens (and, when dreamd writes one, closes) a front matter block.
FRONT_MATTER_FENCE = "---"
_CLOSINGS = frozenset({"---", "..."})


class Rejected(Exception):
    """Raised inside the gate's checks; its message is the rejection reason."""


# --- parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedItem:
    """An inbox item's strict parse: front matter, metadata, body, and its type."""

    front: dict[str, Any]
    metadata: dict[str, Any]
    body: str
    type: MemoryType
    name: str


def split_front_matter(text: str) -> tuple[str, str] | None:
    """(block, body) when the text opens with ``---`` and a later ``---``/``...`` closes it."""
    first, newline, rest = text.partition("\n")
    if first.rstrip() != FRONT_MATTER_FENCE or not newline:
        return None
    lines = rest.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip() in _CLOSINGS:
            return "\n".join(lines[:index]), "\n".join(lines[index + 1 :])
    return None


def parse_inbox_item(data: bytes) -> ParsedItem:
    """Issue 4 item 8 "well-formed": strict YAML front matter, a known type, a name, a body.

    Stricter than the inventory on purpose: the inventory reads broken YAML
    line by line so a person's memory keeps its hook, while a collected item
    is machine-written and anything but a clean parse means it is not one.
    Raises ``Rejected`` with the reason.
    """
    if len(data) > MAX_INBOX_ITEM_BYTES:
        raise Rejected(f"malformed: larger than {MAX_INBOX_ITEM_BYTES} bytes")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise Rejected("malformed: not UTF-8 text") from None
    split = split_front_matter(text.replace("\r\n", "\n"))
    if split is None:
        raise Rejected("malformed: no front matter")
    try:
        front = safe_yaml(split[0])
    except ValueError:
        raise Rejected("malformed: front matter is not valid YAML") from None
    if not isinstance(front, dict):
        raise Rejected("malformed: front matter is not a mapping")
    front = {str(key): value for key, value in front.items()}
    kind = memory_type(front)
    if kind is None:
        raise Rejected(f"malformed: type is not one of {', '.join(sorted(MEMORY_TYPES))}")
    name = front.get("name")
    if not isinstance(name, str) or not name.strip():
        raise Rejected("malformed: no name")
    body = split[1]
    if not body.strip():
        raise Rejected("malformed: empty body")
    metadata = front.get("metadata")
    if not isinstance(metadata, dict):
        raise Rejected("no provenance: no metadata block")
    return ParsedItem(front, metadata, body, kind, name.strip())


# --- the rules -------------------------------------------------------------------------------


def check_secrets(data: bytes) -> None:
    """Seed 002 safety rule 5: a credential-shaped value anywhere in the file rejects it.

    The whole text is scanned (every front matter field, every quote, the
    body); the reason never repeats the value.
    """
    reason = credential_reason([data.decode("utf-8", errors="replace")])
    if reason is not None:
        raise Rejected(reason)


def check_provenance(metadata: Mapping[str, Any], now: datetime) -> str:
    """Seed 002 / issue 4 item 4: ``source:<tool>:<machine>:<session>`` and a collection day.

    Returns ``<tool>:<machine>:<session>``. A ``collected`` day later than
    ``now`` (``rules.future_reason``) is not a collection that happened.
    """
    source = metadata.get("source")
    if source is None:
        raise Rejected("no provenance: metadata.source missing")
    match = _SOURCE.match(source) if isinstance(source, str) else None
    if match is None:
        raise Rejected("no provenance: metadata.source is not source:<tool>:<machine>:<session>")
    collected = _day(metadata.get("collected"))
    if collected is None:
        raise Rejected("no provenance: metadata.collected is not a date")
    reason = future_reason(collected, now)
    if reason is not None:
        raise Rejected(reason)
    return match["session"]


def _day(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def check_quotes(metadata: Mapping[str, Any], session: str) -> None:
    """Seed 002: quotes cite ``<tool>:<machine>:<session>:<message>`` of the item's own session.

    At least one quote, each a mapping with a ``message`` id and
    a ``text``; a quote from another session would make the provenance lie.
    """
    quotes = metadata.get("quotes")
    cited: list[str] = []
    for quote in quotes if isinstance(quotes, list) else ():
        if not isinstance(quote, dict) or not isinstance(quote.get("text"), str):
            raise Rejected("untraceable: a quote is not a message id and a text")
        message = quote.get("message")
        if not isinstance(message, str) or _MESSAGE_ID.match(message) is None:
            raise Rejected("untraceable: a quote does not cite tool:machine:session:message")
        cited.append(message)
    reason = quotes_reason(cited, session)
    if reason is not None:
        raise Rejected(reason)


def check_refs_at_birth(memory: MemoryFile, view: RepoView | None) -> None:
    """Seed 000 STEP 2 applied at the gate: an item whose references are all missing is stale
    at birth (FULLY_STALE) and rejected. Unverifiable references, or none, are fine."""
    reason = stale_at_birth_reason(memory, view)
    if reason is not None:
        raise Rejected(reason)
