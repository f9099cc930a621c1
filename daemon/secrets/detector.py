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
    #: Literals one of which every hit holds (lower case when ``folded``): a text with none
    #: of them is not searched at all. Empty: always searched.
    hints: tuple[str, ...] = ()
    folded: bool = False

    def may_match(self, text: str) -> bool:
        """Whether ``text`` holds one of the hints (a cheap test before the pattern)."""
        if not self.hints:
            return True
        haystack = text.lower() if self.folded else text
        return any(hint in haystack for hint in self.hints)


_META = re.compile(r"[\\()\[\]{}?*+|^$.]")
_ALTERNATION = re.compile(r"\(\?:([A-Za-z0-9_|-]+)\)")


def literal_hints(prefix: str) -> tuple[str, ...]:
    """The literals a pattern starting with ``prefix`` must hold, when they can be read off.

    ``sk-ant-`` gives itself; ``gl(?:pat|dt)-`` its leading ``gl``; ``(?:AKIA|ASIA)``
    its alternatives; ``hv[sbr]\\.`` its leading ``hv``. Anything else gives none.
    """
    plain = prefix.replace("\\.", ".")
    lead = _META.split(plain, maxsplit=1)[0] if _META.search(plain) else plain
    if len(lead) >= 2:
        return (lead,)
    group = _ALTERNATION.match(prefix)
    if group and lead == "":
        return tuple(group.group(1).split("|"))
    return ()
