"""``LazyMap``: keys at once, each value made on first use and kept."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dreamd.lazymap import LazyMap


def test_values_are_made_on_first_use_only_and_kept() -> None:
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    lazy = LazyMap(["a", "b", "c"], make)
    assert list(lazy) == ["a", "b", "c"] and len(lazy) == 3 and "b" in lazy
    assert made == []
    assert lazy["b"] == "B" and lazy["b"] == "B"
    assert made == ["b"]
    assert dict(lazy) == {"a": "A", "b": "B", "c": "C"}
    assert made == ["b", "a", "c"]


def test_an_unknown_key_is_a_key_error_and_makes_nothing() -> None:
    made: list[str] = []
    lazy = LazyMap(["a"], made.append)
    with pytest.raises(KeyError):
        lazy["z"]
    assert "z" not in lazy and lazy.get("z") is None and made == []


def test_a_failed_make_is_tried_again() -> None:
    attempts: list[str] = []

    def make(key: str) -> int:
        attempts.append(key)
        if len(attempts) == 1:
            raise OSError("not yet")
        return len(attempts)

    lazy = LazyMap(["a"], make)
    with pytest.raises(OSError, match="not yet"):
        lazy["a"]
    assert lazy["a"] == 2 and lazy["a"] == 2 and attempts == ["a", "a"]


def test_duplicate_keys_count_once_in_their_first_place() -> None:
    assert list(LazyMap(["b", "a", "b"], str.upper)) == ["b", "a"]


#: Run in a fresh interpreter: what a package imports on its own, and on first use.
PROBE = """
import sys
import dreamd.readers, dreamd.stores
assert "dreamd.stores._item" not in sys.modules and "dreamd.readers._model" not in sys.modules
from dreamd.stores import MemoryItem
from dreamd.stores._item import MemoryItem as Defined
assert MemoryItem is Defined and "MemoryItem" in vars(dreamd.stores)
assert "SessionRef" in dir(dreamd.readers) and "dreamd.readers._model" not in sys.modules
try:
    dreamd.stores.NoSuchThing
except AttributeError as error:
    assert "NoSuchThing" in str(error)
else:
    raise SystemExit("an unknown name must be an AttributeError")
from dreamd.readers import claude_code  # a submodule, not a listed name
assert claude_code.__name__ == "dreamd.readers.claude_code"
print("ok")
"""


def test_package_names_load_their_module_on_first_use_only() -> None:
    """``lazy_names`` as ``dreamd.stores`` and ``dreamd.readers`` use it: importing the
    package loads none of its modules, a name loads its own and is kept, ``dir`` lists
    every name, an unknown one is an ``AttributeError`` and submodules still import."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=False
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "ok"
