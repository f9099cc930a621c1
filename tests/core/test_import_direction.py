"""Imports point down the data flow: readers → collect → stores; stores → dream → stores.

Every ``import`` in the package (function-level ones included, which could
otherwise hide a cycle) is read from the installed source and checked
against the layers below. A module may import its own package, the neutral
base and the layers its row names; nothing imports the command line or the
service but the command line itself; no module reaches into another
package's private (``_``-prefixed) modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import dreamd
import dreamd.readers
import dreamd.stores

#: Modules every layer may use: errors, the file layer (reads, writes), Markdown fences, where
#: agents keep their files, which repository a folder belongs to, the secret filter.
BASE = (
    "dreamd.errors",
    "dreamd.fs",
    "dreamd.fswrite",
    "dreamd.markdown",
    "dreamd.agentdirs",
    "dreamd.gitroot",
    "dreamd.secrets",
    "dreamd.logs",  # every layer logs; structlog is loaded on the first line
    "dreamd.gcpause",  # the cycle collector paused over acyclic bulk work
    "dreamd.tools",  # the names of the tools dreamd reads
    "dreamd.lazymap",  # readers and roots made on first use
    "dreamd.__version__",  # which dreamd kept a value (a kept count is another's otherwise)
)
#: The application's core every job may use: settings, state, logs, locks, selection.
CORE = (
    "dreamd.config",
    "dreamd.configcheck",
    "dreamd.statedb",
    "dreamd.sqlite",
    "dreamd.staterows",
    "dreamd.migrations",
    "dreamd.lock",
    "dreamd.catalog",
    "dreamd.readpool",
    "dreamd.selection",
    "dreamd.privacy",
    "dreamd.sessioninfo",
    "dreamd.runrecord",
    "dreamd.runlog",
    "dreamd.runstory",
    "dreamd.runview",
    "dreamd.schedule",
    "dreamd.prompts",
    "dreamd.progress",
    "dreamd.tools",
)

#: (module prefix, what it may import besides itself and ``BASE``), most specific first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("dreamd.readers", ()),
    ("dreamd.stores", ("dreamd.sqlite",)),
    ("dreamd.secrets", ("dreamd.stores",)),
    ("dreamd.errors", ()),
    ("dreamd.fswrite", ()),
    ("dreamd.fs", ()),
    ("dreamd.markdown", ()),
    ("dreamd.agentdirs", ()),
    ("dreamd.gitroot", ()),
    ("dreamd.sessioninfo", ("dreamd.readers",)),
    ("dreamd.selection", ("dreamd.sessioninfo",)),
    ("dreamd.privacy", ()),
    ("dreamd.sqlite", ()),
    ("dreamd.staterows", ("dreamd.sessioninfo", "dreamd.readers")),
    ("dreamd.schedule", ()),
    ("dreamd.logs", ("dreamd.secrets",)),  # the redaction of every line
    ("dreamd.lock", ()),
    ("dreamd.progress", ()),
    ("dreamd.tools", ()),
    ("dreamd.lazymap", ()),
    ("dreamd.gcpause", ()),
    ("dreamd.migrations", ()),
    (
        "dreamd.statedb",
        (
            "dreamd.sessioninfo",
            "dreamd.readers",
            "dreamd.sqlite",
            "dreamd.staterows",
            "dreamd.migrations",
            "dreamd.logs",  # the one line saying it tightened an old data folder
        ),
    ),
    ("dreamd.configcheck", ("dreamd.config", "dreamd.stores")),
    (
        "dreamd.config",
        ("dreamd.readers", "dreamd.stores", "dreamd.schedule", "dreamd.configcheck"),
    ),
    (
        "dreamd.readpool",
        # staterows: the workers hand their summaries back packed as the cache stores them
        ("dreamd.readers", "dreamd.sessioninfo", "dreamd.staterows", "dreamd.logs"),
    ),
    (
        "dreamd.catalog",
        (
            "dreamd.readers",
            "dreamd.statedb",
            "dreamd.sessioninfo",
            "dreamd.logs",
            "dreamd.readpool",
        ),
    ),
    ("dreamd.runrecord", ("dreamd.statedb", "dreamd.logs", "dreamd.runlog", "dreamd.runstory")),
    ("dreamd.runlog", ("dreamd.statedb",)),
    ("dreamd.runstory", ()),
    ("dreamd.runview", ("dreamd.statedb", "dreamd.runlog", "dreamd.runstory", "dreamd.runrecord")),
    ("dreamd.collect", ("dreamd.readers", "dreamd.stores", *CORE)),
    ("dreamd.dream", ("dreamd.readers", "dreamd.stores", *CORE)),
    ("dreamd.jobs", ("dreamd.collect", "dreamd.dream", "dreamd.stores", "dreamd.readers", *CORE)),
    ("dreamd.render", ("dreamd.readers", *CORE)),
    # dreamd doctor: reads the settings, the stores' schema and the service files; runs no job.
    (
        "dreamd.service.doctor",
        ("dreamd.service", "dreamd.collect", "dreamd.stores", "dreamd.readers", *CORE),
    ),
    (
        "dreamd.service",
        ("dreamd.jobs", "dreamd.collect", "dreamd.dream", "dreamd.stores", "dreamd.readers", *CORE),
    ),
    # The read path: searches every store; nothing but the CLI and the MCP server uses it.
    ("dreamd.search", ("dreamd.stores", "dreamd.config", "dreamd.statedb", "dreamd.logs")),
    # The MCP server: the read path, and the collector's write plan for its opt-in writes.
    (
        "dreamd.mcpserver",
        (
            "dreamd.search",
            "dreamd.collect",
            "dreamd.stores",
            "dreamd.config",
            "dreamd.statedb",
            "dreamd.__version__",
        ),
    ),
    ("dreamd.cli", ("dreamd",)),
    ("dreamd.__main__", ("dreamd.cli",)),
)

#: Where each mapped package's source is (``package-dir`` maps them to separate folders).
ROOTS = (
    ("dreamd", Path(dreamd.__file__).parent),
    ("dreamd.readers", Path(dreamd.readers.__file__).parent),
    ("dreamd.stores", Path(dreamd.stores.__file__).parent),
)


def _modules() -> Iterator[tuple[str, Path]]:
    """Every module of the package and the file it was loaded from."""
    roots = ROOTS
    seen: set[str] = set()
    for prefix, folder in roots:
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((prefix, *parts)).removesuffix(".__init__")
            if name not in seen and "__pycache__" not in path.parts:
                seen.add(name)
                yield name, path


def _imports(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of every import in the module, at any depth."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "dreamd" or (base.endswith(".dream") and not node.module):
                yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)
            else:
                yield node.lineno, base


def _layer(module: str) -> tuple[str, tuple[str, ...]] | None:
    if module == "dreamd":
        return "dreamd", ()  # the package itself holds only its version
    return next(((prefix, allowed) for prefix, allowed in LAYERS if _within(module, prefix)), None)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _private_of_other_package(module: str, target: str) -> bool:
    """``dreamd.x._y`` imported from outside ``dreamd.x``."""
    parts = target.split(".")
    for depth, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:depth])
            return not _within(module, owner)
    return False


def _problems() -> list[str]:
    problems: list[str] = []
    for module, path in _modules():
        layer = _layer(module)
        if layer is None:
            problems.append(f"{module}: no layer is declared for it in this test")
            continue
        prefix, allowed = layer
        for line, target in _imports(module, path):
            if not _within(target, "dreamd") or _within(target, prefix):
                continue
            if any(_within(target, base) for base in (*BASE, *allowed)):
                if _private_of_other_package(module, target):
                    problems.append(f"{module}:{line} imports the private {target}")
                continue
            problems.append(f"{module}:{line} imports {target}, which lies up the flow")
    return problems


def test_every_import_points_down_the_flow() -> None:
    """No module imports a layer above its own, at any depth, nor another package's privates."""
    assert _problems() == []


@pytest.mark.parametrize("upward", ["dreamd.cli", "dreamd.service"])
def test_nothing_but_the_command_line_imports_the_entry_points(upward: str) -> None:
    """The CLI and the service are leaves: only the CLI (and ``__main__``) use them."""
    users = {
        module
        for module, path in _modules()
        for _, target in _imports(module, path)
        if _within(target, upward) and not _within(module, upward)
    }
    assert {user for user in users if not _within(user, "dreamd.cli")} <= {"dreamd.__main__"}


@pytest.mark.parametrize(
    ("leaf", "allowed"),
    [("dreamd.search", {"dreamd.cli", "dreamd.mcpserver"}), ("dreamd.mcpserver", {"dreamd.cli"})],
)
def test_only_the_command_line_and_the_mcp_server_use_the_read_path(
    leaf: str, allowed: set[str]
) -> None:
    """The read path and the MCP server are leaves: only the CLI (and the server) import them."""
    users = {
        module
        for module, path in _modules()
        for _, target in _imports(module, path)
        if _within(target, leaf) and not _within(module, leaf)
    }
    assert [user for user in users if not any(_within(user, ok) for ok in allowed)] == []
