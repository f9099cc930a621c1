"""The two service files, rendered, and where they go: the systemd user unit and the launchd agent.

``deploy/dreamd.service`` and ``deploy/dreamd.plist`` (package data ``dreamd.deploy``) are the
only source of both files; this module fills in the absolute paths of one installation. Pure,
but for reading the templates and the checks of what exists (``find_program``,
``linger_enabled``).

Invariants: program, home and environment are parameters, and every path in a rendered file is
absolute. The unit's ``ExecStart`` is quoted and escaped for systemd (``%``, ``$``, quotes,
spaces); the plist is XML-escaped and checked to load with :mod:`plistlib`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from string import Template

from dreamd.errors import Refused

__all__ = [
    "LABEL",
    "LOG_FILE_NAME",
    "MARKER",
    "UNIT_NAME",
    "find_program",
    "launchd_log_dir",
    "linger_enabled",
    "plist_path",
    "render_plist",
    "render_unit",
    "systemd_executable",
    "systemd_quote",
    "unit_path",
]


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities (what a plist's ``<string>`` needs)."""
    from html import escape as html_escape  # only the writers escape: ``status`` reads paths

    return html_escape(text, quote=False)


#: The launchd label: also the plist's file name, and what marks an agent as ours.
LABEL = "dev.dreamd.agent"
UNIT_NAME = "dreamd.service"
#: How a comment line that marks a unit file as written by ``dreamd install-service`` starts.
MARKER = "# Managed by dreamd install-service"
LOG_FILE_NAME = "dreamd.log"

#: Where launchd agents look for tools: Homebrew on Apple silicon first, then Intel, then system.
_MACOS_PATH = ("/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")
_LINGER_DIR = Path("/var/lib/systemd/linger")
#: Words systemd reads verbatim in ExecStart (anything else is quoted).
_SYSTEMD_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./-]+")


# --- rendering --------------------------------------------------------------------------------


def _template(name: str) -> Template:
    from importlib import resources

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
    import plistlib

    plistlib.loads(content)  # a template edit that breaks the XML fails here, not in launchd
    return content


# --- where things go --------------------------------------------------------------------------


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
