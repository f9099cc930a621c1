"""``dreamd cursor export|import``: the collector's cursor as the seed's JSON document."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import click
import msgspec

from dreamd.cli.common import ErrorGroup, config_option, open_settings
from dreamd.errors import DreamdError

__all__ = ["cursor"]


@click.group(cls=ErrorGroup)
def cursor() -> None:
    """The collector's progress (which sessions are done) as a JSON document."""


@cursor.command("export")
@config_option
def cursor_export(config_path: Path | None) -> None:
    """Print this host's cursor document (JSON) on stdout."""
    from dreamd.render import dump_json

    settings, state = open_settings(config_path)
    click.echo(dump_json(state.load_cursor(settings.machine)[1]))


@cursor.command("import")
@click.argument("source", type=click.File("rb"))
@click.option("--force", is_flag=True, help="Adopt a cursor that names another host as this one's.")
@config_option
def cursor_import(source: BinaryIO, force: bool, config_path: Path | None) -> None:
    """Replace this host's cursor with a JSON document (every field is kept)."""
    from dreamd.collect.cursorcheck import CursorDocumentError
    from dreamd.collect.cursorimport import replace_cursor

    settings, state = open_settings(config_path)
    name = getattr(source, "name", "-")
    try:
        document = msgspec.json.decode(source.read())
    except msgspec.DecodeError as error:
        raise click.ClickException(f"{name}: not JSON: {error}") from error
    try:
        outcome = replace_cursor(
            state,
            settings.machine,
            document,
            data_dir=settings.data_dir,
            now=datetime.now(UTC),
            force=force,
        )
    except CursorDocumentError as error:
        raise click.ClickException(f"{name}: not a cursor document: {error}") from error
    except DreamdError as error:
        raise click.ClickException(f"{name}: {error}") from error
    click.echo(f"cursor of {settings.machine} imported from {name}")
    if outcome.adopted_from is not None:
        click.echo(
            f"adopted from host {outcome.adopted_from}: it now names {settings.machine}; items "
            f"{outcome.adopted_from} planted keep their source tag and are not matched to "
            "this host's sessions"
        )
    for line in outcome.lines:
        click.echo(f"  {line}")
    if outcome.backup is None:
        click.echo("  there was no cursor before: nothing to back up")
    else:
        click.echo(f"  the replaced cursor is saved in {outcome.backup}")
        click.echo(f"  (to go back: dreamd cursor import {outcome.backup})")
