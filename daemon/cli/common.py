"""What every command shares: one-line errors, ``--config``, settings and state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from dreamd.errors import DreamdError

if TYPE_CHECKING:
    from dreamd.config import Settings
    from dreamd.statedb import StateDB

__all__ = ["ErrorGroup", "config_option", "open_settings"]

F = TypeVar("F", bound=Callable[..., Any])


class ErrorGroup(click.Group):
    """Turns ``DreamdError`` into a one-line message and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DreamdError as error:
            raise click.ClickException(str(error)) from error


def config_option(function: F) -> F:
    """``--config FILE`` for every command that reads or writes state."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Configuration file (default: $DREAMD_CONFIG or the platform config dir).",
    )(function)


def open_settings(config_path: Path | None) -> tuple[Settings, StateDB]:
    """The settings, stderr logging at ``$DREAMD_LOG_LEVEL``, and the opened state DB."""
    import os
    import sys

    from dreamd.config import load_settings
    from dreamd.logs import configure_logging
    from dreamd.statedb import open_state

    settings = load_settings(config_path)
    configure_logging(os.environ.get("DREAMD_LOG_LEVEL", "warning"), stream=sys.stderr)
    return settings, open_state(settings.state_db)
