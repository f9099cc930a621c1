"""Memory items for store tests, and opening an adapter by kind and target."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Protocol

from dreamd.stores import MemoryItem, Quote, Receipt, Store
from dreamd.stores.claude_memory import ClaudeMemoryStore
from dreamd.stores.gemini_md import GeminiStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore
from dreamd.stores.sql import SqlStore

SOURCE = "source:claude-code:devbox:0a1f-session"
MESSAGE = "claude-code:devbox:0a1f-session"

#: Names that would leave a folder if used as paths, or break naive file naming.
HOSTILE_NAMES = (
    "../../etc/passwd",
    "/abs/path/to/file",
    "..",
    ".",
    ".hidden",
    "a\x00b",
    "back\\slash\\..\\..\\x",
    "MEMORY",
    "名前 ünïcödé Ω ﬁ",
    "💥" * 200,
    "x" * 5000,
    "con.md/../../",
    "\u202eevil\u202d.md",
    "-_-",
)


class ReadableStore(Store, Protocol):
    """A store that can also hand back the item a receipt points at (every adapter here)."""

    def read(self, receipt: Receipt) -> MemoryItem | None: ...


def sample_item(index: int = 0, *, name: str | None = None) -> MemoryItem:
    """A plain item; ``index`` varies its text, names repeat every three to force collisions."""
    return MemoryItem(
        type="project",
        category="Decision",
        name=name if name is not None else f"decision {index % 3}",
        description=f"We decided thing {index}",
        body=f"Use approach {index} because it is simpler.",
        confidence=0.75,
        source=SOURCE,
        collected=date(2026, 11, 30),
        quotes=(Quote(f"{MESSAGE}:{index + 1}", f"let's go with approach {index}"),),
        project="/home/dev/repo",
    )


def rich_item() -> MemoryItem:
    """An item with every field set to text that is awkward to store faithfully."""
    return MemoryItem(
        type="feedback",
        category="Preference",
        name="prefer: uv — not pip # really",
        description="'Quoted' \"description\": with a colon, unicode 名前 and trailing space ",
        body="Always use uv.\n\n---\nnever pip\r\nkeys: {not: yaml}\n  indented\n\ttab\n",
        confidence=0.8125,
        source=SOURCE,
        collected=date(2026, 2, 28),
        quotes=(
            Quote(f"{MESSAGE}:7", "always use uv, never pip\nsecond line  "),
            Quote(f"{MESSAGE}:8", "- a list?\n# a comment?\n...\n---"),
            Quote(f"{MESSAGE}:9", "\x85 \u2028 \ufeff \x1c control"),
        ),
        project="/home/dev/répo with spaces",
    )


def open_store(kind: str, target: str) -> ReadableStore:
    """The adapter ``kind`` over ``target`` (folder, URL, or the store's file)."""
    if kind == "claude-memory":
        return ClaudeMemoryStore(Path(target))
    if kind in ("sql", "postgresql"):
        return SqlStore(target)
    if kind == "memory-md":
        return MemoryMdStore(Path(target))
    if kind == "graph":
        return GraphStore(Path(target))
    if kind == "gemini":
        return GeminiStore(Path(target))
    raise ValueError(f"no persistent adapter {kind!r}")
