"""`dreamd install-service` / `uninstall-service` as a user runs them, in a temp HOME.

The service managers are real where this machine has them (`systemctl --user` without a user
manager, as in containers and CI) and small recording scripts on PATH where a test needs a
manager that answers.
"""

from __future__ import annotations

import os
import plistlib
import pwd
import shutil
import stat
import sys
from pathlib import Path

import pytest

from dreamd.service.servicefiles import LABEL, MARKER, find_program, render_plist, render_unit
from tests.process import run_dreamd

UNIT = Path(".config/systemd/user/dreamd.service")
PLIST = Path(f"Library/LaunchAgents/{LABEL}.plist")
FOREIGN_UNIT = b"[Unit]\nDescription=my own dreamd\n[Service]\nExecStart=/bin/true\n"


def tree(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def fake_tool(bin_dir: Path, name: str) -> Path:
    """A `systemctl`/`launchctl` that logs each call (and whether the unit file exists) and
    fails when its arguments contain $FAKE_FAIL_ON, or for the first $FAKE_FAIL_TIMES calls
    containing `bootstrap`."""
    log = bin_dir / f"{name}.calls"
    script = bin_dir / name
    bin_dir.mkdir(exist_ok=True)
    script.write_text(
        "#!/bin/sh\n"
        'if [ -e "$FAKE_FILE" ]; then state=present; else state=absent; fi\n'
        f'echo "$* [$state]" >> "{log}"\n'
        'case "$*" in *bootstrap*)\n'
        f'  n=$(grep -c bootstrap "{log}")\n'
        '  if [ "$n" -le "${FAKE_FAIL_TIMES:-0}" ]; then\n'
        '    echo "Bootstrap failed: 5" >&2; exit 5\n'
        "  fi;;\n"
        "esac\n"
        'if [ -n "$FAKE_FAIL_ON" ]; then case "$*" in *"$FAKE_FAIL_ON"*)\n'
        '  echo "Job for dreamd.service failed" >&2; exit 1;; esac; fi\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    return log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def no_user_manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment in which `systemctl --user` finds no user manager, on any machine."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    return {"XDG_RUNTIME_DIR": str(runtime)}


def with_fakes(tmp_path: Path, home: Path, **env: str) -> dict[str, str]:
    return {
        "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
        "FAKE_FILE": str(home / UNIT),
        **env,
    }


class TestPrint:
    def test_linux_prints_the_unit_and_writes_nothing(self, isolated_home: Path) -> None:
        """--print: the unit on stdout, the commands on stderr, no file anywhere."""
        result = run_dreamd(isolated_home, "install-service", "--print", "--platform", "linux")
        assert result.returncode == 0, result.stderr
        program = find_program(Path(sys.executable))
        assert result.stdout == render_unit(program)
        assert "systemctl --user enable --now dreamd.service" in result.stderr
        assert str(isolated_home / UNIT) in result.stderr
        assert tree(isolated_home) == set()

    def test_macos_prints_a_loadable_plist_and_writes_nothing(self, isolated_home: Path) -> None:
        """--print --platform macos: a plist that plistlib loads, launchctl bootstrap, no file."""
        result = run_dreamd(isolated_home, "install-service", "--print", "--platform", "macos")
        assert result.returncode == 0, result.stderr
        document = plistlib.loads(result.stdout.encode())
        assert document["Label"] == LABEL
        assert Path(document["ProgramArguments"][0]).is_absolute()
        assert f"launchctl bootstrap gui/{os.getuid()} " in result.stderr
        assert " load " not in result.stderr
        assert tree(isolated_home) == set()


@pytest.mark.skipif(shutil.which("systemctl") is None, reason="systemctl is not installed")
class TestWithoutUserManager:
    def test_install_writes_enables_and_says_it_did_not_start(
        self, isolated_home: Path, no_user_manager: dict[str, str]
    ) -> None:
        """No manager answers: file written 0644 and enabled for next login, exit 0, commands."""
        result = run_dreamd(
            isolated_home, "install-service", "--platform", "linux", **no_user_manager
        )
        assert result.returncode == 0, result.stderr
        unit = isolated_home / UNIT
        assert unit.read_text() == render_unit(find_program(Path(sys.executable)))
        assert stat.S_IMODE(unit.stat().st_mode) == 0o644
        wants = isolated_home / ".config/systemd/user/default.target.wants/dreamd.service"
        assert wants.is_symlink()
        assert wants.resolve() == unit.resolve()
        assert "written, not started" in result.stderr
        assert "systemctl --user enable --now dreamd.service" in result.stderr
        user = os.environ.get("USER") or pwd.getpwuid(os.getuid()).pw_name
        lingering = (Path("/var/lib/systemd/linger") / user).exists()
        assert ("loginctl enable-linger" in result.stderr) is not lingering

    def test_uninstall_removes_exactly_what_install_made(
        self, isolated_home: Path, no_user_manager: dict[str, str]
    ) -> None:
        """After install then uninstall, only the user's own files remain."""
        user_dir = isolated_home / ".config/systemd/user"
        user_dir.mkdir(parents=True)
        (user_dir / "other.service").write_text("[Service]\nExecStart=/bin/true\n")
        before = tree(isolated_home)
        installed = run_dreamd(isolated_home, "install-service", **no_user_manager)
        assert installed.returncode == 0, installed.stderr
        removed = run_dreamd(isolated_home, "uninstall-service", **no_user_manager)
        assert removed.returncode == 0, removed.stderr
        assert f"removed {isolated_home / UNIT}" in removed.stdout
        left = tree(isolated_home) - before
        assert left <= {".config/systemd/user/default.target.wants"}  # systemctl's empty dir
        assert (user_dir / "other.service").read_text().startswith("[Service]")

    def test_xdg_config_home_is_honoured(
        self, isolated_home: Path, tmp_path: Path, no_user_manager: dict[str, str]
    ) -> None:
        """With XDG_CONFIG_HOME set, the unit goes there (where systemd --user looks)."""
        config = tmp_path / "xdg-config"
        env = {**no_user_manager, "XDG_CONFIG_HOME": str(config)}
        result = run_dreamd(isolated_home, "install-service", "--no-enable", **env)
        assert result.returncode == 0, result.stderr
        assert (config / "systemd/user/dreamd.service").is_file()
        assert not (isolated_home / UNIT).exists()


class TestRefusals:
    def test_uninstall_refuses_a_foreign_unit(self, isolated_home: Path, tmp_path: Path) -> None:
        """A dreamd.service the user wrote is neither stopped nor removed: exit 1, bytes intact."""
        log = fake_tool(tmp_path / "bin", "systemctl")
        unit = isolated_home / UNIT
        unit.parent.mkdir(parents=True)
        unit.write_bytes(FOREIGN_UNIT)
        env = with_fakes(tmp_path, isolated_home)
        result = run_dreamd(isolated_home, "uninstall-service", "--platform", "linux", **env)
        assert result.returncode == 1
        assert "not written by dreamd" in result.stderr
        assert unit.read_bytes() == FOREIGN_UNIT
        assert calls(log) == []

    def test_install_refuses_to_overwrite_a_foreign_unit(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """install-service does not replace a unit it did not write."""
        fake_tool(tmp_path / "bin", "systemctl")
        unit = isolated_home / UNIT
        unit.parent.mkdir(parents=True)
        unit.write_bytes(FOREIGN_UNIT)
        env = with_fakes(tmp_path, isolated_home)
        result = run_dreamd(isolated_home, "install-service", "--platform", "linux", **env)
        assert result.returncode == 1
        assert unit.read_bytes() == FOREIGN_UNIT
        assert sorted(path.name for path in unit.parent.iterdir()) == ["dreamd.service"]

    def test_uninstall_refuses_a_plist_with_another_label(self, isolated_home: Path) -> None:
        """A plist at our path but with another Label is someone else's agent."""
        plist = isolated_home / PLIST
        plist.parent.mkdir(parents=True)
        content = plistlib.dumps({"Label": "com.example.other", "ProgramArguments": ["/bin/true"]})
        plist.write_bytes(content)
        result = run_dreamd(isolated_home, "uninstall-service", "--platform", "macos")
        assert result.returncode == 1
        assert plist.read_bytes() == content

    def test_a_symlink_is_left_alone_even_to_our_own_content(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """A symlinked unit (dotfiles) is the user's arrangement: neither replaced nor removed."""
        fake_tool(tmp_path / "bin", "systemctl")
        target = tmp_path / "dotfiles" / "dreamd.service"
        target.parent.mkdir()
        target.write_text(render_unit(find_program(Path(sys.executable))))
        unit = isolated_home / UNIT
        unit.parent.mkdir(parents=True)
        unit.symlink_to(target)
        env = with_fakes(tmp_path, isolated_home)
        for command in ("install-service", "uninstall-service"):
            result = run_dreamd(isolated_home, command, "--platform", "linux", **env)
            assert result.returncode == 1, command
            assert unit.is_symlink()
            assert target.is_file()

    def test_uninstall_with_nothing_installed(self, isolated_home: Path) -> None:
        """Nothing to remove is not an error."""
        result = run_dreamd(isolated_home, "uninstall-service", "--platform", "linux")
        assert result.returncode == 0
        assert "nothing to remove" in result.stdout


class TestWithAnsweringManager:
    def test_install_reloads_then_enables_now(self, isolated_home: Path, tmp_path: Path) -> None:
        """The manager answers: daemon-reload, then enable --now, after the file is in place."""
        log = fake_tool(tmp_path / "bin", "systemctl")
        env = with_fakes(tmp_path, isolated_home)
        result = run_dreamd(isolated_home, "install-service", "--platform", "linux", **env)
        assert result.returncode == 0, result.stderr
        assert calls(log) == [
            "--user show-environment [present]",
            "--user daemon-reload [present]",
            "--user enable --now dreamd.service [present]",
        ]
        assert "enabled and started" in result.stdout

    def test_reinstall_replaces_our_older_unit(self, isolated_home: Path, tmp_path: Path) -> None:
        """An older unit of ours (marker line) is replaced in place; no temp file is left."""
        fake_tool(tmp_path / "bin", "systemctl")
        unit = isolated_home / UNIT
        unit.parent.mkdir(parents=True)
        unit.write_text(f"{MARKER} (0.0.1)\n[Service]\nExecStart=/old/dreamd run\n")
        env = with_fakes(tmp_path, isolated_home)
        result = run_dreamd(isolated_home, "install-service", "--platform", "linux", **env)
        assert result.returncode == 0, result.stderr
        assert unit.read_text() == render_unit(find_program(Path(sys.executable)))
        assert sorted(path.name for path in unit.parent.iterdir()) == ["dreamd.service"]

    def test_a_failing_enable_is_exit_1_and_keeps_the_file(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """The manager answers but refuses: exit 1, the error shown, the file left in place."""
        fake_tool(tmp_path / "bin", "systemctl")
        env = with_fakes(tmp_path, isolated_home, FAKE_FAIL_ON="enable")
        result = run_dreamd(isolated_home, "install-service", "--platform", "linux", **env)
        assert result.returncode == 1
        assert "'systemctl --user enable --now dreamd.service' exited 1" in result.stderr
        assert "Job for dreamd.service failed" in result.stderr
        assert (isolated_home / UNIT).is_file()

    def test_no_enable_writes_without_calling_the_manager(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """--no-enable: the file only, and the commands to run printed."""
        log = fake_tool(tmp_path / "bin", "systemctl")
        env = with_fakes(tmp_path, isolated_home)
        result = run_dreamd(
            isolated_home, "install-service", "--platform", "linux", "--no-enable", **env
        )
        assert result.returncode == 0
        assert calls(log) == []
        assert (isolated_home / UNIT).is_file()
        assert "systemctl --user enable --now dreamd.service" in result.stderr

    def test_uninstall_stops_before_removing_and_reloads_after(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """disable --now sees the file; daemon-reload runs once it is gone."""
        log = fake_tool(tmp_path / "bin", "systemctl")
        env = with_fakes(tmp_path, isolated_home)
        assert run_dreamd(isolated_home, "install-service", "--no-enable", **env).returncode == 0
        result = run_dreamd(isolated_home, "uninstall-service", "--platform", "linux", **env)
        assert result.returncode == 0, result.stderr
        assert calls(log) == [
            "--user show-environment [present]",
            "--user disable --now dreamd.service [present]",
            "--user daemon-reload [absent]",
        ]
        assert not (isolated_home / UNIT).exists()

    def test_a_failing_disable_still_removes_and_says_so(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """Stopping is best effort: the file goes, the failure is reported as a note."""
        fake_tool(tmp_path / "bin", "systemctl")
        env = with_fakes(tmp_path, isolated_home)
        assert run_dreamd(isolated_home, "install-service", "--no-enable", **env).returncode == 0
        failing = {**env, "FAKE_FAIL_ON": "disable"}
        result = run_dreamd(isolated_home, "uninstall-service", **failing)
        assert result.returncode == 0
        assert "note: 'systemctl --user disable --now dreamd.service' exited 1" in result.stderr
        assert not (isolated_home / UNIT).exists()


@pytest.mark.skipif(shutil.which("launchctl") is not None, reason="would drive the real launchd")
class TestLaunchd:
    def test_without_launchd_the_plist_is_written_with_its_log_folder(
        self, isolated_home: Path
    ) -> None:
        """No launchctl answers: plist written, log folder 0700, exit 0; uninstall removes it."""
        result = run_dreamd(isolated_home, "install-service", "--platform", "macos")
        assert result.returncode == 0, result.stderr
        plist = isolated_home / PLIST
        assert plist.read_bytes() == render_plist(find_program(Path(sys.executable)), isolated_home)
        logs = isolated_home / "Library/Logs/dreamd"
        assert stat.S_IMODE(logs.stat().st_mode) == 0o700
        assert "written, not started" in result.stderr
        removed = run_dreamd(isolated_home, "uninstall-service", "--platform", "macos")
        assert removed.returncode == 0, removed.stderr
        assert not plist.exists()
        assert logs.is_dir()  # the logs stay

    def test_bootstrap_retries_while_the_old_agent_is_booted_out(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """bootout returns before the agent is gone: bootstrap is retried until it takes."""
        log = fake_tool(tmp_path / "bin", "launchctl")
        plist = isolated_home / PLIST
        env = with_fakes(tmp_path, isolated_home, FAKE_FILE=str(plist), FAKE_FAIL_TIMES="2")
        result = run_dreamd(isolated_home, "install-service", "--platform", "macos", **env)
        assert result.returncode == 0, result.stderr
        uid = os.getuid()
        bootstrap = f"bootstrap gui/{uid} {plist} [present]"
        assert calls(log) == [
            f"print gui/{uid} [present]",
            f"bootout gui/{uid}/{LABEL} [present]",
            bootstrap,
            bootstrap,
            bootstrap,
        ]

    def test_uninstall_boots_out_then_removes(self, isolated_home: Path, tmp_path: Path) -> None:
        """bootout gui/$UID/<label> while the plist is still there, then the plist goes."""
        log = fake_tool(tmp_path / "bin", "launchctl")
        plist = isolated_home / PLIST
        env = with_fakes(tmp_path, isolated_home, FAKE_FILE=str(plist))
        assert (
            run_dreamd(
                isolated_home, "install-service", "--platform", "macos", "--no-enable", **env
            ).returncode
            == 0
        )
        result = run_dreamd(isolated_home, "uninstall-service", "--platform", "macos", **env)
        assert result.returncode == 0, result.stderr
        uid = os.getuid()
        assert calls(log) == [f"print gui/{uid} [present]", f"bootout gui/{uid}/{LABEL} [present]"]
        assert not plist.exists()
