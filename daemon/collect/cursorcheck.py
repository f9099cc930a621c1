"""A cursor document checked before it replaces this host's cursor (``dreamd cursor import``).

``check_document`` refuses what would silently lose progress: a document that
is not an object, holds no cursor field at all (``{"bad": 1}`` reset every
session before), or whose known fields have the wrong shape. The error names
the JSON path (``collectorV2.sources.pi.sessions.abc.generation``) on one line.
Unknown fields are kept, as everywhere in the cursor.

``summarize`` counts what a cursor says, so the import can print what it
changes: sessions finished or pending in the V2 sidecar, and the legacy
records (finished by their time, or held for review without one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from dreamd.collect.cursordoc import (
    INTENT_FIELDS,
    SKIPPED_KEYS,
    STATUSES,
    V2,
    WINDOW_FIELDS,
    document_host,
)
from dreamd.collect.cursorstate import Cursor, legacy_boundary

__all__ = ["CursorDocumentError", "CursorSummary", "changes", "check_document", "summarize"]

#: Top-level fields that make a JSON object a cursor (besides a flat dev map ``{"pi": {...}}``).
CURSOR_FIELDS = (V2, "sources", "processed", *SKIPPED_KEYS, "highWater", "high_water_mark")


class CursorDocumentError(ValueError):
    """A cursor document with a field of the wrong shape: ``path: problem``."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else problem)


def check_document(document: Any) -> None:
    """Raise ``CursorDocumentError`` for the first thing wrong with a cursor document."""
    if not isinstance(document, dict):
        raise CursorDocumentError("", f"must be a JSON object, not {_kind(document)}")
    if not any(field in document for field in CURSOR_FIELDS) and not _flat_maps(document):
        found = ", ".join(sorted(document)[:5]) or "nothing"
        raise CursorDocumentError(
            "",
            f"not a cursor: none of {', '.join(CURSOR_FIELDS)} at the top level (found: {found})",
        )
    for path, problem in _problems(document):
        raise CursorDocumentError(path, problem)


def _flat_maps(document: Mapping[str, Any]) -> bool:
    return any(
        isinstance(value, dict) and ("processed" in value or any(k in value for k in SKIPPED_KEYS))
        for value in document.values()
    )


def _problems(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(JSON path, problem) of every misshapen known field, legacy ones first."""
    for key in ("host", "machine"):
        if key in document and not _text(document[key]):
            yield key, f"must be a host name (text), not {_kind(document[key])}"
    yield from _object_of_objects(document, "sources")
    for tool, source in _items(document.get("sources")):
        for name in ("processed", *SKIPPED_KEYS):
            yield from _listing(source, f"sources.{tool}", name)
    yield from _listing(document, "", "processed")
    for name in SKIPPED_KEYS:
        yield from _listing(document, "", name)
    if V2 in document:
        yield from _sidecar(document[V2])


def _sidecar(v2: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(v2, dict):
        yield V2, f"must be an object, not {_kind(v2)}"
        return
    if "host" in v2 and not _text(v2["host"]):
        yield f"{V2}.host", f"must be a host name (text), not {_kind(v2['host'])}"
    yield from _object_of_objects(v2, "sources", f"{V2}.sources")
    for tool, source in _items(v2.get("sources")):
        where = f"{V2}.sources.{tool}"
        yield from _object_of_objects(source, "sessions", f"{where}.sessions")
        for name in ("processed", *SKIPPED_KEYS):
            yield from _listing(source, where, name)
        for session_id, entry in _items(source.get("sessions")):
            yield from _entry(entry, f"{where}.sessions.{session_id}")


def _entry(entry: Mapping[str, Any], where: str) -> Iterator[tuple[str, str]]:
    """The fields of one V2 session entry that dreamd reads."""
    status = entry.get("status", "partial")
    if status not in STATUSES:
        known = ", ".join(sorted(set(STATUSES.values())))
        yield f"{where}.status", f"{status!r} is not a session status ({known})"
    if entry.get("revision") is not None and not _text(entry["revision"]):
        yield f"{where}.revision", f"must be text or null, not {_kind(entry['revision'])}"
    generation = entry.get("generation", 0)
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 0:
        yield f"{where}.generation", f"must be a whole number of at least 0, not {generation!r}"
    acked = entry.get("acked", {})
    if not isinstance(acked, dict) or not all(isinstance(v, str) for v in acked.values()):
        yield f"{where}.acked", "must map message ids to fingerprints (text)"
    receipts = entry.get("receipts", [])
    if not isinstance(receipts, list) or not all(isinstance(r, str) for r in receipts):
        yield f"{where}.receipts", "must be a list of receipt ids (text)"
    for name in INTENT_FIELDS:
        intent = entry.get(name)
        if intent is None or (name == "pending" and isinstance(intent, bool | list)):
            continue
        if not isinstance(intent, dict) or not any(_text(intent.get(k)) for k in WINDOW_FIELDS):
            yield f"{where}.{name}", "must be null or an open window with a windowKey"
    if "legacyBaseline" in entry and not isinstance(entry["legacyBaseline"], bool):
        yield f"{where}.legacyBaseline", "must be true or false"


def _object_of_objects(
    parent: Mapping[str, Any], key: str, where: str | None = None
) -> Iterator[tuple[str, str]]:
    """``parent[key]``, when present, is an object whose values are objects."""
    where = where or key
    value = parent.get(key)
    if key not in parent:
        return
    if not isinstance(value, dict):
        yield where, f"must be an object, not {_kind(value)}"
        return
    for name, inner in value.items():
        if not isinstance(inner, dict):
            yield f"{where}.{name}", f"must be an object, not {_kind(inner)}"


def _listing(parent: Any, where: str, key: str) -> Iterator[tuple[str, str]]:
    """A legacy ``processed`` / ``skipped_trivial`` field: a list of ids or a map of records."""
    if not isinstance(parent, dict) or key not in parent:
        return
    if not isinstance(parent[key], list | dict):
        path = f"{where}.{key}" if where else key
        yield path, f"must be a list of session ids or an object, not {_kind(parent[key])}"


def _items(value: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(value, dict):
        yield from ((str(k), v) for k, v in value.items() if isinstance(v, dict))


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")


@dataclass(frozen=True, slots=True)
class CursorSummary:
    """What a cursor says, counted: V2 sessions finished or pending, legacy records."""

    host: str | None
    finished: int
    pending: int
    open_windows: int
    legacy_finished: int
    legacy_review: int

    def line(self) -> str:
        """The counts in words, on one line."""
        return (
            f"{self.finished} sessions finished, {self.pending} pending "
            f"({self.open_windows} with an open window); legacy records: "
            f"{self.legacy_finished} with a time, {self.legacy_review} held for review"
        )


def summarize(cursor: Cursor) -> CursorSummary:
    """Count what ``cursor`` says about its sessions."""
    states = list(cursor.sessions.values())
    finished = sum(s.status != "partial" and s.intent is None for s in states)
    timed = sum(legacy_boundary(r) is not None for r in cursor.legacy_sessions.values())
    return CursorSummary(
        host=document_host(cursor.legacy),
        finished=finished,
        pending=len(states) - finished,
        open_windows=sum(s.intent is not None for s in states),
        legacy_finished=timed,
        legacy_review=len(cursor.legacy_sessions) - timed,
    )


def changes(before: Cursor, after: Cursor) -> list[str]:
    """What replacing ``before`` by ``after`` changes, in lines for a person."""
    old, new = summarize(before), summarize(after)
    lines = [f"before: {old.line()}", f"after:  {new.line()}"]
    lost = sorted(
        key
        for key, state in before.sessions.items()
        if state.status != "partial" and after.state(key).status == "partial"
    )
    if lost:
        shown = ", ".join(lost[:5]) + (", ..." if len(lost) > 5 else "")
        lines.append(f"no longer finished: {len(lost)} ({shown}); they will be collected again")
    return lines
