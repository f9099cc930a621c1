"""Checks of the configuration beyond its types (issue 15, configuration item 12).

Each rule is one function returning ``(dotted key, problem)`` or None, so a
value that would fail later (or never) is one line at load instead, naming
the file and the key. Two kinds:

- rules on the values alone (``value_problems``), run by ``parse_config``:
  the machine name, the extractor servers' ``base_url``;
- rules on this machine (``place_problems``), run by ``load_settings`` with
  the home ``~`` stands for: the extractor program, the dream roots, the log
  file's folder, and each store's own ``check_place`` (a SQLite file's
  folder, a one-file store's folder and repository). dreamd creates none of
  these folders: a path that does not exist is a mistake to report.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from dreamd.config import Config

__all__ = ["folder_problem", "machine_problem", "place_problems", "value_problems"]

#: A machine name: it goes into provenance tags (``source:<tool>:<machine>:<id>``), message
#: ids and file names, so no ``:``, ``/`` or spaces; letters, digits, ``.``, ``_``, ``-``.
MACHINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


def machine_problem(machine: str) -> str | None:
    """Why ``machine`` cannot name this host in tags and file names, or None."""
    if not machine.strip():
        return "must not be empty (leave it out to use the host name)"
    if not MACHINE.match(machine) or ".." in machine:
        return (
            f"{machine!r} is not a machine name: letters, digits, '.', '_' and '-' "
            "(no '/', ':' or spaces), at most 63 characters"
        )
    return None


def url_problem(value: str) -> str | None:
    """Why a server ``base_url`` is not an http(s) URL, or None (empty: the default)."""
    if not value:
        return None
    parts = urlsplit(value) if not any(c.isspace() for c in value) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{value!r} is not an http:// or https:// URL"
    return None


def value_problems(config: Config) -> Iterator[tuple[str, str]]:
    """The rules on values alone, in the order the file is read."""
    if config.machine is not None:
        problem = machine_problem(config.machine)
        if problem is not None:
            yield "machine", problem
    for name in ("openai", "anthropic"):
        problem = url_problem(getattr(config.extractors, name).base_url)
        if problem is not None:
            yield f"extractors.{name}.base_url", problem


def folder_problem(path: Path) -> str | None:
    """Why ``path`` is no folder to dream over (missing, a file, ``/``), or None."""
    if not path.exists():
        return f"{path}: no such folder"
    if not path.is_dir():
        return f"{path}: not a folder"
    if path.resolve() == Path(path.anchor or "/"):
        return f"{path}: the root of the filesystem is no memory folder"
    return None


def expand(value: str, home: Path) -> Path:
    """``value`` with a leading ``~`` read as ``home``."""
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def place_problems(config: Config, home: Path, env: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """The rules on this machine: what the configuration names exists here."""
    from dreamd.stores.registry import STORES

    yield from _extractor_program(config, home, env)
    for index, root in enumerate(config.dream.roots):
        problem = folder_problem(expand(root, home))
        if problem is not None:
            yield f"dream.roots[{index}]", problem
    log_file = config.service.log_file.strip()
    if log_file:
        folder = expand(log_file, home).parent
        if not folder.is_dir():
            problem = f"the folder {folder} does not exist (dreamd does not create it)"
            yield "service.log_file", problem
    for name, spec in STORES.items():
        found = spec.check_place(config.stores[name], home)
        if found is not None:
            yield f"stores.{name}.{found[0]}", found[1]


def _extractor_program(
    config: Config, home: Path, env: Mapping[str, str]
) -> Iterator[tuple[str, str]]:
    """The command extractor's program is installed (argv's first word, or the preset's)."""
    if config.collect.extractor != "command":
        return
    command = config.extractors.command
    if command.argv:
        program, key = command.argv[0], "extractors.command.argv[0]"
    else:
        program, key = command.preset, "extractors.command.preset"
    if not program:
        return  # parse_config already refused a command extractor without a command
    where = expand(program, home) if "/" in program else None
    if where is not None:
        if not (where.is_file() and os.access(where, os.X_OK)):
            yield key, f"{where} is not an executable program"
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        yield key, f"the program {program!r} is not on PATH"
