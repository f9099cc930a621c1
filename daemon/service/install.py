"""Install and remove the service: write, enable, stop and remove the unit or the agent.

What to do on each platform is decided up front (``ServiceSpec``: the file from
``dreamd.service.servicefiles`` and the service-manager commands around it); ``install`` and
``uninstall`` then write or remove the file and drive the manager (``dreamd.service.manager``).

Invariants:

- Files are written atomically (``dreamd.fswrite.atomic_write``), mode 0644 (``UNIT_MODE``).
- Only our own file is ever overwritten or removed: a unit must carry :data:`MARKER`, a plist
  our :data:`LABEL`, and neither may be a symlink. Anything else at the target path is refused
  (:class:`~dreamd.errors.Refused`) and left untouched.
- The service manager is driven only through :func:`probe` and :func:`run_commands`, which take
  a :data:`Runner`. When the manager cannot be reached (no user systemd in containers and CI, no
  GUI login on macOS), the file is still written (and, for systemd, enabled through the symlink
  that ``systemctl --user enable`` makes without a manager, so it starts at the next login), and
  the outcome lists the commands the user has to run: exit 0, "written, not started" on stderr.
  A command that fails while the manager answers is a failure: exit 1.
"""

from __future__ import annotations

import os
import plistlib
import pwd
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from dreamd.errors import NotAvailable, Refused
from dreamd.fswrite import atomic_write
from dreamd.service.manager import (
    Command,
    OnFailure,
    Runner,
    probe,
    run_commands,
    subprocess_runner,
)
from dreamd.service.placement import placement, placement_warnings
from dreamd.service.servicefiles import (
    LABEL,
    LOG_FILE_NAME,
    MARKER,
    UNIT_NAME,
    find_program,
    launchd_log_dir,
    linger_enabled,
    plist_path,
    render_plist,
    render_unit,
    unit_path,
)

__all__ = [
    "PLATFORMS",
    "UNIT_MODE",
    "Outcome",
    "Platform",
    "ServiceSpec",
    "current_spec",
    "default_platform",
    "install",
    "is_ours",
    "launchd_spec",
    "outcome_lines",
    "systemd_spec",
    "uninstall",
]

Platform = Literal["linux", "macos"]
PLATFORMS: tuple[Platform, ...] = ("linux", "macos")

#: Mode of the service file: the service manager (another program) reads it.
UNIT_MODE = 0o644
_OWNERSHIP_READ_LIMIT = 1 << 20


def is_ours(platform: Platform, content: bytes) -> bool:
    """Whether a service file was written by dreamd: the marker line (unit) or our label (plist)."""
    if platform == "linux":
        lines = content.decode("utf-8", errors="replace").splitlines()
        return any(line.startswith(MARKER) for line in lines)
    try:
        document = plistlib.loads(content)
    except Exception:  # plistlib raises several unrelated types on bad input
        return False
    return isinstance(document, dict) and document.get("Label") == LABEL


def default_platform(sys_platform: str) -> Platform:
    """The service manager of this machine, from ``sys.platform``."""
    if sys_platform == "darwin":
        return "macos"
    if sys_platform.startswith("linux"):
        return "linux"
    raise NotAvailable(
        f"no service manager support on {sys_platform!r}: run 'dreamd run' under your own"
        " supervisor, or pass --platform linux|macos to only write a file"
    )


# --- what to do on each platform (pure) -------------------------------------------------------


@dataclass(frozen=True)
class ServiceSpec:
    """Everything install-service and uninstall-service do on one platform, decided up front."""

    platform: Platform
    path: Path
    content: bytes
    #: Created (0700) before the file is written: launchd opens the stderr file itself.
    directories: tuple[Path, ...]
    #: Succeeds only when the service manager answers.
    probe: Command
    #: Run when the manager answers: enable and start; stop and disable; after the file is gone.
    enable: tuple[Command, ...]
    disable: tuple[Command, ...]
    after_removal: tuple[Command, ...]
    #: Run when it does not: what works on files alone (systemd's enable symlink).
    offline_enable: tuple[Command, ...] = ()
    offline_disable: tuple[Command, ...] = ()
    #: Said when the file is in place but the manager did not answer.
    next_login: str = ""
    #: Printed after an uninstall the manager did not hear about.
    stop_later: tuple[Command, ...] = ()
    hints: tuple[str, ...] = ()
    #: Why the program it points at may not stay (``dreamd.service.placement``).
    warnings: tuple[str, ...] = ()


def _systemctl(*words: str, on_failure: OnFailure = "fail") -> Command:
    return Command(("systemctl", "--user", *words), on_failure)


def systemd_spec(
    program: Sequence[str], home: Path, env: Mapping[str, str], *, linger: bool, user: str
) -> ServiceSpec:
    """The systemd user unit, and the ``systemctl --user`` commands around it."""
    hints: tuple[str, ...] = ()
    if not linger:
        hints = (
            "without lingering, systemd stops dreamd when you log out and starts it at your next"
            f" login; to keep it running: loginctl enable-linger {user or '$USER'}",
        )
    return ServiceSpec(
        platform="linux",
        path=unit_path(home, env),
        content=render_unit(program).encode("utf-8"),
        directories=(),
        probe=_systemctl("show-environment"),
        enable=(_systemctl("daemon-reload"), _systemctl("enable", "--now", UNIT_NAME)),
        disable=(_systemctl("disable", "--now", UNIT_NAME, on_failure="note"),),
        after_removal=(_systemctl("daemon-reload", on_failure="note"),),
        # `systemctl --user enable/disable` (without --now) only edit symlinks: no manager needed.
        offline_enable=(_systemctl("enable", UNIT_NAME, on_failure="note"),),
        offline_disable=(_systemctl("disable", UNIT_NAME, on_failure="note"),),
        next_login="enabled: the user manager starts it when it next starts (at your next login)",
        stop_later=(_systemctl("stop", UNIT_NAME), _systemctl("daemon-reload")),
        hints=hints,
    )


def launchd_spec(program: Sequence[str], home: Path, uid: int) -> ServiceSpec:
    """The launchd agent, and the ``launchctl`` commands around it (``bootstrap``, not ``load``)."""
    path = plist_path(home)
    domain = f"gui/{uid}"
    return ServiceSpec(
        platform="macos",
        path=path,
        content=render_plist(program, home),
        directories=(launchd_log_dir(home),),
        probe=Command(("launchctl", "print", domain)),
        # A reinstall replaces a loaded agent: take the old one out first (absent: no matter).
        enable=(
            Command(("launchctl", "bootout", f"{domain}/{LABEL}"), "ignore"),
            Command(("launchctl", "bootstrap", domain, str(path)), attempts=10),
        ),
        disable=(Command(("launchctl", "bootout", f"{domain}/{LABEL}"), "note"),),
        after_removal=(),
        next_login="launchd loads every agent in ~/Library/LaunchAgents at your next login",
        stop_later=(Command(("launchctl", "bootout", f"{domain}/{LABEL}")),),
        hints=(f"logs: {launchd_log_dir(home) / LOG_FILE_NAME}",),
    )


def current_spec(platform: Platform | None) -> ServiceSpec:
    """The spec for this process: its interpreter, ``$HOME``, environment and user."""
    chosen = platform or default_platform(sys.platform)
    program = find_program(Path(sys.executable))
    home = Path.home().absolute()
    package = Path(__file__).resolve().parents[1]  # the dreamd package folder
    warnings = placement_warnings(placement(program, package, home, os.environ))
    if chosen == "macos":
        spec = launchd_spec(program, home, os.getuid())
    else:
        user = os.environ.get("USER") or pwd.getpwuid(os.getuid()).pw_name
        spec = systemd_spec(program, home, os.environ, linger=linger_enabled(user), user=user)
    return replace(spec, warnings=warnings)


# --- install / uninstall (file I/O at the edge) -----------------------------------------------

Manager = Literal["done", "skipped", "unreachable", "failed"]


@dataclass(frozen=True)
class Outcome:
    """What install or uninstall did, and what is left for the user to run."""

    path: Path
    action: Literal["written", "removed", "absent"]
    manager: Manager
    reason: str = ""
    todo: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when a command failed while the service manager answered; else 0."""
        return 1 if self.manager == "failed" else 0


def _check_ours(spec: ServiceSpec) -> None:
    """Refuse to overwrite or remove anything at ``spec.path`` that dreamd did not write."""
    path = spec.path
    if path.is_symlink() or not path.is_file():
        raise Refused(f"{path} is not a regular file written by dreamd; left untouched")
    with open(path, "rb") as handle:
        content = handle.read(_OWNERSHIP_READ_LIMIT)
    if not is_ours(spec.platform, content):
        mark = "the marker line" if spec.platform == "linux" else f"the label {LABEL}"
        raise Refused(
            f"{path} was not written by dreamd (no {mark}); left untouched:"
            " move it away first if dreamd should manage it"
        )


def install(
    spec: ServiceSpec,
    *,
    enable: bool,
    runner: Runner = subprocess_runner,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Write the service file, then enable it unless ``enable`` is false."""
    if spec.path.exists() or spec.path.is_symlink():
        _check_ours(spec)
    for directory in spec.directories:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(spec.path, spec.content, mode=UNIT_MODE)
    todo = tuple(str(command) for command in spec.enable)
    if not enable:
        return Outcome(spec.path, "written", "skipped", todo=todo, notes=spec.hints)
    unreachable = probe(spec.probe, runner)
    if unreachable:
        offline = run_commands(spec.offline_enable, runner)
        notes = offline.notes or (spec.next_login,)
        return Outcome(
            spec.path, "written", "unreachable", unreachable, todo, (*notes, *spec.hints)
        )
    ran = run_commands(spec.enable, runner, sleep=sleep)
    if ran.failure:
        remaining = tuple(str(command) for command in ran.remaining)
        return Outcome(spec.path, "written", "failed", ran.failure, remaining, ran.notes)
    return Outcome(spec.path, "written", "done", notes=(*ran.notes, *spec.hints))


def uninstall(spec: ServiceSpec, *, runner: Runner = subprocess_runner) -> Outcome:
    """Stop and disable the service (best effort), then remove our file and nothing else."""
    if not spec.path.exists() and not spec.path.is_symlink():
        return Outcome(spec.path, "absent", "skipped")
    _check_ours(spec)
    unreachable = probe(spec.probe, runner)
    if unreachable:
        offline = run_commands(spec.offline_disable, runner)
        spec.path.unlink()
        todo = tuple(str(command) for command in spec.stop_later)
        return Outcome(spec.path, "removed", "unreachable", unreachable, todo, offline.notes)
    stopped = run_commands(spec.disable, runner)
    spec.path.unlink()
    reloaded = run_commands(spec.after_removal, runner)
    return Outcome(spec.path, "removed", "done", notes=(*stopped.notes, *reloaded.notes))


def outcome_lines(outcome: Outcome) -> tuple[list[str], list[str]]:
    """The lines to print for an outcome: (stdout, stderr)."""
    out: list[str] = []
    err: list[str] = []
    todo = [f"  {command}" for command in outcome.todo]
    if outcome.action == "absent":
        out.append(f"no service file at {outcome.path}: nothing to remove")
    else:
        out.append(f"{outcome.action} {outcome.path}")
    installing = outcome.action == "written"
    if outcome.manager == "done":
        out.append("enabled and started" if installing else "stopped, disabled and removed")
    elif outcome.manager == "skipped" and installing:
        err += ["written, not enabled (--no-enable); to enable it, run:", *todo]
    elif outcome.manager == "unreachable":
        what = "written, not started" if installing else "removed, not stopped"
        err += [f"{what}: the service manager does not answer ({outcome.reason})"]
        err += ["to start it now, run where it answers:" if installing else "if dreamd still runs:"]
        err += todo
    elif outcome.manager == "failed":
        err += [f"written, not enabled: {outcome.reason}", "after fixing that, run:", *todo]
    err += [f"note: {note}" for note in outcome.notes]
    return out, err
