"""A real ``dreamd run`` in a subprocess, and its JSON log lines read as they come."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_HOST_PREFIXES = ("XDG_", "DREAMD_", "CLAUDE_", "NOTIFY_SOCKET", "WATCHDOG_", "JOURNAL_STREAM")

Line = dict[str, Any]


def write_config(home: Path, text: str) -> None:
    folder = home / ".config" / "dreamd"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


class Daemon:
    """``python -m dreamd run`` on ``home``; every stdout line parsed as JSON and kept."""

    def __init__(self, home: Path, **env: str) -> None:
        environment = {k: v for k, v in os.environ.items() if not k.startswith(_HOST_PREFIXES)}
        environment.update({"HOME": str(home), "DREAMD_LOG_LEVEL": "info", **env})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dreamd", "run"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.lines: list[Line] = []
        self.raw: list[str] = []
        self._queue: queue.Queue[Line | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.raw.append(raw)
            try:
                line = json.loads(raw)
            except json.JSONDecodeError:
                continue
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, match: Callable[[Line], bool], timeout: float = 60.0) -> Line:
        """The next line (in order) that ``match`` accepts; fails after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching log line within {timeout} s:\n{self.output()}")
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"dreamd run exited:\n{self.output()}")
            self.lines.append(line)
            if match(line):
                return line

    def event(self, name: str, timeout: float = 60.0, **fields: Any) -> Line:
        """The next line with event ``name`` and the given field values."""
        return self.wait_for(
            lambda line: (
                line.get("event") == name and all(line.get(k) == v for k, v in fields.items())
            ),
            timeout,
        )

    def drain(self, seconds: float) -> list[Line]:
        """Every line logged during the next ``seconds``."""
        deadline = time.monotonic() + seconds
        got: list[Line] = []
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            got.append(line)
        return got

    def terminate(self, timeout: float = 10.0) -> int:
        """SIGTERM, then the exit code (fails if it takes longer than ``timeout``)."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=5)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def output(self) -> str:
        stderr = ""
        if self.process.poll() is not None and self.process.stderr is not None:
            stderr = self.process.stderr.read()
        return "".join(self.raw[-60:]) + stderr
