"""The cursor as the seed's JSON document: import, export, and nothing lost on the way.

A cursor written by the seed's own collector (or by hand) may use a nested
``sources`` map, a flat map, a ``skipped_trivial`` array and legacy
``highWater`` / ``high_water_mark`` fields. dreamd keeps the whole document
as it came, reads only the ``collectorV2.sources.<tool>.sessions.<id>``
sidecar entries as its own state, and on export writes that sidecar back
into the same document: every other field, known or not, is returned as it
was. Legacy high-water values are history only and never used as a boundary.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from dreamd.collect.cursor import Cursor, Intent, SessionState

__all__ = ["V2", "export_cursor", "import_cursor"]

V2 = "collectorV2"


def import_cursor(document: Mapping[str, Any], host: str) -> Cursor:
    """A ``Cursor`` from a JSON document; the document itself is kept verbatim as ``legacy``."""
    if not isinstance(document, Mapping):
        raise ValueError("a cursor document must be a JSON object")
    sessions: dict[str, SessionState] = {}
    sources = _dict(_dict(document.get(V2)).get("sources"))
    for tool, source in sources.items():
        for session_id, entry in _dict(_dict(source).get("sessions")).items():
            sessions[f"{tool}:{session_id}"] = _state(_dict(entry))
    return Cursor(host=host, sessions=sessions, legacy=copy.deepcopy(dict(document)))


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
        intent=Intent(
            str(intent["windowKey"]), str(intent["planId"]), tuple(intent.get("messageIds", ()))
        )
        if intent.get("windowKey")
        else None,
    )


def _entry(state: SessionState, previous: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form of a session's state; an unchanged entry is returned exactly as it was."""
    entry: dict[str, Any] = {
        "revision": state.revision,
        "generation": state.generation,
        "status": state.status,
        "reason": state.reason,
        "acked": dict(state.acked),
        "receipts": list(state.receipts),
        "intent": {
            "windowKey": state.intent.window_key,
            "planId": state.intent.plan_id,
            "messageIds": list(state.intent.message_ids),
        }
        if state.intent
        else None,
    }
    if _state(previous) == state:
        return dict(previous)
    return entry
