"""From a model's validated answer to memory items: the pure rules of the LLM extractor.

Each rule is one named function (seed 002 phase 3 and the safety contract):

- ``verified_quotes``: a quote counts only when its text is found, verbatim
  (spacing aside), in the message it cites, and that message is one the stage
  was shown; a quote holding a redaction marker is dropped (it touched a
  credential);
- ``apply_update_rule``: Technical items accumulate (what the item said stays),
  every other category consolidates (the new statement replaces the old);
- ``is_guarded_person`` and ``match_person``: the speaker, the assistant and
  hypothetical people are never people to remember; a person is matched to
  one already found by identifier first, then by name;
- ``item_name``: a new item's name is derived from its category and title, so
  the same title found again names the same item.

Invariants: every item built here has at least one verified quote, its
session's source tag and collection day, and no redaction marker in any field.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dreamd.collect.llm.prompting import Existing, outbound
from dreamd.collect.llm.schema import (
    EventFind,
    FactFind,
    PersonFind,
    QuoteRef,
    TopicRecord,
    confidence_of,
)
from dreamd.collect.pipeline import Window
from dreamd.stores import ITEM_TYPES, ItemType, MemoryItem, Quote

__all__ = [
    "CATEGORY_TYPES",
    "REDACTION_MARK",
    "Citable",
    "Existing",
    "KnownPerson",
    "apply_update_rule",
    "citable",
    "event_item",
    "fact_item",
    "has_redaction",
    "is_guarded_person",
    "item_name",
    "match_person",
    "matched_category",
    "person_item",
    "topic_item",
    "verified_quotes",
]

#: What the secret filter puts where it removed a credential from outbound text.
REDACTION_MARK = "[REDACTED:"

#: Each category's memory type.
CATEGORY_TYPES: dict[str, ItemType] = {
    "Technical": "project",
    "Rule": "feedback",
    "Preference": "feedback",
    "Decision": "project",
    "Gotcha": "project",
    "Reference": "reference",
    "Person": "project",
    "Event": "project",
    "Fact": "user",
}

MAX_QUOTE_CHARS = 300
MAX_DESCRIPTION_CHARS = 120
MAX_BODY_CHARS = 1200
MAX_TECHNICAL_BODY_CHARS = 4000  # Technical bodies accumulate, so they may grow longer

#: Names that are the conversation's own parties, never a person to remember.
_SPEAKERS = frozenset(
    {"user", "the user", "me", "i", "myself", "you", "assistant", "the assistant", "ai"}
    | {"claude", "codex", "gpt", "chatgpt", "gemini", "copilot", "model", "the model"}
)
#: Quotation marks a model may wrap a quote in (ASCII, typographic, guillemets, CJK).
_QUOTE_MARKS = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d"


def _squash(text: str) -> str:
    return " ".join(text.split())


def _one_line(text: str, limit: int) -> str:
    text = _squash(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def has_redaction(*texts: str) -> bool:
    """Whether any text carries a redaction marker (it was about a credential)."""
    return any(REDACTION_MARK in text for text in texts)


@dataclass(frozen=True, slots=True)
class Citable:
    """The messages a stage was shown: qualified id → their text as sent (redacted, squashed).

    ``aliases`` maps a reader's bare message id to its qualified id, for models
    that cite the short form.
    """

    texts: Mapping[str, str]
    aliases: Mapping[str, str]

    def resolve(self, message_id: str) -> str | None:
        """The qualified id a cited id stands for, or None when it was not shown."""
        cited = message_id.strip().strip("[]")
        if cited in self.texts:
            return cited
        return self.aliases.get(cited)


def citable(windows: Iterable[Window]) -> Citable:
    """The citable messages of one window, or of every window of a session (events)."""
    texts: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for window in windows:
        for message, qualified in zip(window.messages, window.message_ids, strict=True):
            texts[qualified] = _squash(outbound(message.text))
            aliases.setdefault(message.id, qualified)
    return Citable(texts, aliases)


def verified_quotes(quotes: Sequence[QuoteRef], shown: Citable) -> tuple[tuple[Quote, ...], int]:
    """The quotes found verbatim in the messages they cite, and how many touched a credential.

    Spacing is normalised and surrounding quotation marks are removed before
    the comparison; a quote longer than ``MAX_QUOTE_CHARS`` keeps its start
    (still verbatim). A quote that is not found is dropped silently: the model
    paraphrased, and a paraphrase is not evidence.
    """
    kept: dict[tuple[str, str], Quote] = {}
    redacted = 0
    for quote in quotes:
        qualified = shown.resolve(quote.message_id)
        text = _squash(quote.text).strip(_QUOTE_MARKS + " …")
        if REDACTION_MARK in text:
            redacted += 1
            continue
        if qualified is None or not text or text not in shown.texts[qualified]:
            continue
        excerpt = text[:MAX_QUOTE_CHARS]
        kept.setdefault((qualified, excerpt), Quote(qualified, excerpt))
    return tuple(kept.values()), redacted


def item_name(category: str, title: str) -> str:
    """``<category>-<slug of the title>-<hash>``: the same title always names the same item."""
    key = " ".join(re.findall(r"\w+", title.casefold()))
    slug = "-".join(key.split()[:6])[:40].strip("-") or "item"
    digest = hashlib.sha256(f"{category}\n{key}".encode()).hexdigest()[:6]
    return f"{category.lower()}-{slug}-{digest}"


def apply_update_rule(category: str, existing: str | None, updated: str) -> str:
    """Seed 002 phase 3, update: Technical accumulates, every other category consolidates.

    For Technical, whatever the existing body said is kept: when the updated
    body does not already contain it, the new text is added after it. Any other
    category takes the updated body alone.
    """
    if category != "Technical" or not existing:
        return updated
    if _squash(existing).casefold() in _squash(updated).casefold():
        return updated
    return f"{existing.rstrip()}\n{updated.strip()}"


def _item(
    window: Window,
    *,
    category: str,
    name: str,
    description: str,
    body: str,
    level: int,
    quotes: tuple[Quote, ...],
    kind: ItemType | None = None,
) -> MemoryItem:
    limit = MAX_TECHNICAL_BODY_CHARS if category == "Technical" else MAX_BODY_CHARS
    session = window.session
    return MemoryItem(
        type=kind or CATEGORY_TYPES[category],
        category=category,
        name=name,
        description=_one_line(description, MAX_DESCRIPTION_CHARS),
        body=body.strip()[:limit],
        confidence=confidence_of(level),
        source=session.source,
        collected=session.collected,
        quotes=quotes,
        project=session.project,
    )


def matched_category(existing: Existing | None, found: str) -> str:
    """The category of an update: the matched memory's when it has a known one, else the find's."""
    if existing is not None and existing.category in CATEGORY_TYPES:
        return existing.category
    return found


def topic_item(
    window: Window, record: TopicRecord, existing: Existing | None, quotes: tuple[Quote, ...]
) -> MemoryItem | None:
    """A topic record as an item, updating ``existing`` when it matched one (None if empty).

    An update keeps the matched memory's name and type (and its category when
    known), so a memory of another session, or one the agent wrote itself,
    is restated under its own name: the validate gate merges the two instead
    of adding a second memory.
    """
    texts = (record.title, record.body, record.description)
    if not quotes or not record.body.strip() or has_redaction(*texts):
        return None
    category = matched_category(existing, record.category)
    name = existing.name if existing is not None else item_name(category, record.title)
    body = apply_update_rule(category, existing.body if existing else None, record.body)
    description = record.description.strip() or record.title
    kind = existing.type if existing is not None and existing.type in ITEM_TYPES else None
    return _item(window, category=category, name=name, description=description, body=body,
                 level=record.confidence, quotes=quotes, kind=kind)  # type: ignore[arg-type]  # fmt: skip


@dataclass(frozen=True, slots=True)
class KnownPerson:
    """A person already found in this session: the item, and every name and identifier seen."""

    item: MemoryItem
    names: frozenset[str]
    identifiers: frozenset[str]


def _identifier(value: str) -> str:
    return value.strip().casefold().removeprefix("mailto:").lstrip("@")


def _person_name(value: str) -> str:
    return _squash(value).casefold()


def is_guarded_person(find: PersonFind) -> bool:
    """Seed 002 people scan guards: not the speaker, not the assistant, not hypothetical."""
    name = _person_name(find.name)
    return find.is_speaker or find.is_hypothetical or not name or name in _SPEAKERS


def match_person(find: PersonFind, known: Iterable[KnownPerson]) -> KnownPerson | None:
    """Seed 002 people match: by identifier first, then by name; None when new."""
    people = list(known)
    wanted = {_identifier(i) for i in find.identifiers if _identifier(i)}
    for person in people:
        if wanted & person.identifiers:
            return person
    name = _person_name(find.name)
    return next((person for person in people if name in person.names), None)


def person_item(
    window: Window, find: PersonFind, known: KnownPerson | None, quotes: tuple[Quote, ...]
) -> KnownPerson | None:
    """The person as an item (consolidated over ``known``), with the names and ids now known."""
    texts = (find.name, find.description, find.relationship, *find.identifiers)
    if not quotes or has_redaction(*texts):
        return None
    identifiers = {_identifier(i): i.strip() for i in find.identifiers if _identifier(i)}
    if known is not None:
        earlier = [line for line in known.item.body.splitlines() if line.startswith("Identifiers:")]
        for value in earlier[0].removeprefix("Identifiers:").split(",") if earlier else []:
            identifiers.setdefault(_identifier(value), value.strip())
    relation = f" ({find.relationship.strip()})" if find.relationship.strip() else ""
    body = f"{find.name.strip()}{relation}: {find.description.strip()}".strip()
    if identifiers:
        body += "\nIdentifiers: " + ", ".join(sorted(identifiers.values()))
    name = known.item.name if known is not None else item_name("Person", find.name)
    item = _item(window, category="Person", name=name, description=f"{find.name.strip()}{relation}",
                 body=body, level=find.confidence, quotes=quotes)  # fmt: skip
    names = {_person_name(find.name)} | (known.names if known else frozenset())
    return KnownPerson(item, frozenset(names), frozenset(identifiers))


def event_item(window: Window, find: EventFind, quotes: tuple[Quote, ...]) -> MemoryItem | None:
    """An event of the session (``window`` is any of its windows: they share the session)."""
    texts = (find.title, find.body, find.description)
    if not quotes or not find.body.strip() or has_redaction(*texts):
        return None
    return _item(window, category="Event", name=item_name("Event", find.title),
                 description=find.description.strip() or find.title, body=find.body,
                 level=find.confidence, quotes=quotes)  # fmt: skip


def fact_item(
    window: Window, find: FactFind, missing: Sequence[str], quotes: tuple[Quote, ...]
) -> MemoryItem | None:
    """A fact from the missing-facts list, as the user stated it; None for any other fact."""
    wanted = {_squash(fact).casefold(): fact for fact in missing}
    fact = wanted.get(_squash(find.fact).casefold())
    if fact is None or not quotes or not find.value.strip() or has_redaction(find.value):
        return None
    statement = f"{fact}: {find.value.strip()}"
    return _item(window, category="Fact", name=item_name("Fact", fact), description=statement,
                 body=statement, level=find.confidence, quotes=quotes)  # fmt: skip
