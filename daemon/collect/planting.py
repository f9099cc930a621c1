"""Planting a plan store by store (issue 15 item 4): one store that cannot be written keeps
the window pending for that store, with its reason, while the other stores' writes go on.

Seed 002: a window is checkpointed only once every required store's write is
confirmed. When a store fails (a memory folder that cannot be written, a file
where a folder should be, a database that cannot be opened), its remaining
operations are skipped, the other stores' operations are planted, and the
window's intent stays open: the next run replays the plan, finds what was
already written by its keys and retries only the store that failed. The
session stops at that window (one intent per session) and is reported with
the store and the reason; other sessions go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from dreamd.collect.plan import Operation, WritePlan, plant
from dreamd.errors import StoreError
from dreamd.logs import get_logger
from dreamd.stores import Capabilities, HeldItem, MemoryItem, Planning, Receipt, Store

__all__ = [
    "STORE_FAILURES",
    "Planted",
    "StoresPending",
    "Unavailable",
    "one_plan",
    "plant_plan",
    "reason_of",
    "tolerant_held",
]

log = get_logger("dreamd.collect")

#: What a store that cannot be read or written raises (adapters wrap driver errors in
#: ``StoreError``; a folder or file that cannot be opened may surface as ``OSError``).
STORE_FAILURES = (StoreError, OSError)


def reason_of(error: BaseException) -> str:
    """One line naming what failed: the error's own words, newlines folded."""
    return " ".join(str(error).split()) or type(error).__name__


@dataclass
class Planted:
    """What planting a plan did: each confirmed write, and each store that failed."""

    done: list[tuple[Operation, Receipt]] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # store name -> reason

    @property
    def receipts(self) -> list[str]:
        return [receipt.op_key for _, receipt in self.done]


class StoresPending(Exception):
    """A window's writes to some stores failed: its intent stays open for those stores."""

    def __init__(self, session: str, window_key: str, failed: Mapping[str, str]) -> None:
        self.session = session
        self.window_key = window_key
        self.failed = dict(failed)
        stores = "; ".join(f"{name}: {reason}" for name, reason in sorted(self.failed.items()))
        super().__init__(f"window pending for {stores}")

    def entries(self) -> list[dict[str, str]]:
        """The report's ``pending_stores`` entries: session, store and reason."""
        return [
            {"session": self.session, "store": name, "reason": reason}
            for name, reason in sorted(self.failed.items())
        ]


@contextmanager
def one_plan(stores: Mapping[str, Store]) -> Iterator[None]:
    """One plan's reads and writes: each store that offers ``Planning`` looks at itself once
    for all of them (a memory folder of 3,000 items is listed once, not four times an item)."""
    with ExitStack() as stack:
        for store in stores.values():
            if isinstance(store, Planning):
                stack.enter_context(store.planning())
        yield


def plant_plan(plan: WritePlan, stores: Mapping[str, Store], tick: Callable[[], None]) -> Planted:
    """Plant every operation once (``plant``), store by store; ``tick`` runs before each one.

    A store whose write fails (or cannot be confirmed) gets none of its later
    operations in this plan; every other store's operations are still planted.
    """
    planted = Planted()
    for op in plan.operations:
        tick()
        if op.store in planted.failed:
            continue
        try:
            receipt = plant(stores[op.store], op)
        except STORE_FAILURES as error:
            planted.failed[op.store] = reason_of(error)
            log.warning(
                "collect.store.pending",
                session=plan.session,
                store=op.store,
                reason=planted.failed[op.store],
            )
            continue
        planted.done.append((op, receipt))
    return planted


def tolerant_held(stores: Mapping[str, Store], source: str) -> dict[str, list[HeldItem]]:
    """What each store holds for one session; a store that cannot be read holds nothing known
    (its writes will fail and be reported; planting anew there is matched by the gate)."""
    held: dict[str, list[HeldItem]] = {}
    for name, store in stores.items():
        try:
            held[name] = store.items_from(source)
        except STORE_FAILURES as error:
            log.warning("collect.store.unreadable", store=name, reason=reason_of(error))
            held[name] = []
    return held


class Unavailable:
    """A configured store that could not be opened: every call fails with the reason, so
    the windows that need it stay pending for it (and the others go on)."""

    def __init__(self, name: str, reason: str) -> None:
        self._name = name
        self.reason = reason

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(fields=frozenset())

    def _fail(self) -> StoreError:
        return StoreError(f"{self._name} cannot be opened: {self.reason}")

    def find(self, op_key: str) -> Receipt | None:
        raise self._fail()

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        raise self._fail()

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        raise self._fail()

    def items_from(self, source: str) -> list[HeldItem]:
        raise self._fail()

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        raise self._fail()
