"""The collector pass in-process, with a real catalog and state DB and the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from dreamd.catalog import Catalog
from dreamd.collect.collector import CollectRequest, collect
from dreamd.collect.cursorstate import Window
from dreamd.readers import READERS, Conversation
from dreamd.selection import SelectionPolicy
from dreamd.statedb import open_state
from dreamd.stores import MemoryItem, Quote
from dreamd.stores.memory import MemoryStore
from tests.collect.test_collect_cli import session

NOW = datetime.now(UTC)


def event_of(conversation: Conversation, windows: Sequence[Window]) -> list[MemoryItem]:
    """A stand-in session stage: one event per session, citing its first message."""
    first = conversation.messages[0]
    source = f"source:{conversation.tool}:box:{conversation.session_id}"
    return [
        MemoryItem(
            type="project", category="Event", name="the-night-we-fixed-ci",
            description="an event", body=f"{len(windows)} window(s) analysed",
            confidence=0.9, source=source, collected=date(2026, 11, 30),
            quotes=(Quote(f"{source.removeprefix('source:')}:{first.id}", first.text),),
        )
    ]  # fmt: skip


def run_once(home: Path, tmp_path: Path, store: MemoryStore, calls: list[int]) -> None:
    state = open_state(tmp_path / "state.db")
    catalog = Catalog(state, {"claude-code": READERS["claude-code"].default_roots({}, home)})

    def events(conversation: Conversation, windows: Sequence[Window]) -> list[MemoryItem]:
        calls.append(len(windows))
        return event_of(conversation, windows)

    collect(
        CollectRequest(machine="box", now=NOW, run_id="r", policy=SelectionPolicy()),
        state=state,
        catalog=catalog,
        plans_dir=tmp_path / "plans",
        extract=lambda conversation, window, missing: [],
        filter_item=lambda item: (item, 0),
        stores_for=lambda conversation: {"mem": store},
        extract_session=events,
    )


def test_events_run_once_per_session_and_plant_once(isolated_home: Path, tmp_path: Path) -> None:
    """The session stage runs once after the windows; a second pass plants nothing more."""
    session(isolated_home, [f"prompt {i}" for i in range(40)])
    store, calls = MemoryStore(), []
    run_once(isolated_home, tmp_path, store, calls)
    assert calls == [3]  # 80 messages: windows of 30, 30 and 20
    assert [item.name for item in store.items.values()] == ["the-night-we-fixed-ci"]
    run_once(isolated_home, tmp_path, store, calls)
    assert calls == [3] and len(store.items) == 1
