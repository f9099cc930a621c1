"""A test HOME with every kind of store configured, and items planted the way dreamd plants."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from pathlib import Path

from dreamd.config import Settings, load_settings
from dreamd.stores import MemoryItem, Quote, Store
from dreamd.stores.claude_memory import ClaudeMemoryStore
from dreamd.stores.graph_jsonl import GraphStore
from dreamd.stores.memory_md import MemoryMdStore
from dreamd.stores.sql import SqlStore

PROJECT = "/work/app"
SESSION = "claude-code:laptop:5e55-1on"


def item(name: str, body: str, *, kind: str = "project", category: str = "Decision",
         project: str | None = PROJECT, message: str = "u1") -> MemoryItem:  # fmt: skip
    """A collected item of ``SESSION`` whose one quote is its body."""
    return MemoryItem(
        type=kind,  # type: ignore[arg-type]
        category=category,
        name=name,
        description=body.split(".")[0],
        body=body,
        confidence=0.8,
        source=f"source:{SESSION}",
        collected=date(2026, 11, 30),
        quotes=(Quote(f"{SESSION}:{message}", body),),
        project=project,
    )


def memory_folder(home: Path, project: str = PROJECT) -> Path:
    """Where Claude Code keeps the memory of ``project`` under ``home``."""
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", project) / "memory"


def write_config(home: Path, text: str) -> Path:
    """``text`` as the default config file of ``home``."""
    path = home / ".config" / "dreamd" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def every_store_config(home: Path, *, sql_url: str | None = None, extra: str = "") -> Path:
    """A config listing every store: memory folder, SQL, sectioned MEMORY.md, graph."""
    url = sql_url or f"sqlite:///{home / 'memory.db'}"
    return write_config(
        home,
        f'machine = "laptop"\n{extra}\n'
        '[collect]\nstores = ["claude-memory", "sql", "memory-md", "graph"]\n'
        f'[stores.sql]\nurl = "{url}"\n'
        f'[stores.memory-md]\npath = "{home / "notes" / "MEMORY.md"}"\n'
        f'[stores.graph]\npath = "{home / "graph" / "memory.jsonl"}"\n',
    )


def settings_of(home: Path) -> Settings:
    """The settings a command run on ``home`` reads."""
    return load_settings(home / ".config" / "dreamd" / "config.toml", env={}, home=home)


def stores_of(home: Path, url: str | None = None) -> dict[str, Store]:
    """The four adapters ``every_store_config`` names."""
    return {
        "claude-memory": ClaudeMemoryStore(memory_folder(home)),
        "sql": SqlStore(url or f"sqlite:///{home / 'memory.db'}", host="laptop"),
        "memory-md": MemoryMdStore(home / "notes" / "MEMORY.md"),
        "graph": GraphStore(home / "graph" / "memory.jsonl"),
    }


def renamed(base: MemoryItem, name: str, body: str) -> MemoryItem:
    """``base`` with another name and body (and its quote following the body)."""
    quote = Quote(base.quotes[0].message_id, body)
    return replace(base, name=name, body=body, description=body, quotes=(quote,))


def close(stores: dict[str, Store]) -> None:
    """Release the SQL store's connections."""
    sql = stores["sql"]
    assert isinstance(sql, SqlStore)
    sql.close()
