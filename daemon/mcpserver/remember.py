"""An agent's "remember this": one item, planted the way the collector plants (seed 002).

Off unless ``[mcp] allow_remember = true``. The text becomes one
``MemoryItem`` whose provenance is the call itself:
``source:mcp:<machine>:<session>`` (the session the agent names, else a call
id: the first 16 hex of the SHA-256 of kind, project and text) and one quote,
the text, citing ``mcp:<machine>:<session>:<call id>``. Then, as for a
collected window:

1. the secret filter (``dreamd.secrets.filter_item``): a credential-shaped
   value refuses the item, nothing is stored;
2. a write plan (``collect.plan.make_plan``) against what every store of
   ``collect.stores`` already holds for that source, keyed by the call, saved
   and read back (``save_plan``) before any store is touched;
3. each operation planted once (``plant``: find by key, else write, read back).

Items land where collected ones do (``.inbox/``, status ``new``, the holding
files), so the next dream's validate gate accepts, merges or rejects them.
The same text remembered twice is the same item under the same keys: the
second call plans nothing and plants nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import msgspec

from dreamd.collect.plan import held_items, make_plan, plant, save_plan
from dreamd.config import Settings
from dreamd.errors import Refused
from dreamd.secrets import filter_item
from dreamd.stores import ITEM_TYPES, MemoryItem, Quote, Store
from dreamd.stores.registry import StoreContext

__all__ = [
    "CATEGORIES",
    "Remembered",
    "call_id",
    "context_for",
    "remember",
    "remembered_item",
]

#: The category an item of each type gets when the agent names none.
CATEGORIES = {"user": "Preference", "feedback": "Rule", "project": "Fact", "reference": "Reference"}
#: Words of the text that make the item's name when the agent gives no title.
NAME_WORDS = 8
#: Longest description (the first line of the text, cut at a word boundary).
DESCRIPTION_CHARS = 150
#: How sure an item an agent was asked to remember is (the collector drops below 0.5).
CONFIDENCE = 0.9
#: Longest text an agent may ask to remember (a memory is a few lines, not a document).
MAX_TEXT_CHARS = 4000


@dataclass(frozen=True, slots=True)
class Remembered:
    """What one call planted: the item, and the store locations written (empty: already held)."""

    item: MemoryItem
    planted: tuple[tuple[str, str], ...]  # (store name, location)
    plan_id: str


def call_id(kind: str, project: str | None, text: str) -> str:
    """The call's id: the same kind, project and text are the same call."""
    return hashlib.sha256(f"{kind}\n{project or ''}\n{text}".encode()).hexdigest()[:16]


def _token(value: str) -> str:
    """A provenance part: no ``:`` or whitespace (``source:<tool>:<machine>:<session>``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", value).strip("-") or "unknown"


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if len(line) <= DESCRIPTION_CHARS:
        return line
    return line[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip() + "…"


def remembered_item(
    text: str,
    *,
    kind: str,
    machine: str,
    today: datetime,
    title: str | None = None,
    category: str | None = None,
    project: str | None = None,
    session: str | None = None,
) -> MemoryItem:
    """The item an agent asks to remember (see the module docstring); ``Refused`` if invalid."""
    body = text.strip()
    if not body:
        raise Refused("nothing to remember: the text is empty")
    if len(body) > MAX_TEXT_CHARS:
        raise Refused(f"a memory holds at most {MAX_TEXT_CHARS} characters, got {len(body)}")
    if kind not in ITEM_TYPES:
        raise Refused(f"kind must be one of {', '.join(sorted(ITEM_TYPES))}, got {kind!r}")
    call = call_id(kind, project, body)
    owner = _token(session) if session else call
    host = _token(machine)
    name = " ".join((title or "").split()) or " ".join(body.split()[:NAME_WORDS])
    return MemoryItem(
        type=kind,  # type: ignore[arg-type]  # checked above
        category=category or CATEGORIES[kind],
        name=name,
        description=_first_line(body),
        body=body,
        confidence=CONFIDENCE,
        source=f"source:mcp:{host}:{owner}",
        collected=today.date(),
        quotes=(Quote(f"mcp:{host}:{owner}:{call}", body),),
        project=project,
    )


def remember(
    settings: Settings, context: StoreContext, item: MemoryItem, *, window: str
) -> Remembered:
    """Filter, plan, save the plan, plant once into every listed store (see the module)."""
    if not settings.config.mcp.allow_remember:
        raise Refused("remembering is off: set [mcp] allow_remember = true in the config")
    clean, _dropped = filter_item(item)
    if clean is None or clean.quotes != item.quotes:
        raise Refused("the text holds a credential-shaped value; nothing was stored")
    stores = _stores(settings, context, clean.project)
    try:
        held = held_items(stores, clean.source)
        plan = make_plan(
            window, clean.source.removeprefix("source:"), [clean], sorted(stores), held
        )
        save_plan(settings.data_dir / "plans", plan)
        receipts = [plant(stores[op.store], op) for op in plan.operations]
    finally:
        for store in stores.values():
            close = getattr(store, "close", None)
            if callable(close):
                close()
    planted = tuple((r.store, r.location) for r in receipts)
    return Remembered(clean, planted, plan.plan_id)


def _stores(settings: Settings, context: StoreContext, project: str | None) -> dict[str, Store]:
    """Every store ``collect.stores`` lists, opened for ``project`` (created when missing)."""
    stores: dict[str, Store] = {}
    for spec, table in settings.listed_stores():
        store = spec.adapter(table, context, project, create=True)
        if store is not None:
            stores[spec.name] = store
    if not stores:
        listed = ", ".join(settings.config.collect.stores) or "none"
        raise Refused(
            f"no store takes this item (collect.stores: {listed}; a folder needs a project)"
        )
    return stores


def context_for(
    settings: Settings, env: Mapping[str, str], home: Path, projects: Mapping[str, Path]
) -> StoreContext:
    """Where the stores live, knowing which transcript folder each project's sessions use."""
    return msgspec.structs.replace(settings.store_context(env, home), claude_projects=projects)
