"""The ``command`` backend: a headless agent CLI, the prompt on stdin and JSON on stdout.

``[extractors.command] argv`` is the command line (for example
``["claude", "-p", "--output-format", "json"]``). Each request runs it once:
the prompt, the stage's instructions and its JSON schema go to stdin as one
text; the answer is read from stdout, either the JSON object itself or a CLI's
envelope holding it (``envelopes``: Claude Code's result object, Codex's JSON
Lines events, Gemini CLI's response object). ``preset`` names one of the CLIs
dreamd knows (``presets``) instead of a command line.

Invariants:

- dreamd never collects its own extraction runs: the CLI runs in a fresh
  temporary directory whose name carries the collector's own-run marker
  (``dreamd-extract-``), so any transcript it leaves names that folder as its
  project and is skipped; the folder is removed afterwards;
- session persistence is turned off for the CLIs known to have a switch for it
  (Claude Code, Codex), unless the command line already does so;
- a CLI that hangs is killed with its whole process group at the timeout;
- tokens are the envelope's usage when the CLI reports it, else an estimate of
  one token per four characters of prompt and answer (so the run's cap still
  holds).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from dreamd.collect.collector import OWN_RUN_MARKER
from dreamd.collect.llm.backend import BackendRefused, BackendUnavailable, Reply, Request
from dreamd.collect.llm.backend import server_text as _safe
from dreamd.collect.llm.envelopes import estimate_tokens, read_envelope
from dreamd.collect.llm.presets import Envelope

__all__ = [
    "CommandBackend",
    "command_prompt",
    "estimate_tokens",
    "read_answer",
    "without_persistence",
]

#: Program name → the switch that keeps it from saving the run as a session.
PERSISTENCE_OFF: dict[str, str] = {
    "claude": "--no-session-persistence",
    "codex": "--ephemeral",
}


def without_persistence(argv: Sequence[str]) -> list[str]:
    """``argv`` with the program's no-persistence switch added where dreamd knows one.

    Claude Code takes it anywhere (added after the program); Codex takes it as
    an option of ``exec`` (added after ``exec``). Unknown programs are left as
    they are: their command line is the user's to get right.
    """
    command = list(argv)
    switch = PERSISTENCE_OFF.get(Path(command[0]).name) if command else None
    if switch is None or switch in command:
        return command
    if Path(command[0]).name == "codex":
        if len(command) < 2 or command[1] != "exec":
            return command
        return [*command[:2], switch, *command[2:]]
    return [command[0], switch, *command[1:]]


def command_prompt(request: Request) -> str:
    """The one text a CLI reads: instructions, the window, and the schema to answer in."""
    schema = json.dumps(dict(request.schema), ensure_ascii=False, indent=1)
    return (
        f"{request.system}\n\n---\n\n{request.user}\n\n---\n\n"
        "Answer with one JSON object matching this JSON schema, and nothing else:\n"
        f"{schema}\n"
    )


def read_answer(stdout: str, prompt: str, envelope: Envelope = "auto") -> Reply:
    """The answer in a CLI's output (see ``envelopes.read_envelope``)."""
    return read_envelope(envelope, stdout, prompt)


class CommandBackend:
    """Runs the configured CLI once per request, in its own throw-away folder."""

    name = "command"

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str],
        envelope: Envelope = "auto",
    ) -> None:
        if not argv:
            raise BackendRefused("[extractors.command] argv is empty")
        if shutil.which(argv[0], path=env.get("PATH", os.defpath)) is None:
            raise BackendRefused(f"no program {argv[0]!r} to run")
        self._argv = without_persistence(argv)
        self._timeout = timeout
        self._env = dict(env)
        self._envelope: Envelope = envelope

    def complete(self, request: Request) -> Reply:
        """Run the CLI with the prompt on stdin; its answer and what it cost."""
        prompt = command_prompt(request)
        with tempfile.TemporaryDirectory(prefix=OWN_RUN_MARKER) as folder:
            stdout = self._run(prompt, Path(folder))
        return read_answer(stdout, prompt, self._envelope)

    def _run(self, prompt: str, folder: Path) -> str:
        try:
            process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=folder,
                env={**self._env, "PWD": str(folder)},
                start_new_session=True,
                text=True,
                encoding="utf-8",
                errors="replace",
            )
        except OSError as error:
            raise BackendRefused(
                f"[extractors.command] argv cannot be run: {error.strerror or error}"
            ) from None
        try:
            stdout, stderr = process.communicate(prompt, timeout=self._timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            raise BackendUnavailable(
                f"command: no answer within {self._timeout:g} s; the run stops"
            ) from None
        if process.returncode != 0:
            raise BackendUnavailable(
                f"command exited with status {process.returncode}: {_safe(stderr[-400:])}"
            )
        return stdout

    def close(self) -> None:
        """Nothing stays open between requests."""


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill the CLI and everything it started, then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
