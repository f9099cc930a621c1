"""A plan's look-ups share one look at each store that offers it (``one_plan``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamd.collect.planting import Unavailable, one_plan
from dreamd.errors import StoreError
from dreamd.stores.claude_memory import ClaudeMemoryStore
from tests.stores.factories import sample_item
from tests.stores.test_keyindex import count_listings


def test_one_plan_lists_a_memory_folder_once_and_leaves_other_stores_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ClaudeMemoryStore(tmp_path / "memory")
    receipt = store.write("op-1", sample_item(1))
    listed = count_listings(monkeypatch)
    unavailable = Unavailable("sql", "the server is down")
    with one_plan({"claude-memory": store, "sql": unavailable}):
        assert store.find("op-1") == receipt
        assert store.find("op-2") is None
        with pytest.raises(StoreError):
            unavailable.find("op-1")
    assert len(listed) == 2  # the inbox and the folder, once
    assert store.find("op-1") == receipt
    assert len(listed) == 4  # after the plan: every look-up lists again
