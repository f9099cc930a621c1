"""Run the real `dreamd` program in a subprocess, as a user would, on a given HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: Variables that would point dreamd at the developer's own data instead of the test HOME.
_HOST_PREFIXES = ("XDG_", "DREAMD_", "CLAUDE_")


def run_dreamd(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m dreamd ARGS`` with HOME set to ``home``; output captured as text."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(_HOST_PREFIXES)}
    environment.update({"HOME": str(home), **env})
    return subprocess.run(
        [sys.executable, "-m", "dreamd", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
