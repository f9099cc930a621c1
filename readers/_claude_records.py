"""Claude Code's records as decoded from one transcript (the reader's hot path).

Lines that cannot be a user, assistant or queue record (``_USER_MARK`` …) are
decoded into a struct of their five link fields only, and the rest into small
typed structs, so that tool inputs and results are scanned but never
materialised. A torn or damaged line is recovered where it can be and
counted as damaged (``Decoded.damaged``) where it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from ._parse import (
    decode_json_lines,
    trim_padding,
)

__all__ = [
    "ApiMessage",
    "Attachment",
    "Block",
    "Decoded",
    "Link",
    "Record",
    "decode_transcript",
]

#: A line holding none of these cannot be a user, assistant or queue record.
_USER_MARK = b'"user"'
_ASSISTANT_MARK = b'"assistant"'
_QUEUE_MARK = b'"queue'


class Block(msgspec.Struct):
    """One content block; tool inputs, results and thinking are skipped unread.

    A tool result's ``content`` stays raw bytes: it is decoded only for an
    ``is_error`` result, where a person's words may be (a rejected tool use).
    """

    type: Any = None
    text: Any = None
    is_error: Any = None
    content: msgspec.Raw = msgspec.Raw()


class ApiMessage(msgspec.Struct):
    """The ``message`` of a user or assistant record."""

    id: Any = None
    model: Any = None
    content: str | list[Block] | None = None


class Attachment(msgspec.Struct, rename="camel"):
    """The ``attachment`` of an attachment record (only queued prompts matter)."""

    type: Any = None
    prompt: Any = None
    command_mode: Any = None
    origin: Any = None


class Link(msgspec.Struct, rename="camel"):
    """Any line of a transcript as the branch rules see it: what it is and what it follows."""

    type: Any = None
    uuid: Any = None
    parent_uuid: Any = None
    logical_parent_uuid: Any = None
    is_sidechain: Any = None


class Record(Link, rename="camel"):
    """A user, assistant or queue line, reduced to what selection and cleaning need."""

    timestamp: Any = None
    cwd: Any = None
    entrypoint: Any = None
    origin: Any = None
    is_meta: Any = None
    is_compact_summary: Any = None
    is_visible_in_transcript_only: Any = None
    is_api_error_message: Any = None
    # Raw: only whether it is there matters; the (often huge) value is not built.
    tool_use_result: msgspec.Raw = msgspec.Raw()
    message: ApiMessage | None = None
    operation: Any = None
    content: Any = None
    attachment: Attachment | None = None


_decode_record = msgspec.json.Decoder(Record).decode
_decode_link = msgspec.json.Decoder(Link).decode


@dataclass(slots=True)
class Decoded:
    """Records recovered from a transcript, with the counts that tell it from garbage."""

    records: list[tuple[int, Link]] = field(default_factory=list)
    good_lines: int = 0
    bad_lines: list[int] = field(default_factory=list)

    @property
    def mostly_garbage(self) -> bool:
        return self.good_lines == 0 or len(self.bad_lines) > self.good_lines


def decode_transcript(data: bytes) -> Decoded:
    """Decode the lines that may hold conversation; count the rest cheaply."""
    decoded = Decoded()
    lines = data.split(b"\n")
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        conversation = _USER_MARK in line or _ASSISTANT_MARK in line or _QUEUE_MARK in line
        try:
            record = _decode_record(line) if conversation else _decode_link(line)
        except (msgspec.DecodeError, RecursionError):
            _recover_line(decoded, line, index + 1, torn=index == last)
            continue
        decoded.records.append((index + 1, record))
        decoded.good_lines += 1
    return decoded


def _recover_line(decoded: Decoded, line: bytes, number: int, *, torn: bool) -> None:
    """Slow path for one line: wrong shapes, two records on one line, garbage.

    An undecodable last line without a newline is a record still being
    written: it is left out, not counted against the file. NUL padding and a
    byte-order mark around a line are not damage.
    """
    line = trim_padding(line)
    if not line.strip():
        return
    try:
        values = [value for _, value in decode_json_lines(line).records]
    except RecursionError:
        values = []
    records = [record for record in map(_record_from_value, values) if record is not None]
    if records:
        decoded.records.extend((number, record) for record in records)
        decoded.good_lines += 1
    elif values or not line.strip():
        return
    elif not torn:
        decoded.bad_lines.append(number)


def _record_from_value(value: Any) -> Record | None:
    """A ``Record`` from a generically decoded value, ignoring wrongly typed parts."""
    if not isinstance(value, dict):
        return None
    return Record(
        type=value.get("type"),
        uuid=value.get("uuid"),
        parent_uuid=value.get("parentUuid"),
        logical_parent_uuid=value.get("logicalParentUuid"),
        is_sidechain=value.get("isSidechain"),
        timestamp=value.get("timestamp"),
        cwd=value.get("cwd"),
        entrypoint=value.get("entrypoint"),
        origin=value.get("origin"),
        is_meta=value.get("isMeta"),
        is_compact_summary=value.get("isCompactSummary"),
        is_visible_in_transcript_only=value.get("isVisibleInTranscriptOnly"),
        is_api_error_message=value.get("isApiErrorMessage"),
        tool_use_result=msgspec.Raw(b"{}") if "toolUseResult" in value else msgspec.Raw(),
        message=_message_from_value(value.get("message")),
        operation=value.get("operation"),
        content=value.get("content"),
        attachment=_attachment_from_value(value.get("attachment")),
    )


def _message_from_value(value: Any) -> ApiMessage | None:
    if not isinstance(value, dict):
        return None
    content = value.get("content")
    if isinstance(content, list):
        blocks: str | list[Block] | None = [
            Block(
                type=item.get("type"),
                text=item.get("text"),
                is_error=item.get("is_error"),
                content=_raw(item.get("content")) if item.get("is_error") is True else _NO_RAW,
            )
            for item in content
            if isinstance(item, dict)
        ]
    else:
        blocks = content if isinstance(content, str) else None
    return ApiMessage(id=value.get("id"), model=value.get("model"), content=blocks)


_NO_RAW = msgspec.Raw()


def _raw(value: Any) -> msgspec.Raw:
    """``value`` encoded back to JSON, for a field kept raw."""
    try:
        return msgspec.Raw(msgspec.json.encode(value))
    except (TypeError, ValueError, UnicodeEncodeError):
        return _NO_RAW


def _attachment_from_value(value: Any) -> Attachment | None:
    if not isinstance(value, dict):
        return None
    return Attachment(
        type=value.get("type"),
        prompt=value.get("prompt"),
        command_mode=value.get("commandMode"),
        origin=value.get("origin"),
    )


# --- Cleaning rules ---------------------------------------------------------------
