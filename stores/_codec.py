"""Items as JSON for the text stores (sectioned ``MEMORY.md``, knowledge-graph JSONL).

Both stores keep a collected item whole beside what they show (an entry
line, an entity): as one JSON object per record. The encoding is exact:
``item_from_json(item_to_json(item)) == item`` for every valid item, and
``dumps_ascii`` writes pure ASCII with ``<`` and ``>`` escaped, so a record
can sit on one line inside an HTML comment (``<!-- … -->``) whatever the
item's text holds: line breaks, NUL, ``-->``, bidirectional controls.

A held record of either store keeps ``record_to_json``: its operation key,
the keys of the updates applied to it, and the item.

Invariants:

- ``item_from_json`` and ``record_from_json`` never raise on foreign input:
  anything that is not exactly an encoded item (record) is None;
- ``key_hash`` names an operation key in a receipt location without putting
  the key (free text) into it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from dreamd.errors import StoreError

from ._item import MemoryItem, Quote

__all__ = [
    "check_unicode",
    "dumps_ascii",
    "item_from_json",
    "item_texts",
    "item_to_json",
    "key_hash",
    "loads",
    "op_keys_from_json",
    "record_from_json",
    "record_to_json",
]

_FIELDS = (
    "type", "category", "name", "description", "body", "confidence", "source", "collected",
    "project", "quotes",
)  # fmt: skip


def item_to_json(item: MemoryItem) -> dict[str, Any]:
    """Every field of ``item``; dates in ISO form, quotes as ``[message id, text]`` pairs."""
    return {
        "type": item.type,
        "category": item.category,
        "name": item.name,
        "description": item.description,
        "body": item.body,
        "confidence": item.confidence,
        "source": item.source,
        "collected": item.collected.isoformat(),
        "project": item.project,
        "quotes": [[quote.message_id, quote.text] for quote in item.quotes],
    }


def item_from_json(value: object) -> MemoryItem | None:
    """The item ``item_to_json`` encoded as ``value``; None for anything else."""
    if not isinstance(value, dict) or set(value) != set(_FIELDS):
        return None
    texts = ("type", "category", "name", "description", "body", "source", "collected")
    if not all(isinstance(value[key], str) for key in texts):
        return None
    confidence, project, quotes = value["confidence"], value["project"], value["quotes"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if project is not None and not isinstance(project, str):
        return None
    if not isinstance(quotes, list) or not all(_is_quote(quote) for quote in quotes):
        return None
    try:
        return MemoryItem(
            type=value["type"],
            category=value["category"],
            name=value["name"],
            description=value["description"],
            body=value["body"],
            confidence=float(confidence),
            source=value["source"],
            collected=date.fromisoformat(value["collected"]),
            quotes=tuple(Quote(message, text) for message, text in quotes),
            project=project,
        )
    except (TypeError, ValueError):
        return None


def _is_quote(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def op_keys_from_json(value: object) -> tuple[str, ...] | None:
    """A non-empty list of non-empty keys, as a tuple; None for anything else."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(key, str) and key for key in value):
        return None
    return tuple(value)


def record_to_json(op_key: str, item: MemoryItem, updates: Sequence[str]) -> dict[str, Any]:
    """What a held record keeps: ``{"op": key, "updates": [keys…], "item": {…}}``.

    ``StoreError`` for an empty key or text UTF-8 cannot encode (``check_unicode``).
    """
    if not op_key or not all(updates):
        raise StoreError("an operation key cannot be empty")
    check_unicode(item)
    return {"op": op_key, "updates": list(updates), "item": item_to_json(item)}


def record_from_json(value: Mapping[str, object]) -> tuple[str, tuple[str, ...], MemoryItem] | None:
    """The key, update keys and item ``record_to_json`` wrote into ``value``; None when
    any of them is not valid."""
    op_key, updates = value.get("op"), value.get("updates")
    item = item_from_json(value.get("item"))
    keys = op_keys_from_json(updates) if updates else ()
    if not isinstance(op_key, str) or not op_key or item is None or keys is None:
        return None
    return op_key, keys, item


def dumps_ascii(value: object) -> str:
    """Compact JSON in ASCII, ``<``/``>`` escaped: safe on one line and inside ``<!-- -->``."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def loads(text: str) -> object:
    """Parsed JSON, or None when ``text`` is not JSON (never raises)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def key_hash(op_key: str) -> str:
    """16 hex digits naming ``op_key`` in a receipt location."""
    return hashlib.sha256(op_key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def item_texts(item: MemoryItem) -> list[str]:
    """Every free text of ``item``: its fields, the project (``""`` when none), each quote's
    message id and text."""
    texts = [item.category, item.name, item.description, item.body, item.source]
    texts += [item.project or ""]
    texts += [part for quote in item.quotes for part in (quote.message_id, quote.text)]
    return texts


def check_unicode(item: MemoryItem) -> None:
    """``StoreError`` when a field holds text UTF-8 cannot encode (a lone surrogate)."""
    for text in item_texts(item):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise StoreError(f"item {item.name!r} holds text that is not valid Unicode") from error
