"""Helpers the reader tests share to build independent oracles from raw records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def strings_in(value: Any) -> Iterator[str]:
    """Every string nested anywhere inside a decoded JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
