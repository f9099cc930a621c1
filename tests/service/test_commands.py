"""Driving the service manager: which commands run, in which order, and what a failure means."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from dreamd.fswrite import atomic_write
from dreamd.service.install import UNIT_MODE, Outcome, outcome_lines
from dreamd.service.manager import Command, Completed, run_commands, subprocess_runner


class Script:
    """A runner answering from a table of exit codes per argv (in call order), recording calls."""

    def __init__(self, codes: dict[str, list[int]]) -> None:
        self.codes = codes
        self.calls: list[str] = []

    def __call__(self, argv: Sequence[str]) -> Completed:
        key = " ".join(argv)
        self.calls.append(key)
        queue = self.codes.get(key, [0])
        code = queue.pop(0) if len(queue) > 1 else queue[0]
        return Completed(code, f"{key} said {code}" if code else "")


def test_the_first_failure_that_matters_stops_the_rest() -> None:
    """After a failed required command nothing else runs; the rest is reported as remaining."""
    runner = Script({"b": [1]})
    commands = (Command(("a",)), Command(("b",)), Command(("c",)))
    ran = run_commands(commands, runner)
    assert runner.calls == ["a", "b"]
    assert ran.failure == "'b' exited 1: b said 1"
    assert ran.remaining == commands[1:]


def test_best_effort_failures_are_noted_or_ignored_and_do_not_stop() -> None:
    """`note` failures are reported, `ignore` ones are not; both let the next command run."""
    runner = Script({"a": [3], "b": [4]})
    ran = run_commands(
        (Command(("a",), "ignore"), Command(("b",), "note"), Command(("c",))), runner
    )
    assert runner.calls == ["a", "b", "c"]
    assert ran.failure is None
    assert ran.notes == ("'b' exited 4: b said 4",)


def test_attempts_retry_until_success_with_a_pause() -> None:
    """A command with attempts is tried again (pausing) until it succeeds."""
    runner = Script({"bootstrap": [5, 5, 0]})
    pauses: list[float] = []
    ran = run_commands((Command(("bootstrap",), attempts=10),), runner, sleep=pauses.append)
    assert ran.failure is None
    assert runner.calls == ["bootstrap"] * 3
    assert len(pauses) == 2


def test_attempts_give_up() -> None:
    """After its last attempt a failing command is a failure."""
    runner = Script({"bootstrap": [5]})
    ran = run_commands((Command(("bootstrap",), attempts=3),), runner, sleep=lambda _: None)
    assert runner.calls == ["bootstrap"] * 3
    assert ran.failure is not None


def test_subprocess_runner_reports_exit_code_and_error_output() -> None:
    """The real runner returns the exit code and what the command said on stderr."""
    assert subprocess_runner(["sh", "-c", "echo fine"]) == Completed(0, "fine")
    assert subprocess_runner(["sh", "-c", "echo out; echo oops >&2; exit 3"]) == Completed(
        3, "oops"
    )


def test_subprocess_runner_missing_program_is_127(tmp_path: Path) -> None:
    """A service manager that is not installed is an answer, not an exception."""
    completed = subprocess_runner([str(tmp_path / "systemctl"), "--user"])
    assert completed.returncode == 127
    assert "not found" in completed.output


@pytest.mark.parametrize(
    ("manager", "code"), [("done", 0), ("skipped", 0), ("unreachable", 0), ("failed", 1)]
)
def test_exit_code_tells_whether_a_command_failed(manager: str, code: int) -> None:
    """Only a command failing while the manager answers is exit 1."""
    outcome = Outcome(Path("/x"), "written", manager)  # type: ignore[arg-type]
    assert outcome.exit_code == code


def test_unreachable_install_says_not_started_and_what_to_run() -> None:
    """The user learns the file is there, why nothing started, and the exact commands."""
    outcome = Outcome(
        Path("/h/dreamd.service"),
        "written",
        "unreachable",
        "'systemctl --user show-environment' exited 1: Failed to connect to bus",
        ("systemctl --user daemon-reload", "systemctl --user enable --now dreamd.service"),
        ("enabled: starts at your next login",),
    )
    out, err = outcome_lines(outcome)
    assert out == ["written /h/dreamd.service"]
    assert err[0].startswith("written, not started: the service manager does not answer")
    assert "  systemctl --user enable --now dreamd.service" in err
    assert err[-1] == "note: enabled: starts at your next login"


def test_a_service_file_is_0644_whatever_the_umask(tmp_path: Path) -> None:
    """A service file is readable by the manager even from a 077 shell; no temp file remains."""
    target = tmp_path / "user" / "dreamd.service"
    previous = os.umask(0o077)
    try:
        atomic_write(target, b"first", mode=UNIT_MODE)
        atomic_write(target, b"second", mode=UNIT_MODE)
    finally:
        os.umask(previous)
    assert target.read_bytes() == b"second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [path.name for path in target.parent.iterdir()] == ["dreamd.service"]
