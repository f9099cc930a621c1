"""``install-service`` warns when the program it would point at may not stay where it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dreamd.gitroot import find_git_root
from dreamd.service.placement import Placement, placement, placement_warnings
from dreamd.service.servicefiles import find_program
from tests.process import run_dreamd


def environment(folder: Path) -> Path:
    """A virtual environment's layout: ``pyvenv.cfg`` and ``bin/dreamd``; the program path."""
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    program = folder / "bin" / "dreamd"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return program


def package_in(venv: Path) -> Path:
    package = venv / "lib" / "python3.11" / "site-packages" / "dreamd"
    package.mkdir(parents=True)
    return package


def test_a_program_under_a_temporary_folder_is_warned_about(tmp_path: Path) -> None:
    """Under /tmp (or $TMPDIR): gone after a reboot; the fix names pipx and uv."""
    program = environment(tmp_path / "venv")
    where = placement([str(program)], package_in(tmp_path / "venv"), tmp_path / "home", {})
    assert where.temporary is not None and where.environment_checkout is None
    warning, fix = placement_warnings(where)
    assert f"{program}, under the temporary folder" in warning
    assert "pipx install" in fix and "uv tool install" in fix


def test_a_checkout_virtual_environment_is_warned_about(tmp_path: Path) -> None:
    """A .venv inside a git checkout (not temporary here): rebuilding it breaks the service."""
    checkout = tmp_path / "src" / "dreamd"
    (checkout / ".git").mkdir(parents=True)
    program = environment(checkout / ".venv")
    package = checkout / "daemon"  # an editable install runs the checkout's own folder
    package.mkdir()
    where = placement([str(program)], package, tmp_path / "home", {}, temporary=())
    assert where == Placement(
        program=program,
        environment=checkout / ".venv",
        environment_checkout=checkout,
        package_checkout=checkout,
    )
    *problems, fix = placement_warnings(where)
    assert any("inside the git checkout" in line for line in problems)
    assert any("editable install" in line for line in problems)
    assert fix.startswith(f"to install dreamd for good: pipx install {checkout} ")


def test_a_tool_install_under_a_home_kept_in_git_is_not_a_checkout(tmp_path: Path) -> None:
    """pipx's environment under a HOME that is itself a git repository (dotfiles): no warning."""
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    venv = home / ".local" / "share" / "pipx" / "venvs" / "dreamd"
    program = environment(venv)
    where = placement([str(program)], package_in(venv), home, {}, temporary=())
    assert placement_warnings(where) == ()


def test_a_wheel_installed_in_a_checkout_venv_is_warned_once(tmp_path: Path) -> None:
    """The package inside the environment: only the environment is the problem."""
    checkout = tmp_path / "work"
    (checkout / ".git").mkdir(parents=True)
    program = environment(checkout / ".venv")
    where = placement([str(program)], package_in(checkout / ".venv"), tmp_path, {}, temporary=())
    assert where.package_checkout is None
    problems = placement_warnings(where)[:-1]
    assert len(problems) == 1 and "virtual environment" in problems[0]


def test_install_service_from_this_checkout_warns_on_stderr(isolated_home: Path) -> None:
    """The real command, run from the test's own environment (a checkout's .venv in CI)."""
    program = Path(find_program(Path(sys.executable))[0])
    if find_git_root(program.parent) is None:
        pytest.skip("these tests do not run from a git checkout's environment")
    result = run_dreamd(isolated_home, "install-service", "--print", "--platform", "linux")
    assert result.returncode == 0, result.stderr
    assert f"warning: the service would run {program}" in result.stderr
    assert "warning: to install dreamd for good: pipx install " in result.stderr
    assert "ExecStart=" in result.stdout  # the unit is printed all the same
