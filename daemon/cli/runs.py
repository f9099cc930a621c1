"""``dreamd log`` and ``dreamd show``: what each run did, from its record and kept report."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings
from dreamd.render import dump_json, table_text
from dreamd.runlog import RETENTION_DAYS, load_report, resolve_run
from dreamd.runview import log_json, log_lines, parse_since, show_header, show_json, undo_command

__all__ = ["log_command", "show_command"]


class Since(click.ParamType):  # type: ignore[type-arg]  # generic only in click's stubs
    """``--since 7d`` (a span back from now) or ``--since 2026-12-01`` (a date)."""

    name = "SPAN|DATE"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        try:
            return parse_since(str(value), datetime.now(UTC))
        except ValueError as error:
            self.fail(str(error), param, ctx)


@click.command("log")
@click.option("--since", type=Since(), default=None, help="Only runs since: 7d, 12h, 2026-12-01.")
@click.option("--limit", type=click.IntRange(min=1), default=50, help="At most N runs (50).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def log_command(
    since: datetime | None, limit: int, as_json: bool, config_path: Path | None
) -> None:
    """One line per run, newest first: job, start, duration, dry run or applied, what it did."""
    settings, state = open_settings(config_path)
    runs = state.runs_since(since, limit=limit)
    if as_json:
        click.echo(dump_json(log_json(runs, settings.data_dir)))
        return
    if not runs:
        click.echo("No runs recorded" + (" in that time." if since else " yet."))
        return
    headers = ("RUN", "JOB", "STARTED", "TOOK", "MODE", "OUTCOME", "WHAT IT DID")
    click.echo(
        table_text(headers, log_lines(runs), stream=sys.stdout, wrap=("WHAT IT DID",)), nl=False
    )


@click.command("show")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def show_command(run_id: str, as_json: bool, config_path: Path | None) -> None:
    """The full report of one run (a unique prefix of its ID will do)."""
    settings, state = open_settings(config_path)
    run = resolve_run(state, run_id)
    report = load_report(settings.data_dir, run)
    if as_json:
        click.echo(dump_json(show_json(run, report, settings.data_dir)))
        return
    lines = show_header(run, undo_command(settings.data_dir, run))
    click.echo("\n".join(lines) + "\n")
    if report is None:
        click.echo(
            f"Its full report is not kept (reports are pruned after {RETENTION_DAYS} days, "
            "and a run that failed early wrote none)."
        )
    elif run.job == "dream":
        from dreamd.dream.reportshow import show_text

        click.echo(show_text(report), nl=False)
    else:
        from dreamd.collect.report import report_text

        click.echo(report_text(report), nl=False)
