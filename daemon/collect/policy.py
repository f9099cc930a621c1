"""The collector's selection policy and live sessions, as the configuration and environment say.

Apart from ``dreamd.jobs`` so that ``dreamd status`` can show the backlog the
next collect would see without importing the collector.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

from dreamd.collect.budget import run_budget
from dreamd.config import Settings
from dreamd.privacy import ProjectExclusion
from dreamd.selection import SelectionPolicy

__all__ = ["live_ids_from_env", "selection_policy"]


def live_ids_from_env(env: Mapping[str, str]) -> frozenset[str]:
    """Sessions the environment says are running now (seed 002: ``PI_SESSION_ID``)."""
    pi_session = env.get("PI_SESSION_ID", "").strip()
    return frozenset({f"pi:{pi_session}", f"omp:{pi_session}"} if pi_session else ())


def selection_policy(settings: Settings, budget: int | None = None) -> SelectionPolicy:
    """The configured selection policy; ``budget`` overrides the session budget.

    The budgets follow the extractor (``dreamd.collect.budget.run_budget``).
    """
    configured = settings.config.collect
    home = settings.home or Path.home()
    limits = run_budget(settings.config, budget)
    return SelectionPolicy(
        live_guard=timedelta(minutes=configured.live_guard_minutes),
        budget_sessions=limits.sessions,
        budget_messages=limits.messages,
        excluded=ProjectExclusion(configured.exclude_projects, home),
    )
