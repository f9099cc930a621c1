"""Service files: the unit and the plist carry absolute paths and the settings that matter."""

from __future__ import annotations

import configparser
import os
import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest

from dreamd.errors import NotAvailable, Refused
from dreamd.service.install import default_platform, is_ours
from dreamd.service.servicefiles import (
    LABEL,
    MARKER,
    find_program,
    linger_enabled,
    plist_path,
    render_plist,
    render_unit,
    systemd_executable,
    systemd_quote,
    unit_path,
)

PROGRAM = "/opt/dreamd/venv/bin/dreamd"


def unit_sections(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


class TestUnit:
    def test_key_settings(self) -> None:
        """The unit is a notify service with a watchdog, restarts, low priority and no sandbox."""
        unit = unit_sections(render_unit(Path(PROGRAM)))
        service = unit["Service"]
        assert service["Type"] == "notify"
        assert service["NotifyAccess"] == "main"
        assert int(service["WatchdogSec"]) >= 30
        assert service["Restart"] == "on-failure"
        assert int(service["RestartSec"]) > 0
        assert int(service["TimeoutStopSec"]) > 10
        assert service["Environment"] == "PYTHONUNBUFFERED=1"
        assert service["UMask"] == "0077"
        assert service["Nice"] == "10"
        assert service["IOSchedulingClass"] == "idle"
        assert not {"ProtectHome", "ProtectSystem"} & set(service)
        assert unit["Install"]["WantedBy"] == "default.target"

    def test_exec_start_is_the_absolute_program_then_run(self) -> None:
        """ExecStart runs the given program with `run`."""
        assert unit_sections(render_unit(Path(PROGRAM)))["Service"]["ExecStart"] == (
            f"{PROGRAM} run"
        )

    def test_module_fallback_renders_every_word(self) -> None:
        """Without a console script the unit runs `python -m dreamd run`."""
        unit = render_unit(["/usr/bin/python3", "-m", "dreamd"])
        assert "ExecStart=/usr/bin/python3 -m dreamd run\n" in unit

    @pytest.mark.parametrize("program", ["dreamd", "bin/dreamd", ""])
    def test_relative_program_is_refused(self, program: str) -> None:
        """A service cannot start a relative path: rendering fails instead of writing one."""
        with pytest.raises(ValueError, match="absolute"):
            render_unit(program)

    def test_line_break_in_an_argument_is_refused(self) -> None:
        """A line break would end ExecStart and start a new directive."""
        with pytest.raises(ValueError, match="line break"):
            render_unit(["/usr/bin/python3", "-m", "dreamd\nExecStartPre=/bin/rm"])

    def test_marker_line_is_present(self) -> None:
        """Every rendered unit carries the line uninstall-service looks for."""
        assert render_unit(Path(PROGRAM)).splitlines()[0].startswith(MARKER)

    @pytest.mark.parametrize(
        ("word", "quoted"),
        [
            ("/usr/bin/dreamd", "/usr/bin/dreamd"),
            ("/a b/dreamd", '"/a b/dreamd"'),
            ("/x/100%/d", '"/x/100%%/d"'),
            ("/x/$HOME/d", '"/x/$$HOME/d"'),
            ('/x/"q"\\/d', '"/x/\\"q\\"\\\\/d"'),
        ],
    )
    def test_systemd_quote(self, word: str, quoted: str) -> None:
        """In an argument, spaces and quotes are quoted, specifiers and variables escaped."""
        assert systemd_quote(word) == quoted

    @pytest.mark.parametrize(
        ("path", "word"),
        [
            ("/usr/bin/dreamd", "/usr/bin/dreamd"),
            ("/a b/dreamd", '"/a b/dreamd"'),
            ("/x/100%/d", '"/x/100%%/d"'),
            ("/x/$HOME/d", '"/x/$HOME/d"'),
        ],
    )
    def test_systemd_executable(self, path: str, word: str) -> None:
        """In the program's path, specifiers are escaped and variables are not (none expand)."""
        assert systemd_executable(path) == word

    @pytest.mark.parametrize("name", ['a"b', "a'b", "a\\b", "a\tb"])
    def test_program_path_systemd_cannot_start_is_refused(self, name: str) -> None:
        """A path systemd rejects is refused with what to do, instead of writing a broken unit."""
        with pytest.raises(Refused, match="install dreamd under another path"):
            render_unit(Path("/opt") / name / "dreamd")


SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed"
)


def verify(unit_text: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """`systemd-analyze --user verify` on the unit, with a private runtime dir."""
    unit = folder / "dreamd.service"
    unit.write_text(unit_text)
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    assert SYSTEMD_ANALYZE is not None
    return subprocess.run(
        [SYSTEMD_ANALYZE, "--user", "verify", str(unit)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@needs_systemd_analyze
class TestSystemdAnalyze:
    def test_the_unit_for_this_installation_verifies(self, tmp_path: Path) -> None:
        """systemd accepts the unit without a single warning."""
        import sys

        result = verify(render_unit(find_program(Path(sys.executable))), tmp_path)
        assert (result.returncode, result.stderr) == (0, "")

    def test_awkward_program_path_is_read_back_exactly(self, tmp_path: Path) -> None:
        """Spaces, %, $ and non-ASCII reach systemd as the real, executable path."""
        program = executable(tmp_path / "my tools" / "100% $HOME ${X} é" / "dreamd")
        result = verify(render_unit(program), tmp_path)
        assert (result.returncode, result.stderr) == (0, "")

    def test_verify_catches_a_missing_program(self, tmp_path: Path) -> None:
        """The check can fail: a program that is not there is an error."""
        result = verify(render_unit(tmp_path / "absent" / "dreamd"), tmp_path)
        assert result.returncode != 0
        assert "absent/dreamd" in result.stderr


class TestPlist:
    def test_round_trips_with_every_key(self, tmp_path: Path) -> None:
        """The agent runs the absolute program with a rotating log file, at load, kept alive."""
        home = tmp_path / "home"
        logs = home / "Library" / "Logs" / "dreamd"
        document = plistlib.loads(render_plist(Path(PROGRAM), home))
        assert document["Label"] == LABEL
        assert document["ProgramArguments"] == [PROGRAM, "run", "--log-file", f"{logs}/dreamd.log"]
        assert all(Path(arg).is_absolute() for arg in document["ProgramArguments"][::3])
        assert document["RunAtLoad"] is True
        assert document["KeepAlive"] == {"SuccessfulExit": False}
        assert document["ProcessType"] == "Background"
        assert document["Umask"] == 0o077
        assert document["StandardErrorPath"] == f"{logs}/launchd-stderr.log"
        environment = document["EnvironmentVariables"]
        assert environment["PYTHONUNBUFFERED"] == "1"
        search = environment["PATH"].split(":")
        assert "/opt/homebrew/bin" in search
        assert search[0] == "/opt/dreamd/venv/bin"
        assert all(Path(folder).is_absolute() for folder in search)

    def test_xml_special_characters_survive(self, tmp_path: Path) -> None:
        """Paths with &, < and > reach launchd unchanged (escaped in the XML, not mangled)."""
        home = tmp_path / "R&D <home>"
        program = ["/opt/a&b/<py>", "-m", "dreamd"]
        document = plistlib.loads(render_plist(program, home))
        assert document["ProgramArguments"][:4] == [*program, "run"]
        assert document["WorkingDirectory"] == str(home)

    def test_relative_home_is_refused(self) -> None:
        """launchd needs absolute paths: a relative home is an error, not a broken agent."""
        with pytest.raises(ValueError, match="absolute"):
            render_plist(Path(PROGRAM), Path("home"))


class TestOwnership:
    def test_rendered_files_are_ours(self, tmp_path: Path) -> None:
        """What install-service writes, uninstall-service recognises."""
        assert is_ours("linux", render_unit(Path(PROGRAM)).encode())
        assert is_ours("macos", render_plist(Path(PROGRAM), tmp_path))

    @pytest.mark.parametrize(
        "content",
        [
            b"[Unit]\nDescription=my own dreamd\n[Service]\nExecStart=/bin/true\n",
            b"[Unit]\n#Managed by dreamd install-service\n",
            b"",
        ],
    )
    def test_a_unit_without_the_marker_is_foreign(self, content: bytes) -> None:
        """A hand-written unit, even one mentioning dreamd, is not ours."""
        assert not is_ours("linux", content)

    @pytest.mark.parametrize(
        "content",
        [
            plistlib.dumps({"Label": "com.example.dreamd", "ProgramArguments": ["/bin/true"]}),
            plistlib.dumps(["not", "a", "dict"]),
            b"<plist><dict><key>Label</key>",
            b"\xff\xfe garbage",
        ],
    )
    def test_a_plist_without_our_label_is_foreign(self, content: bytes) -> None:
        """Another label, another shape or broken XML: not ours."""
        assert not is_ours("macos", content)


class TestLocations:
    def test_unit_path_honours_xdg_config_home(self, tmp_path: Path) -> None:
        """An absolute XDG_CONFIG_HOME is used; a relative one is ignored, as XDG says."""
        home = tmp_path / "home"
        config = tmp_path / "config"
        assert unit_path(home, {}) == home / ".config/systemd/user/dreamd.service"
        assert unit_path(home, {"XDG_CONFIG_HOME": str(config)}) == (
            config / "systemd/user/dreamd.service"
        )
        assert unit_path(home, {"XDG_CONFIG_HOME": "rel"}) == (
            home / ".config/systemd/user/dreamd.service"
        )

    def test_plist_path(self, tmp_path: Path) -> None:
        """The plist is named after the label, in the user's LaunchAgents."""
        assert plist_path(tmp_path) == tmp_path / f"Library/LaunchAgents/{LABEL}.plist"

    def test_console_script_beside_the_interpreter_is_preferred(self, tmp_path: Path) -> None:
        """The installed `dreamd` next to python is the program, as an absolute path."""
        python = executable(tmp_path / "venv" / "bin" / "python")
        script = executable(tmp_path / "venv" / "bin" / "dreamd")
        assert find_program(python) == (str(script),)

    def test_interpreter_is_not_resolved(self, tmp_path: Path) -> None:
        """Without a script, the venv's python (a symlink) runs `-m dreamd`, unresolved."""
        base = executable(tmp_path / "base" / "python3")
        venv_python = tmp_path / "venv" / "bin" / "python"
        venv_python.parent.mkdir(parents=True)
        venv_python.symlink_to(base)
        assert find_program(venv_python) == (str(venv_python), "-m", "dreamd")

    def test_a_script_that_cannot_run_is_skipped(self, tmp_path: Path) -> None:
        """A non-executable `dreamd` file is not a program."""
        python = executable(tmp_path / "bin" / "python")
        (tmp_path / "bin" / "dreamd").write_text("not a program")
        assert find_program(python) == (str(python), "-m", "dreamd")

    def test_linger(self, tmp_path: Path) -> None:
        """Lingering is a file named after the user in systemd's linger folder."""
        (tmp_path / "ada").touch()
        assert linger_enabled("ada", tmp_path)
        assert not linger_enabled("bob", tmp_path)
        assert not linger_enabled("", tmp_path)

    @pytest.mark.parametrize(
        ("value", "platform"), [("linux", "linux"), ("linux2", "linux"), ("darwin", "macos")]
    )
    def test_default_platform(self, value: str, platform: str) -> None:
        """sys.platform picks the service manager."""
        assert default_platform(value) == platform

    def test_unsupported_platform_says_what_to_do(self) -> None:
        """Elsewhere there is no service manager to write for: a clear error."""
        with pytest.raises(NotAvailable, match="--platform"):
            default_platform("win32")
