"""``dreamd facts``: the missing-facts list the collector looks for."""

from __future__ import annotations

from pathlib import Path

import click

from dreamd.cli.common import ErrorGroup, config_option

__all__ = ["facts"]


@click.group(cls=ErrorGroup)
def facts() -> None:
    """The missing-facts list: facts the collector looks for, per project or person."""


@facts.command("add")
@click.argument("fact")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--person", default=None, help="Whose fact (default: the user).")
@config_option
def facts_add(
    fact: str, project: Path | None, person: str | None, config_path: Path | None
) -> None:
    """Look for FACT in the sessions (for example: "time zone")."""
    from dreamd.collect.missingfacts import change_fact
    from dreamd.config import load_settings

    settings = load_settings(config_path)
    click.echo(change_fact(settings.data_dir, fact, project=project, person=person, add=True))


@facts.command("remove")
@click.argument("fact")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--person", default=None, help="Whose fact (default: the user).")
@config_option
def facts_remove(
    fact: str, project: Path | None, person: str | None, config_path: Path | None
) -> None:
    """Stop looking for FACT."""
    from dreamd.collect.missingfacts import change_fact
    from dreamd.config import load_settings

    settings = load_settings(config_path)
    click.echo(change_fact(settings.data_dir, fact, project=project, person=person, add=False))


@facts.command("list")
@config_option
def facts_list(config_path: Path | None) -> None:
    """The list, as JSON."""
    from dreamd.collect.missingfacts import listed_facts
    from dreamd.config import load_settings
    from dreamd.render import dump_json

    click.echo(dump_json(listed_facts(load_settings(config_path).data_dir)))
