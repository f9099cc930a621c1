"""Run ``dreamd ARGS`` with a Python warning issued right after logging is configured.

``python -m tests.core.warner ARGS...``: what a library (watchdog, a deprecated
API) does mid-run, ``warnings.warn`` from inside the program, without changing
dreamd itself.
"""

from __future__ import annotations

import runpy
import sys
import warnings
from typing import Any

import dreamd.logs

_configure = dreamd.logs.configure_logging


def configure_and_warn(*args: Any, **kwargs: Any) -> None:
    _configure(*args, **kwargs)
    warnings.warn("inotify watch limit reached, falling back to polling", UserWarning, 1)


def main() -> None:
    dreamd.logs.configure_logging = configure_and_warn  # before the CLI imports it
    sys.argv = ["dreamd", *sys.argv[1:]]
    runpy.run_module("dreamd", run_name="__main__")


if __name__ == "__main__":
    main()
