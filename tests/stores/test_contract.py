"""The store contract, run on every adapter: in-memory, Claude Code memory folder, SQL,
sectioned MEMORY.md, knowledge-graph JSONL and Gemini's GEMINI.md.

SQL runs twice: on a SQLite file, and on PostgreSQL (a fresh schema of the
server ``tests.stores.postgres`` finds; skipped when none answers).
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select, text

from dreamd.errors import StoreError
from dreamd.stores import MemoryItem, Receipt
from dreamd.stores.claude_memory import (
    INBOX,
    ClaudeMemoryStore,
    parse_item,
    render_item,
    stored_op_keys,
)
from dreamd.stores.gemini_md import GeminiStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory import MemoryStore
from dreamd.stores.memory_md import MemoryMdStore
from dreamd.stores.sql import SqlStore, memory_item
from tests.stores import textstores
from tests.stores.factories import HOSTILE_NAMES, ReadableStore, rich_item, sample_item
from tests.stores.postgres import fresh_schema
from tests.stores.updater import restated
from tests.stores.writer import op_key

ADAPTERS = ("memory", "claude-memory", "sql", "postgresql", "memory-md", "graph", "gemini")
PERSISTENT = ("claude-memory", "sql", "postgresql", "memory-md", "graph", "gemini")
#: Adapters several processes may write at once.
CONCURRENT = ("claude-memory", "sql", "postgresql", "memory-md", "graph", "gemini")
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Harness:
    """One adapter under test and the outside access a test needs to check it."""

    kind: str
    area: Path  # everything the store may create lies under here
    target: str  # what ``tests.stores.writer`` opens
    open: Callable[[], ReadableStore]  # a fresh adapter on the same data (a restart)
    tamper: Callable[[Receipt], None]  # edit the stored item behind the store's back
    held_keys: Callable[[], list[str]]  # the op_key of every item held, repeats kept
    leave_partial: Callable[[str, MemoryItem], None] | None  # a write cut off by a crash
    holds_nul: bool = True  # SQL text cannot hold NUL: the SQL store refuses such items
    strays: Callable[[], list[str]] = list  # visible leftovers that are not whole items


def _memory_harness(area: Path, _cleanup: ExitStack) -> Harness:
    store = MemoryStore()

    def tamper(receipt: Receipt) -> None:
        item = store.items[receipt.op_key]
        store.items[receipt.op_key] = dataclasses.replace(item, body=item.body + " edited")

    return Harness("memory", area, "", lambda: store, tamper, lambda: list(store.items), None)


def _claude_harness(area: Path, _cleanup: ExitStack) -> Harness:
    folder = area / "memory"

    def tamper(receipt: Receipt) -> None:
        path = folder / receipt.location
        path.write_bytes(path.read_bytes().replace(b"because", b"since"))

    def held_keys() -> list[str]:
        files = [*folder.glob(f"{INBOX}/*.md"), *folder.glob("*.md")]
        paths = [path for path in files if not path.name.startswith(".")]
        return [key for path in paths for key in stored_op_keys(path.read_bytes())]

    def strays() -> list[str]:
        inbox = [path for path in (folder / INBOX).glob("*.md") if not path.name.startswith(".")]
        return [path.name for path in inbox if parse_item(path.read_bytes()) is None]

    def leave_partial(key: str, item: MemoryItem) -> None:
        data = render_item(key, item)
        (folder / INBOX).mkdir(parents=True, exist_ok=True)
        (folder / INBOX / ".project_x.md.0badc0ffee00.tmp").write_bytes(data[: len(data) // 2])
        (folder / INBOX / ".project_x.md.00c0ffee0bad.tmp").write_bytes(data)

    return Harness(
        "claude-memory",
        area,
        str(folder),
        lambda: ClaudeMemoryStore(folder),
        tamper,
        held_keys,
        leave_partial,
        strays=strays,
    )


_PARTIAL_INSERT = """
import os, signal, sys
from datetime import UTC, date, datetime
from sqlalchemy import create_engine
from dreamd.stores.sql import memory_item
engine = create_engine(sys.argv[1])
connection = engine.connect()
connection.begin()
connection.execute(memory_item.insert().values(
    op_key=sys.argv[2], type="project", category="Decision", name="n", description="d",
    body="b", confidence=0.5, source="source:t:m:s", collected=date(2026, 11, 30),
    quotes=[], status="new", created_at=datetime.now(UTC)))
os.kill(os.getpid(), signal.SIGKILL)
"""


def _sql_harness(area: Path, _cleanup: ExitStack, url: str = "") -> Harness:
    url = url or f"sqlite:///{area / 'items.db'}"

    def tamper(receipt: Receipt) -> None:
        with SqlStore(url).engine.begin() as connection:
            connection.execute(
                text("UPDATE memory_item SET body = body || ' edited' WHERE op_key = :key"),
                {"key": receipt.op_key},
            )

    def held_keys() -> list[str]:
        with SqlStore(url).engine.begin() as connection:
            return list(connection.execute(select(memory_item.c.op_key)).scalars())

    def leave_partial(key: str, item: MemoryItem) -> None:
        SqlStore(url).find("create the table")
        command = [sys.executable, "-c", _PARTIAL_INSERT, url, key]
        assert subprocess.run(command, check=False).returncode == -9

    return Harness(
        "sql", area, url, lambda: SqlStore(url), tamper, held_keys, leave_partial, holds_nul=False
    )


def _postgres_harness(area: Path, cleanup: ExitStack) -> Harness:
    url = cleanup.enter_context(fresh_schema())
    return dataclasses.replace(_sql_harness(area, cleanup, url), kind="postgresql")


def _memory_md_harness(area: Path, _cleanup: ExitStack) -> Harness:
    store = MemoryMdStore(area / "memory" / "MEMORY.md")
    return Harness(
        "memory-md", area, str(store.path), lambda: MemoryMdStore(store.path),
        lambda receipt: textstores.md_tamper(store, receipt),
        lambda: textstores.md_held_keys(store),
        lambda key, item: textstores.md_leave_partial(store, key, item),
        strays=lambda: textstores.md_strays(store),
    )  # fmt: skip


def _graph_harness(area: Path, _cleanup: ExitStack) -> Harness:
    store = GraphStore(area / "graph" / "memory.jsonl")
    return Harness(
        "graph", area, str(store.path), lambda: GraphStore(store.path),
        lambda receipt: textstores.graph_tamper(store, receipt),
        lambda: textstores.graph_held_keys(store),
        lambda key, item: textstores.graph_leave_partial(store, key, item),
        strays=lambda: textstores.graph_strays(store),
    )  # fmt: skip


def _gemini_harness(area: Path, _cleanup: ExitStack) -> Harness:
    store = GeminiStore(area / "gemini" / "GEMINI.md")
    return Harness(
        "gemini", area, str(store.path), lambda: GeminiStore(store.path),
        lambda receipt: textstores.gemini_tamper(store, receipt),
        lambda: textstores.gemini_held_keys(store),
        lambda key, item: textstores.gemini_leave_partial(store, key, item),
        strays=lambda: textstores.gemini_strays(store),
    )  # fmt: skip


_HARNESSES: dict[str, Callable[[Path, ExitStack], Harness]] = {
    "memory": _memory_harness,
    "claude-memory": _claude_harness,
    "sql": _sql_harness,
    "postgresql": _postgres_harness,
    "memory-md": _memory_md_harness,
    "graph": _graph_harness,
    "gemini": _gemini_harness,
}


@pytest.fixture
def cleanup() -> Iterator[ExitStack]:
    """Undone after the test: what harnesses set up outside ``tmp_path`` (server schemas)."""
    with ExitStack() as stack:
        yield stack


@pytest.fixture(params=ADAPTERS)
def harness(request: pytest.FixtureRequest, tmp_path: Path, cleanup: ExitStack) -> Harness:
    """Each adapter in turn, storing under ``tmp_path/store``."""
    area = tmp_path / "store"
    area.mkdir()
    return _HARNESSES[request.param](area, cleanup)


@pytest.fixture(params=PERSISTENT)
def persistent(request: pytest.FixtureRequest, tmp_path: Path, cleanup: ExitStack) -> Harness:
    """Each adapter whose items outlive the process and whose I/O the crash helper counts."""
    area = tmp_path / "store"
    area.mkdir()
    return _HARNESSES[request.param](area, cleanup)


@pytest.fixture(params=CONCURRENT)
def shared(request: pytest.FixtureRequest, tmp_path: Path, cleanup: ExitStack) -> Harness:
    """Each adapter that several processes may write at once."""
    area = tmp_path / "store"
    area.mkdir()
    return _HARNESSES[request.param](area, cleanup)


def test_write_then_find_and_verify(harness: Harness) -> None:
    """A written item is found under its key with the same receipt, which verifies."""
    store = harness.open()
    receipt = store.write("op-1", sample_item(1))
    assert (receipt.store, receipt.op_key) == (store.name, "op-1")
    assert store.find("op-1") == receipt
    assert store.verify(receipt, "op-1")


def test_find_of_an_unknown_key_is_none(harness: Harness) -> None:
    """Nothing is found under a key never written, even beside other items."""
    store = harness.open()
    store.write("op-1", sample_item(1))
    assert store.find("op-2") is None


def test_writing_a_key_twice_keeps_one_item_and_one_receipt(harness: Harness) -> None:
    """A second write of a key, even with other content or after a restart, changes nothing."""
    first = harness.open().write("op-1", sample_item(1))
    again = harness.open().write("op-1", sample_item(2))
    assert again == first
    assert harness.held_keys() == ["op-1"]
    assert harness.open().read(first) == sample_item(1)


def test_distinct_keys_with_the_same_item_are_both_kept(harness: Harness) -> None:
    """Idempotence is per key, not per content: two keys keep two items apart."""
    store = harness.open()
    first, second = store.write("op-1", sample_item(1)), store.write("op-2", sample_item(1))
    assert first.location != second.location
    assert sorted(harness.held_keys()) == ["op-1", "op-2"]
    assert store.verify(first, "op-1") and store.verify(second, "op-2")


def test_receipts_verify_after_a_restart(harness: Harness) -> None:
    """A fresh adapter on the same data finds and verifies what an earlier one wrote."""
    receipts = {f"op-{i}": harness.open().write(f"op-{i}", sample_item(i)) for i in range(5)}
    store = harness.open()
    for key, receipt in receipts.items():
        assert store.find(key) == receipt
        assert store.verify(receipt, key)


def test_verify_detects_tampering(harness: Harness) -> None:
    """An item edited behind the store's back no longer verifies; its neighbours still do."""
    store = harness.open()
    edited, kept = store.write("op-1", sample_item(1)), store.write("op-2", sample_item(2))
    harness.tamper(edited)
    assert not harness.open().verify(edited, "op-1")
    assert harness.open().verify(kept, "op-2")


def test_verify_refuses_a_receipt_for_another_key_or_store(harness: Harness) -> None:
    """A receipt proves one key in one store: another key, store or location fails."""
    store = harness.open()
    receipt = store.write("op-1", sample_item(1))
    store.write("op-2", sample_item(2))
    assert not store.verify(receipt, "op-2")
    assert not store.verify(dataclasses.replace(receipt, op_key="op-2"), "op-2")
    assert not store.verify(dataclasses.replace(receipt, store="elsewhere"), "op-1")
    assert not store.verify(dataclasses.replace(receipt, location="../op-1"), "op-1")


def test_declared_fields_survive_a_round_trip(harness: Harness) -> None:
    """Every field a store declares in its capabilities reads back exactly as written."""
    store = harness.open()
    item = rich_item()
    receipt = store.write("op-rich", item)
    back = harness.open().read(receipt)
    assert back is not None
    assert store.capabilities.fields
    for name in store.capabilities.fields:
        assert getattr(back, name) == getattr(item, name), name


def test_a_write_cut_off_by_a_crash_is_not_an_item(harness: Harness) -> None:
    """What a crash leaves mid-write is never found; writing the key afterwards plants one."""
    if harness.leave_partial is None:
        pytest.skip("an in-memory store has nothing left after a crash")
    harness.leave_partial("op-1", sample_item(1))
    store = harness.open()
    assert store.find("op-1") is None
    receipt = store.write("op-1", sample_item(1))
    assert store.verify(receipt, "op-1")
    assert harness.held_keys() == ["op-1"]


def _files_outside(root: Path, area: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` not inside ``area``, with its bytes (None for folders)."""
    found: dict[str, bytes | None] = {}
    for path in root.rglob("*"):
        if area in path.parents or path == area:
            continue
        found[str(path)] = path.read_bytes() if path.is_file() else None
    return found


def test_no_name_makes_a_write_leave_the_store(harness: Harness, tmp_path: Path) -> None:
    """Items named like paths, NULs or huge strings are stored (or refused) inside the store."""
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_bytes(b"root:x:0:0\n")
    before = _files_outside(tmp_path, harness.area)
    store = harness.open()
    receipts: dict[str, Receipt] = {}
    for index, name in enumerate(HOSTILE_NAMES):
        key, item = f"op-{index}", sample_item(index, name=name)
        if "\x00" in name and not harness.holds_nul:
            with pytest.raises(StoreError, match="NUL"):
                store.write(key, item)
            assert store.find(key) is None
            continue
        receipts[key] = store.write(key, item)
        assert store.verify(receipts[key], key)
        assert store.read(receipts[key]) == item
    assert _files_outside(tmp_path, harness.area) == before
    assert len({receipt.location for receipt in receipts.values()}) == len(receipts)


def _run_writer(
    harness: Harness, count: int, kill_at: int, *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.stores.writer", harness.kind, harness.target,
         str(count), str(kill_at), *extra],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


def _assert_exactly(harness: Harness, count: int) -> None:
    """The store holds item ``i`` under ``op_key(i)`` for each i < count, once, verifiable."""
    assert harness.strays() == []
    assert sorted(harness.held_keys()) == sorted(op_key(i) for i in range(count))
    store = harness.open()
    for index in range(count):
        receipt = store.find(op_key(index))
        assert receipt is not None
        assert store.verify(receipt, op_key(index))
        assert store.read(receipt) == sample_item(index)


CHAOS_ITEMS = 12


@pytest.mark.parametrize("seed", range(6))
def test_sigkill_at_random_points_then_resume_plants_each_item_once(
    persistent: Harness, tmp_path: Path, cleanup: ExitStack, seed: int
) -> None:
    """A writer killed at random I/O calls, then rerun, leaves exactly N verifiable items."""
    (tmp_path / "calibration").mkdir()
    scratch = _HARNESSES[persistent.kind](tmp_path / "calibration", cleanup)
    calibration = _run_writer(scratch, CHAOS_ITEMS, 0)
    assert calibration.returncode == 0, calibration.stderr
    total_calls = int(calibration.stdout.split()[0])
    rng = random.Random(seed)
    kills = 0
    for _ in range(3):
        result = _run_writer(persistent, CHAOS_ITEMS, rng.randint(1, total_calls))
        if result.returncode == 0:
            break
        assert result.returncode == -9, result.stderr
        kills += 1
    assert kills >= 1
    final = _run_writer(persistent, CHAOS_ITEMS, 0)
    assert final.returncode == 0, final.stderr
    _assert_exactly(persistent, CHAOS_ITEMS)


def test_writers_in_several_processes_at_once_plant_each_key_once(
    shared: Harness, tmp_path: Path
) -> None:
    """Three processes writing the same keys together keep one item per key, one receipt."""
    go = tmp_path / "go"
    command = [sys.executable, "-m", "tests.stores.writer", shared.kind, shared.target]
    workers = [
        subprocess.Popen(
            [*command, "30", "0", str(go)], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("go.*"))) < len(workers) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    outputs = [worker.communicate(timeout=120)[0] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0, 0]
    receipts = [output.splitlines()[1:] for output in outputs]
    assert receipts[0] == receipts[1] == receipts[2]
    _assert_exactly(shared, 30)


def test_the_writer_helper_sees_the_adapters_io(persistent: Harness) -> None:
    """The crash points are real: a full write run makes dozens of counted I/O calls."""
    result = _run_writer(persistent, 2, 0)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[0]) > 10
    assert persistent.area.exists()


# --- update: a pending item rewritten in place (seed 002 phase 4, "update the matched item") ---


def _accept_memory(harness: Harness, receipt: Receipt) -> None:
    store = harness.open()
    assert isinstance(store, MemoryStore)
    store.accept(receipt.op_key)


def _accept_file(harness: Harness, receipt: Receipt) -> None:
    """What the folder gate does to an accepted item: its bytes move out of ``.inbox/``."""
    inbox_file = Path(harness.target) / receipt.location
    inbox_file.rename(Path(harness.target) / inbox_file.name)


def _accept_row(harness: Harness, receipt: Receipt) -> None:
    assert SqlStore(harness.target).set_status(receipt.op_key, "accepted", expected="new")


#: How the validate gate accepts an item of each adapter kind (a new adapter adds its own).
ACCEPT: dict[str, Callable[[Harness, Receipt], None]] = {
    "memory": _accept_memory,
    "claude-memory": _accept_file,
    "sql": _accept_row,
    "postgresql": _accept_row,
    "memory-md": lambda harness, receipt: textstores.md_accept(
        MemoryMdStore(Path(harness.target)), receipt
    ),
    "graph": lambda harness, receipt: textstores.graph_accept(
        GraphStore(Path(harness.target)), receipt
    ),
    "gemini": lambda harness, receipt: textstores.gemini_accept(
        GeminiStore(Path(harness.target)), receipt
    ),
}


def test_items_from_lists_one_sessions_items_as_pending(harness: Harness) -> None:
    """``items_from`` returns the items tagged with that source, with their receipts, pending."""
    store = harness.open()
    mine = [store.write(f"op-{i}", sample_item(i)) for i in range(2)]
    store.write("op-other", dataclasses.replace(sample_item(5), source="source:pi:box:other"))
    held = harness.open().items_from(sample_item(0).source)
    assert [(h.receipt, h.item, h.pending) for h in held] == [
        (mine[0], sample_item(0), True),
        (mine[1], sample_item(1), True),
    ]
    assert harness.open().items_from("source:codex:box:nothing-here") == []


def test_update_rewrites_a_pending_item_found_under_both_keys(harness: Harness) -> None:
    """An update replaces the item in place: one item, found and verified by either key."""
    store = harness.open()
    store.write("op-1", sample_item(1))
    (held,) = store.items_from(sample_item(1).source)
    receipt = store.update("op-1-update", held.receipt, restated(sample_item(1)))
    assert receipt is not None
    assert (receipt.op_key, receipt.location) == ("op-1-update", held.receipt.location)
    fresh = harness.open()
    assert fresh.find("op-1-update") == receipt and fresh.verify(receipt, "op-1-update")
    original = fresh.find("op-1")
    assert original is not None and fresh.verify(original, "op-1")
    assert fresh.read(original) == fresh.read(receipt) == restated(sample_item(1))
    (after,) = fresh.items_from(sample_item(1).source)
    assert after.item == restated(sample_item(1)) and after.pending


def test_replaying_an_update_changes_nothing(harness: Harness) -> None:
    """The same update again, after a restart or as a write, returns the first receipt."""
    store = harness.open()
    store.write("op-1", sample_item(1))
    (held,) = store.items_from(sample_item(1).source)
    first = store.update("op-1-update", held.receipt, restated(sample_item(1)))
    assert harness.open().update("op-1-update", held.receipt, restated(sample_item(1))) == first
    assert harness.open().write("op-1-update", sample_item(2)) == first
    assert [h.item for h in harness.open().items_from(sample_item(1).source)] == [
        restated(sample_item(1))
    ]


def test_update_refuses_a_target_changed_since_it_was_read(harness: Harness) -> None:
    """A stale digest (another update, or an edit behind the store's back) writes nothing."""
    store = harness.open()
    store.write("op-1", sample_item(1))
    (held,) = store.items_from(sample_item(1).source)
    assert store.update("op-a", held.receipt, restated(sample_item(1))) is not None
    assert store.update("op-b", held.receipt, sample_item(1)) is None
    assert store.find("op-b") is None
    (now,) = store.items_from(sample_item(1).source)
    harness.tamper(now.receipt)
    assert harness.open().update("op-c", now.receipt, restated(restated(sample_item(1)))) is None
    assert harness.open().find("op-c") is None


def test_update_leaves_an_accepted_item_alone(harness: Harness) -> None:
    """Once the validate gate accepted an item, it is no longer pending and never rewritten."""
    if harness.kind not in ACCEPT:
        pytest.fail(f"add how the gate accepts a {harness.kind} item to ACCEPT")
    store = harness.open()
    store.write("op-1", sample_item(1))
    (held,) = store.items_from(sample_item(1).source)
    ACCEPT[harness.kind](harness, held.receipt)
    (accepted,) = harness.open().items_from(sample_item(1).source)
    assert not accepted.pending and accepted.item == sample_item(1)
    assert harness.open().update("op-1-update", accepted.receipt, restated(sample_item(1))) is None
    assert harness.open().find("op-1-update") is None
    receipt = harness.open().find("op-1")
    assert receipt is not None and harness.open().read(receipt) == sample_item(1)


def test_update_cannot_turn_an_item_into_another(harness: Harness) -> None:
    """An update keeps the item's source, type and name: anything else is refused."""
    store = harness.open()
    store.write("op-1", sample_item(1))
    (held,) = store.items_from(sample_item(1).source)
    with pytest.raises(StoreError, match="cannot change"):
        store.update("op-x", held.receipt, sample_item(1, name="another name"))
    assert harness.open().find("op-x") is None
