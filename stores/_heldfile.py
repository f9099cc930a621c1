"""What the two single-file stores share: new items *held* in a file beside the one shown.

``MEMORY.md`` (``memory_md.MemoryMdStore``) and the knowledge-graph JSONL
(``graph_jsonl.GraphStore``) work the same way; only their formats differ.
``HeldFileStore`` is that shared machinery; a subclass supplies the format:
how a held record is rendered and parsed, where a new one goes, how one is
replaced, and what the shown file shows for which operation keys.

Rules (SPEC "Stores", issue 6 item 3):

- Three files in the shown file's folder: the shown file itself (which the
  collector never writes), the holding file ``<stem>.inbox<suffix>`` where
  ``write`` adds a record, and the ledger ``<stem>.sources<suffix>`` where the
  validate gate moves the records it accepted or merged. A record keeps every
  item field and the operation keys that planted or updated it.
- The files are the index: ``find`` looks for the key among the held
  records, then in what the shown file shows. A receipt names the file and
  the record's (or shown thing's) first key by hash (``key_hash``), and its
  digest is the SHA-256 of the record's (or shown thing's) bytes, so any edit
  fails ``verify``.
- One writer at a time: every read-modify-write of the holding file runs
  under ``flock`` on ``.<holding>.lock`` (the gate takes it too, ``locked``);
  the file is replaced atomically (temp file, fsync, rename, folder fsync), so
  a crash leaves the old holding file or the new one. A key written twice
  keeps one record; ``update`` rewrites a held record only, in place.
- A writer sweeps the holding file's temp files older than
  ``STALE_TEMP_SECONDS`` (a killed writer's); never any other file's.
- Nothing but the holding file, its lock and its temp files is ever created
  by the store, all in the shown file's folder; item text never names a file.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Generic, Protocol, TypeVar

from dreamd.errors import StoreError
from dreamd.fs import check_name, digest, open_folder, read_file
from dreamd.fswrite import exclusive_lock, replace_file, sweep_temps, write_new

from ._codec import key_hash
from ._item import MemoryItem, Receipt
from ._protocol import Capabilities, HeldItem
from .memory import ITEM_FIELDS

__all__ = [
    "STALE_TEMP_SECONDS",
    "HeldFileStore",
    "HeldRecord",
    "Shown",
    "holding_name",
    "ledger_name",
    "sidecar_name",
]

#: Temp files older than this belong to a writer that died; younger ones may be in progress.
STALE_TEMP_SECONDS = 3600.0


def sidecar_name(name: str, infix: str) -> str:
    """A file named after ``name``: ``MEMORY.md`` and ``inbox`` → ``MEMORY.inbox.md``."""
    stem, dot, suffix = name.rpartition(".")
    return check_name(f"{stem}.{infix}.{suffix}" if dot and stem else f"{name}.{infix}")


def holding_name(shown_name: str) -> str:
    """The holding file beside ``shown_name``: ``memory.jsonl`` → ``memory.inbox.jsonl``."""
    return sidecar_name(shown_name, "inbox")


def ledger_name(shown_name: str) -> str:
    """The ledger beside ``shown_name``: ``MEMORY.md`` → ``MEMORY.sources.md``."""
    return sidecar_name(shown_name, "sources")


class HeldRecord(Protocol):
    """A held (or ledger) record as a format parses it.

    ``item`` is None, ``op_key`` ``""`` and ``keys`` empty when the record
    holds no valid item; ``raw`` is the record's bytes in its file.
    """

    @property
    def op_key(self) -> str: ...

    @property
    def updates(self) -> tuple[str, ...]: ...

    @property
    def item(self) -> MemoryItem | None: ...

    @property
    def keys(self) -> tuple[str, ...]: ...

    @property
    def raw(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Shown:
    """Something the shown file shows for operation keys (an entry, an entity) and its bytes."""

    keys: tuple[str, ...]
    raw: bytes


R = TypeVar("R", bound=HeldRecord)


def shown_with(shown: Sequence[Shown], op_key: str) -> Shown | None:
    """The first shown thing that lists ``op_key``."""
    return next((thing for thing in shown if op_key in thing.keys), None)


class HeldFileStore(ABC, Generic[R]):
    """Adapter for one shown file whose new items wait in a holding file beside it."""

    #: The store name's prefix: ``<KIND>:<absolute path of the shown file>``.
    KIND: ClassVar[str]
    #: A file larger than this is not read (nor replaced).
    MAX_FILE_BYTES: ClassVar[int]
    #: Bytes the shown file holds wherever it shows a key (looked for before parsing it).
    SHOWN_MARK: ClassVar[bytes]

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path.absolute()
        self.folder = self.path.parent
        self.index_name = check_name(self.path.name)
        self.holding_name = holding_name(self.index_name)
        self.ledger_name = ledger_name(self.index_name)
        self.lock_name = check_name(f".{self.holding_name}.lock")
        self._clock = clock

    # --- the format ---------------------------------------------------------------------------

    @abstractmethod
    def _render(self, op_key: str, item: MemoryItem, updates: Sequence[str]) -> bytes:
        """The record holding ``item``; ``StoreError`` when it cannot be written faithfully."""

    @abstractmethod
    def _parse(self, data: bytes) -> list[R]:
        """Every record of a holding file or ledger, in file order."""

    @abstractmethod
    def _insert(self, current: bytes | None, item: MemoryItem, record: bytes) -> bytes:
        """The holding file with ``record`` added (``current`` None: there is none yet)."""

    @abstractmethod
    def _replace(self, data: bytes, records: Sequence[R], index: int, new: bytes) -> bytes:
        """``data`` with ``records[index]`` (``records`` as ``_parse`` read ``data``) as ``new``."""

    @abstractmethod
    def _shown(self, data: bytes, ledger: Callable[[], Sequence[R]]) -> list[Shown]:
        """What the shown file ``data`` shows for operation keys, in file order.

        ``ledger`` reads the ledger's records, for a format whose shown file
        carries no keys of its own (Gemini's ``GEMINI.md``).
        """

    # --- the store ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """``<KIND>:<absolute path of the shown file>``."""
        return f"{self.KIND}:{self.path}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field (records keep them all); rejected items go to a trash."""
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=False, shared=False)

    @property
    def holding_path(self) -> Path:
        return self.folder / self.holding_name

    @property
    def ledger_path(self) -> Path:
        return self.folder / self.ledger_name

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock (the gate edits the holding file under it)."""
        with self._locked_folder(create=False):
            yield

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the held record or shown thing holding ``op_key``."""
        if not self.folder.is_dir():
            return None
        with open_folder(self.folder, create=False) as root:
            return self._find(root, op_key)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Hold ``item`` as a new record, unless ``op_key`` is already held."""
        record = self._render(op_key, item, ())
        with self._locked_folder(create=True) as root:
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            self._sweep(root)
            current = self._read(root, self.holding_name)
            new = self._insert(current, item, record)
            if current is None:
                if not write_new(root, self.holding_name, new):
                    raise StoreError(
                        f"{self.holding_path} exists but cannot be read "
                        f"(larger than {self.MAX_FILE_BYTES} bytes, a link, or not a file)"
                    )
            else:
                replace_file(root, self.holding_name, new)
            return self._receipt(self.holding_name, op_key, op_key, record)

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the store still holds, byte for byte, what ``receipt`` was issued for."""
        if receipt.store != self.name or receipt.op_key != op_key:
            return False
        return self.find(op_key) == receipt

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item behind ``receipt`` as held now (accepted ones: from the ledger)."""
        if not self.folder.is_dir() or self.find(receipt.op_key) != receipt:
            return None
        held = receipt.location.startswith(f"{self.holding_name}#")
        with open_folder(self.folder, create=False) as root:
            for record in self._records(root, self.holding_name if held else self.ledger_name):
                if receipt.op_key in record.keys:
                    return record.item
        return None

    def items_from(self, source: str) -> list[HeldItem]:
        """Items tagged ``source``: held records (pending), then accepted ones still shown
        (their items from the ledger)."""
        if not self.folder.is_dir():
            return []
        held: list[HeldItem] = []
        with open_folder(self.folder, create=False) as root:
            for record in self._records(root, self.holding_name):
                if record.item is not None and record.item.source == source:
                    receipt = self._receipt(
                        self.holding_name, record.op_key, record.op_key, record.raw
                    )
                    held.append(HeldItem(receipt, record.item, pending=True))
            ledger = self._records(root, self.ledger_name)
            shown = self._shown(self._read(root, self.index_name) or b"", lambda: ledger)
            for record in ledger:
                if record.item is None or record.item.source != source:
                    continue
                thing = shown_with(shown, record.op_key)
                if thing is not None:
                    receipt = self._shown_receipt(record.op_key, thing)
                    held.append(HeldItem(receipt, record.item, pending=False))
        return held

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the held record ``target`` names as ``item``, recording ``op_key`` on it.

        None, writing nothing, when the record was accepted, is gone or changed
        since ``target`` was read.
        """
        if target.store != self.name or not target.location.startswith(f"{self.holding_name}#"):
            return self.find(op_key)
        with self._locked_folder(create=False) as root:
            existing = self._find(root, op_key)
            if existing is not None:
                return existing
            data = self._read(root, self.holding_name) or b""
            records = self._parse(data)
            index = next((i for i, r in enumerate(records) if target.op_key in r.keys), None)
            if index is None or digest(records[index].raw) != target.digest:
                return None
            record = records[index]
            current = record.item
            location = f"{self.holding_name}#{key_hash(record.op_key)}"
            if current is None or target.location != location:
                return None
            if (item.source, item.type, item.name) != (current.source, current.type, current.name):
                raise StoreError(f"an update cannot change what item {current.name!r} is")
            new = self._render(record.op_key, item, (*record.updates, op_key))
            self._sweep(root)
            replace_file(root, self.holding_name, self._replace(data, records, index, new))
            return self._receipt(self.holding_name, op_key, record.op_key, new)

    # --- reading and receipts -----------------------------------------------------------------

    @contextmanager
    def _locked_folder(self, *, create: bool) -> Iterator[int]:
        """The folder (created first when ``create``), held under the store's lock."""
        with open_folder(self.folder, create=create) as root, exclusive_lock(root, self.lock_name):
            yield root

    def _find(self, root: int, op_key: str) -> Receipt | None:
        for record in self._records(root, self.holding_name):
            if op_key in record.keys:
                return self._receipt(self.holding_name, op_key, record.op_key, record.raw)
        data = self._read(root, self.index_name) or b""
        if self.SHOWN_MARK not in data:
            return None
        thing = shown_with(self._shown(data, lambda: self._records(root, self.ledger_name)), op_key)
        return None if thing is None else self._shown_receipt(op_key, thing)

    def _read(self, root: int, name: str) -> bytes | None:
        return read_file(root, name, max_bytes=self.MAX_FILE_BYTES)

    def _records(self, root: int, name: str) -> list[R]:
        return self._parse(self._read(root, name) or b"")

    def _receipt(self, file: str, op_key: str, first_key: str, raw: bytes) -> Receipt:
        return Receipt(self.name, op_key, f"{file}#{key_hash(first_key)}", digest(raw))

    def _shown_receipt(self, op_key: str, thing: Shown) -> Receipt:
        return self._receipt(self.index_name, op_key, thing.keys[0], thing.raw)

    def _sweep(self, root: int) -> None:
        """Remove temp files of the holding file that a killed writer left (never others')."""
        sweep_temps(
            root,
            now=self._clock(),
            older_than=STALE_TEMP_SECONDS,
            prefix=f".{self.holding_name}.",
        )
