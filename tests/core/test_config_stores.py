"""Configuration of the one-file stores: ``[stores.memory-md]`` and ``[stores.graph]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamd.config import Settings, parse_config
from dreamd.errors import ConfigError
from dreamd.stores.filespec import located


def settings(text: str) -> Settings:
    return Settings(parse_config(text), None, Path("/data"), "box")


def test_both_tables_are_read_with_readable_keys(isolated_home: Path) -> None:
    """``memory-md`` and ``graph`` tables; ``~`` is the home; listed stores get their files."""
    found = settings(
        '[collect]\nstores = ["memory-md", "graph", "sql"]\n'
        '[stores.memory-md]\npath = "~/notes/MEMORY.md"\nrepo = "~/src/app"\n'
        '[stores.graph]\npath = "/srv/kg/memory.jsonl"\n'
    )
    listed = {spec.name: table for spec, table in found.listed_stores()}
    assert list(listed) == ["memory-md", "graph", "sql"]
    assert located(listed["memory-md"], isolated_home) == (  # type: ignore[arg-type]
        isolated_home / "notes" / "MEMORY.md", isolated_home / "src" / "app",
    )  # fmt: skip
    assert located(listed["graph"], isolated_home) == (Path("/srv/kg/memory.jsonl"), None)  # type: ignore[arg-type]


def test_a_configured_file_store_not_listed_in_collect_stores_is_not_used() -> None:
    """The table alone does not turn a store on (the default list is claude-memory, sql)."""
    found = settings('[stores.graph]\npath = "/srv/kg/memory.jsonl"\n')
    assert [spec.name for spec, _ in found.listed_stores()] == ["claude-memory", "sql"]


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ('[collect]\nstores = ["memory-md"]\n', "stores.memory-md.path", "give its file"),
        ('[collect]\nstores = ["graph"]\n', "stores.graph.path", "give its file"),
        ('[collect]\nstores = ["sql", "redis"]\n', "collect.stores[1]", "unknown store 'redis'"),
        ('[stores.graph]\npath = "kg/memory.jsonl"\n', "stores.graph.path", "must be absolute"),
        ('[stores.memory-md]\nrepo = "src"\n', "stores.memory-md.repo", "must be absolute"),
        ('[stores.memory_md]\npath = "/x/MEMORY.md"\n', "stores.memory_md", "unknown key"),
    ],
)
def test_mistakes_name_the_key(text: str, key: str, problem: str) -> None:
    """A store listed without its file, an unknown store, a relative path: ``ConfigError``."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert caught.value.key == key and problem in str(caught.value)
