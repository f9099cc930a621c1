"""The cursor as the seed's JSON document: import, export, and nothing lost on the way.

A cursor written by the seed's own collector (or by hand) may use a nested
``sources`` map, a flat map, a ``skipped_trivial`` array and legacy
``highWater`` / ``high_water_mark`` fields. dreamd keeps the whole document
as it came, reads only the ``collectorV2.sources.<tool>.sessions.<id>``
sidecar entries as its own state, and on export writes that sidecar back
into the same document: every other field, known or not, is returned as it
was. Legacy high-water values are history only and never used as a boundary.

Legacy *processed records* (``legacy_records``) are read, never rewritten:
``sources.<tool>.processed`` (nested), ``<tool>.processed`` (the flat dev
map, a tool name at the top level), ``collectorV2.sources.<tool>.processed``
(beside the sidecar's own sessions) and ``processed`` keyed ``<tool>:<id>``
(flat), each a list of ids or a map of id to a record (an object with a
last-message and/or resolved time, ``at`` included, or a bare time); and
``skipped_trivial`` arrays (top level, keyed ``<tool>:<id>``, or under a
tool) of ids or objects with an ``id`` and a ``skippedAt`` time. Times are ISO 8601 with a
zone, or epoch seconds/milliseconds; a time without a zone is not usable (it
would be a guess). A session found in several places keeps the earliest
time of each kind: re-analysing a little is harmless (the matched item is
updated or left alone), skipping unanalysed messages is not. A session's
``legacyBaseline: true`` in its sidecar entry records the first V2
transition of a legacy session.

V2 entries imported from elsewhere (issue 15, 12g): a tool under a legacy
name (``claudecode``) is dreamd's tool (``claude-code``) and the export keeps
it under that one name; the seed's status names (``complete``,
``skipped-trivial``, ...) and open-window names (``pendingWindow``) are read
as dreamd's; an entry finished without fingerprints of its own (another
collector's revision, nothing in ``acked``) is read like a legacy record, by
its ``lastMessageAt`` / ``resolvedAt`` / ``completedAt`` time, or held for
review without one. The document is checked first (``cursorcheck``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from dreamd.collect.cursorstate import Cursor, Intent, LegacyRecord, SessionState, Status
from dreamd.errors import SourceError
from dreamd.statedb import StateDB

__all__ = [
    "V2",
    "CursorStore",
    "document_host",
    "export_cursor",
    "import_cursor",
    "legacy_records",
    "legacy_time",
]

V2 = "collectorV2"

#: Field names of a legacy record's last-message time and resolved time.
LAST_MESSAGE_FIELDS = ("lastMessageAt", "last_message_at", "lastMessageTimestamp")
RESOLVED_FIELDS = (
    "resolvedAt",
    "resolved_at",
    "processedAt",
    "processed_at",
    "completedAt",
    "completed_at",
    "at",
)
#: Field names of a legacy skipped-trivial record's time, and of its session id.
SKIPPED_FIELDS = ("skippedAt", "skipped_at", "at")
ID_FIELDS = ("id", "sessionId", "session_id", "session")
#: Where a skipped-trivial array may be, beside a tool's ``processed``.
SKIPPED_KEYS = ("skipped_trivial", "skippedTrivial")
#: Top-level keys that are never a flat dev map's tool name.
RESERVED = frozenset({"sources", "processed", *SKIPPED_KEYS, "collectorV2"})
#: Legacy tool names that differ from dreamd's.
LEGACY_TOOLS = {"claude_code": "claude-code", "claudecode": "claude-code"}
#: An epoch number above this is in milliseconds (1e11 s is the year 5138).
_MILLISECONDS = 1e11


def import_cursor(document: Mapping[str, Any], host: str) -> Cursor:
    """A ``Cursor`` from a JSON document; the document itself is kept verbatim as ``legacy``.

    A V2 entry under a legacy tool name (``claudecode``) is read as dreamd's
    (``claude-code``); where both exist, the entry under dreamd's name wins.
    """
    if not isinstance(document, Mapping):
        raise ValueError("a cursor document must be a JSON object")
    sessions: dict[str, SessionState] = {}
    sources = _dict(_dict(document.get(V2)).get("sources"))
    for tool in sorted(sources, key=lambda name: _tool(name) == name):  # dreamd's name last
        for session_id, entry in _dict(_dict(sources[tool]).get("sessions")).items():
            sessions[f"{_tool(tool)}:{session_id}"] = _state(_dict(entry))
    return Cursor(
        host=host,
        sessions=sessions,
        legacy=copy.deepcopy(dict(document)),
        legacy_sessions=legacy_records(document),
    )


def document_host(document: Mapping[str, Any]) -> str | None:
    """The host a cursor document names (``collectorV2.host``, else ``host`` or ``machine``)."""
    sidecar = _dict(document.get(V2))
    for value in (sidecar.get("host"), document.get("host"), document.get("machine")):
        if isinstance(value, str) and value:
            return value
    return None


def legacy_records(document: Mapping[str, Any]) -> dict[str, LegacyRecord]:
    """The legacy processed records of a cursor document, by ``tool:id``."""
    records: dict[str, LegacyRecord] = {}
    for key, raw, origin, skipped in _legacy_entries(document):
        found = _record(raw, origin, skipped)
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


def _legacy_entries(document: Mapping[str, Any]) -> Iterator[tuple[str, Any, str, bool]]:
    """(``tool:id``, raw record, where it was found, skipped) for every legacy entry."""
    for where, tool, source in _tool_maps(document):
        for session_id, raw in _processed(source.get("processed")):
            yield f"{_tool(tool)}:{session_id}", raw, f"{where}.processed", False
        for name in SKIPPED_KEYS:
            for session_id, raw in _skipped(source.get(name)):
                yield f"{_tool(tool)}:{session_id}", raw, f"{where}.{name}", True
    for flat_key, raw in _processed(document.get("processed")):
        key = _flat_key(flat_key)
        if key:
            yield key, raw, "processed", False
    yield from _unfingerprinted(document)
    for name in SKIPPED_KEYS:
        for flat_key, raw in _skipped(document.get(name)):
            tool = "" if ":" in flat_key else f"{_dict(raw).get('tool', '')}:"
            key = _flat_key(tool + flat_key)
            if key:
                yield key, raw, name, True


def _unfingerprinted(document: Mapping[str, Any]) -> Iterator[tuple[str, Any, str, bool]]:
    """V2 entries finished without a fingerprint of their own (another collector's): read
    like a legacy record, by their times (or held for review without one)."""
    for tool, source in _dict(_dict(document.get(V2)).get("sources")).items():
        for session_id, entry in _dict(_dict(source).get("sessions")).items():
            status = STATUSES.get(str(_dict(entry).get("status", "")))
            if status == "resolved" and not _dict(entry).get("acked"):
                yield f"{_tool(tool)}:{session_id}", entry, f"{V2}.sources.{tool}.sessions", False


def _tool_maps(document: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, tool, map) of the nested ``sources`` map, the sidecar's own tool maps (their
    ``processed`` and ``skipped_trivial``) and the flat dev maps (``{"pi": {...}}``)."""
    for tool, source in _dict(document.get("sources")).items():
        if isinstance(source, dict):
            yield f"sources.{tool}", tool, source
    for tool, source in _dict(_dict(document.get(V2)).get("sources")).items():
        if isinstance(source, dict):
            yield f"{V2}.sources.{tool}", tool, source
    for tool, source in document.items():
        if tool in RESERVED or not isinstance(source, dict):
            continue
        if "processed" in source or any(name in source for name in SKIPPED_KEYS):
            yield tool, tool, source


def _flat_key(flat_key: str) -> str | None:
    """``tool:id`` of a flat key ``tool:id`` or ``tool:machine:id``; None without both."""
    tool, _, rest = flat_key.partition(":")
    session_id = rest.rsplit(":", 1)[-1]
    return f"{_tool(tool)}:{session_id}" if tool and session_id else None


def _skipped(value: Any) -> Iterator[tuple[str, Any]]:
    """(id, raw record) of a skipped-trivial array: ids, or objects with an id and a time."""
    if isinstance(value, dict):
        yield from _processed(value)
        return
    for entry in value if isinstance(value, list) else ():
        if isinstance(entry, str) and entry:
            yield entry, None
        elif isinstance(entry, dict):
            found = next((entry[n] for n in ID_FIELDS if isinstance(entry.get(n), str)), "")
            if found:
                yield found, entry


def _processed(value: Any) -> Iterator[tuple[str, Any]]:
    """(id, raw record) of a list of ids or a map of id to record."""
    if isinstance(value, list):
        yield from ((entry, None) for entry in value if isinstance(entry, str) and entry)
    elif isinstance(value, dict):
        yield from ((str(k), raw) for k, raw in value.items() if k)


def _tool(name: str) -> str:
    lowered = name.lower()
    return LEGACY_TOOLS.get(lowered, lowered.replace("_", "-"))


def _record(raw: Any, origin: str, skipped: bool) -> LegacyRecord:
    """A record from an object with time fields, or a bare time (taken as the resolved time)."""
    if isinstance(raw, dict):
        last = _first_time(raw, LAST_MESSAGE_FIELDS)
        resolved = _first_time(raw, SKIPPED_FIELDS if skipped else RESOLVED_FIELDS)
        return LegacyRecord(last, resolved, origin, skipped)
    return LegacyRecord(None, legacy_time(raw), origin, skipped)


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
        first.skipped and second.skipped,  # processed anywhere: processed
    )


def export_cursor(cursor: Cursor) -> dict[str, Any]:
    """The JSON document: the imported one, with the V2 sidecar updated from the cursor.

    The sidecar names the host, and each tool once, under dreamd's name: entries
    found under a legacy name (``claudecode``) move to it (where both names hold
    the same session or field, dreamd's name wins, as at import).
    """
    document: dict[str, Any] = copy.deepcopy(dict(cursor.legacy))
    v2 = document.setdefault(V2, {})
    v2["host"] = cursor.host
    sources = _merged_tools(v2.setdefault("sources", {}))
    v2["sources"] = sources
    for key, state in sorted(cursor.sessions.items()):
        tool, _, session_id = key.partition(":")
        entry = sources.setdefault(tool, {}).setdefault("sessions", {}).setdefault(session_id, {})
        entry.update(_entry(state, entry))
    return document


def _merged_tools(sources: dict[str, Any]) -> dict[str, Any]:
    """The sidecar's sources with every legacy tool name folded into dreamd's name."""
    merged: dict[str, Any] = {}
    for tool in sorted(sources, key=lambda name: _tool(name) == name):  # dreamd's name last
        source = sources[tool]
        if not isinstance(source, dict):  # refused at import; kept as it is if ever there
            merged.setdefault(tool, source)
            continue
        target = merged.setdefault(_tool(tool), {})
        sessions = {**_dict(target.get("sessions")), **_dict(source.get("sessions"))}
        target.update(source)
        if sessions or "sessions" in source:
            target["sessions"] = sessions
    return merged


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


#: Status names a V2 entry may carry (the seed's collector's and dreamd's), as dreamd's.
STATUSES: dict[str, Status] = {
    "resolved": "resolved",
    "complete": "resolved",
    "completed": "resolved",
    "done": "resolved",
    "processed": "resolved",
    "skipped_trivial": "skipped_trivial",
    "skipped-trivial": "skipped_trivial",
    "skippedTrivial": "skipped_trivial",
    "skipped": "skipped_trivial",
    "partial": "partial",
    "pending": "partial",
    "in-progress": "partial",
    "in_progress": "partial",
}
#: Where a V2 entry may keep its open window, and that window's key, plan and messages.
INTENT_FIELDS = ("intent", "pendingWindow", "pending_window", "pending")
WINDOW_FIELDS = ("windowKey", "window_key")
PLAN_FIELDS = ("planId", "plan_id", "plan")
MESSAGE_FIELDS = ("messageIds", "message_ids", "messages")


def _state(entry: Mapping[str, Any]) -> SessionState:
    """A session's state from its V2 entry (``dreamd.collect.cursorcheck`` validated it)."""
    generation = entry.get("generation", 0)
    receipts = entry.get("receipts", ())
    return SessionState(
        revision=entry.get("revision") if isinstance(entry.get("revision"), str) else None,
        generation=generation if isinstance(generation, int) and generation >= 0 else 0,
        status=STATUSES.get(str(entry.get("status", "partial")), "partial"),
        reason=str(entry.get("reason", "")),
        acked={str(k): str(v) for k, v in _dict(entry.get("acked")).items()},
        receipts=tuple(str(r) for r in receipts) if isinstance(receipts, list | tuple) else (),
        intent=_intent(entry),
        legacy_baseline=entry.get("legacyBaseline") is True,
        reconciled=tuple(str(p) for p in entry.get("reconciled", ()) if isinstance(p, str)),
    )


def _intent(entry: Mapping[str, Any]) -> Intent | None:
    """The open window of a V2 entry, under any of its names; None when there is none.

    ``source`` (what the plan was made from) is absent in intents recorded before
    dreamd kept it, and in other collectors' windows.
    """
    raw = next((_dict(entry.get(n)) for n in INTENT_FIELDS if _dict(entry.get(n))), {})
    key = next((raw[n] for n in WINDOW_FIELDS if isinstance(raw.get(n), str) and raw[n]), "")
    if not key:
        return None
    plan = next((raw[n] for n in PLAN_FIELDS if isinstance(raw.get(n), str) and raw[n]), key)
    ids: list[Any] = next((raw[n] for n in MESSAGE_FIELDS if isinstance(raw.get(n), list)), [])
    source = raw.get("source")
    return Intent(
        key,
        plan,
        tuple(str(i) for i in ids),
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
