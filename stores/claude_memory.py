"""The Claude Code memory folder store: new items become topic files in ``<folder>/.inbox/``.

Rules (seed 002 phase 4, SPEC "Stores", issue 4 item 4):

- New items land where the gardener's validate gate sees them as new, the
  ``.inbox/`` subfolder; the collector never writes outside it. It only
  *reads* the folder's top-level topic files, to find items the gate has
  already accepted (the gate keeps ``metadata.op_key``, or lists merged keys
  in ``metadata.op_keys``), so a retry after a dream cannot plant twice.
- A file is a topic file in Claude Code's own shape: YAML front matter with
  ``name`` (a short human title), ``description`` (one line), ``type``,
  ``originSessionId`` (the session it came from, as Claude Code names it
  beside a top-level ``type``) and a ``metadata:`` block holding the
  provenance (``source``, ``collected``), the ``op_key``, ``confidence``,
  ``category``, ``project`` and the ``quotes`` (message id and text); the
  body is the memory itself, with its ``**Why:**`` and ``**How to apply:**``
  lines where the conversation gave them. Every field round-trips exactly;
  ``write`` checks that before it writes.
- The operation key lives only in the file, so the files are the truth:
  ``find`` reads front matter and nothing can disagree with it after a crash.
  The key index (``_keyindex``) only spares re-reading files whose version
  (inode, size, mtime, ctime) it has seen; a hit is confirmed in the file.
  Each look-up lists the folder, except inside ``planning()`` (one plan):
  there the first look-up lists it and the others share that listing, plus
  what the plan wrote; a write still checks, under the lock, that neither
  folder changed since (``_keyindex.Listing``).
  Temp files (hidden, ``.tmp``) are never items, whatever they hold.
- The file name is ``<type>_<short slug>.md`` (the folder's convention, whose
  prefix the dream's index budget reads): the first ``SHORT_SLUG_WORDS``
  words of the title that carry meaning, joined by ``_`` (``topic_stem``),
  made unique with ``-2``, ``-3`` … only on a collision against ``.inbox/``
  and the folder, and always one safe component.
- One writer at a time: find-then-write runs under ``flock`` on
  ``.inbox/.lock``, so two processes writing one key keep one file.
- ``update`` rewrites only an ``.inbox/`` file (never an accepted one), under
  the same lock, after checking the file still has the digest the caller
  read; it replaces the file atomically and lists the update's key in
  ``metadata.op_keys`` (the key the gate already reads), so the file is found
  under every key that wrote it and a replayed update changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dreamd.errors import StoreError
from dreamd.fs import (
    digest,
    exists,
    is_safe_name,
    open_folder,
    open_subfolder,
    read_file,
    slugify,
)
from dreamd.fswrite import exclusive_lock, replace_file, sweep_temps, write_new
from dreamd.logs import get_logger

if TYPE_CHECKING:
    import yaml

from ._item import MemoryItem, Receipt
from ._keyindex import (
    Entry,
    FolderVersion,
    ItemVersion,
    KeyIndex,
    Listing,
    MemoryKeyIndex,
    folder_version,
    folder_versions,
    stale_locations,
)
from ._known import folder_memories
from ._protocol import Capabilities, HeldItem, KnownMemory
from ._topicparse import index_fields, parse_item, stored_op_keys, update_keys
from .claudespec import SPEC, ClaudeMemoryTable, memory_folder_for
from .memory import ITEM_FIELDS

__all__ = [
    "INBOX",
    "SPEC",
    "ClaudeMemoryStore",
    "ClaudeMemoryTable",
    "file_names",
    "memory_folder_for",
    "origin_session",
    "parse_item",
    "render_item",
    "short_slug",
    "stored_op_keys",
    "topic_stem",
]

#: The subfolder new items go to; the validate gate moves them out.
INBOX = ".inbox"
#: Lock file inside the inbox (hidden: never a topic file).
LOCK_NAME = ".lock"
#: A file larger than this is not one of our items (and is never read whole).
MAX_ITEM_BYTES = 4 * 1024 * 1024
#: Temp files older than this belong to a writer that died; younger ones may be in progress.
STALE_TEMP_SECONDS = 3600.0
#: How many ``-N`` suffixes to try before giving up on a name.
MAX_NAME_SUFFIX = 10_000
#: A file name holds this many words of the item's title ("a few words").
SHORT_SLUG_WORDS = 4
#: ... and at most this many bytes of them.
MAX_SHORT_SLUG_BYTES = 48
#: Words a file name leaves out (negations stay: they carry the meaning).
_SLUG_FILLERS = frozenset(
    {"a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "and", "or", "is"}
    | {"are", "be", "was", "it", "its", "this", "that", "we", "you", "i"}
)

log = get_logger("dreamd.stores")

_OPENING = "---"
#: Lines of front matter are folded at this width (YAML folding reads back unchanged).
_YAML_WIDTH = 100


@cache
def _dumper() -> type[yaml.SafeDumper]:
    """The safe dumper (libyaml's where installed), writing multi-line text as ``|`` blocks
    (quotes stay readable). Made, and YAML imported, by the first item rendered: looking up
    ``topic_stem`` or reading a folder writes no YAML."""
    import yaml

    base: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Dumper(base):  # type: ignore[misc,valid-type]
        """The safe dumper, with text as ``|`` blocks where it spans lines."""

    def represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None  # the emitter falls back where ``|`` cannot
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, represent_text)
    return Dumper


class ClaudeMemoryStore:
    """Adapter for one Claude Code memory folder (``…/projects/<project>/memory``)."""

    def __init__(
        self,
        folder: Path,
        *,
        clock: Callable[[], float] = time.time,
        index: KeyIndex | None = None,
    ) -> None:
        self.folder = folder.absolute()
        self._clock = clock
        self._index: KeyIndex = MemoryKeyIndex() if index is None else index
        self._planning = 0  # how many ``planning()`` blocks are open
        self._listing: Listing | None = None  # the open plan's listing

    @property
    def name(self) -> str:
        """``claude-memory:<absolute folder>``."""
        return f"claude-memory:{self.folder}"

    @property
    def capabilities(self) -> Capabilities:
        """Every item field; the folder has a trash and an index, and belongs to one host."""
        return Capabilities(fields=ITEM_FIELDS, trash=True, index=True, shared=False)

    @contextmanager
    def planning(self) -> Iterator[None]:
        """One plan's look-ups: the folder is listed once (at the first), not at each.

        Within the block a look-up sees the folder as first listed, plus the
        block's own writes; ``write`` and ``update`` list again, under the
        lock, if either folder changed since. A file changed by hand after the
        listing is seen by the next block (or look-up outside one).
        """
        self._planning += 1
        try:
            yield
        finally:
            self._planning -= 1
            if not self._planning:
                self._listing = None

    def find(self, op_key: str) -> Receipt | None:
        """The receipt of the file holding ``op_key``: ``.inbox/`` first, then accepted files."""
        if not self.folder.is_dir():
            return None
        with (
            open_folder(self.folder, create=False) as root,
            open_subfolder(root, INBOX, create=False) as inbox,
        ):
            return self._find(root, inbox, op_key)

    def write(self, op_key: str, item: MemoryItem) -> Receipt:
        """Plant ``item`` as a new ``.inbox/`` topic file, unless ``op_key`` is already held."""
        data = render_item(op_key, item)
        with (
            open_folder(self.folder, create=True) as root,
            open_subfolder(root, INBOX, create=True) as inbox,
        ):
            assert inbox is not None  # created above
            with exclusive_lock(inbox, LOCK_NAME):
                existing = self._find(root, inbox, op_key, fresh=True)
                if existing is not None:
                    return existing
                sweep_temps(inbox, now=self._clock(), older_than=STALE_TEMP_SECONDS)
                receipt = self._plant(root, inbox, op_key, item, data)
                self._wrote(receipt.location, [op_key], item.source)
                return receipt

    def verify(self, receipt: Receipt, op_key: str) -> bool:
        """Whether the receipt's file still holds exactly the bytes written under ``op_key``."""
        if receipt.store != self.name or receipt.op_key != op_key:
            return False
        data = self._load(receipt.location)
        if data is None or digest(data) != receipt.digest:
            return False
        return op_key in stored_op_keys(data)

    def read(self, receipt: Receipt) -> MemoryItem | None:
        """The item in the receipt's file as it is now; None when gone or no longer an item."""
        data = self._load(receipt.location)
        if data is None or receipt.op_key not in stored_op_keys(data):
            return None
        parsed = parse_item(data)
        return None if parsed is None else parsed[1]

    def items_from(self, source: str) -> list[HeldItem]:
        """Items tagged ``source``: ``.inbox/`` files (pending) first, then accepted ones."""
        if not self.folder.is_dir():
            return []
        held: list[HeldItem] = []
        with (
            open_folder(self.folder, create=False) as root,
            open_subfolder(root, INBOX, create=False) as inbox,
        ):
            folders, listing, _ = self._listed(root, inbox)
            for location in listing.tagged(source):
                data = _read_at(folders, location)
                parsed = parse_item(data) if data is not None else None
                if data is None or parsed is None or parsed[1].source != source:
                    continue
                receipt = Receipt(self.name, parsed[0], location, digest(data))
                held.append(HeldItem(receipt, parsed[1], pending=location.startswith(INBOX)))
        return held

    def memories_of(self, project: str, *, limit: int) -> list[KnownMemory]:
        """Every memory of the folder (it is the project's) and its inbox, newest first."""
        return folder_memories(self.folder, INBOX, limit)

    def update(self, op_key: str, target: Receipt, item: MemoryItem) -> Receipt | None:
        """Rewrite the ``.inbox/`` file ``target`` names; None when accepted, gone or changed."""
        parts = target.location.split("/")
        in_inbox = len(parts) == 2 and parts[0] == INBOX and is_safe_name(parts[1])
        if not in_inbox or not _is_item_file_name(parts[1]) or not self.folder.is_dir():
            return self.find(op_key)
        with (
            open_folder(self.folder, create=False) as root,
            open_subfolder(root, INBOX, create=False) as inbox,
        ):
            if inbox is None:
                return self._find(root, inbox, op_key)
            with exclusive_lock(inbox, LOCK_NAME):
                existing = self._find(root, inbox, op_key, fresh=True)
                if existing is not None:
                    return existing
                data = read_file(inbox, parts[1], max_bytes=MAX_ITEM_BYTES)
                if target.store != self.name or data is None or digest(data) != target.digest:
                    return None
                parsed = parse_item(data)
                if parsed is None or parsed[0] != target.op_key:
                    return None
                current = parsed[1]
                if (item.source, item.type, item.name) != (
                    current.source, current.type, current.name,
                ):  # fmt: skip
                    raise StoreError(f"an update cannot change what item {current.name!r} is")
                new = render_item(target.op_key, item, updates=[*update_keys(data), op_key])
                sweep_temps(inbox, now=self._clock(), older_than=STALE_TEMP_SECONDS)
                replace_file(inbox, parts[1], new)
                self._wrote(target.location, [op_key], current.source)
                return Receipt(self.name, op_key, target.location, digest(new))

    def _find(
        self, root: int, inbox: int | None, op_key: str, *, fresh: bool = False
    ) -> Receipt | None:
        """The first file (``.inbox/`` first, by name) holding ``op_key``.

        ``fresh`` (under the lock, before a write): a plan's listing is used
        only if neither folder changed since it was taken. A listed hit that
        no longer holds the key sends the look-up to a new listing.
        """
        folders, listing, shared = self._listed(root, inbox, fresh=fresh)
        found = self._first_holding(folders, listing, op_key)
        if found is None and shared and listing.holding(op_key):
            folders, listing, _ = self._listed(root, inbox, again=True)
            found = self._first_holding(folders, listing, op_key)
        return found

    def _first_holding(
        self, folders: dict[str, int], listing: Listing, op_key: str
    ) -> Receipt | None:
        """The receipt of the first listed file that holds ``op_key`` when read now."""
        for location in listing.holding(op_key):
            data = _read_at(folders, location)
            if data is not None and op_key in stored_op_keys(data):
                return Receipt(self.name, op_key, location, digest(data))
        return None

    def _listed(
        self, root: int, inbox: int | None, *, fresh: bool = False, again: bool = False
    ) -> tuple[dict[str, int], Listing, bool]:
        """(open folders by prefix, the listing to look up in, whether it is the open plan's
        earlier one): the plan's listing when it can be used (``_find``), else a new one."""
        folders = {"": root} if inbox is None else {f"{INBOX}/": inbox, "": root}
        kept = self._listing
        if (
            kept is not None
            and not again
            and kept.folders.keys() == folders.keys()
            and (not fresh or kept.still_true({p: folder_version(f) for p, f in folders.items()}))
        ):
            return folders, kept, True
        listing = self._indexed(folders)
        if self._planning:
            self._listing = listing
        return folders, listing, False

    def _indexed(self, folders: dict[str, int]) -> Listing:
        """A new listing of ``folders``, after reading only the files the key index has not
        seen at their current version (and indexing them)."""
        listed_ns = time.time_ns()
        versions: dict[str, FolderVersion | None] = {
            prefix: folder_version(folder) for prefix, folder in folders.items()
        }
        current: dict[str, ItemVersion] = {}
        for prefix, folder in folders.items():
            found = folder_versions(folder, prefix, _is_item_file_name)
            current.update(sorted(found.items()))
        remembered = self._index.entries(self.name)
        stale, gone = stale_locations(remembered, current)
        changed: dict[str, Entry] = {}
        for location in stale:
            data = _read_at(folders, location)
            fields = index_fields(data) if data is not None else (frozenset(), "")
            changed[location] = (current[location], *fields)
        if changed or gone:
            self._index.update(self.name, changed, gone)
            remembered.update(changed)
        return Listing(versions, listed_ns, current, remembered)

    def _wrote(self, location: str, keys: Sequence[str], source: str) -> None:
        """Our own write, added to the open plan's listing (the next plan lists it anew)."""
        if self._listing is not None:
            prefix = f"{INBOX}/" if location.startswith(f"{INBOX}/") else ""
            self._listing.wrote(prefix, location, keys, source)

    def _plant(self, root: int, inbox: int, op_key: str, item: MemoryItem, data: bytes) -> Receipt:
        for name in file_names(item):
            if exists(root, name) or exists(inbox, name):
                continue
            if write_new(inbox, name, data):
                return Receipt(self.name, op_key, f"{INBOX}/{name}", digest(data))
        raise StoreError(f"no free file name for {item.name!r} in {self.folder / INBOX}")

    def _load(self, location: str) -> bytes | None:
        """The bytes at a receipt location (``.inbox/<name>`` or ``<name>``), never outside."""
        parts = location.split("/")
        if not all(is_safe_name(part) for part in parts) or not self.folder.is_dir():
            return None
        if len(parts) == 1 and _is_item_file_name(parts[0]):
            with open_folder(self.folder, create=False) as root:
                return read_file(root, parts[0], max_bytes=MAX_ITEM_BYTES)
        if len(parts) == 2 and parts[0] == INBOX and _is_item_file_name(parts[1]):
            with (
                open_folder(self.folder, create=False) as root,
                open_subfolder(root, INBOX, create=False) as inbox,
            ):
                if inbox is None:
                    return None
                return read_file(inbox, parts[1], max_bytes=MAX_ITEM_BYTES)
        return None


def _read_at(folders: dict[str, int], location: str) -> bytes | None:
    """The bytes at ``location`` (``.inbox/<name>`` or ``<name>``) in the open folders."""
    prefix, _, name = location.rpartition("/")
    return read_file(folders[prefix + "/" if prefix else ""], name, max_bytes=MAX_ITEM_BYTES)


def _is_item_file_name(name: str) -> bool:
    """Topic files only: Markdown, not hidden (temp files, the lock), not the index files."""
    return name.endswith(".md") and not name.startswith((".", "MEMORY"))


def short_slug(title: str) -> str:
    """A few words of ``title`` as a file name part: ``Always run the linter first`` →
    ``always_run_linter_first``.

    The first ``SHORT_SLUG_WORDS`` words of its slug (``fs.slugify``) that are
    not function words (all of them when nothing else is left), joined by
    ``_``, at most ``MAX_SHORT_SLUG_BYTES`` bytes.
    """
    words = slugify(title).split("-")
    meaningful = [word for word in words if word not in _SLUG_FILLERS] or words
    kept = slugify(" ".join(meaningful[:SHORT_SLUG_WORDS]), max_bytes=MAX_SHORT_SLUG_BYTES)
    return kept.replace("-", "_")


def topic_stem(kind: str, title: str) -> str:
    """``<type>_<short slug>``: the stem of a collected item's file (the dream's gate too)."""
    return f"{kind}_{short_slug(title)}"


def file_names(item: MemoryItem) -> Iterator[str]:
    """Candidate file names for ``item``, in order: ``<type>_<short slug>.md``, then ``-2`` …"""
    stem = topic_stem(item.type, item.name)
    yield f"{stem}.md"
    for suffix in range(2, MAX_NAME_SUFFIX + 1):
        yield f"{stem}-{suffix}.md"


def render_item(op_key: str, item: MemoryItem, *, updates: Sequence[str] = ()) -> bytes:
    """The topic file for ``item`` under ``op_key``; ``StoreError`` if it cannot round-trip.

    ``updates`` are the keys of the updates that made the item read as it does
    (``metadata.op_keys``, after ``op_key``).
    """
    if not op_key or not all(updates):
        raise StoreError("an operation key cannot be empty")
    metadata: dict[str, Any] = {
        "source": item.source,
        "collected": item.collected,
        "op_key": op_key,
    }
    if updates:
        metadata["op_keys"] = list(updates)
    metadata.update(confidence=item.confidence, category=item.category)
    if item.project is not None:
        metadata["project"] = item.project
    metadata["quotes"] = [
        {"message": quote.message_id, "text": quote.text} for quote in item.quotes
    ]
    front: dict[str, Any] = {"name": item.name, "description": item.description}
    front.update(type=item.type, originSessionId=origin_session(item.source), metadata=metadata)
    try:
        import yaml

        block = yaml.dump(
            front, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=_YAML_WIDTH
        )
        data = f"{_OPENING}\n{block}{_OPENING}\n{item.body}\n".encode()
    except UnicodeEncodeError as error:
        raise StoreError(f"item {item.name!r} holds text that is not valid Unicode") from error
    faithful = parse_item(data) == (op_key, item) and update_keys(data) == list(updates)
    if len(data) > MAX_ITEM_BYTES or not faithful:
        raise StoreError(f"item {item.name!r} cannot be written as a topic file faithfully")
    return data


def origin_session(source: str) -> str:
    """The session of ``source:<tool>:<machine>:<session>``: Claude Code's ``originSessionId``."""
    return source.split(":", 3)[3]
