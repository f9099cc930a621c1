"""``dreamd status``: what ran, what runs next, what waits."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings
from dreamd.render import dump_json, fit_text
from dreamd.schedule import local_timezone
from dreamd.service.status import status_document
from dreamd.service.statustext import status_text

__all__ = ["status"]


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def status(as_json: bool, config_path: Path | None) -> None:
    """What happened last: each job's last run, what waits for you, next runs, backlog, log."""
    settings, state = open_settings(config_path)
    now = datetime.now(UTC)
    document = status_document(settings, state, env=os.environ, now=now, timezone=local_timezone())
    if as_json:
        click.echo(dump_json(document))
    else:
        click.echo(fit_text(status_text(document, now), sys.stdout), nl=False)
