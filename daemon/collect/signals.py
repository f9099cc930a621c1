"""Control-flow signals an extractor gives the collector (not errors shown to the user).

Two things can keep a window from being analysed, and they call for
different answers:

- ``WindowPending``: this window cannot be analysed now (the model's answer
  was invalid twice, or the request was refused for this window's size). The
  collector plants nothing for it and does not checkpoint it, says why in the
  report, and goes on with the next window; the next run retries it.
- ``StopCollecting``: the run must end here (the per-run token cap is
  reached, or the model server stays unavailable). The collector stops
  between windows: every finished window stays checkpointed, the session
  stays partial, and the next run resumes where this one stopped.

Invariant: both are raised before anything is planted for the window they
concern, so catching them never leaves a half-written window behind.
"""

from __future__ import annotations

__all__ = ["StopCollecting", "TokenBudgetExhausted", "WindowPending"]


class WindowPending(Exception):
    """This window stays pending; the message says why (it goes into the report)."""


class StopCollecting(Exception):
    """The run stops cleanly here; the message says why (it goes into the report)."""


class TokenBudgetExhausted(StopCollecting):
    """The run's token cap (``collect.max_tokens_per_run``) is reached."""

    def __init__(self, used: int, cap: int) -> None:
        self.used = used
        self.cap = cap
        super().__init__(f"token cap reached: {used} of {cap} tokens used this run")
