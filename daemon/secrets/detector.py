"""One detector of the secret filter: a compiled pattern, the group holding the value, a check.

Shared by ``dreamd.secrets.patterns`` (the engine and the structured shapes),
``dreamd.secrets.providers`` (provider tokens by prefix) and
``dreamd.secrets.commands`` (passwords given on a command line), so each of
those holds only its rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ALNUM_END", "DASH_END", "LEFT", "RIGHT", "Detector"]

LEFT = r"(?<![A-Za-z0-9_])"  # a token starts at a boundary
RIGHT = r"(?![A-Za-z0-9_])"  # and ends at one
DASH_END = r"(?![\w-])"  # a token whose alphabet has "-" ends where that alphabet ends
ALNUM_END = r"(?![A-Za-z0-9])"


@dataclass(frozen=True, slots=True)
class Detector:
    """One kind of secret: a pattern, the group that holds the value, an optional check."""

    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0
    check: Callable[[re.Match[str]], bool] | None = None
