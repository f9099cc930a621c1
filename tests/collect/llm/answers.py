"""Windows to analyse and a model that answers like a careful extractor would.

``remembering`` is a responder for the fake server: a user message that says
"always" or "from now on" is a Rule candidate, recorded with a verbatim quote
of that message; a message naming "@handle" gives a person; everything else is
the empty answer. It reads only what the request carries, so whatever dreamd
sends is what it answers about.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from dreamd.collect.pipeline import SessionInfo, Window
from dreamd.readers import Message
from tests.collect.llm.fakeserver import Action, Answer, Received, empty_answer, messages_in

DAY = date(2026, 5, 4)
SESSION = SessionInfo("claude-code", "box", "s-1", "/work/app", DAY)

_DURABLE = re.compile(r"\b(always|from now on)\b", re.I)
_HANDLE = re.compile(r"@(\w+)")


def window(*texts: str, session: SessionInfo = SESSION, start: int = 0) -> Window:
    """A window of alternating user / assistant messages with ids ``m<start>``, ``m<start+1>``..."""
    messages = tuple(
        Message(f"m{start + i}", "user" if i % 2 == 0 else "assistant", text, None)
        for i, text in enumerate(texts)
    )
    return Window(session, messages)


def candidates_in(request: Received) -> list[dict[str, Any]]:
    """The candidates an update request asks to write."""
    found: list[dict[str, Any]] = json.loads(request.user.split("## Candidates to write\n", 1)[1])
    return found


def _scan(request: Received) -> dict[str, Any]:
    topics = [
        {
            "title": text.split(".")[0][:60],
            "category": "Rule",
            "why": "a standing instruction",
            "message_ids": [mid],
            "confidence": 5,
        }
        for mid, role, text in messages_in(request.user)
        if role == "user" and _DURABLE.search(text)
    ]
    return {"topics": topics}


def _update(request: Received) -> dict[str, Any]:
    shown = {mid: text for mid, _, text in messages_in(request.user)}
    records = []
    for candidate in candidates_in(request):
        mid = candidate["message_ids"][0]
        existing = candidate["existing"]
        records.append(
            {
                "title": candidate["title"],
                "existing": existing["name"] if existing else "",
                "category": candidate["category"],
                "description": f"Rule: {candidate['title']}",
                "body": shown[mid],
                "confidence": candidate["confidence"],
                "quotes": [{"message_id": mid, "text": shown[mid]}],
            }
        )
    return {"records": records}


def _people(request: Received) -> dict[str, Any]:
    people = []
    for mid, role, text in messages_in(request.user):
        for handle in _HANDLE.findall(text) if role == "user" else []:
            people.append(
                {
                    "name": handle.capitalize(),
                    "identifiers": [f"@{handle}"],
                    "relationship": "colleague",
                    "description": f"{handle} reviews the user's pull requests",
                    "is_speaker": False,
                    "is_hypothetical": False,
                    "confidence": 4,
                    "quotes": [{"message_id": mid, "text": text}],
                }
            )
    return {"people": people}


def remembering(request: Received) -> Action:
    """Answer each stage as described in the module docstring."""
    if request.stage == "topics_scan":
        return Answer(json.dumps(_scan(request)))
    if request.stage == "topics_update":
        return Answer(json.dumps(_update(request)))
    if request.stage == "topics_match":
        titles = [c["title"] for c in json.loads(_section(request.user, "Candidates"))]
        return Answer(json.dumps({"matches": [{"title": t, "existing": ""} for t in titles]}))
    if request.stage == "people":
        return Answer(json.dumps(_people(request)))
    return empty_answer(request)


def _section(text: str, name: str) -> str:
    return text.split(f"## {name}\n", 1)[1].split("\n\n## ", 1)[0]
