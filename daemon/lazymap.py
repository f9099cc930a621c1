"""A mapping whose keys are known at once and whose values are made on first use.

The readers and each source's roots are looked up by tool name; a command that
touches one tool (``sources show``) should not import every reader's parser
to build the others.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import import_module
from typing import Any, TypeVar

__all__ = ["LazyMap", "lazy_names"]

K = TypeVar("K")
V = TypeVar("V")


class LazyMap(Mapping[K, V]):
    """``{key: make(key) for key in keys}``, each value made when first asked for, then kept.

    Iterating, ``len`` and ``in`` make nothing; ``make`` raising leaves the key
    unmade, to be tried again.
    """

    def __init__(self, keys: Iterable[K], make: Callable[[K], V]) -> None:
        self._keys = tuple(dict.fromkeys(keys))
        self._known = frozenset(self._keys)
        self._make = make
        self._made: dict[K, V] = {}

    def __getitem__(self, key: K) -> V:
        try:
            return self._made[key]
        except KeyError:
            if key not in self._known:
                raise
        value = self._made[key] = self._make(key)
        return value

    def __iter__(self) -> Iterator[K]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def __repr__(self) -> str:
        made = ", ".join(f"{key!r}: {value!r}" for key, value in self._made.items())
        return f"LazyMap(keys={list(self._keys)!r}, made={{{made}}})"


def lazy_names(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` (PEP 562) for names imported on first use.

    ``homes`` maps each public name to the module it lives in, relative to
    ``package``. A name asked for once is kept in the package's namespace, so the
    next lookup is a plain global; an unknown name raises ``AttributeError`` as a
    missing attribute does (which also lets ``from package import submodule`` work).
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__
