"""``dreamd doctor``: check the configuration, sources, stores, service and extractor."""

from __future__ import annotations

import os
from pathlib import Path

import click

from dreamd.cli.common import config_option

__all__ = ["doctor"]


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def doctor(as_json: bool, config_path: Path | None) -> None:
    """Check the config, sources, stores, service and extractor; one line each, with its fix.

    Nothing is written. The exit code is 1 when any check fails (a warning or
    a source that is simply absent does not fail).
    """
    from dreamd.render import dump_json
    from dreamd.service.doctor import doctor_checks, doctor_json, doctor_text, exit_code

    checks = doctor_checks(config_path, os.environ, Path.home())
    click.echo(dump_json(doctor_json(checks)) if as_json else doctor_text(checks), nl=as_json)
    raise SystemExit(exit_code(checks))
