"""What the folder gate decided for one inbox file: the value proposals and reports carry.

Apart from the gate (``dreamd.dream.gates.folder``) so that reading a pending
proposal (``dreamd status``) does not import the gate's parsers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["INBOX", "GateDecision", "Verdict"]

#: The subfolder the collector plants into (``stores.claude_memory.INBOX``).
INBOX = ".inbox"

Verdict = Literal["accept", "merge", "reject"]


@dataclass(frozen=True, slots=True)
class GateDecision:
    """What the gate decided for one inbox file, and why.

    ``target`` is the folder file an accepted item becomes or a merged one
    goes into (None for a rejection); ``content`` the bytes that file gets;
    ``expected_sha256`` the bytes the target must hold when the decision is
    applied (None: it must not exist), so a memory edited since is never
    overwritten.
    """

    item: str  # inbox file name
    path: Path  # the inbox file
    verdict: Verdict
    reason: str
    target: str | None = None
    content: bytes | None = None
    expected_sha256: str | None = None

    def line(self) -> str:
        """The decision as one report line."""
        where = f"{INBOX}/{self.item}"
        if self.verdict == "accept":
            return f"accepted {where} as {self.target}: {self.reason}"
        if self.verdict == "merge":
            return f"merged {where} into {self.target}: {self.reason}"
        return f"rejected {where}: {self.reason}"
