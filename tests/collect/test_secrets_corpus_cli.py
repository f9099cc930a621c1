"""Issue 15 item 9 acceptance: a corpus of credential shapes never reaches disk or output.

One synthetic Claude Code session states every rule of
``tests.collect.secretshapes`` (101 credential shapes, each a rule the
collector would plant without the filter, see ``test_secret_shapes``) and
the harmless look-alikes. ``dreamd collect`` plants into all four stores
(memory folder, SQL, sectioned ``MEMORY.md``, graph) until the session is
done, then ``dreamd dream`` runs. Every byte under the test HOME (the data
folder, ``state.db``, ``memory.db``, a write plan (read after a kill right
after it was saved, as plans of checkpointed windows are removed), run
backups, reports, the stores) except the transcript itself, and every line the commands printed or
logged at debug level, is searched for each secret value: none is there.
The look-alikes are planted.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.collect.secretshapes import LOOKALIKE_PREFIX, LOOKALIKES, SHAPES
from tests.collect.test_chaos_all_stores import configure
from tests.collect.test_collect_cli import SID, data, session
from tests.process import run_dreamd

pytestmark = pytest.mark.slow

DEBUG = {"DREAMD_LOG_LEVEL": "debug"}
#: The collector's crash point just after the first window's plan is saved.
PLAN_SAVED_TICK = 2


def corpus() -> tuple[list[str], list[str]]:
    """The session's prompts (secret rules and look-alikes, interleaved) and the secrets."""
    prompts: list[str] = []
    secrets: list[str] = []
    lookalikes = iter(LOOKALIKES)
    for index, name in enumerate(sorted(SHAPES)):
        text, secret = SHAPES[name][1](random.Random(f"corpus/{name}"))
        prompts.append(text)
        secrets.append(secret)
        if index % 6 == 0:
            prompts.append(next(lookalikes, "ok"))
    prompts += list(lookalikes)
    return prompts, secrets


def finished_session(home: Path, prompts: list[str]) -> Path:
    """The session of ``session`` moved three days back, so that a long one is not live."""
    path = session(home, prompts)
    shift = 3 * 86400
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        stamp = datetime.strptime(record["timestamp"], "%Y-%m-%dT%H:%M:%S.000Z").replace(tzinfo=UTC)
        record["timestamp"] = (stamp - timedelta(seconds=shift)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines))
    old = time.time() - shift
    os.utime(path, (old, old))
    return path


def encodings(secret: str) -> set[bytes]:
    """The byte forms a value takes in a file: as is, JSON-escaped, YAML/TOML-escaped."""
    escaped = json.dumps(secret)[1:-1]
    return {secret.encode(), escaped.encode(), secret.replace("'", "''").encode()}


def leaks(blob: bytes, secrets: list[str]) -> list[str]:
    return [s for s in secrets if any(form in blob for form in encodings(s))]


def every_file(home: Path, transcript: Path) -> dict[Path, bytes]:
    """Every file under HOME but the transcript (which holds the secrets by construction)."""
    return {
        path: path.read_bytes()
        for path in sorted(home.rglob("*"))
        if path.is_file() and not path.is_symlink() and path != transcript
    }


def collect_until_done(home: Path) -> list[str]:
    outputs = []
    for _ in range(20):
        result = run_dreamd(home, "collect", "--json", **DEBUG)
        assert result.returncode == 0, result.stderr[-3000:]
        outputs += [result.stdout, result.stderr]
        if not json.loads(result.stdout)["selected"]:
            return outputs
    raise AssertionError("the collector never finished the session")


def sql_bodies(home: Path) -> str:
    with sqlite3.connect(data(home) / "memory.db") as connection:
        rows = connection.execute("SELECT * FROM memory_item").fetchall()
    return "\n".join(str(cell) for row in rows for cell in row)


def test_no_secret_of_the_corpus_is_stored_logged_or_reported(isolated_home: Path) -> None:
    configure(isolated_home)
    prompts, secrets = corpus()
    assert len(secrets) >= 60
    transcript = finished_session(isolated_home, prompts)
    # Killed right after the first window's plan is saved: plans of checkpointed windows
    # are removed, so this is how one is read; the next run replays it.
    killed = run_dreamd(isolated_home, "collect", DREAMD_TEST_CRASH_AT=str(PLAN_SAVED_TICK))
    assert killed.returncode == -9
    plans = list((data(isolated_home) / "plans").glob("*.json"))
    assert plans and all(leaks(p.read_bytes(), secrets) == [] for p in plans)
    outputs = [killed.stdout, killed.stderr, *collect_until_done(isolated_home)]
    dream = run_dreamd(isolated_home, "dream", "--json", **DEBUG)
    assert dream.returncode == 0, dream.stdout[-2000:] + dream.stderr[-2000:]
    outputs += [dream.stdout, dream.stderr]
    for args in (("status", "--json"), ("sources", "list", "--json"), ("cursor", "export")):
        shown = run_dreamd(isolated_home, *args, **DEBUG)
        assert shown.returncode == 0, (args, shown.stderr[-2000:])
        outputs += [shown.stdout, shown.stderr]

    assert leaks(transcript.read_bytes(), secrets) == secrets  # the search finds them all
    files = every_file(isolated_home, transcript)
    places = {p.relative_to(isolated_home).parts[0:3] for p in files}
    assert (".local", "share", "dreamd") in places  # the data folder was searched
    names = {p.name for p in files}
    assert {"state.db", "memory.db"} <= names
    assert any("reports" in p.parts for p in files)
    found = {str(p.relative_to(isolated_home)): leaks(blob, secrets) for p, blob in files.items()}
    assert {path: hits for path, hits in found.items() if hits} == {}
    printed = leaks("\n".join(outputs).encode(), secrets)
    assert printed == []

    texts = [blob.decode("utf-8", "replace") for p, blob in files.items() if p.suffix == ".md"]
    stored = sql_bodies(isolated_home) + "".join(texts)
    missing = [text for text in LOOKALIKES if text[:LOOKALIKE_PREFIX] not in stored]
    assert missing == []
    cursor = json.loads(run_dreamd(isolated_home, "cursor", "export").stdout)
    entry = cursor["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
    assert entry["status"] == "resolved"
