"""The machinery both text stores share (``stores._heldfile``): the sweep of a dead writer's
temp files, which must never remove another file's, and the JSON a held record keeps."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from dreamd.errors import StoreError
from dreamd.stores._codec import record_from_json, record_to_json
from dreamd.stores._heldfile import STALE_TEMP_SECONDS
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore
from tests.stores.factories import rich_item, sample_item

NOW = 2_000_000_000.0


def _md(folder: Path) -> MemoryMdStore:
    return MemoryMdStore(folder / "MEMORY.md", clock=lambda: NOW)


def _graph(folder: Path) -> GraphStore:
    return GraphStore(folder / "memory.jsonl", clock=lambda: NOW)


def _temp(folder: Path, name: str, *, age: float) -> Path:
    path = folder / f".{name}.{secrets.token_hex(6)}.tmp"
    path.write_bytes(b"half a record")
    os.utime(path, (NOW - age, NOW - age))
    return path


@pytest.mark.parametrize("make", [_md, _graph], ids=["memory-md", "graph"])
def test_a_write_sweeps_only_the_holding_files_stale_temp_files(
    tmp_path: Path, make: Callable[[Path], MemoryMdStore | GraphStore]
) -> None:
    """A dead writer's temp file of the holding file goes; a young one (a write in progress)
    and every other file's temp file, stale or not, stay."""
    store = make(tmp_path)
    stale = _temp(tmp_path, store.holding_name, age=STALE_TEMP_SECONDS + 1)
    young = _temp(tmp_path, store.holding_name, age=STALE_TEMP_SECONDS - 60)
    others = [
        _temp(tmp_path, name, age=STALE_TEMP_SECONDS * 10)
        for name in (store.index_name, store.ledger_name, "notes.md")
    ]
    store.write("op-1", sample_item(1))
    assert not stale.exists()
    assert young.exists()
    assert all(path.exists() for path in others)


@pytest.mark.parametrize("make", [_md, _graph], ids=["memory-md", "graph"])
def test_an_update_sweeps_the_holding_files_stale_temp_files_too(
    tmp_path: Path, make: Callable[[Path], MemoryMdStore | GraphStore]
) -> None:
    store = make(tmp_path)
    receipt = store.write("op-1", sample_item(1))
    stale = _temp(tmp_path, store.holding_name, age=STALE_TEMP_SECONDS + 1)
    ledger = _temp(tmp_path, store.ledger_name, age=STALE_TEMP_SECONDS + 1)
    updated = store.update("op-2", receipt, sample_item(1))
    assert updated is not None and store.verify(updated, "op-2")
    assert not stale.exists()
    assert ledger.exists()


def test_a_held_record_keeps_its_keys_and_item_exactly() -> None:
    item = rich_item()
    value = record_to_json("op-1", item, ["op-2", "op-3"])
    assert list(value) == ["op", "updates", "item"]
    assert record_from_json(value) == ("op-1", ("op-2", "op-3"), item)
    assert record_from_json({**value, "updates": []}) == ("op-1", (), item)


@pytest.mark.parametrize(
    "change",
    [
        {"op": ""},
        {"op": 7},
        {"updates": ["op-2", ""]},
        {"updates": "op-2"},
        {"item": {"name": "half an item"}},
    ],
)
def test_a_record_with_a_bad_key_or_item_reads_as_none(change: dict[str, object]) -> None:
    value = {**record_to_json("op-1", sample_item(1), ["op-2"]), **change}
    assert record_from_json(value) is None


@pytest.mark.parametrize("op_key, updates", [("", ()), ("op-1", ("op-2", ""))])
def test_an_empty_key_is_never_written(op_key: str, updates: tuple[str, ...]) -> None:
    with pytest.raises(StoreError, match="cannot be empty"):
        record_to_json(op_key, sample_item(1), updates)
