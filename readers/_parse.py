"""Pure decoding helpers shared by readers: JSON Lines with recovery, times, text.

Nothing here does I/O. Decoding is forgiving where the damage is local (a torn
last line, two objects written onto one line, one garbled line among many)
and reports what it skipped, so that a reader can decide whether what is left
is still a transcript. Two repairs are made before anything is judged
damaged: a byte-order mark or NUL padding around a line (or a document) is
not part of it (``trim_padding``), and a string escape that encodes a lone
UTF-16 surrogate (``"\\ud83d"``, what JavaScript writes for a string cut inside
an emoji), which the fast decoder refuses, is decoded by the standard library
and repaired to U+FFFD (``repair_surrogates``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import msgspec

from ._text import repair_surrogates

__all__ = [
    "JsonError",
    "JsonLines",
    "decode_json",
    "decode_json_lines",
    "iter_strings",
    "line_ids",
    "parse_timestamp",
    "strip_tagged_blocks",
    "trim_padding",
]

_decode = msgspec.json.Decoder().decode
_raw_decoder = json.JSONDecoder()


class JsonError(ValueError):
    """The bytes are not one JSON document."""


_BOM = b"\xef\xbb\xbf"
_PADDING = b"\x00 \t\r\n"


def trim_padding(data: bytes) -> bytes:
    """``data`` without a leading byte-order mark and NUL padding at either end.

    Editors and some writers put a BOM before the first record; a crash or a
    preallocated file leaves runs of NUL bytes. Neither is part of a record.
    """
    if not data.startswith((_BOM, b"\x00")) and not data.endswith(b"\x00"):
        return data
    data = data.strip(_PADDING)
    while data.startswith(_BOM):
        data = data[len(_BOM) :].lstrip(_PADDING)
    return data


def decode_json(data: bytes | str) -> Any:
    """Decode one JSON document; raises ``JsonError`` with a short reason.

    A document the fast decoder refuses is tried once more with the standard
    library, which accepts escaped lone surrogates; they are repaired.
    """
    data = trim_padding(data) if isinstance(data, bytes) else data.strip("\ufeff\x00")
    try:
        return _decode(data)
    except msgspec.DecodeError as error:
        reason = str(error)
    except RecursionError:
        raise JsonError("nested too deeply") from None
    value = _decode_lenient(data)
    if value is _NOTHING:
        raise JsonError(reason)
    return value


_NOTHING = object()


def _decode_lenient(data: bytes | str) -> Any:
    """The standard library's reading of a document msgspec refused, or ``_NOTHING``.

    It accepts what msgspec refuses in a valid UTF-8 document (escaped lone
    surrogates, ``NaN``); the surrogates are repaired.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return repair_surrogates(json.loads(text))
    except (ValueError, RecursionError):
        return _NOTHING


class JsonLines(msgspec.Struct):
    """What ``decode_json_lines`` recovered from a JSON Lines buffer.

    ``records`` pairs each decoded value with its 1-based line number.
    ``bad_lines`` lists lines that held no JSON at all; ``torn_tail`` is true
    when only the unterminated last line failed (a writer still at work).
    """

    records: list[tuple[int, Any]] = msgspec.field(default_factory=list)
    bad_lines: list[int] = msgspec.field(default_factory=list)
    torn_tail: bool = False

    @property
    def mostly_garbage(self) -> bool:
        """True when nothing decoded, or bad lines outnumber good ones."""
        return not self.records or len(self.bad_lines) > len(self.records)


def decode_json_lines(data: bytes) -> JsonLines:
    """Decode a JSON Lines buffer, recovering what can be recovered.

    A line holding several concatenated objects yields each of them (same
    line number). A line that does not decode is recorded in ``bad_lines``,
    unless it is the unterminated last line, which sets ``torn_tail``.
    """
    result = JsonLines()
    lines = data.split(b"\n")
    last_index = len(lines) - 1
    for index, raw in enumerate(lines):
        line = trim_padding(raw)
        if not line.strip():
            continue
        try:
            result.records.append((index + 1, _decode(line)))
            continue
        except (msgspec.DecodeError, RecursionError):
            pass
        values = _split_concatenated(line)
        if values:
            result.records.extend((index + 1, value) for value in values)
        elif index == last_index:
            result.torn_tail = True
        else:
            result.bad_lines.append(index + 1)
    return result


def _split_concatenated(line: bytes) -> list[Any]:
    """Every JSON value written back to back on one line, or [] if any is broken.

    The standard library decodes escaped lone surrogates; they are repaired.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return []
    values: list[Any] = []
    position = 0
    end = len(text.rstrip())
    while position < end:
        while position < end and text[position].isspace():
            position += 1
        try:
            value, position = _raw_decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return []
        values.append(repair_surrogates(value))
    return values


def parse_timestamp(value: Any) -> datetime | None:
    """A UTC datetime from an ISO-8601 string or epoch seconds/milliseconds.

    Numbers above 10^11 are taken as milliseconds (10^11 s is the year 5138).
    Returns None for anything else, including out-of-range values.
    """
    try:
        if value.__class__ is str:  # what every transcript writes: looked at first
            return _parse_iso(value) if value else None
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            seconds = value / 1000 if abs(value) > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str) and value:
            return _parse_iso(value)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _parse_iso(value: str) -> datetime:
    """An ISO-8601 string as UTC (naive means UTC); raises ``ValueError``, ``OverflowError``."""
    moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


_tag_cache: dict[tuple[str, ...], re.Pattern[str]] = {}


def strip_tagged_blocks(text: str, tags: Iterable[str]) -> str:
    """Remove ``<tag ...>...</tag>`` blocks (and unclosed openings to the end).

    Used for envelopes that tools inject into user text: system reminders,
    slash-command wrappers, environment context.
    """
    key = tuple(tags)
    pattern = _tag_cache.get(key)
    if pattern is None:
        names = "|".join(re.escape(tag) for tag in key)
        pattern = re.compile(
            rf"<({names})(?:\s[^>]*)?>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE
        )
        _tag_cache[key] = pattern
    return pattern.sub("", text)


def line_ids(records: Iterable[tuple[int, Any]]) -> Iterator[tuple[str, Any]]:
    """Stable message ids from line numbers: ``line-<n>``, and ``line-<n>-<k>`` for
    the k-th extra object written onto the same line. Appends never change them."""
    previous, extra = -1, 0
    for line, record in records:
        extra = extra + 1 if line == previous else 0
        previous = line
        yield (f"line-{line}" if extra == 0 else f"line-{line}-{extra}"), record


def iter_strings(values: Iterable[Any]) -> Iterator[str]:
    """The ``str`` items of an iterable, skipping everything else."""
    return (value for value in values if isinstance(value, str))
