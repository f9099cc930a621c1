"""``dreamd sources list`` and ``dreamd sources show``: what the readers find."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from dreamd.cli.common import ErrorGroup, config_option, open_settings
from dreamd.gcpause import collector_paused
from dreamd.tools import TOOLS

__all__ = ["sources"]


@click.group(cls=ErrorGroup)
def sources() -> None:
    """Transcript sources: the sessions found on this machine."""


@sources.command("list")
@click.option("--tool", type=click.Choice(TOOLS), help="Only this tool's sessions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show at most N.")
@click.option("--offset", type=click.IntRange(min=0), default=0, help="Skip the first K.")
@config_option
def sources_list(
    tool: str | None, as_json: bool, limit: int | None, offset: int, config_path: Path | None
) -> None:
    """Every session found, newest first, with its selection status."""
    from dreamd.catalog import Catalog
    from dreamd.collect.cursordoc import import_cursor
    from dreamd.collect.cursorstate import selection_view
    from dreamd.collect.policy import live_ids_from_env, selection_policy
    from dreamd.render import Progress, dump_json, selection_json, selection_text
    from dreamd.selection import select

    settings, state = open_settings(config_path)
    with collector_paused():  # ten thousand sessions, decisions and rows: nothing cyclic
        progress = Progress("reading sessions", sys.stderr)
        result = Catalog(state, settings.source_roots, settings.readers).scan(
            tool, progress=progress
        )
        progress.done()
        policy = selection_policy(settings)
        selection = select(
            result.sessions,
            selection_view(import_cursor(state.load_cursor(settings.machine)[1], settings.machine)),
            now=datetime.now(UTC),
            live_ids=live_ids_from_env(os.environ),
            policy=policy,
        )
        page = selection.decisions[offset : None if limit is None else offset + limit]
        if as_json:
            click.echo(dump_json(selection_json(page)))
        else:
            click.echo(selection_text(page, selection, sys.stdout), nl=False)


@sources.command("show")
@click.argument("session", metavar="TOOL:SESSION_ID")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def sources_show(session: str, as_json: bool, config_path: Path | None) -> None:
    """The cleaned conversation the collector would read from one session."""
    from dreamd.catalog import Catalog
    from dreamd.render import conversation_json, conversation_text, dump_json

    tool, sep, session_id = session.partition(":")
    if not sep or not session_id:
        raise click.BadParameter("expected TOOL:SESSION_ID, e.g. claude-code:0a1b2c3d")
    if tool not in TOOLS:
        raise click.BadParameter(f"unknown tool {tool!r} (known: {', '.join(TOOLS)})")
    settings, state = open_settings(config_path)
    with collector_paused():  # the messages of a 50 MB transcript and their rows: no cycle
        catalog = Catalog(state, settings.source_roots, settings.readers)
        conversation = catalog.read(tool, session_id)
        if as_json:
            click.echo(dump_json(conversation_json(conversation)))
        else:
            click.echo(conversation_text(conversation), nl=False)
