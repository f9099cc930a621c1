"""Fake agent CLIs: small Python programs named ``claude``, ``codex`` and ``gemini`` on a PATH.

Each reads the prompt on stdin, appends what it received (argv, working folder,
stdin) to ``$FAKE_CLI_RECORD``, and prints the answer "nothing found" for the
asked stage wrapped exactly in its CLI's JSON envelope: Claude Code's result
object, Codex's JSON Lines events, Gemini CLI's response object.
``FAKE_CLI_MODE=error`` prints the CLI's own failure form instead. When the
first user message the prompt shows contains ``$FAKE_CLI_RULE``, the topics
scan and update answer one Rule quoting that text, and ``$FAKE_CLI_MATCH``
names the existing memory the match step says it is about.
``FAKE_CLI_FACT=<label>=<value>`` answers the facts stage with that fact when
a user message states the value and the prompt lists the label.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

PROGRAM = r"""#!{python}
import json, os, re, sys
from pathlib import Path

name = Path(sys.argv[0]).name
prompt = sys.stdin.read()
mode = os.environ.get("FAKE_CLI_MODE", "ok")
record = os.environ.get("FAKE_CLI_RECORD")
if record:
    with open(record, "a") as out:
        out.write(json.dumps({{"program": name, "argv": sys.argv[1:], "cwd": os.getcwd(),
                               "stdin": prompt}}) + "\n")
schema = json.loads(prompt.rsplit("and nothing else:\n", 1)[1])
key = next(iter(schema["properties"]))
answer = {{key: []}}
first = re.search(r"^\[(\S+)\] user[^\n]*:\n(.*)$", prompt, re.M)
planted = os.environ.get("FAKE_CLI_RULE")
if planted and first and planted in first.group(2):
    quote = {{"message_id": first.group(1), "text": planted}}
    if key == "topics":
        answer = {{"topics": [{{"title": "Lint first", "category": "Rule", "why": "standing",
                               "message_ids": [first.group(1)], "confidence": 5}}]}}
    elif key == "matches" and os.environ.get("FAKE_CLI_MATCH"):
        existing = os.environ["FAKE_CLI_MATCH"]
        answer = {{"matches": [{{"title": "Lint first", "existing": existing}}]}}
    elif key == "records":
        answer = {{"records": [{{"title": "Lint first", "existing": "", "category": "Rule",
                                "description": "Run the linter before committing",
                                "body": planted, "confidence": 5, "quotes": [quote]}}]}}
fact = os.environ.get("FAKE_CLI_FACT")  # "<label>=<value>"
if key == "facts" and fact:
    wanted, value = fact.split("=", 1)
    for found in re.finditer(r"^\[(\S+)\] user[^\n]*:\n(.*)$", prompt, re.M):
        if value in found.group(2) and wanted in prompt:
            answer = {{"facts": [{{"fact": wanted, "value": value, "confidence": 5,
                                  "quotes": [{{"message_id": found.group(1), "text": value}}]}}]}}
            break
text = json.dumps(answer)
if name == "claude":
    if mode == "error":
        print(json.dumps({{"type": "result", "subtype": "error_during_execution",
                           "is_error": True, "result": "Not logged in"}}))
    else:
        print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                           "result": text, "session_id": "s",
                           "usage": {{"input_tokens": 30, "cache_creation_input_tokens": 2,
                                     "cache_read_input_tokens": 8, "output_tokens": 5}}}}))
elif name == "codex":
    print(json.dumps({{"type": "thread.started", "thread_id": "t-1"}}))
    print(json.dumps({{"type": "turn.started"}}))
    if mode == "error":
        print(json.dumps({{"type": "turn.failed", "error": {{"message": "usage limit reached"}}}}))
    else:
        print(json.dumps({{"type": "item.completed",
                           "item": {{"id": "item_0", "type": "reasoning", "text": "thinking"}}}}))
        print(json.dumps({{"type": "item.completed",
                           "item": {{"id": "item_1", "type": "agent_message", "text": text}}}}))
        print(json.dumps({{"type": "turn.completed",
                           "usage": {{"input_tokens": 40, "cached_input_tokens": 10,
                                     "output_tokens": 6}}}}))
else:
    if mode == "error":
        print(json.dumps({{"response": None,
                           "error": {{"type": "FatalAuthenticationError",
                                     "message": "please sign in", "code": 41}}}}))
    else:
        print(json.dumps({{"response": text,
                           "stats": {{"models": {{"gemini-2.5-flash": {{"tokens": {{
                               "prompt": 50, "candidates": 4, "thoughts": 3, "total": 57,
                               "cached": 0}}}}}}}}}}))
"""


def install(folder: Path, *names: str) -> Path:
    """Write the fake CLIs ``names`` into ``folder``; returns the folder (put it on PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        program = folder / name
        program.write_text(PROGRAM.format(python=sys.executable))
        program.chmod(0o755)
    return folder


def environment(folder: Path, record: Path, **extra: str) -> dict[str, str]:
    """The process environment with only ``folder`` and the system folders on PATH."""
    return {
        **os.environ,
        "PATH": f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "FAKE_CLI_RECORD": str(record),
        **extra,
    }


def received(record: Path) -> list[dict[str, object]]:
    """What each fake CLI run received, in order."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]
