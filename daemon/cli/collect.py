"""``dreamd collect``: one collector pass over the finished sessions."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings

__all__ = ["collect_command"]


@click.command("collect")
@click.option("--budget", type=click.IntRange(min=1), default=None, help="Sessions to take.")
@click.option("--live", "live", multiple=True, metavar="TOOL:ID", help="A session still running.")
@click.option("--dry-run", is_flag=True, help="Extract and report; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@config_option
def collect_command(
    budget: int | None,
    live: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """One collector pass: plant what finished sessions established into the memory stores."""
    from dreamd.collect.report import report_text
    from dreamd.jobs import JobContext, collect_request, run_collect
    from dreamd.render import dump_json

    settings, state = open_settings(config_path)
    request = collect_request(
        settings,
        os.environ,
        now=datetime.now(UTC),
        budget=budget,
        live=frozenset(live),
        dry_run=dry_run,
    )
    context = JobContext(settings, state, os.environ, Path.home())
    _result, document = run_collect(context, request)
    click.echo(dump_json(document) if as_json else report_text(document), nl=as_json)
