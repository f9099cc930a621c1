"""``dreamd run`` and ``dreamd install-service`` / ``uninstall-service``: the service."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from dreamd.cli.common import config_option
from dreamd.service import install as service_install

__all__ = ["install_service", "run", "uninstall_service"]

F = TypeVar("F", bound=Callable[..., Any])


def platform_option(function: F) -> F:
    """``--platform linux|macos`` for the service commands (default: this machine's)."""
    return click.option(
        "--platform",
        type=click.Choice(service_install.PLATFORMS),
        default=None,
        help="systemd user unit (linux) or launchd agent (macos); default: this machine's.",
    )(function)


def _echo_outcome(outcome: service_install.Outcome) -> None:
    out, err = service_install.outcome_lines(outcome)
    for line in out:
        click.echo(line)
    for line in err:
        click.echo(line, err=True)
    if outcome.exit_code:
        raise SystemExit(outcome.exit_code)


@click.command("install-service")
@click.option("--print", "print_only", is_flag=True, help="Print the file; write nothing.")
@click.option("--no-enable", is_flag=True, help="Write the file; do not enable it.")
@platform_option
def install_service(print_only: bool, no_enable: bool, platform: str | None) -> None:
    """Write the systemd user unit or launchd agent, then enable and start it.

    It warns when the program it would point at lives in a temporary folder or
    in a checkout's virtual environment, and says how to install for good.
    --print writes the file to stdout and the commands that would run to stderr.
    When the service manager does not answer (containers, no login session), the
    file is still written, the commands to run are printed on stderr, and the exit
    code is 0; it is 1 when a command fails while the manager answers.
    """
    spec = service_install.current_spec(platform)  # type: ignore[arg-type]
    for warning in spec.warnings:
        click.echo(f"warning: {warning}", err=True)
    if print_only:
        click.echo(spec.content, nl=False)
        commands = [f"  {command}" for command in spec.enable]
        for line in ["to install it, write it to", f"  {spec.path}", "then run:", *commands]:
            click.echo(line, err=True)
        return
    _echo_outcome(service_install.install(spec, enable=not no_enable))


@click.command("uninstall-service")
@platform_option
def uninstall_service(platform: str | None) -> None:
    """Stop and disable the service, then remove its file (only a file dreamd wrote)."""
    spec = service_install.current_spec(platform)  # type: ignore[arg-type]
    _echo_outcome(service_install.uninstall(spec))


@click.command("run")
@click.option(
    "--log-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write JSON log lines to this rotating file (default: [service] log_file, else stdout;"
    " readable lines on a terminal, JSON elsewhere).",
)
@config_option
def run(log_file: Path | None, config_path: Path | None) -> None:
    """The service: collect and dream on their schedules, follow the transcript folders."""
    from dreamd.config import load_settings
    from dreamd.logs import configure_logging, journal_stream_is, log_file_setting
    from dreamd.service.runner import Service
    from dreamd.statedb import open_state

    settings = load_settings(config_path)
    service = settings.config.service
    journald = journal_stream_is(os.environ.get("JOURNAL_STREAM"), sys.stdout)
    configure_logging(
        os.environ.get("DREAMD_LOG_LEVEL", service.log_level),
        stream=sys.stdout,
        log_file=log_file_setting(log_file, service.log_file),
        journald=journald,
        readable=not journald and sys.stdout.isatty(),  # JSON everywhere but a terminal
    )
    state = open_state(settings.state_db)
    code = Service(settings, state, env=os.environ, home=Path.home()).run()
    raise SystemExit(code)
