"""The ``dreamd`` command line: parse options, call one function, render text or JSON.

Exit codes: 0 done (also "nothing to do"), 1 the work failed or was refused,
2 usage error. ``--json`` prints exactly one JSON document on stdout; logs and
progress go to stderr (progress only when stderr is a terminal).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import click
import msgspec

from dreamd import __version__
from dreamd.catalog import Catalog
from dreamd.collect.cursordoc import import_cursor
from dreamd.collect.cursorstate import selection_view
from dreamd.collect.report import report_text
from dreamd.config import Settings, default_config_path, load_settings
from dreamd.dream.report import to_json
from dreamd.dream.reporttext import markdown
from dreamd.errors import DreamdError
from dreamd.jobs import (
    JobContext,
    collect_request,
    dream_request,
    live_ids_from_env,
    run_collect,
    run_dream,
    selection_policy,
    undo_dream,
)
from dreamd.logs import configure_logging, get_logger, log_file_setting
from dreamd.readers import READERS
from dreamd.render import (
    Progress,
    conversation_json,
    conversation_text,
    dump_json,
    selection_json,
    selection_text,
)
from dreamd.search.command import hit_lines, outcome_json, run_search
from dreamd.selection import select
from dreamd.service import install as service_install
from dreamd.service.runner import Service, local_timezone
from dreamd.service.status import status_document, status_text
from dreamd.statedb import StateDB, open_state

__all__ = ["cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])


class _Group(click.Group):
    """Turns ``DreamdError`` into a one-line message and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DreamdError as error:
            raise click.ClickException(str(error)) from error


def config_option(function: F) -> F:
    """``--config FILE`` for every command that reads or writes state."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Configuration file (default: $DREAMD_CONFIG or the platform config dir).",
    )(function)


def _setup(config_path: Path | None) -> tuple[Settings, StateDB]:
    settings = load_settings(config_path)
    configure_logging(os.environ.get("DREAMD_LOG_LEVEL", "warning"), stream=sys.stderr)
    return settings, open_state(settings.state_db)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dreamd")
def cli() -> None:
    """dreamd: collects what your coding agents learned, and keeps their memory tidy."""


@cli.group(cls=_Group)
def sources() -> None:
    """Transcript sources: the sessions found on this machine."""


@sources.command("list")
@click.option("--tool", type=click.Choice(list(READERS)), help="Only this tool's sessions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show at most N.")
@click.option("--offset", type=click.IntRange(min=0), default=0, help="Skip the first K.")
@config_option
def sources_list(
    tool: str | None, as_json: bool, limit: int | None, offset: int, config_path: Path | None
) -> None:
    """Every session found, newest first, with its selection status."""
    settings, state = _setup(config_path)
    progress = Progress("reading sessions", sys.stderr)
    result = Catalog(state, settings.source_roots).scan(tool, progress=progress)
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
        click.echo(selection_text(page, selection), nl=False)


@sources.command("show")
@click.argument("session", metavar="TOOL:SESSION_ID")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def sources_show(session: str, as_json: bool, config_path: Path | None) -> None:
    """The cleaned conversation the collector would read from one session."""
    tool, sep, session_id = session.partition(":")
    if not sep or not session_id:
        raise click.BadParameter("expected TOOL:SESSION_ID, e.g. claude-code:0a1b2c3d")
    if tool not in READERS:
        raise click.BadParameter(f"unknown tool {tool!r} (known: {', '.join(READERS)})")
    settings, state = _setup(config_path)
    conversation = Catalog(state, settings.source_roots).read(tool, session_id)
    if as_json:
        click.echo(dump_json(conversation_json(conversation)))
    else:
        click.echo(conversation_text(conversation), nl=False)


@cli.command("dream")
@click.option("--dry-run", is_flag=True, help="Change nothing; write a pending proposal.")
@click.option("--apply-pending", is_flag=True, help="Apply the pending proposals.")
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
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
    if dry_run and apply_pending:
        raise click.UsageError("--dry-run and --apply-pending cannot be combined")
    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        raise click.ClickException(f"--root {missing[0]}: no such folder")
    settings, state = _setup(config_path)
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


@cli.command("undo")
@click.argument("run_id")
@config_option
def undo(run_id: str, config_path: Path | None) -> None:
    """Put back everything one dream run moved or rewrote, byte for byte."""
    settings, state = _setup(config_path)
    context = JobContext(settings, state, os.environ, Path.home())
    restored = undo_dream(context, run_id)
    click.echo(f"restored {len(restored)} file(s) changed by run {run_id}")


@cli.command("collect")
@click.option("--budget", type=click.IntRange(min=1), default=None, help="Sessions to take.")
@click.option("--live", "live", multiple=True, metavar="TOOL:ID", help="A session still running.")
@click.option("--dry-run", is_flag=True, help="Extract and report; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@config_option
def collect_command(
    budget: int | None,
    live: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """One collector pass: plant what finished sessions established into the memory stores."""
    settings, state = _setup(config_path)
    request = collect_request(
        settings,
        os.environ,
        now=datetime.now(UTC),
        budget=budget,
        live=frozenset(live),
        dry_run=dry_run,
    )
    context = JobContext(settings, state, os.environ, Path.home())
    _result, document = run_collect(context, request)
    click.echo(dump_json(document) if as_json else report_text(document), nl=as_json)


@cli.command("setup")
@click.option("--yes", is_flag=True, help="Take the first extractor found; ask nothing.")
@click.option(
    "--port", "ports", type=click.IntRange(1, 65535), multiple=True,
    help="Look for a local server on this port (default: 11434, 8080, 8000).",
)  # fmt: skip
@config_option
def setup_command(yes: bool, ports: tuple[int, ...], config_path: Path | None) -> None:
    """Find the extractors available here and write the one chosen into the config."""
    from dreamd.collect.llm import setup

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


@cli.group(cls=_Group)
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

    settings = load_settings(config_path)
    click.echo(change_fact(settings.data_dir, fact, project=project, person=person, add=False))


@facts.command("list")
@config_option
def facts_list(config_path: Path | None) -> None:
    """The list, as JSON."""
    from dreamd.collect.missingfacts import listed_facts

    click.echo(dump_json(listed_facts(load_settings(config_path).data_dir)))


@cli.group(cls=_Group)
def cursor() -> None:
    """The collector's cursor as the seed's JSON document."""


@cursor.command("export")
@config_option
def cursor_export(config_path: Path | None) -> None:
    """Print this host's cursor document (JSON) on stdout."""
    settings, state = _setup(config_path)
    click.echo(dump_json(state.load_cursor(settings.machine)[1]))


@cursor.command("import")
@click.argument("source", type=click.File("rb"))
@config_option
def cursor_import(source: BinaryIO, config_path: Path | None) -> None:
    """Replace this host's cursor with a JSON document (every field is kept)."""
    settings, state = _setup(config_path)
    try:
        document = msgspec.json.decode(source.read())
        import_cursor(document, settings.machine)
    except (msgspec.DecodeError, ValueError) as error:
        raise click.BadParameter(f"not a cursor document: {error}") from error
    version, _ = state.load_cursor(settings.machine)
    state.save_cursor(settings.machine, document, expected=version, now=datetime.now(UTC))
    click.echo(f"cursor of {settings.machine} imported")


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


@cli.command("install-service")
@click.option("--print", "print_only", is_flag=True, help="Print the file; write nothing.")
@click.option("--no-enable", is_flag=True, help="Write the file; do not enable it.")
@platform_option
def install_service(print_only: bool, no_enable: bool, platform: str | None) -> None:
    """Write the systemd user unit or launchd agent, then enable and start it.

    --print writes the file to stdout and the commands that would run to stderr.
    When the service manager does not answer (containers, no login session), the
    file is still written, the commands to run are printed on stderr, and the exit
    code is 0; it is 1 when a command fails while the manager answers.
    """
    spec = service_install.current_spec(platform)  # type: ignore[arg-type]
    if print_only:
        click.echo(spec.content, nl=False)
        commands = [f"  {command}" for command in spec.enable]
        for line in ["to install it, write it to", f"  {spec.path}", "then run:", *commands]:
            click.echo(line, err=True)
        return
    _echo_outcome(service_install.install(spec, enable=not no_enable))


@cli.command("uninstall-service")
@platform_option
def uninstall_service(platform: str | None) -> None:
    """Stop and disable the service, then remove its file (only a file dreamd wrote)."""
    spec = service_install.current_spec(platform)  # type: ignore[arg-type]
    _echo_outcome(service_install.uninstall(spec))


@cli.command("run")
@click.option(
    "--log-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write JSON log lines to this rotating file (default: [service] log_file, else stdout).",
)
@config_option
def run(log_file: Path | None, config_path: Path | None) -> None:
    """The service: collect and dream on their schedules, follow the transcript folders."""
    settings = load_settings(config_path)
    service = settings.config.service
    configure_logging(
        os.environ.get("DREAMD_LOG_LEVEL", service.log_level),
        stream=sys.stdout,
        log_file=log_file_setting(log_file, service.log_file),
        journald=bool(os.environ.get("JOURNAL_STREAM")),
    )
    state = open_state(settings.state_db)
    code = Service(settings, state, env=os.environ, home=Path.home()).run()
    raise SystemExit(code)


@cli.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@config_option
def status(as_json: bool, config_path: Path | None) -> None:
    """Last and next runs, backlog per source, pending plans and proposals, lock holder."""
    settings, state = _setup(config_path)
    now = datetime.now(UTC)
    document = status_document(settings, state, env=os.environ, now=now, timezone=local_timezone())
    click.echo(dump_json(document) if as_json else status_text(document, now), nl=as_json)


@cli.command("search")
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
    settings, state = _setup(config_path)
    found, code = run_search(
        settings, state, os.environ, Path.home(), query=query, project=project, kind=kind,
        limit=limit,
    )  # fmt: skip
    click.echo(dump_json(outcome_json(query, found)) if as_json else hit_lines(found), nl=as_json)
    for failure in found.failures:
        click.echo(f"dreamd: {failure.store}: {failure.reason}", err=True)
    raise SystemExit(code)


@cli.command("mcp")
@config_option
def mcp_command(config_path: Path | None) -> None:
    """Serve memories to agents over MCP on stdio (writes only with [mcp] allow_remember)."""
    from dreamd.mcpserver import serve  # the MCP SDK is loaded for this command alone

    settings, state = _setup(config_path)
    serve(settings, state, os.environ, Path.home())


def main() -> None:
    """Console entry point: a bug is logged as structured data and exits 1."""
    try:
        cli.main(prog_name="dreamd")
    except Exception:
        get_logger("dreamd.cli").exception("cli.crashed")
        click.echo("dreamd: internal error (details logged above); please report it", err=True)
        sys.exit(1)
