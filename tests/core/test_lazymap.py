"""``LazyMap``: keys at once, each value made on first use and kept."""

from __future__ import annotations

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
