"""Write plans that update the matched item (seed 002 phase 4), on real stores.

The rules are pure (``plan_operation``, ``matched_item``, ``merge_finds``);
``plant`` and ``operation_state`` run against the in-memory store and a real
``.inbox/`` folder.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dreamd.collect.plan import (
    Operation,
    load_plan,
    make_plan,
    matched_item,
    merge_finds,
    operation_state,
    plan_operation,
    plant,
    save_plan,
    update_key,
)
from dreamd.stores import HeldItem, MemoryItem, Quote, Receipt
from dreamd.stores.claude_memory import ClaudeMemoryStore
from dreamd.stores.memory import MemoryStore
from tests.stores.factories import MESSAGE, sample_item


def quoted(item: MemoryItem, *numbers: int) -> MemoryItem:
    """``item`` quoting messages ``numbers`` (one quote each)."""
    quotes = tuple(Quote(f"{MESSAGE}:{n}", f"said in message {n}") for n in numbers)
    return dataclasses.replace(item, quotes=quotes)


ITEM = quoted(sample_item(0), 1)
AGAIN = quoted(sample_item(0), 7)  # the same statement, found in a later window
RECEIPT = Receipt("memory:test", "planted-key", "item/1", "d1")


def held(item: MemoryItem, *, pending: bool = True, receipt: Receipt = RECEIPT) -> HeldItem:
    return HeldItem(receipt, item, pending)


class TestPlanRules:
    def test_no_match_is_a_new_item(self) -> None:
        """Nothing held for the session: the find is planted."""
        op = plan_operation("w2", "mem", AGAIN, [])
        assert op is not None and op.target is None and op.item == AGAIN

    def test_a_pending_match_is_updated_with_both_quotes(self) -> None:
        """A pending item with the same identity is updated: merged, its receipt the target."""
        op = plan_operation("w2", "mem", AGAIN, [held(ITEM)])
        assert op is not None and op.target == RECEIPT
        assert op.item.quotes == ITEM.quotes + AGAIN.quotes
        assert op.item.body == ITEM.body
        assert op.op_key == update_key("w2", "mem", "planted-key", op.item)

    def test_an_accepted_match_gets_a_new_inbox_item(self) -> None:
        """Once the gate accepted the match, the find is planted anew (the gate merges it)."""
        op = plan_operation("w2", "mem", AGAIN, [held(ITEM, pending=False)])
        assert op is not None and op.target is None and op.item == AGAIN

    @pytest.mark.parametrize("pending", [True, False])
    def test_a_find_that_adds_nothing_plans_nothing(self, pending: bool) -> None:
        """Re-finding what a held item already quotes plants nothing, accepted or not."""
        assert plan_operation("w2", "mem", ITEM, [held(ITEM, pending=pending)]) is None

    def test_another_identity_is_no_match(self) -> None:
        """Same session, another name: not the same item."""
        other = quoted(sample_item(1), 7)
        assert matched_item([held(ITEM)], other) is None
        op = plan_operation("w2", "mem", other, [held(ITEM)])
        assert op is not None and op.target is None

    def test_a_pending_match_is_preferred_to_an_accepted_one(self) -> None:
        """Of two held items with the identity, the one the gate has not taken is updated."""
        pending = held(ITEM, receipt=dataclasses.replace(RECEIPT, op_key="second"))
        assert matched_item([held(ITEM, pending=False), pending], AGAIN) == pending

    def test_finds_of_one_window_are_merged_first(self) -> None:
        """Two finds of one item in a window are one operation per store, holding both quotes."""
        (merged,) = merge_finds([ITEM, AGAIN])
        assert merged.quotes == ITEM.quotes + AGAIN.quotes
        plan = make_plan("w1", "claude-code:s", [ITEM, AGAIN], ["a", "b"])
        assert [op.store for op in plan.operations] == ["a", "b"]
        assert all(op.item == merged for op in plan.operations)

    def test_decisions_are_per_store(self) -> None:
        """One store may update while another plants anew (its copy was accepted)."""
        holding = {"a": [held(ITEM)], "b": [held(ITEM, pending=False)]}
        plan = make_plan("w2", "claude-code:s", [AGAIN], ["a", "b"], holding)
        assert [(op.store, op.target is not None) for op in plan.operations] == [
            ("a", True),
            ("b", False),
        ]

    def test_update_keys_are_stable_and_distinct(self) -> None:
        """The same update gets the same key; another window, target or content another."""
        merged = dataclasses.replace(ITEM, quotes=ITEM.quotes + AGAIN.quotes)
        key = update_key("w2", "mem", "t", merged)
        assert key == update_key("w2", "mem", "t", merged)
        assert len({key, update_key("w3", "mem", "t", merged), update_key("w2", "mem", "u", merged),
                    update_key("w2", "mem", "t", ITEM)}) == 4  # fmt: skip

    def test_a_plan_with_an_update_round_trips(self, tmp_path: Path) -> None:
        """The target (with its prior digest) is saved with the plan and read back."""
        plan = make_plan("w2", "claude-code:s", [AGAIN], ["mem"], {"mem": [held(ITEM)]})
        path = save_plan(tmp_path, plan)
        assert load_plan(path) == plan
        assert load_plan(path).operations[0].target == RECEIPT


def planted(store: MemoryStore | ClaudeMemoryStore) -> HeldItem:
    store.write("planted-key", ITEM)
    (found,) = store.items_from(ITEM.source)
    return found


@pytest.fixture(params=["memory", "claude-memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> MemoryStore | ClaudeMemoryStore:
    return MemoryStore() if request.param == "memory" else ClaudeMemoryStore(tmp_path / "memory")


class TestPlanting:
    def test_an_update_is_done_once(self, store: MemoryStore | ClaudeMemoryStore) -> None:
        """``plant`` rewrites the pending item; a replay finds it done and changes nothing."""
        op = plan_operation("w2", "mem", AGAIN, [planted(store)])
        assert op is not None
        assert operation_state(store, op) == "not-done"
        receipt = plant(store, op)
        assert operation_state(store, op) == "done"
        assert plant(store, op) == receipt
        assert [h.item for h in store.items_from(ITEM.source)] == [op.item]

    def test_an_update_overtaken_by_the_gate_plants_a_new_item(
        self, store: MemoryStore | ClaudeMemoryStore, tmp_path: Path
    ) -> None:
        """The target was accepted after planning: the merged item is planted as a new one."""
        op = plan_operation("w2", "mem", AGAIN, [planted(store)])
        assert op is not None and op.target is not None
        if isinstance(store, MemoryStore):
            store.accept("planted-key")
        else:
            inbox_file = store.folder / op.target.location
            inbox_file.rename(store.folder / inbox_file.name)
        assert operation_state(store, op) == "overtaken"
        receipt = plant(store, op)
        assert operation_state(store, op) == "done" and plant(store, op) == receipt
        by_pending = {h.pending: h.item for h in store.items_from(ITEM.source)}
        assert by_pending == {False: ITEM, True: op.item}

    def test_a_create_is_planted_once(self, store: MemoryStore | ClaudeMemoryStore) -> None:
        """A plain operation still goes through ``plant_once``."""
        op = Operation("mem", "create-key", ITEM)
        assert operation_state(store, op) == "not-done"
        assert plant(store, op) == plant(store, op)
        assert len(store.items_from(ITEM.source)) == 1
