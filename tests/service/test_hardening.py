"""The user unit's hardening: what it sets, that systemd accepts it, the score the docs state.

``systemd-analyze`` runs where it is installed (``.ci/run`` installs systemd when it can); the
tests skip cleanly elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dreamd.service.servicefiles import find_program, render_unit

SERVICE_DOCS = Path(__file__).resolve().parents[2] / "docs" / "service.md"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed"
)

#: Each setting the unit carries, as `systemd-analyze security --json` names its check.
HARDENING = {
    "NoNewPrivileges=yes": "NoNewPrivileges",
    "LockPersonality=yes": "LockPersonality",
    "RestrictRealtime=yes": "RestrictRealtime",
    "RestrictSUIDSGID=yes": "RestrictSUIDSGID",
    "SystemCallArchitectures=native": "SystemCallArchitectures",
    "PrivateTmp=yes": "PrivateTmp",
    "UMask=0077": "UMask",
}


def _settings(unit: str) -> set[str]:
    return {line.strip() for line in unit.splitlines() if "=" in line and line[0] != "#"}


def test_the_unit_carries_the_user_unit_hardening() -> None:
    """Every setting a user unit can have is on; none that would hide or freeze ~ is."""
    settings = _settings(render_unit("/usr/bin/dreamd"))
    assert set(HARDENING) <= settings
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK" in settings
    assert not any(line.startswith(("ProtectHome=", "ProtectSystem=")) for line in settings)
    # The command extractor runs agent CLIs: a JIT (Node.js) and their own sandboxes must work.
    assert not any(
        line.startswith(("MemoryDenyWriteExecute=", "RestrictNamespaces=")) for line in settings
    )
    (syscalls,) = [line for line in settings if line.startswith("SystemCallFilter=")]
    assert syscalls.startswith("SystemCallFilter=~")  # a deny list, never an allow list
    assert "@resources" not in syscalls  # dreamd lowers its own priority (nice) before a collect


def _analyze(*words: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze --user ...`` with a private runtime dir (no user manager needed)."""
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    assert SYSTEMD_ANALYZE is not None
    return subprocess.run(
        [SYSTEMD_ANALYZE, "--user", *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _unit(folder: Path) -> Path:
    unit = folder / "dreamd.service"
    unit.write_text(render_unit(find_program(Path(sys.executable))))
    return unit


def documented_score() -> float:
    """The exposure docs/service.md states for the unit."""
    match = re.search(r"scores the unit \*\*(\d+\.\d)", SERVICE_DOCS.read_text(encoding="utf-8"))
    assert match is not None, "docs/service.md states the systemd-analyze security score"
    return float(match.group(1))


@needs_systemd_analyze
def test_systemd_verifies_the_hardened_unit(tmp_path: Path) -> None:
    """`systemd-analyze --user verify`: no error, no warning about any hardening line."""
    result = _analyze("verify", str(_unit(tmp_path)), folder=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


@needs_systemd_analyze
def test_security_counts_every_setting_and_scores_at_most_what_the_docs_state(
    tmp_path: Path,
) -> None:
    """`systemd-analyze security --offline=yes`: each setting counts, the total is no worse."""
    unit = str(_unit(tmp_path))
    checks = _analyze("security", "--offline=yes", "--json=short", unit, folder=tmp_path)
    assert checks.returncode == 0, checks.stderr
    by_field = {check["json_field"]: check["set"] for check in json.loads(checks.stdout)}
    assert all(by_field[field] for field in HARDENING.values()), by_field
    assert by_field["RestrictAddressFamilies_AF_PACKET"]
    assert by_field["SystemCallFilter_reboot"] and by_field["SystemCallFilter_module"]
    text = _analyze("security", "--offline=yes", unit, folder=tmp_path)
    match = re.search(r"Overall exposure level for dreamd.service: (\d+\.\d)", text.stdout)
    assert match is not None, text.stdout[-400:]
    assert float(match.group(1)) <= documented_score()
    threshold = _analyze(
        "security",
        "--offline=yes",
        f"--threshold={documented_score() * 10:.0f}",
        unit,
        folder=tmp_path,
    )
    assert threshold.returncode == 0
