"""Every subpackage of the source tree is named in ``pyproject.toml``, so a wheel carries it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    """A folder missing from ``[tool.setuptools] packages`` vanishes from a plain install."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    listed = set(config["setuptools"]["packages"])
    folders = {
        package: ROOT / folder for package, folder in config["setuptools"]["package-dir"].items()
    }
    found = set()
    for package, folder in folders.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if "__pycache__" not in parts:
                found.add(".".join((package, *parts)))
    assert found - listed == set()
