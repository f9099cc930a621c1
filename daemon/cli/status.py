"""``dreamd status``: what ran, what runs next, what waits."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings
from dreamd.render import dump_json
from dreamd.service.runner import local_timezone
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
    click.echo(dump_json(document) if as_json else status_text(document, now), nl=as_json)
