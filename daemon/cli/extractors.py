"""``dreamd setup``: find the extractors this machine has and write the chosen one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from dreamd.cli.common import config_option

__all__ = ["setup_command"]


@click.command("setup")
@click.option("--yes", is_flag=True, help="Take the first extractor found; ask nothing.")
@click.option(
    "--port", "ports", type=click.IntRange(1, 65535), multiple=True,
    help="Look for a local server on this port (default: 11434, 8080, 8000).",
)  # fmt: skip
@config_option
def setup_command(yes: bool, ports: tuple[int, ...], config_path: Path | None) -> None:
    """Find the extractors available here and write the one chosen into the config."""
    from dreamd.collect.llm import setup
    from dreamd.config import default_config_path
    from dreamd.logs import configure_logging

    configure_logging(os.environ.get("DREAMD_LOG_LEVEL", "warning"), stream=sys.stderr)
    path = config_path or default_config_path(os.environ)
    prompts = setup.Prompts(
        say=click.echo,
        choose=lambda text, default: int(click.prompt(text, default=default, type=int)),
        confirm=lambda text, default: click.confirm(text, default=default),
        number=lambda text, default: int(
            click.prompt(text, default=default, type=click.IntRange(min=0))
        ),
    )
    chosen = {port: setup.LOCAL_PORTS.get(port, "auto") for port in ports} or setup.LOCAL_PORTS
    raise SystemExit(setup.run_setup(os.environ, path, prompts, yes=yes, ports=chosen))
