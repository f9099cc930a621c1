"""Package versions a repository declares, for the version-drift check (seed 004 Phase 2).

Seed 004 compares versions stored in memory with "reality": the manifests at
the top of the repository. The parsers are pure (text in, name → version
out); ``read_manifests`` is the one function that reads files. A manifest
that is missing or does not parse contributes nothing, never an error: a
drift report is advice, and a broken manifest is not the memory's fault.

What counts as "the version" of a dependency: the version a spec starts from
(``^18.2.0``, ``~1.2``, ``=1.34.0``, ``>=20.1`` → ``18.2.0``, ``1.2``,
``1.34.0``, ``20.1``). Python ranges are not versions, only ``==`` pins are;
paths, git URLs, tags and workspace references are skipped.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "PROJECT_VERSION_KEY",
    "parse_cargo_toml",
    "parse_go_mod",
    "parse_package_json",
    "parse_pyproject",
    "read_manifests",
]

#: Key of the project's own version in a manifest mapping (no package name has a colon).
PROJECT_VERSION_KEY = ":project"


def _spec_version(spec: object) -> str | None:
    """The version a spec starts from (``^18.2.0`` → ``18.2.0``); None for paths, URLs, tags."""
    if isinstance(spec, dict):
        spec = spec.get("version")
    if not isinstance(spec, str):
        return None
    match = re.match(r"^\s*(?:\^|~>?|={1,3}|>=|v)?\s*v?(\d+(?:\.\d+)*)", spec)
    return match.group(1) if match else None


def _own(found: dict[str, str], name: object, version: object) -> None:
    own = _spec_version(version)
    if own is None:
        return
    found.setdefault(PROJECT_VERSION_KEY, own)
    if isinstance(name, str) and name:
        found.setdefault(name, own)


def _deps(found: dict[str, str], table: object, skip: frozenset[str] = frozenset()) -> None:
    if not isinstance(table, dict):
        return
    for name, spec in table.items():
        version = _spec_version(spec)
        if version is not None and name not in skip:
            found.setdefault(name, version)


def parse_package_json(text: str) -> dict[str, str]:
    """Name → version from ``package.json``: its own version and every dependency table."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, str] = {}
    _own(found, data.get("name"), data.get("version"))
    for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        _deps(found, data.get(table))
    return found


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _table(data: object, *keys: str) -> dict[str, Any]:
    """``data[k1][k2]…`` when every step is a table, else an empty one."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


_PEP508_PIN = re.compile(r"^\s*([A-Za-z0-9][\w.\-]*)\s*(?:\[[^\]]*\])?\s*===?\s*v?(\d+(?:\.\d+)*)")


def _requirements(project: dict[str, Any]) -> Iterator[str]:
    groups = [project.get("dependencies")]
    groups.extend(_table(project, "optional-dependencies").values())
    for group in groups:
        if isinstance(group, list):
            yield from (str(item) for item in group)


def parse_pyproject(text: str) -> dict[str, str]:
    """Name → version from ``pyproject.toml``: ``[project]`` version and ``==`` pins, Poetry.

    Only ``==``/``===`` pins name a version; ``>=`` and other ranges do not.
    """
    data = _toml(text)
    found: dict[str, str] = {}
    project = _table(data, "project")
    _own(found, project.get("name"), project.get("version"))
    for requirement in _requirements(project):
        pin = _PEP508_PIN.match(requirement)
        if pin:
            found.setdefault(pin.group(1), pin.group(2))
    poetry = _table(data, "tool", "poetry")
    _own(found, poetry.get("name"), poetry.get("version"))
    _deps(found, poetry.get("dependencies"), frozenset({"python"}))
    for group in _table(poetry, "group").values():
        _deps(found, _table(group, "dependencies"))
    return found


def parse_cargo_toml(text: str) -> dict[str, str]:
    """Name → version from ``Cargo.toml``: ``[package]`` and the dependency tables."""
    data = _toml(text)
    found: dict[str, str] = {}
    package = _table(data, "package")
    _own(found, package.get("name"), package.get("version"))
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        _deps(found, data.get(table))
    _deps(found, _table(data, "workspace", "dependencies"))
    return found


_GO_MODULE_VERSION = re.compile(r"^\s*([\w.\-~]+(?:/[\w.\-~]+)+)\s+v(\d[\w.\-+]*)\s*$")


def _go_requirements(text: str) -> Iterator[tuple[str, str]]:
    """(module, version) of ``require x vN`` lines and ``require ( … )`` blocks only."""
    block = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0]
        if block:
            block = line.strip() != ")"
            entry = _GO_MODULE_VERSION.match(line) if block else None
        elif re.match(r"^\s*require\s*\(\s*$", line):
            block, entry = True, None
        else:
            single = re.match(r"^\s*require\s+(.*)$", line)
            entry = _GO_MODULE_VERSION.match(single.group(1)) if single else None
        if entry:
            yield entry.group(1), entry.group(2)


def parse_go_mod(text: str) -> dict[str, str]:
    """Name → version from ``go.mod``: the ``go`` directive and required modules.

    A module is also known by its last path part (``cobra`` for
    ``github.com/spf13/cobra``, skipping a ``/vN`` suffix) unless that name is taken.
    """
    found: dict[str, str] = {}
    go = re.search(r"^\s*go\s+(\d+(?:\.\d+)*)\s*$", text, re.MULTILINE)
    if go:
        found["go"] = go.group(1)
    short: dict[str, str] = {}
    for module, version in _go_requirements(text):
        found.setdefault(module, version)
        parts = [p for p in module.split("/") if not re.fullmatch(r"v\d+", p)]
        short.setdefault(parts[-1], version)
    for name, version in short.items():
        found.setdefault(name, version)
    return found


_MANIFESTS: tuple[tuple[str, Callable[[str], dict[str, str]]], ...] = (
    ("package.json", parse_package_json),
    ("pyproject.toml", parse_pyproject),
    ("Cargo.toml", parse_cargo_toml),
    ("go.mod", parse_go_mod),
)


def read_manifests(repo: Path) -> dict[str, str]:
    """I/O edge: name → version from the package manifests at the top of ``repo``.

    Reads ``package.json``, ``pyproject.toml``, ``Cargo.toml``, ``go.mod`` in
    that order; the first manifest naming a package wins. Missing, unreadable
    or malformed manifests contribute nothing.
    """
    found: dict[str, str] = {}
    for name, parse in _MANIFESTS:
        try:
            text = (repo / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for package, version in parse(text).items():
            found.setdefault(package, version)
    return found
