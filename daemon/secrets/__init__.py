"""The secret filter (seed 002, safety rule 5): credential-shaped values are never stored.

Coding transcripts carry tokens, connection strings, ARNs and keys. Seed 002
says an extracted value that looks like a credential is discarded, and that
the same bar applies to every field that is stored. Such values are found
with a curated set of compiled patterns, dreamd's own. Decision (issue 15
item 9): no maintained rule set is consumed. ``detect-secrets`` (last
release 2024) lacks the newer providers (Anthropic, Groq, xAI, OpenRouter)
and its eager mode flags ordinary prose (see ENGINEERING-NOTES "Secrets");
gitleaks' rule set is a TOML file shipped with a Go program, its generic
rules are tuned for repositories (a false positive costs a reviewer a
glance, here it drops a memory), and no Python package carries it
maintained. Its and detect-secrets' coverage was used as a checklist for
``providers`` and ``commands``, whose patterns are written here.

This module is the public entry point: it finds credential-shaped values
(``find_secrets``, ``contains_secret``), redacts them from text (``redact``)
and from log events (``redact_log_event``), and applies the rule to memory
items (``scan_item``, ``filter_item``). What counts as a secret, detector by
detector, is in ``dreamd.secrets.patterns``; which key names are
sensitive and which assigned values are literals rather than placeholders,
references or types, in ``dreamd.secrets.values``.

Invariants:

- the filter never returns or logs a matched value: a ``SecretMatch`` holds the
  kind, the span and a per-process keyed fingerprint;
- overlapping hits of several detectors are one match, named by the most
  specific kind (``KINDS`` order);
- a secret in a quote drops the quote, one in ``project`` clears it, one in any
  other text field drops the whole item (``filter_item``).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from dreamd.secrets.patterns import KINDS, PRIORITY, raw_matches
from dreamd.secrets.values import KeyStrength, is_sensitive_key, key_strength
from dreamd.stores import MemoryItem

if TYPE_CHECKING:
    from structlog.typing import EventDict

__all__ = [
    "KINDS",
    "FilterResult",
    "ItemFindings",
    "KeyStrength",
    "SecretMatch",
    "contains_secret",
    "filter_item",
    "find_secrets",
    "is_sensitive_key",
    "key_strength",
    "redact",
    "redact_log_event",
    "scan_item",
]

#: Nesting depth the log processor walks; anything deeper is replaced, never passed through.
MAX_LOG_DEPTH = 16

# --- public API ---------------------------------------------------------------------

_FINGERPRINT_KEY = os.urandom(16)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """One credential-shaped value: its kind and span in the scanned text, never the value.

    ``fingerprint`` is a keyed hash that is stable within one process only, so
    that two matches of the same value can be told apart from two different
    values without making a short password guessable from a log line.
    """

    kind: str
    start: int
    end: int
    fingerprint: str


def _fingerprint(value: str) -> str:
    digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), key=_FINGERPRINT_KEY)
    return digest.hexdigest()[:12]


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential-shaped value in ``text``, in order, overlapping hits merged.

    Overlapping hits of several detectors (``TOKEN=ghp_…`` is both an assignment and
    a GitHub token) become one match covering all of them, named by the most
    specific kind.
    """
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(raw_matches(text)):
        if merged and start < merged[-1][1]:
            first, last_end, named = merged.pop()
            specific = kind if PRIORITY[kind] < PRIORITY[named] else named
            merged.append((first, max(last_end, end), specific))
        else:
            merged.append((start, end, kind))
    return [SecretMatch(kind, s, e, _fingerprint(text[s:e])) for s, e, kind in merged]


def contains_secret(text: str) -> bool:
    """Whether ``text`` holds any credential-shaped value (stops at the first)."""
    return next(raw_matches(text), None) is not None


def redact(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and how many were replaced."""
    matches = find_secrets(text)
    if not matches:
        return text, 0
    pieces: list[str] = []
    position = 0
    for match in matches:
        pieces += (text[position : match.start], f"[REDACTED:{match.kind}]")
        position = match.end
    pieces.append(text[position:])
    return "".join(pieces), len(matches)


# --- memory items -------------------------------------------------------------------

#: Optional fields that are cleared (set to None) when they hold a secret; any other
#: text field holding one drops the whole item.
CLEARABLE_FIELDS = frozenset({"project"})


@dataclass(frozen=True, slots=True)
class ItemFindings:
    """Where an item holds secrets: matches per field (``quotes[2]`` for the third quote)."""

    by_field: Mapping[str, tuple[SecretMatch, ...]]

    @property
    def total(self) -> int:
        """How many credential-shaped values the item holds in all its fields."""
        return sum(len(matches) for matches in self.by_field.values())

    @property
    def kinds(self) -> Counter[str]:
        """How many values of each kind the item holds."""
        return Counter(m.kind for matches in self.by_field.values() for m in matches)


class FilterResult(NamedTuple):
    """The item to store (None when dropped) and how many secret values were dropped.

    A 2-tuple, so it meets the collector's ``FilterItem`` contract as it is;
    ``scan_item`` gives the per-field, per-kind detail.
    """

    item: MemoryItem | None
    dropped: int


def scan_item(item: MemoryItem) -> ItemFindings:
    """The secrets in every text field of ``item``, including each quote's text and id."""
    found: dict[str, tuple[SecretMatch, ...]] = {}
    for spec in fields(item):
        value = getattr(item, spec.name)
        if isinstance(value, str) and (matches := find_secrets(value)):
            found[spec.name] = tuple(matches)
    for index, quote in enumerate(item.quotes):
        matches = find_secrets(quote.text) + find_secrets(quote.message_id)
        if matches:
            found[f"quotes[{index}]"] = tuple(matches)
    return ItemFindings(found)


def filter_item(item: MemoryItem) -> FilterResult:
    """Apply seed 002 rule 5 to every stored field of ``item``.

    - a secret in a quote drops that quote (the quote is evidence, not the memory);
      if the item had quotes and every one is dropped, the item is dropped too:
      nothing verbatim would be left to trace it by;
    - a secret in ``project`` (optional) clears that field;
    - a secret in any other text field (name, description, body, category,
      source) drops the whole item: redacting the memory itself would store a
      changed claim, and the seed says discard.

    ``dropped`` counts every credential-shaped value found, whichever way it went.
    """
    findings = scan_item(item)
    if not findings.by_field:
        return FilterResult(item, 0)
    dropped = findings.total
    fatal = {name for name in findings.by_field if not name.startswith("quotes[")}
    if fatal - CLEARABLE_FIELDS:
        return FilterResult(None, dropped)
    quotes = tuple(q for i, q in enumerate(item.quotes) if f"quotes[{i}]" not in findings.by_field)
    if item.quotes and not quotes:
        return FilterResult(None, dropped)
    project = None if "project" in fatal else item.project
    return FilterResult(replace(item, quotes=quotes, project=project), dropped)


# --- logs ---------------------------------------------------------------------------

_KEY_REDACTED = "[REDACTED:sensitive-assignment]"


def _redact_value(value: object, depth: int) -> object:
    if isinstance(value, str):
        return redact(value)[0]
    if depth >= MAX_LOG_DEPTH and isinstance(value, (dict, list, tuple, set, frozenset)):
        return "[REDACTED:too-deep]"
    if isinstance(value, dict):
        return _redact_mapping(value, depth + 1)
    if isinstance(value, (set, frozenset)):
        return type(value)(_redact_value(element, depth + 1) for element in value)
    if isinstance(value, (list, tuple)):
        redacted = [_redact_value(element, depth + 1) for element in value]
        return redacted if isinstance(value, list) else tuple(redacted)
    return value


def _redact_mapping(mapping: Mapping[Any, Any], depth: int) -> dict[Any, Any]:
    """Redact keys and values; a scalar under a sensitive key name is replaced whole."""
    clean: dict[Any, Any] = {}
    for key, value in mapping.items():
        if not isinstance(key, str):
            clean[key] = _redact_value(value, depth)
        elif _is_scalar_secret(value) and is_sensitive_key(key):
            clean[redact(key)[0]] = _KEY_REDACTED
        else:
            clean[redact(key)[0]] = _redact_value(value, depth)
    return clean


def _is_scalar_secret(value: object) -> bool:
    """A value that can be a credential by itself: a non-empty string, bytes or number."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, (str, bytes)) and bool(value))


def redact_log_event(logger: Any, method: str, event_dict: EventDict) -> EventDict:
    """structlog processor: no credential reaches a log line.

    Every string in the event, at any depth of dicts, lists, tuples and sets, is
    passed through ``redact``; a non-empty string, bytes or number under a
    sensitive key name (``password=…``, ``{"api_key": …}``) is replaced whole. Place it after the
    processors that render exceptions and positional arguments into strings and
    before the renderer, so it sees the final text.
    """
    return _redact_mapping(event_dict, 0)
