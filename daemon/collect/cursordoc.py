"""The cursor as the seed's JSON document: import, export, and nothing lost on the way.

A cursor written by the seed's own collector (or by hand) may use a nested
``sources`` map, a flat map, a ``skipped_trivial`` array and legacy
``highWater`` / ``high_water_mark`` fields. dreamd keeps the whole document
as it came, reads only the ``collectorV2.sources.<tool>.sessions.<id>``
sidecar entries as its own state, and on export writes that sidecar back
into the same document: every other field, known or not, is returned as it
was. Legacy high-water values are history only and never used as a boundary.

Legacy *processed records* (``legacy_records``) are read, never rewritten:
``sources.<tool>.processed`` (nested) and ``processed`` keyed ``<tool>:<id>``
(flat), each a list of ids or a map of id to a record (an object with a
last-message and/or resolved time, or a bare time). Times are ISO 8601 with a
zone, or epoch seconds/milliseconds; a time without a zone is not usable (it
would be a guess). A session found in several places keeps the earliest
time of each kind: re-analysing a little is harmless (the matched item is
updated or left alone), skipping unanalysed messages is not. A session's
``legacyBaseline: true`` in its sidecar entry records the first V2
transition of a legacy session.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from dreamd.collect.cursorstate import Cursor, Intent, LegacyRecord, SessionState
from dreamd.errors import SourceError
from dreamd.statedb import StateDB

__all__ = ["V2", "CursorStore", "export_cursor", "import_cursor", "legacy_records", "legacy_time"]

V2 = "collectorV2"

#: Field names of a legacy record's last-message time and resolved time.
LAST_MESSAGE_FIELDS = ("lastMessageAt", "last_message_at", "lastMessageTimestamp")
RESOLVED_FIELDS = ("resolvedAt", "resolved_at", "processedAt", "processed_at")
#: Legacy tool names that differ from dreamd's.
LEGACY_TOOLS = {"claude_code": "claude-code", "claudecode": "claude-code"}
#: An epoch number above this is in milliseconds (1e11 s is the year 5138).
_MILLISECONDS = 1e11


def import_cursor(document: Mapping[str, Any], host: str) -> Cursor:
    """A ``Cursor`` from a JSON document; the document itself is kept verbatim as ``legacy``."""
    if not isinstance(document, Mapping):
        raise ValueError("a cursor document must be a JSON object")
    sessions: dict[str, SessionState] = {}
    sources = _dict(_dict(document.get(V2)).get("sources"))
    for tool, source in sources.items():
        for session_id, entry in _dict(_dict(source).get("sessions")).items():
            sessions[f"{tool}:{session_id}"] = _state(_dict(entry))
    return Cursor(
        host=host,
        sessions=sessions,
        legacy=copy.deepcopy(dict(document)),
        legacy_sessions=legacy_records(document),
    )


def legacy_records(document: Mapping[str, Any]) -> dict[str, LegacyRecord]:
    """The legacy processed records of a cursor document, by ``tool:id``."""
    records: dict[str, LegacyRecord] = {}
    for key, raw, origin in _legacy_entries(document):
        found = _record(raw, origin)
        known = records.get(key)
        records[key] = found if known is None else _earliest(known, found)
    return records


def legacy_time(value: Any) -> datetime | None:
    """A legacy time as an aware UTC datetime; None when absent or not usable without a guess."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value) or value <= 0:
            return None
        seconds = value / 1000 if value > _MILLISECONDS else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo is not None else None


def _legacy_entries(document: Mapping[str, Any]) -> Iterator[tuple[str, Any, str]]:
    """(``tool:id``, raw record, where it was found) for every legacy processed entry."""
    for tool, source in _dict(document.get("sources")).items():
        for session_id, raw in _processed(_dict(source).get("processed")):
            yield f"{_tool(tool)}:{session_id}", raw, f"sources.{tool}.processed"
    for flat_key, raw in _processed(document.get("processed")):
        tool, _, rest = flat_key.partition(":")
        session_id = rest.rsplit(":", 1)[-1]  # tool:id, or tool:machine:id
        if tool and session_id:
            yield f"{_tool(tool)}:{session_id}", raw, "processed"


def _processed(value: Any) -> Iterator[tuple[str, Any]]:
    """(id, raw record) of a list of ids or a map of id to record."""
    if isinstance(value, list):
        yield from ((entry, None) for entry in value if isinstance(entry, str) and entry)
    elif isinstance(value, dict):
        yield from ((str(k), raw) for k, raw in value.items() if k)


def _tool(name: str) -> str:
    lowered = name.lower()
    return LEGACY_TOOLS.get(lowered, lowered.replace("_", "-"))


def _record(raw: Any, origin: str) -> LegacyRecord:
    """A record from an object with time fields, or a bare time (taken as the resolved time)."""
    if isinstance(raw, dict):
        last = _first_time(raw, LAST_MESSAGE_FIELDS)
        return LegacyRecord(last, _first_time(raw, RESOLVED_FIELDS), origin)
    return LegacyRecord(None, legacy_time(raw), origin)


def _first_time(raw: Mapping[str, Any], names: tuple[str, ...]) -> datetime | None:
    return next((t for t in (legacy_time(raw.get(n)) for n in names) if t is not None), None)


def _earliest(first: LegacyRecord, second: LegacyRecord) -> LegacyRecord:
    def low(a: datetime | None, b: datetime | None) -> datetime | None:
        return b if a is None else a if b is None else min(a, b)

    origin = first.origin if first.origin == second.origin else f"{first.origin}, {second.origin}"
    return LegacyRecord(
        low(first.last_message_at, second.last_message_at),
        low(first.resolved_at, second.resolved_at),
        origin,
    )


def export_cursor(cursor: Cursor) -> dict[str, Any]:
    """The JSON document: the imported one, with the V2 sidecar updated from the cursor."""
    document: dict[str, Any] = copy.deepcopy(dict(cursor.legacy))
    v2 = document.setdefault(V2, {})
    sources = v2.setdefault("sources", {})
    for key, state in sorted(cursor.sessions.items()):
        tool, _, session_id = key.partition(":")
        entry = sources.setdefault(tool, {}).setdefault("sessions", {}).setdefault(session_id, {})
        entry.update(_entry(state, entry))
    return document


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _state(entry: Mapping[str, Any]) -> SessionState:
    intent = _dict(entry.get("intent"))
    return SessionState(
        revision=entry.get("revision"),
        generation=int(entry.get("generation", 0)),
        status=entry.get("status", "partial"),
        reason=str(entry.get("reason", "")),
        acked=dict(_dict(entry.get("acked"))),
        receipts=tuple(entry.get("receipts", ())),
        intent=_intent(intent) if intent.get("windowKey") else None,
        legacy_baseline=entry.get("legacyBaseline") is True,
        reconciled=tuple(str(p) for p in entry.get("reconciled", ()) if isinstance(p, str)),
    )


def _intent(raw: Mapping[str, Any]) -> Intent:
    """An intent as saved; ``source`` absent in intents recorded before it was kept."""
    source = raw.get("source")
    return Intent(
        str(raw["windowKey"]),
        str(raw["planId"]),
        tuple(raw.get("messageIds", ())),
        {str(k): str(v) for k, v in source.items()} if isinstance(source, dict) else None,
        str(raw.get("revision") or ""),
    )


def _intent_json(intent: Intent) -> dict[str, Any]:
    document: dict[str, Any] = {
        "windowKey": intent.window_key,
        "planId": intent.plan_id,
        "messageIds": list(intent.message_ids),
    }
    if intent.source is not None:
        document["source"] = dict(intent.source)
        document["revision"] = intent.revision
    return document


def _entry(state: SessionState, previous: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form of a session's state; an unchanged entry is returned exactly as it was."""
    entry: dict[str, Any] = {
        "revision": state.revision,
        "generation": state.generation,
        "status": state.status,
        "reason": state.reason,
        "acked": dict(state.acked),
        "receipts": list(state.receipts),
        "intent": _intent_json(state.intent) if state.intent else None,
    }
    if state.legacy_baseline:
        entry["legacyBaseline"] = True
    if state.reconciled:
        entry["reconciled"] = list(state.reconciled)
    if _state(previous) == state:
        return dict(previous)
    return entry


class CursorStore:
    """The host's cursor in the state DB, saved only over the version it was read at."""

    def __init__(self, state: StateDB, machine: str) -> None:
        self.state = state
        self.machine = machine
        self.version, document = state.load_cursor(machine)
        self.cursor = import_cursor(document, machine)

    def save(self, cursor: Cursor, now: datetime) -> None:
        """Save, then read back and compare (a concurrent change raises ``Refused``)."""
        document = export_cursor(cursor)
        self.version = self.state.save_cursor(
            self.machine, document, expected=self.version, now=now
        )
        if self.state.load_cursor(self.machine) != (self.version, document):
            raise SourceError("the saved cursor did not read back as written")
        self.cursor = cursor
