"""Outside access to the two text stores for the contract harnesses: tamper, list, crash, gate.

Everything here reads and edits the files directly, as a person or a crash
would, never through the adapter under test.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from dreamd.dream.gates.gemini import dream_gemini
from dreamd.dream.gates.graph import dream_graph
from dreamd.dream.gates.sectioned import dream_memory_md
from dreamd.stores import MemoryItem, Receipt
from dreamd.stores.gemini_md import HOLDING_HEADER as GEMINI_HOLDING_HEADER
from dreamd.stores.gemini_md import GeminiStore
from dreamd.stores.gemini_md import render_record as render_gemini_record
from dreamd.stores.graph_jsonl import (
    GraphStore,
    join_lines,
    parse_pending,
    render_pending,
    split_lines,
)
from dreamd.stores.memory_md import (
    HOLDING_HEADER,
    MemoryMdStore,
    decode,
    encode,
    parse_records,
    render_record,
    section_for,
)
from dreamd.stores.sectioned import entries, insert_block, replace_lines

#: The day the harnesses' gate runs on (the sample items are collected on 2026-11-30).
GATE_NOW = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)


def _text(path: Path) -> str:
    return decode(path.read_bytes()) if path.exists() else ""


# --- sectioned MEMORY.md ------------------------------------------------------------------------


def md_tamper(store: MemoryMdStore, receipt: Receipt) -> None:
    """Edit the record (or entry) the receipt names: ``because`` becomes ``since``."""
    file = store.folder / receipt.location.partition("#")[0]
    text = _text(file)
    if file == store.holding_path:
        spans = [(r.first, r.last, r.text) for r in parse_records(text) if receipt.op_key in r.keys]
    else:
        spans = [
            (e.first, e.last, e.text) for e in entries(text) if receipt.op_key in e.tail.op_keys
        ]
    first, last, old = spans[0]
    file.write_bytes(encode(replace_lines(text, first, last, old.replace("because", "since"))))


def md_held_keys(store: MemoryMdStore) -> list[str]:
    """Keys of held records, then of the ledger's records (repeats kept)."""
    held = parse_records(_text(store.holding_path)) + parse_records(_text(store.ledger_path))
    return [record.op_key for record in held if record.item is not None]


def md_strays(store: MemoryMdStore) -> list[str]:
    """Item lines of the holding file that hold no valid item."""
    return [r.text for r in parse_records(_text(store.holding_path)) if r.item is None]


def md_leave_partial(store: MemoryMdStore, key: str, item: MemoryItem) -> None:
    """The temp files a writer killed before its rename leaves: half a file, a whole one."""
    whole = encode(insert_block(HOLDING_HEADER, section_for(item), render_record(key, item)))
    store.folder.mkdir(parents=True, exist_ok=True)
    (store.folder / f".{store.holding_name}.0badc0ffee00.tmp").write_bytes(whole[: len(whole) // 2])
    (store.folder / f".{store.holding_name}.00c0ffee0bad.tmp").write_bytes(whole)


def md_accept(store: MemoryMdStore, receipt: Receipt) -> None:
    """Run the real validate gate; the item must come out accepted."""
    lines = dream_memory_md(
        store, run_dir=store.folder.parent / "runs" / "accept", now=GATE_NOW, dry_run=False
    )
    assert any(line.startswith("accepted") for line in lines.changes), lines


# --- knowledge-graph JSONL ----------------------------------------------------------------------


def graph_tamper(store: GraphStore, receipt: Receipt) -> None:
    """Edit the pending line (or entity) holding the receipt's key: ``because`` → ``since``."""
    file = store.folder / receipt.location.partition("#")[0]
    lines = split_lines(file.read_bytes())
    for index, raw in enumerate(lines):
        pending = parse_pending(raw)
        if receipt.op_key in pending.keys or (not pending.keys and receipt.op_key.encode() in raw):
            lines[index] = raw.replace(b"because", b"since")
            break
    file.write_bytes(join_lines(lines))


def graph_held_keys(store: GraphStore) -> list[str]:
    """Keys of pending lines, then of the ledger's lines (repeats kept)."""
    keys: list[str] = []
    for path in (store.pending_path, store.ledger_path):
        data = path.read_bytes() if path.exists() else b""
        keys += [p.op_key for p in map(parse_pending, split_lines(data)) if p.item is not None]
    return keys


def graph_strays(store: GraphStore) -> list[str]:
    """Pending lines that hold no valid item."""
    data = store.pending_path.read_bytes() if store.pending_path.exists() else b""
    return [
        raw.decode("utf-8", "replace")
        for raw in split_lines(data)
        if parse_pending(raw).item is None
    ]


def graph_leave_partial(store: GraphStore, key: str, item: MemoryItem) -> None:
    """The temp files a writer killed before its rename leaves."""
    whole = join_lines([render_pending(key, item)])
    store.folder.mkdir(parents=True, exist_ok=True)
    (store.folder / f".{store.pending_name}.0badc0ffee00.tmp").write_bytes(whole[: len(whole) // 2])
    (store.folder / f".{store.pending_name}.00c0ffee0bad.tmp").write_bytes(whole)


def graph_accept(store: GraphStore, receipt: Receipt) -> None:
    """Run the real validate gate; the item must come out accepted."""
    lines = dream_graph(
        store, run_dir=store.folder.parent / "runs" / "accept", now=GATE_NOW, dry_run=False
    )
    assert any(line.startswith("accepted") for line in lines.changes), lines


# --- Gemini's GEMINI.md -------------------------------------------------------------------------


def gemini_tamper(store: GeminiStore, receipt: Receipt) -> None:
    """Edit the held record, or the GEMINI.md line, the receipt names: ``because`` → ``since``."""
    file = store.folder / receipt.location.partition("#")[0]
    text = _text(file)
    if file == store.holding_path:
        (record,) = [r for r in parse_records(text) if receipt.op_key in r.keys]
        edited = replace_lines(
            text, record.first, record.last, record.text.replace("because", "since")
        )
    else:
        edited = text.replace("because", "since")
    file.write_bytes(encode(edited))


def gemini_held_keys(store: GeminiStore) -> list[str]:
    """Keys of held records, then of the ledger's records (repeats kept)."""
    held = parse_records(_text(store.holding_path)) + parse_records(_text(store.ledger_path))
    return [record.op_key for record in held if record.item is not None]


def gemini_strays(store: GeminiStore) -> list[str]:
    """Item lines of the holding file that hold no valid item."""
    return [r.text for r in parse_records(_text(store.holding_path)) if r.item is None]


def gemini_leave_partial(store: GeminiStore, key: str, item: MemoryItem) -> None:
    """The temp files a writer killed before its rename leaves: half a file, a whole one."""
    whole = encode(GEMINI_HOLDING_HEADER + render_gemini_record(key, item))
    store.folder.mkdir(parents=True, exist_ok=True)
    (store.folder / f".{store.holding_name}.0badc0ffee00.tmp").write_bytes(whole[: len(whole) // 2])
    (store.folder / f".{store.holding_name}.00c0ffee0bad.tmp").write_bytes(whole)


def gemini_accept(store: GeminiStore, receipt: Receipt) -> None:
    """Run the real validate gate; the item must come out accepted."""
    lines = dream_gemini(
        store, run_dir=store.folder.parent / "runs" / "accept", now=GATE_NOW, dry_run=False
    )
    assert any(line.startswith("accepted") for line in lines.changes), lines
