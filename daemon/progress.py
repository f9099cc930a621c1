"""How a job says how far it got: one callable, ``progress(stage, done, total)``.

A *stage* is a verb and a noun ("collecting sessions", "dreaming folders");
``describe`` puts the count between them ("collecting 2/3 sessions"), which is
what the service shows in ``systemctl --user status dreamd``. Every call is
also the proof that the job still moves: the service's watchdog stops pinging
systemd when a job has not called it for too long (``dreamd.service.heartbeat``).

Jobs call it between units of work (a session, a window, a folder, a store);
``NO_PROGRESS`` is the default for runs nobody watches. ``counter`` turns it
into the ``(done, total)`` callback the catalog's scan and the command line's
progress line (``dreamd.render.Progress``) already take.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["NO_PROGRESS", "JobProgress", "counter", "describe"]


class JobProgress(Protocol):
    """Told how far a job got: ``stage`` is a verb and a noun, ``done`` of ``total`` units."""

    def __call__(self, stage: str, done: int, total: int) -> None: ...


def _nothing(stage: str, done: int, total: int) -> None:
    """Nobody is watching."""


NO_PROGRESS: JobProgress = _nothing


def counter(progress: JobProgress, stage: str) -> Callable[[int, int], None]:
    """``progress`` for one stage, as a ``(done, total)`` callback (the catalog's ``Progress``)."""

    def report(done: int, total: int) -> None:
        progress(stage, done, total)

    return report


def describe(stage: str, done: int, total: int) -> str:
    """``"collecting sessions", 2, 3`` → ``"collecting 2/3 sessions"``; no total: no count."""
    verb, _, noun = stage.partition(" ")
    count = f"{done}/{total}" if total > 0 else ""
    return " ".join(word for word in (verb, count, noun) if word)
