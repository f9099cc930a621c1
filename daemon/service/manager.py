"""The service manager, driven: ``Command``, ``Runner``, ``probe`` and ``run_commands``.

The only place that talks to systemd or launchd. Every command goes through a :data:`Runner`
(``subprocess_runner`` for real, a script in tests), which reports an exit code and output and
never raises for a failed command. Each :class:`Command` says whether its failure matters
(``fail``), is worth a note (``note``) or is expected (``ignore``); ``run_commands`` stops at
the first failure that matters and says which commands were left.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "Command",
    "Completed",
    "OnFailure",
    "Ran",
    "Runner",
    "probe",
    "run_commands",
    "subprocess_runner",
]

OnFailure = Literal["fail", "note", "ignore"]


@dataclass(frozen=True)
class Command:
    """One service-manager command; ``on_failure`` says whether its failure matters."""

    argv: tuple[str, ...]
    on_failure: OnFailure = "fail"
    #: Tries before giving up (``launchctl bootout`` returns before the agent is gone).
    attempts: int = 1

    def __str__(self) -> str:
        return shlex.join(self.argv)


class Completed(NamedTuple):
    """What a runner reports about one command."""

    returncode: int
    output: str


#: Runs one argv and reports its exit code and (error) output; never raises for a failed command.
Runner = Callable[[Sequence[str]], Completed]


def subprocess_runner(argv: Sequence[str]) -> Completed:
    """Run ``argv`` for real; a missing program is exit 127, a hung one exit 124."""
    try:
        done = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
    except FileNotFoundError:
        return Completed(127, f"{argv[0]}: command not found")
    except subprocess.TimeoutExpired:
        return Completed(124, f"{argv[0]}: no answer within 120 s")
    return Completed(done.returncode, (done.stderr.strip() or done.stdout.strip())[-800:])


def _describe(command: Command, completed: Completed) -> str:
    detail = completed.output.splitlines()[-1] if completed.output else "no output"
    return f"'{command}' exited {completed.returncode}: {detail}"


def probe(command: Command, runner: Runner) -> str | None:
    """``None`` when the service manager answers, else why it does not."""
    completed = runner(command.argv)
    return None if completed.returncode == 0 else _describe(command, completed)


@dataclass(frozen=True)
class Ran:
    """The result of :func:`run_commands`: the failure that stopped it, and notes."""

    failure: str | None
    remaining: tuple[Command, ...]
    notes: tuple[str, ...]


def run_commands(
    commands: Sequence[Command], runner: Runner, *, sleep: Callable[[float], None] = time.sleep
) -> Ran:
    """Run ``commands`` in order; stop at the first failure of a command whose failure matters."""
    notes: list[str] = []
    for index, command in enumerate(commands):
        completed = runner(command.argv)
        for _ in range(command.attempts - 1):
            if completed.returncode == 0:
                break
            sleep(0.5)
            completed = runner(command.argv)
        if completed.returncode == 0 or command.on_failure == "ignore":
            continue
        if command.on_failure == "fail":
            return Ran(_describe(command, completed), tuple(commands[index:]), tuple(notes))
        notes.append(_describe(command, completed))
    return Ran(None, (), tuple(notes))
