"""Service files: render, write, enable and remove the systemd user unit and the launchd agent.

``deploy/dreamd.service`` and ``deploy/dreamd.plist`` (package data ``dreamd.deploy``) are the
only source of both files; this module fills in the absolute paths of one installation and drives
the service manager.

Invariants:

- Rendering is pure: program, home, environment and uid are parameters. Every path in a rendered
  file is absolute. The unit's ``ExecStart`` is quoted and escaped for systemd (``%``, ``$``,
  quotes, spaces); the plist is XML-escaped and checked to load with :mod:`plistlib`.
- Files are written atomically (``dreamd.fs.atomic_write``), mode 0644 (``UNIT_MODE``).
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
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Literal, NamedTuple
from xml.sax.saxutils import escape

from dreamd.errors import NotAvailable, Refused
from dreamd.fs import atomic_write

__all__ = [
    "LABEL",
    "MARKER",
    "PLATFORMS",
    "UNIT_MODE",
    "UNIT_NAME",
    "Command",
    "Completed",
    "Outcome",
    "Platform",
    "Ran",
    "Runner",
    "ServiceSpec",
    "current_spec",
    "default_platform",
    "find_program",
    "install",
    "is_ours",
    "launchd_log_dir",
    "launchd_spec",
    "linger_enabled",
    "outcome_lines",
    "plist_path",
    "probe",
    "render_plist",
    "render_unit",
    "run_commands",
    "subprocess_runner",
    "systemd_executable",
    "systemd_quote",
    "systemd_spec",
    "uninstall",
    "unit_path",
]

Platform = Literal["linux", "macos"]
PLATFORMS: tuple[Platform, ...] = ("linux", "macos")

#: The launchd label: also the plist's file name, and what marks an agent as ours.
LABEL = "dev.dreamd.agent"
UNIT_NAME = "dreamd.service"
#: How a comment line that marks a unit file as written by ``dreamd install-service`` starts.
MARKER = "# Managed by dreamd install-service"
#: Mode of the service file: the service manager (another program) reads it.
UNIT_MODE = 0o644
LOG_FILE_NAME = "dreamd.log"

#: Where launchd agents look for tools: Homebrew on Apple silicon first, then Intel, then system.
_MACOS_PATH = ("/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")
_LINGER_DIR = Path("/var/lib/systemd/linger")
#: Words systemd reads verbatim in ExecStart (anything else is quoted).
_SYSTEMD_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./-]+")
_OWNERSHIP_READ_LIMIT = 1 << 20


# --- rendering (pure) -------------------------------------------------------------------------


def _template(name: str) -> Template:
    return Template(resources.files("dreamd.deploy").joinpath(name).read_text(encoding="utf-8"))


def _argv(program: Path | str | Sequence[str]) -> tuple[str, ...]:
    """The program as an argv prefix; its first word must be an absolute path."""
    if isinstance(program, Path | str):
        argv: tuple[str, ...] = (str(program),)
    else:
        argv = tuple(str(word) for word in program)
    if not argv or not Path(argv[0]).is_absolute():
        raise ValueError(f"the service needs an absolute program path, got {argv!r}")
    if any(char in word for word in argv for char in "\n\r\0"):
        raise ValueError(f"a line break or NUL in the program arguments: {argv!r}")
    return argv


def systemd_quote(word: str) -> str:
    """One ``ExecStart`` argument that systemd reads back as ``word``.

    ``%`` (specifiers) and ``$`` (variables) are doubled; spaces, quotes and backslashes are
    quoted and escaped.
    """
    expanded = word.replace("%", "%%").replace("$", "$$")
    if _SYSTEMD_PLAIN.fullmatch(word):
        return expanded
    return '"' + expanded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_executable(path: str) -> str:
    """The first ``ExecStart`` word, the program's path, as systemd reads it back.

    systemd expands no variables there, and refuses quotes, backslashes and control characters
    in it ("special characters"): such a path is :class:`~dreamd.errors.Refused`.
    """
    if any(char in "\\\"'" or ord(char) < 32 or ord(char) == 127 for char in path):
        raise Refused(
            f"systemd cannot start a program whose path holds quotes, backslashes or control"
            f" characters: {path!r}; install dreamd under another path"
        )
    escaped = path.replace("%", "%%")
    return escaped if _SYSTEMD_PLAIN.fullmatch(path) else f'"{escaped}"'


def render_unit(program: Path | str | Sequence[str]) -> str:
    """The systemd user unit that runs ``program run``."""
    executable, *arguments = (*_argv(program), "run")
    words = (systemd_executable(executable), *map(systemd_quote, arguments))
    exec_start = " ".join(words)
    return _template("dreamd.service").substitute(exec_start=exec_start)


def launchd_log_dir(home: Path) -> Path:
    """Where the agent's rotating JSON log and launchd's stderr file live."""
    return home / "Library" / "Logs" / "dreamd"


def render_plist(program: Path | str | Sequence[str], home: Path) -> bytes:
    """The launchd agent that runs ``program run --log-file ~/Library/Logs/dreamd/dreamd.log``."""
    if not home.is_absolute():
        raise ValueError(f"the home folder must be an absolute path, got {home}")
    logs = launchd_log_dir(home)
    argv = (*_argv(program), "run", "--log-file", str(logs / LOG_FILE_NAME))
    search = dict.fromkeys((str(Path(argv[0]).parent), *_MACOS_PATH))
    content = (
        _template("dreamd.plist")
        .substitute(
            label=escape(LABEL),
            program_arguments="\n".join(f"\t\t<string>{escape(word)}</string>" for word in argv),
            home=escape(str(home)),
            path=escape(":".join(search)),
            stderr_path=escape(str(logs / "launchd-stderr.log")),
        )
        .encode("utf-8")
    )
    plistlib.loads(content)  # a template edit that breaks the XML fails here, not in launchd
    return content


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


# --- where things go (pure) -------------------------------------------------------------------


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


def find_program(executable: Path) -> tuple[str, ...]:
    """The command that starts this dreamd: its console script beside the interpreter, if any.

    The interpreter itself is never resolved: a virtual environment's ``python`` is a symlink to
    a base interpreter that does not see the environment's packages.
    """
    script = executable.absolute().parent / "dreamd"
    if script.is_file() and os.access(script, os.X_OK):
        return (str(script.resolve()),)
    return (str(executable.absolute()), "-m", "dreamd")


def unit_path(home: Path, env: Mapping[str, str]) -> Path:
    """``$XDG_CONFIG_HOME/systemd/user/dreamd.service`` (a relative XDG value is ignored)."""
    configured = env.get("XDG_CONFIG_HOME", "")
    base = Path(configured) if configured and Path(configured).is_absolute() else home / ".config"
    return base / "systemd" / "user" / UNIT_NAME


def plist_path(home: Path) -> Path:
    """``~/Library/LaunchAgents/<label>.plist``."""
    return home / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def linger_enabled(user: str, directory: Path = _LINGER_DIR) -> bool:
    """Whether systemd keeps this user's services running after logout (``enable-linger``)."""
    return bool(user) and (directory / user).exists()


# --- what to do on each platform (pure) -------------------------------------------------------

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
    if chosen == "macos":
        return launchd_spec(program, home, os.getuid())
    user = os.environ.get("USER") or pwd.getpwuid(os.getuid()).pw_name
    return systemd_spec(program, home, os.environ, linger=linger_enabled(user), user=user)


# --- running commands (the only place that talks to the service manager) ---------------------


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
