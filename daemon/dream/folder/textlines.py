"""Memory text cut into lines the way the drift and health checks read it. Pure.

Lines split on ``\\n`` only, each keeping its ending (``str.splitlines`` also
splits on form feeds and other separators, which would shift line numbers),
and the one pattern of an inline code span. Shared by the relative dates
(``dreamd.dream.folder.dates``), the seed-003 sections
(``dreamd.dream.folder.sections``) and the checks (``dreamd.dream.folder.checks``).

Invariant: ``"".join(split_lines(text)) == text``.
"""

from __future__ import annotations

import re

__all__ = ["INLINE_CODE", "split_lines"]


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, endings kept (``str.splitlines`` also splits on form feeds)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


#: An inline code span: a run of backticks, its text, the same run again.
INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
