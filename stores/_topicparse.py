"""Reading the front matter of a collected topic file back (``claude_memory``'s codec).

``parse_item`` reads back exactly what ``claude_memory.render_item`` wrote;
``stored_op_keys`` reads only the operation keys (the key index's reader).
A file without a YAML mapping on top is not an item; nothing here raises.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from ._item import MemoryItem, Quote
from ._yaml import safe_yaml

__all__ = ["index_fields", "parse_item", "stored_op_keys", "update_keys"]

_OPENING = "---"
_CLOSINGS = frozenset({"---", "..."})


def parse_item(data: bytes) -> tuple[str, MemoryItem] | None:
    """The operation key and item of a file ``render_item`` wrote; None for anything else."""
    split = _front_matter(data)
    if split is None:
        return None
    front, body = split
    metadata = front.get("metadata")
    if not isinstance(metadata, dict):
        return None
    try:
        item = MemoryItem(
            type=_text(front, "type"),  # type: ignore[arg-type]  # checked by MemoryItem
            category=_text(metadata, "category"),
            name=_text(front, "name"),
            description=_text(front, "description"),
            body=body.removesuffix("\n"),
            confidence=_number(metadata, "confidence"),
            source=_text(metadata, "source"),
            collected=_day(metadata.get("collected")),
            quotes=_quotes(metadata.get("quotes")),
            project=_optional_text(metadata, "project"),
        )
        return _text(metadata, "op_key"), item
    except (TypeError, ValueError):
        return None


def stored_op_keys(data: bytes) -> frozenset[str]:
    """Operation keys a topic file records: ``metadata.op_key`` and ``metadata.op_keys``."""
    return index_fields(data)[0]


def index_fields(data: bytes) -> tuple[frozenset[str], str]:
    """(``stored_op_keys``, ``metadata.source`` or "") of a topic file, from one parse.

    A file without an operation key is never an item (``parse_item``), so its
    source is not read either.
    """
    if b"op_key" not in data:  # most accepted memories carry none: skip the YAML
        return frozenset(), ""
    split = _front_matter(data)
    metadata = split[0].get("metadata") if split else None
    if not isinstance(metadata, dict):
        return frozenset(), ""
    keys = metadata.get("op_keys")
    found = {key for key in keys if isinstance(key, str)} if isinstance(keys, list) else set()
    if isinstance(metadata.get("op_key"), str):
        found.add(metadata["op_key"])
    source = metadata.get("source")
    return frozenset(found), source if isinstance(source, str) else ""


def update_keys(data: bytes) -> list[str]:
    """The keys listed in ``metadata.op_keys``, in order (the updates of a collected item)."""
    split = _front_matter(data)
    metadata = split[0].get("metadata") if split else None
    keys = metadata.get("op_keys") if isinstance(metadata, dict) else None
    return [key for key in keys if isinstance(key, str)] if isinstance(keys, list) else []


def _front_matter(data: bytes) -> tuple[dict[str, Any], str] | None:
    """(front matter mapping, body) of a file, or None when it has no YAML mapping on top."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    split = _split(text)
    if split is None:
        return None
    try:
        loaded = safe_yaml(split[0])
    except ValueError:
        return None
    return (loaded, split[1]) if isinstance(loaded, dict) else None


def _split(text: str) -> tuple[str, str] | None:
    """(block, body) when ``text`` opens with ``---`` and a later ``---``/``...`` line closes it."""
    first, newline, _rest = text.partition("\n")
    if first.rstrip() != _OPENING or not newline:
        return None
    start = position = len(first) + 1
    while True:
        end = text.find("\n", position)
        line = text[position:] if end < 0 else text[position:end]
        if line.rstrip() in _CLOSINGS:
            return text[start:position], ("" if end < 0 else text[end + 1 :])
        if end < 0:
            return None
        position = end + 1


def _text(mapping: dict[str, Any], key: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} is not text")
    return value


def _optional_text(mapping: dict[str, Any], key: str) -> str | None:
    return None if mapping.get(key) is None else _text(mapping, key)


def _number(mapping: dict[str, Any], key: str) -> float:
    value = mapping.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key} is not a number")
    return value


def _day(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return date.fromisoformat(value)
    raise ValueError("collected is not a date")


def _quotes(value: object) -> tuple[Quote, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("quotes is not a list")
    quotes = []
    for entry in value:
        if not isinstance(entry, dict):
            raise ValueError("a quote is not a mapping")
        quotes.append(Quote(_text(entry, "message"), _text(entry, "text")))
    return tuple(quotes)
