"""Claude Code's records as decoded from one transcript (the reader's hot path).

Lines that cannot be a user, assistant or queue record (``_USER_MARK`` …) are
read as a struct of their five link fields only (``Link``), and the rest as
small typed structs (``Record``), so that tool inputs and results are scanned
but never materialised. A torn or damaged line is recovered where it can be
and counted as damaged (``Decoded.bad_lines``) where it cannot.

Two paths give the same records. A well-formed file (one record on every
line, nothing blank, torn or damaged) is decoded in one comprehension, every
line as a ``Record``; only the few records whose kind the reader acts on are
then checked for a mark on their line, and become a ``Link`` without one, as
the careful path would have read them. Anything else (a line that does not
decode as a ``Record``) sends the whole file down the careful path, line by
line. The structs are never part of a reference cycle (``gc=False``): a read
makes hundreds of thousands of them and the collector need not track them.
"""

from __future__ import annotations

from collections.abc import Iterator
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


class Block(msgspec.Struct, gc=False):
    """One content block; tool inputs, results and thinking are skipped unread.

    A tool result's ``content`` stays raw bytes: it is decoded only for an
    ``is_error`` result, where a person's words may be (a rejected tool use).
    """

    type: Any = None
    text: Any = None
    is_error: Any = None
    content: msgspec.Raw = msgspec.Raw()


class ApiMessage(msgspec.Struct, gc=False):
    """The ``message`` of a user or assistant record."""

    id: Any = None
    model: Any = None
    content: str | list[Block] | None = None


class Attachment(msgspec.Struct, rename="camel", gc=False):
    """The ``attachment`` of an attachment record (only queued prompts matter)."""

    type: Any = None
    prompt: Any = None
    command_mode: Any = None
    origin: Any = None


class Link(msgspec.Struct, rename="camel", gc=False):
    """Any line of a transcript as the branch rules see it: what it is and what it follows."""

    type: Any = None
    uuid: Any = None
    parent_uuid: Any = None
    logical_parent_uuid: Any = None
    is_sidechain: Any = None


class Record(Link, rename="camel", gc=False):
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


class Decoded(msgspec.Struct):
    """Records recovered from a transcript, with the counts that tell it from garbage.

    ``lines`` holds each record's (1-based) line; None when record ``i`` is on
    line ``i + 1``, as in every well-formed file (``numbered`` pairs them).
    """

    records: list[Link] = msgspec.field(default_factory=list)
    lines: list[int] | None = msgspec.field(default_factory=list)
    good_lines: int = 0
    bad_lines: list[int] = msgspec.field(default_factory=list)

    def numbered(self) -> Iterator[tuple[int, Link]]:
        """``(line, record)`` for every record, in file order."""
        if self.lines is None:
            return enumerate(self.records, 1)
        return zip(self.lines, self.records, strict=True)

    @property
    def mostly_garbage(self) -> bool:
        return self.good_lines == 0 or len(self.bad_lines) > self.good_lines


def decode_transcript(data: bytes) -> Decoded:
    """Decode the lines that may hold conversation; count the rest cheaply."""
    lines = data.split(b"\n")
    decoded = _decode_well_formed(lines)
    return decoded if decoded is not None else _decode_line_by_line(lines)


def _decode_well_formed(lines: list[bytes]) -> Decoded | None:
    """The records of a file holding one decodable record on every line, else None.

    Every line is decoded as a ``Record``; a record of a kind the reader acts
    on whose line holds no mark becomes the ``Link`` that
    ``_decode_line_by_line`` would have made of it (a ``Record`` and a
    ``Link`` of any other kind are read alike).
    """
    count = len(lines) - 1 if not lines[-1] else len(lines)
    try:
        records: list[Link] = [_decode_record(line) for line in lines[:count]]
    except (msgspec.DecodeError, RecursionError):
        return None
    for index, record in enumerate(records):
        kind = record.type  # each kind's own mark looked for first: the one on its line
        if kind == "assistant":
            if _ASSISTANT_MARK in lines[index]:
                continue
        elif kind == "user":
            if _USER_MARK in lines[index]:
                continue
        elif kind != "attachment" and kind != "queue-operation":
            continue
        if not _has_mark(lines[index]):
            records[index] = _as_link(record)
    return Decoded(records, lines=None, good_lines=count)


def _has_mark(line: bytes) -> bool:
    """Whether ``line`` may hold a user, assistant or queue record."""
    return _USER_MARK in line or _ASSISTANT_MARK in line or _QUEUE_MARK in line


def _as_link(record: Link) -> Link:
    return Link(
        type=record.type,
        uuid=record.uuid,
        parent_uuid=record.parent_uuid,
        logical_parent_uuid=record.logical_parent_uuid,
        is_sidechain=record.is_sidechain,
    )


def _decode_line_by_line(lines: list[bytes]) -> Decoded:
    """The careful path: each line on its own, damaged lines recovered or counted."""
    numbers: list[int] = []
    decoded = Decoded(lines=numbers)
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = _decode_record(line) if _has_mark(line) else _decode_link(line)
        except (msgspec.DecodeError, RecursionError):
            recovered = _recover_line(decoded, line, index + 1, torn=index == last)
            numbers.extend([index + 1] * recovered)
            continue
        decoded.records.append(record)
        numbers.append(index + 1)
        decoded.good_lines += 1
    return decoded


def _recover_line(decoded: Decoded, line: bytes, number: int, *, torn: bool) -> int:
    """Slow path for one line: wrong shapes, two records on one line, garbage; how
    many records it held.

    An undecodable last line without a newline is a record still being
    written: it is left out, not counted against the file. NUL padding and a
    byte-order mark around a line are not damage.
    """
    line = trim_padding(line)
    if not line.strip():
        return 0
    try:
        values = [value for _, value in decode_json_lines(line).records]
    except RecursionError:
        values = []
    records = [record for record in map(_record_from_value, values) if record is not None]
    if records:
        decoded.records.extend(records)
        decoded.good_lines += 1
    elif not values and line.strip() and not torn:
        decoded.bad_lines.append(number)
    return len(records)


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
