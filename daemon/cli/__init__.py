"""The ``dreamd`` command line: parse options, call one function, render text or JSON.

Exit codes: 0 done (also "nothing to do"), 1 the work failed or was refused,
2 usage error. ``--json`` prints exactly one JSON document on stdout; logs and
progress go to stderr (progress only when stderr is a terminal).

Each command lives in the module :data:`COMMANDS` names and is imported only
when it runs: ``dreamd --help`` and ``dreamd --version`` load click and
nothing of the jobs, the state database or SQLAlchemy. The one-line help of
every command is kept in the table for the same reason (a test keeps it equal
to the command's own docstring). Shell completion of the command names reads
the same table, so pressing TAB after ``dreamd`` imports no command either;
only completing inside one command (its options, its subcommands) loads it.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, NamedTuple

import click

from dreamd import __version__
from dreamd.cli.common import ErrorGroup
from dreamd.gcpause import no_final_collection

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

__all__ = ["COMMANDS", "LazyCommand", "cli", "main"]


class LazyCommand(NamedTuple):
    """Where a command is defined, and the line ``dreamd --help`` shows for it."""

    module: str
    attribute: str
    short_help: str


#: Every top-level command, in the order ``dreamd --help`` lists them.
COMMANDS: dict[str, LazyCommand] = {
    "sources": LazyCommand(
        "dreamd.cli.sources", "sources", "Transcript sources: the sessions found on this machine."
    ),
    "collect": LazyCommand(
        "dreamd.cli.collect",
        "collect_command",
        "One collector pass: plant what finished sessions established into the memory stores.",
    ),
    "dream": LazyCommand(
        "dreamd.cli.dream",
        "dream",
        "Consolidate memory: trash stale, duplicate and contradicted memories, rebuild indexes.",
    ),
    "undo": LazyCommand(
        "dreamd.cli.dream",
        "undo",
        "Put back everything one dream run moved or rewrote, byte for byte.",
    ),
    "log": LazyCommand(
        "dreamd.cli.runs",
        "log_command",
        "One line per run, newest first: job, start, duration, dry run or applied, what it did.",
    ),
    "show": LazyCommand(
        "dreamd.cli.runs",
        "show_command",
        "The full report of one run (a unique prefix of its ID will do).",
    ),
    "status": LazyCommand(
        "dreamd.cli.status",
        "status",
        "What happened last: each job's last run, what waits for you, next runs, backlog, log.",
    ),
    "search": LazyCommand(
        "dreamd.cli.search",
        "search_command",
        'Search every configured memory store: words, "a phrase", a or b, -not.',
    ),
    "mcp": LazyCommand(
        "dreamd.cli.search",
        "mcp_command",
        "Serve memories to agents over MCP on stdio (writes only with [mcp] allow_remember).",
    ),
    "setup": LazyCommand(
        "dreamd.cli.extractors",
        "setup_command",
        "Find the extractors available here and write the one chosen into the config.",
    ),
    "facts": LazyCommand(
        "dreamd.cli.facts",
        "facts",
        "The missing-facts list: facts the collector looks for, per project or person.",
    ),
    "cursor": LazyCommand(
        "dreamd.cli.cursor",
        "cursor",
        "The collector's progress (which sessions are done) as a JSON document.",
    ),
    "run": LazyCommand(
        "dreamd.cli.service",
        "run",
        "The service: collect and dream on their schedules, follow the transcript folders.",
    ),
    "doctor": LazyCommand(
        "dreamd.cli.doctor",
        "doctor",
        "Check the config, sources, stores, service and extractor; one line each, with its fix.",
    ),
    "install-service": LazyCommand(
        "dreamd.cli.service",
        "install_service",
        "Write the systemd user unit or launchd agent, then enable and start it.",
    ),
    "uninstall-service": LazyCommand(
        "dreamd.cli.service",
        "uninstall_service",
        "Stop and disable the service, then remove its file (only a file dreamd wrote).",
    ),
    "completion": LazyCommand(
        "dreamd.cli.completion",
        "completion",
        "Print the script that makes bash, zsh or fish complete dreamd's commands and options.",
    ),
}


class LazyGroup(ErrorGroup):
    """The top-level group: commands are imported when they are looked up to run."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        assert isinstance(command, click.Command), entry
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, so ``--help`` imports no command."""
        rows = [(name, entry.short_help) for name, entry in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Command names and their lines from the table, then the group's own options.

        Click's own version looks every command up to read its help and whether
        it is hidden, which would import all of them on each TAB.
        """
        from click.shell_completion import CompletionItem

        names = [
            CompletionItem(name, help=entry.short_help)
            for name, entry in COMMANDS.items()
            if name.startswith(incomplete)
        ]
        return names + click.Command.shell_complete(self, ctx, incomplete)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dreamd")
def cli() -> None:
    """dreamd: collects what your coding agents learned, and keeps their memory tidy."""


def main() -> None:
    """Console entry point: a bug is logged as structured data and exits 1."""
    no_final_collection()
    try:
        cli.main(prog_name="dreamd")
    except Exception:
        from dreamd.logs import get_logger

        get_logger("dreamd.cli").exception("cli.crashed")
        click.echo("dreamd: internal error (details logged above); please report it", err=True)
        sys.exit(1)
