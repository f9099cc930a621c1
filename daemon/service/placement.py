"""Whether the program the service would run is there to stay.

``install-service`` points the unit or agent at one program by its absolute
path. A program in a temporary folder (``/tmp``, ``$TMPDIR``) is gone after a
reboot or a clean-up; one in a virtual environment inside a git checkout (a
``.venv`` made for development), or an editable install from a checkout,
breaks or changes whenever that environment is rebuilt or the checkout moves
on. Either way the service fails at some later login with no one watching.

``placement`` gathers the facts (a few ``stat`` calls and ``.git`` look-ups);
``placement_warnings`` turns them into what ``install-service`` says, with the
command that installs dreamd for good (``pipx install`` / ``uv tool install``).
A git repository at or above the home folder (dotfiles kept in ``~``) is no
checkout: every install under ``~`` would be inside it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dreamd.gitroot import find_git_root

__all__ = ["Placement", "placement", "placement_warnings", "temporary_folders"]

#: Temporary folders on Linux and macOS besides ``$TMPDIR`` and Python's own choice.
_TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/folders")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the program and the ``dreamd`` package live, as far as staying there goes."""

    program: Path
    #: The temporary folder holding the program, if any.
    temporary: Path | None = None
    #: The virtual environment holding the program, and the git checkout holding that.
    environment: Path | None = None
    environment_checkout: Path | None = None
    #: The checkout an editable install runs the package from (outside the environment).
    package_checkout: Path | None = None


def temporary_folders(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The folders whose content does not outlive a reboot or a clean-up."""
    named = (env.get("TMPDIR", ""), tempfile.gettempdir(), *_TEMPORARY)
    return tuple(dict.fromkeys(Path(os.path.realpath(p)) for p in named if p))


def _inside(path: Path, folders: Iterable[Path]) -> Path | None:
    return next((f for f in folders if path == f or f in path.parents), None)


def _environment(program: Path) -> Path | None:
    """The virtual environment whose ``bin`` holds ``program`` (its ``pyvenv.cfg``)."""
    root = program.parent.parent
    return root if (root / "pyvenv.cfg").is_file() else None


def _checkout(path: Path, home: Path) -> Path | None:
    """The git checkout holding ``path``; none when the repository is the home folder's own."""
    root = find_git_root(path)
    if root is None or root == home or root in home.parents:
        return None
    return root


def placement(
    program: Sequence[str],
    package: Path,
    home: Path,
    env: Mapping[str, str],
    *,
    temporary: Sequence[Path] | None = None,
) -> Placement:
    """The facts about ``program`` (the service's argv prefix) and the ``package`` folder.

    ``temporary``: the temporary folders (default: ``temporary_folders(env)``).
    """
    path = Path(os.path.realpath(program[0]))
    environment = _environment(path)
    package = Path(os.path.realpath(package))
    in_environment = environment is not None and environment in package.parents
    return Placement(
        program=path,
        temporary=_inside(path, temporary_folders(env) if temporary is None else temporary),
        environment=environment,
        environment_checkout=_checkout(environment, home) if environment else None,
        package_checkout=None if in_environment else _checkout(package, home),
    )


def placement_warnings(where: Placement) -> tuple[str, ...]:
    """What ``install-service`` warns about ``where``, then how to install for good; or nothing."""
    problems: list[str] = []
    if where.temporary is not None:
        problems.append(
            f"the service would run {where.program}, under the temporary folder"
            f" {where.temporary}: it is gone after a reboot or a clean-up, and the service"
            " with it"
        )
    if where.environment is not None and where.environment_checkout is not None:
        problems.append(
            f"the service would run {where.program} from the virtual environment"
            f" {where.environment} inside the git checkout {where.environment_checkout}:"
            " rebuilding or removing it, or moving the checkout on, breaks or changes the service"
        )
    if where.package_checkout is not None:
        problems.append(
            f"dreamd is an editable install from the git checkout {where.package_checkout}:"
            " the service runs whatever that checkout holds at each start"
        )
    if not problems:
        return ()
    source = where.package_checkout or where.environment_checkout or Path("<dreamd checkout>")
    return (
        *problems,
        f"to install dreamd for good: pipx install {source} (or: uv tool install {source}),"
        " then run 'dreamd install-service' again from that install (~/.local/bin/dreamd)",
    )
