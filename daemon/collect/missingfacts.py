"""The missing-facts list (seed 002 phase 3, step 4): the facts stage runs only when one exists.

Seed 002 runs ``prompts/facts.md`` only for a collector that keeps a list of
the facts its memory is missing, beside the cursor; with no list, no facts
stage. dreamd keeps that list in ``<data dir>/missing-facts.json``, beside
the state database that holds the cursor, per project and per person::

    {"version": 1,
     "projects": {"/home/me/src/app": ["deploy target"]},
     "people": {"the user": ["time zone", "preferred language"]}}

``dreamd facts add/remove/list`` edits and shows it. Rules, one function each:

- ``facts_for``: a session is asked for its project's facts and every
  person's facts (a person's facts can come up in any project), each named
  by its ``label`` (``<fact> (<whose>)``) so the model and the item say whose
  fact it is;
- ``still_missing``: a fact stays on the list until a store the session
  plants into holds it (an item named as the facts stage names it, see
  ``fact_item_name``): once found, no request asks for it again, and nothing
  needs to edit the list after a crash;
- the list is the user's: the collector only reads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dreamd.errors import StateError
from dreamd.fswrite import atomic_write
from dreamd.runlog import SCHEMA

__all__ = [
    "FILE_NAME",
    "MissingFacts",
    "Scope",
    "change_fact",
    "fact_item_name",
    "facts_for",
    "label",
    "listed_facts",
    "load_missing_facts",
    "save_missing_facts",
    "still_missing",
]

#: The list's file, in the data dir beside the state database (and so the cursor).
FILE_NAME = "missing-facts.json"
#: The person every session is about (the one typing).
THE_USER = "the user"
#: What a project fact's label says about whose it is.
THIS_PROJECT = "this project"

Scope = Literal["projects", "people"]


@dataclass(frozen=True, slots=True)
class MissingFacts:
    """Facts wanted per project (absolute path) and per person (a name; ``the user``)."""

    projects: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    people: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Whether no fact is listed at all (then the facts stage never runs)."""
        return not any(self.projects.values()) and not any(self.people.values())

    def with_fact(self, scope: Scope, subject: str, fact: str) -> MissingFacts:
        """The list with ``fact`` added for ``subject`` (once)."""
        table = dict(getattr(self, scope))
        facts = table.get(subject, ())
        table[subject] = facts if fact in facts else (*facts, fact)
        return MissingFacts(**{**self._tables(), scope: table})

    def without_fact(self, scope: Scope, subject: str, fact: str) -> MissingFacts:
        """The list with ``fact`` of ``subject`` removed (a subject left with none goes)."""
        table = dict(getattr(self, scope))
        kept = tuple(f for f in table.get(subject, ()) if f != fact)
        if kept:
            table[subject] = kept
        else:
            table.pop(subject, None)
        return MissingFacts(**{**self._tables(), scope: table})

    def _tables(self) -> dict[str, Mapping[str, tuple[str, ...]]]:
        return {"projects": self.projects, "people": self.people}

    def as_json(self) -> dict[str, Any]:
        """The file's document."""
        return {
            "version": 1,
            "projects": {k: list(v) for k, v in sorted(self.projects.items())},
            "people": {k: list(v) for k, v in sorted(self.people.items())},
        }


def _table(raw: Any, key: str, path: Path) -> dict[str, tuple[str, ...]]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(f, str) for f in v)
        for k, v in value.items()
    ):
        raise StateError(f"{path}: {key} must map names to lists of facts")
    return {k: tuple(f.strip() for f in v if f.strip()) for k, v in value.items()}


def load_missing_facts(path: Path) -> MissingFacts:
    """The list in ``path``; an absent file is an empty list (no facts stage)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return MissingFacts()
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise StateError(f"{path}: cannot read the missing-facts list: {error}") from None
    if not isinstance(raw, dict):
        raise StateError(f"{path}: the missing-facts list must be a JSON object")
    return MissingFacts(_table(raw, "projects", path), _table(raw, "people", path))


def save_missing_facts(path: Path, facts: MissingFacts) -> None:
    """Write the list atomically."""
    text = json.dumps(facts.as_json(), ensure_ascii=False, indent=2) + "\n"
    atomic_write(path, text.encode("utf-8"))


def label(fact: str, whose: str) -> str:
    """How a fact is named to the model and in its item: ``time zone (the user)``."""
    return f"{fact} ({whose})"


def facts_for(facts: MissingFacts, project: str | None) -> list[str]:
    """The labels a session of ``project`` is asked for: its project's facts, then people's."""
    wanted = [label(f, THIS_PROJECT) for f in facts.projects.get(project or "", ())]
    for person, listed in sorted(facts.people.items()):
        wanted += [label(f, person) for f in listed]
    return wanted


def fact_item_name(fact_label: str) -> str:
    """The name the facts stage gives the item stating ``fact_label``."""
    from dreamd.collect.llm.records import item_name  # the LLM package: only with a list

    return item_name("Fact", fact_label)


def still_missing(labels: Sequence[str], held_names: Iterable[str]) -> list[str]:
    """The labels no held memory states yet (found facts leave the list of questions)."""
    held = set(held_names)
    return [wanted for wanted in labels if fact_item_name(wanted) not in held]


def _subject(project: Path | None, person: str | None) -> tuple[Scope, str]:
    """Where a fact belongs: a project (absolute path) or a person (default: the user)."""
    if project is not None and person is not None:
        raise StateError("a fact is about a project or a person, not both")
    if project is not None:
        return "projects", str(project.expanduser().absolute())
    return "people", (person or THE_USER).strip() or THE_USER


def change_fact(
    data_dir: Path, fact: str, *, project: Path | None, person: str | None, add: bool
) -> str:
    """``dreamd facts add|remove``: edit the list beside the cursor; what was done, in words."""
    fact = " ".join(fact.split())
    if not fact:
        raise StateError("a fact needs a name (for example: time zone)")
    scope, subject = _subject(project, person)
    path = data_dir / FILE_NAME
    listed = load_missing_facts(path)
    changed = (
        listed.with_fact(scope, subject, fact) if add else listed.without_fact(scope, subject, fact)
    )
    save_missing_facts(path, changed)
    whose = THIS_PROJECT if scope == "projects" else subject
    verb = "looking for" if add else "no longer looking for"
    where = f" in {subject}" if scope == "projects" else ""
    return f"{verb} {label(fact, whose)}{where} ({path})"


def listed_facts(data_dir: Path) -> dict[str, Any]:
    """``dreamd facts list``: the list as a document (``path``, ``projects``, ``people``)."""
    path = data_dir / FILE_NAME
    return {"schema": SCHEMA, "path": str(path), **load_missing_facts(path).as_json()}
