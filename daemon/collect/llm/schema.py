"""The answers a model gives at each pipeline stage, and how an answer is validated.

Each stage has one answer type (a msgspec ``Struct``) and one JSON schema
shipped beside its prompt (``dreamd.prompts/<stage>.json``). The schema is
what the model is asked to follow; the ``Struct`` is what its answer must
decode into. A test keeps the two in agreement.

Invariants:

- an answer is valid only when it is one JSON object that decodes into the
  stage's type: unknown keys, missing keys, wrong types and confidence levels
  outside 1..5 are all invalid (``InvalidAnswer`` says which, by path);
- a Markdown code fence around the object, which some models add even when
  asked not to, is removed before decoding; nothing else is repaired;
- confidence is a level from 1 (a guess) to 5 (stated outright), mapped to
  ``level / 5`` so that levels 1 and 2 fall under the pipeline's floor.
"""

from __future__ import annotations

from typing import Literal, TypeVar

import msgspec

from dreamd.markdown import closes, opening

__all__ = [
    "ANSWERS",
    "EventFind",
    "EventsAnswer",
    "FactFind",
    "FactsAnswer",
    "InvalidAnswer",
    "Level",
    "PeopleAnswer",
    "PersonFind",
    "QuoteRef",
    "TopicCandidate",
    "TopicCategory",
    "TopicMatch",
    "TopicRecord",
    "TopicsMatchAnswer",
    "TopicsScanAnswer",
    "TopicsUpdateAnswer",
    "confidence_of",
    "decode_answer",
]

#: How sure the model is, from 1 (a guess) to 5 (the user said it outright).
Level = Literal[1, 2, 3, 4, 5]

#: The topic categories a model may use. Technical accumulates; the others consolidate.
TopicCategory = Literal["Technical", "Rule", "Preference", "Decision", "Gotcha", "Reference"]

T = TypeVar("T")


class _Answer(msgspec.Struct, forbid_unknown_fields=True):
    """A part of a model's answer: every key required, no other key allowed."""


class QuoteRef(_Answer):
    """A verbatim excerpt and the fully qualified id of the message it is taken from."""

    message_id: str
    text: str


class TopicCandidate(_Answer):
    """Scan step: something in the window that may be worth remembering."""

    title: str
    category: TopicCategory
    why: str
    message_ids: list[str]
    confidence: Level


class TopicsScanAnswer(_Answer):
    topics: list[TopicCandidate]


class TopicMatch(_Answer):
    """Match step: the existing item a candidate is about, or ``""`` when it is new."""

    title: str
    existing: str


class TopicsMatchAnswer(_Answer):
    matches: list[TopicMatch]


class TopicRecord(_Answer):
    """Update step: the item as it should read now (``existing`` names the one it updates)."""

    title: str
    existing: str
    category: TopicCategory
    description: str
    body: str
    confidence: Level
    quotes: list[QuoteRef]


class TopicsUpdateAnswer(_Answer):
    records: list[TopicRecord]


class PersonFind(_Answer):
    """A real person the conversation says something durable about."""

    name: str
    identifiers: list[str]
    relationship: str
    description: str
    is_speaker: bool
    is_hypothetical: bool
    confidence: Level
    quotes: list[QuoteRef]


class PeopleAnswer(_Answer):
    people: list[PersonFind]


class EventFind(_Answer):
    """A session that passes the retrospective test, told as a short narrative."""

    title: str
    description: str
    body: str
    confidence: Level
    quotes: list[QuoteRef]


class EventsAnswer(_Answer):
    events: list[EventFind]


class FactFind(_Answer):
    """The value of one fact from the missing-facts list, as the user stated it."""

    fact: str
    value: str
    confidence: Level
    quotes: list[QuoteRef]


class FactsAnswer(_Answer):
    facts: list[FactFind]


#: Stage name → its answer type; the stage name is also the prompt's and schema's file name.
ANSWERS: dict[str, type[_Answer]] = {
    "topics_scan": TopicsScanAnswer,
    "topics_match": TopicsMatchAnswer,
    "topics_update": TopicsUpdateAnswer,
    "people": PeopleAnswer,
    "events": EventsAnswer,
    "facts": FactsAnswer,
}


class InvalidAnswer(ValueError):
    """The model's answer is not one valid JSON object of the stage's type."""


def _unfenced(text: str) -> str:
    """The text without one surrounding Markdown code fence, if it has one."""
    lines = text.strip().split("\n")
    fence = opening(lines[0]) if len(lines) > 2 else None
    if fence is None or not closes(lines[-1], fence):
        return text
    return "\n".join(lines[1:-1])


def decode_answer(text: str, kind: type[T]) -> T:
    """Decode a model's answer into ``kind``; raises ``InvalidAnswer`` saying what is wrong."""
    body = _unfenced(text).strip()
    if not body:
        raise InvalidAnswer("the answer is empty")
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as error:
        raise InvalidAnswer(f"the answer does not match the schema: {error}") from None
    except msgspec.DecodeError as error:
        raise InvalidAnswer(f"the answer is not JSON: {error}") from None


def confidence_of(level: int) -> float:
    """A model's 1..5 level as an item confidence in [0, 1]."""
    return max(1, min(5, level)) / 5
