"""``dreamd dream`` and ``dreamd undo``: consolidate memory folders, and take a run back."""

from __future__ import annotations

import contextlib
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings

__all__ = ["dream", "undo"]


@click.command("dream")
@click.option("--dry-run", is_flag=True, help="Change nothing; write a pending proposal.")
@click.option("--apply-pending", is_flag=True, help="Apply the pending proposals.")
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Only this memory folder (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def dream(
    dry_run: bool,
    apply_pending: bool,
    roots: tuple[Path, ...],
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Consolidate memory: trash stale, duplicate and contradicted memories, rebuild indexes."""
    from dreamd.dream.report import to_json
    from dreamd.dream.reporttext import markdown
    from dreamd.jobs import JobContext, dream_request, run_dream
    from dreamd.render import Progress, dump_json

    if dry_run and apply_pending:
        raise click.UsageError("--dry-run and --apply-pending cannot be combined")
    from dreamd.configcheck import folder_problem

    for root in roots:
        problem = folder_problem(root)
        if problem is not None:
            raise click.ClickException(f"--root {problem}")
    settings, state = open_settings(config_path)
    request = dream_request(
        settings,
        os.environ,
        now=datetime.now(UTC),
        dry_run=dry_run,
        apply_pending=apply_pending,
        roots=roots,
    )
    progress = Progress("reading sessions", sys.stderr)
    context = JobContext(settings, state, os.environ, Path.home())
    outcome = run_dream(context, request, progress=progress)
    progress.done()
    if as_json:
        click.echo(dump_json(to_json(outcome.report)))
    else:
        click.echo(markdown(outcome.report), nl=False)
    for folder in outcome.report.directories:
        if folder.refused:
            click.echo(f"dreamd: {folder.path}: {folder.refused}", err=True)
    if outcome.exit_code:
        raise SystemExit(outcome.exit_code)


@click.command("undo")
@click.argument("run_id")
@config_option
def undo(run_id: str, config_path: Path | None) -> None:
    """Put back everything one dream run moved or rewrote, byte for byte.

    RUN_ID may be a unique prefix of the run's ID, as ``dreamd log`` shows it.
    """
    from dreamd.errors import NotFound
    from dreamd.jobs import JobContext, undo_dream
    from dreamd.runlog import resolve_run

    settings, state = open_settings(config_path)
    with contextlib.suppress(NotFound):  # a run without a record: ``undo_dream`` says why
        run_id = resolve_run(state, run_id).run_id
    context = JobContext(settings, state, os.environ, Path.home())
    restored = undo_dream(context, run_id)
    click.echo(f"restored {len(restored)} file(s) changed by run {run_id}")
