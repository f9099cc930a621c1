"""Run the real `dreamd` program in a subprocess, as a user would, on a given HOME."""

from __future__ import annotations

import json
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


#: Runs ``dreamd.cli.main`` with the given arguments, then prints the loaded modules on stderr.
_MODULES_PROBE = """
import json, sys
from dreamd.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_loaded(home: Path, *args: str, code: str = _MODULES_PROBE, **env: str) -> set[str]:
    """The modules a fresh interpreter holds after ``dreamd ARGS`` (or ``code``, which must
    print ``sorted(sys.modules)`` as JSON on its last stderr line) ran on ``home``."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(_HOST_PREFIXES)}
    environment.update({"HOME": str(home), **env})
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))
