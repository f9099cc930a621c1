"""``dreamd cursor export|import``: the collector's cursor as the seed's JSON document."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import click
import msgspec

from dreamd.cli.common import ErrorGroup, config_option, open_settings
from dreamd.collect.cursordoc import import_cursor
from dreamd.render import dump_json

__all__ = ["cursor"]


@click.group(cls=ErrorGroup)
def cursor() -> None:
    """The collector's progress (which sessions are done) as a JSON document."""


@cursor.command("export")
@config_option
def cursor_export(config_path: Path | None) -> None:
    """Print this host's cursor document (JSON) on stdout."""
    settings, state = open_settings(config_path)
    click.echo(dump_json(state.load_cursor(settings.machine)[1]))


@cursor.command("import")
@click.argument("source", type=click.File("rb"))
@config_option
def cursor_import(source: BinaryIO, config_path: Path | None) -> None:
    """Replace this host's cursor with a JSON document (every field is kept)."""
    settings, state = open_settings(config_path)
    try:
        document = msgspec.json.decode(source.read())
        import_cursor(document, settings.machine)
    except (msgspec.DecodeError, ValueError) as error:
        raise click.BadParameter(f"not a cursor document: {error}") from error
    version, _ = state.load_cursor(settings.machine)
    state.save_cursor(settings.machine, document, expected=version, now=datetime.now(UTC))
    click.echo(f"cursor of {settings.machine} imported")
