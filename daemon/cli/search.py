"""``dreamd search`` and ``dreamd mcp``: the read path, for people and for agents."""

from __future__ import annotations

import os
from pathlib import Path

import click

from dreamd.cli.common import config_option, open_settings
from dreamd.render import dump_json

__all__ = ["mcp_command", "search_command"]


@click.command("search")
@click.argument("query")
@click.option("--project", metavar="DIR", help="Only memories of this directory (and below).")
@click.option("--kind", metavar="K", help="A type (user, feedback, …) or category (Decision, …).")
@click.option("--limit", type=click.IntRange(min=1), default=10, help="Show at most N hits.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def search_command(
    query: str,
    project: str | None,
    kind: str | None,
    limit: int,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Search every configured memory store: words, "a phrase", a or b, -not."""
    from dreamd.search.command import hit_lines, outcome_json, run_search

    settings, state = open_settings(config_path)
    found, code = run_search(
        settings, state, os.environ, Path.home(), query=query, project=project, kind=kind,
        limit=limit,
    )  # fmt: skip
    click.echo(dump_json(outcome_json(query, found)) if as_json else hit_lines(found), nl=as_json)
    for failure in found.failures:
        click.echo(f"dreamd: {failure.store}: {failure.reason}", err=True)
    raise SystemExit(code)


@click.command("mcp")
@config_option
def mcp_command(config_path: Path | None) -> None:
    """Serve memories to agents over MCP on stdio (writes only with [mcp] allow_remember)."""
    from dreamd.mcpserver import serve  # the MCP SDK is loaded for this command alone

    settings, state = open_settings(config_path)
    serve(settings, state, os.environ, Path.home())
