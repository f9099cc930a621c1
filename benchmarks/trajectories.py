"""Trajectory benchmark: the dream's seed-003 verification queries on SQLite trajectories.

Usage::

    python benchmarks/trajectories.py [PARTS] [--claims N] [--keep DIR] [--seed N]

Builds a synthetic OpenCode/MiMoCode-schema database of PARTS ``part`` rows
(100,000 is the reference: 200 sessions of 50 messages of 10 parts; text,
tool and step parts of a few hundred bytes to a few KB; the sessions spread
evenly over the last 28 days, so the 7-day window holds a quarter of them),
and a sectioned ``MEMORY.md`` of N claims (default 80), half of them present
in some part, each entry citing a session (a quarter the one that shows it).
Then prints, per case, the time of one ``dreamd.dream.trajectories.gather``
call and what it found:

1. the real OpenCode fixture database (a copy), when the shared fixtures exist;
2. the synthetic database with the seed's 7-day window;
3. a 30-day window, every session in it: at 100,000 parts the scan budget
   (``MAX_SCAN_CHARS``) ends the scan, which then refutes nothing;
4. an empty window: only the sessions the entries cite are searched;
5. the same rows without ``part.session_id`` (older schema: parts reached
   through ``message``), 7-day window;
6. a baseline: every ``part.data`` row read once into Python, no matching.

Every number is measured in this run on this machine.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dreamd.dream.trajectories import Evidence, gather

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SESSIONS = 200
SPREAD_MS = 28 * 86_400_000 // SESSIONS
MESSAGES = 50
FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "shared/fixtures/transcripts/opencode/stunningmemory_opencode.db"
)

# The documented OpenCode/MiMoCode layout (seed 003), with OpenCode's lookup indexes.
SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL,
    title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, agent_id TEXT,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, {session}
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_idx ON part (message_id, id);
{session_index}
"""
WORDS = [
    *("cache", "index", "query", "table", "schema", "session", "tool", "output", "error"),
    *("retry", "timeout", "build", "test", "config", "parser", "module", "branch", "commit"),
    *("deploy", "release", "window", "budget", "cursor", "store"),
]


def build(path: Path, parts: int, rng: random.Random, *, part_session: bool) -> None:
    """Write the synthetic database: ``parts`` part rows over ``SESSIONS`` sessions."""
    per_message = max(1, parts // (SESSIONS * MESSAGES))
    schema = SCHEMA.format(
        session="session_id TEXT NOT NULL," if part_session else "",
        session_index="CREATE INDEX part_session_idx ON part (session_id);" if part_session else "",
    )
    with closing(sqlite3.connect(path)) as db:
        db.executescript(schema)
        newest = int(NOW.timestamp() * 1000)
        for s in range(SESSIONS):
            sid = f"ses_{s:05d}"
            stamp = newest - (SESSIONS - 1 - s) * SPREAD_MS
            db.execute(
                "INSERT INTO session VALUES (?, NULL, '/work/app', 'work', ?, ?)",
                (sid, stamp - 1000, stamp + s),
            )
            for m in range(MESSAGES):
                mid = f"msg_{s:05d}_{m:03d}"
                role = "user" if m % 5 == 0 else "assistant"
                db.execute(
                    "INSERT INTO message VALUES (?, ?, '', ?, ?, ?)",
                    (mid, sid, stamp + m, stamp + m, json.dumps({"role": role})),
                )
                owner: tuple[str, ...] = (sid,) if part_session else ()
                rows = [
                    (f"prt_{mid}_{p:02d}", mid, *owner, stamp + p, stamp + p, _part(rng, s, m, p))
                    for p in range(per_message)
                ]
                marks = ", ".join("?" * len(rows[0]))
                db.executemany(f"INSERT INTO part VALUES ({marks})", rows)
        db.commit()


def _part(rng: random.Random, s: int, m: int, p: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 400)))
    kind = p % 4
    if kind == 0:
        return json.dumps({"type": "text", "text": f"{text} see src/mod_{s}_{m}.py"})
    if kind == 1:
        state = {"input": {"filePath": f"/work/app/src/mod_{s}_{m}.py"}, "output": text}
        return json.dumps({"type": "tool", "tool": "read", "state": state})
    if kind == 2:
        state = {"input": {"command": f"pytest tests/test_{s}_{m}.py"}, "output": text}
        return json.dumps({"type": "tool", "tool": "bash", "state": state})
    return json.dumps({"type": "step-finish", "tokens": {"input": m, "output": p}})


def memory_text(claims: int, rng: random.Random) -> str:
    """A sectioned MEMORY.md; even claims exist in the database, odd ones do not.

    Every fourth claim cites the session that shows it; the others cite a random one.
    """
    lines = ["# Memory", "", "## Rules"]
    for n in range(claims):
        s, m = rng.randrange(SESSIONS), rng.randrange(MESSAGES)
        claim = f"src/mod_{s}_{m}.py" if n % 2 == 0 else f"src/absent_{n}.py"
        source = s if n % 4 == 0 else rng.randrange(SESSIONS)
        lines.append(f"- Claim {n} lives in `{claim}` [ses_{source:05d}]")
    lines += ["", "## Patterns", "- none [ses_00000]", "", "## Gotchas", "- none [ses_00001]", ""]
    return "\n".join(lines)


def timed(label: str, call: Callable[[], Evidence]) -> None:
    started = time.perf_counter()
    evidence = call()
    elapsed = time.perf_counter() - started
    per_claim = elapsed / evidence.claims * 1000 if evidence.claims else 0.0
    print(
        f"{label:<44} {elapsed * 1000:9.1f} ms  {per_claim:7.2f} ms/claim  "
        f"confirmed {len(evidence.confirmed)}/{evidence.claims}  "
        f"refuted {len(evidence.refuted)}  window {evidence.window_sessions}"
        + ("  (scan budget spent)" if evidence.problems else "")
    )


def baseline(path: Path) -> None:
    started = time.perf_counter()
    with closing(sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)) as db:
        size = sum(len(row[0]) for row in db.execute("SELECT data FROM part"))
    elapsed = time.perf_counter() - started
    print(f"{'baseline: every part row read once':<44} {elapsed * 1000:9.1f} ms  ({size:,} chars)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("parts", type=int, nargs="?", default=100_000)
    parser.add_argument("--claims", type=int, default=80)
    parser.add_argument("--keep", type=Path, help="generate into DIR and keep it")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="dreamd-trajectories-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    try:
        for name, part_session in (("opencode.db", True), ("older.db", False)):
            started = time.perf_counter()
            build(root / name, args.parts, random.Random(args.seed), part_session=part_session)
            size = (root / name).stat().st_size / 2**20
            took = time.perf_counter() - started
            print(f"built {name}: {args.parts:,} parts, {size:.1f} MiB in {took:.1f} s")
        text = memory_text(args.claims, rng)
        if FIXTURE.is_file():
            copy = root / "fixture" / "opencode.db"
            copy.parent.mkdir()
            shutil.copyfile(FIXTURE, copy)
            fixture_text = "# M\n\n## Rules\n- `/workspace/SPEC.md` and `git_status()` [ses_x_1]\n"
            at = datetime(2026, 8, 1, tzinfo=UTC)
            timed("fixture opencode.db (1 session)", lambda: gather([copy], fixture_text, now=at))
        else:
            print("fixture opencode.db: skipped (shared fixtures not found)")
        database, older = root / "opencode.db", root / "older.db"
        timed("synthetic, 7-day window", lambda: gather([database], text, now=NOW))
        timed(
            "synthetic, 30-day window (every session)",
            lambda: gather([database], text, now=NOW, window_days=30),
        )
        timed(
            "synthetic, empty window: cited sessions only",
            lambda: gather([database], text, now=NOW + timedelta(days=60)),
        )
        timed("synthetic, no part.session_id, 7-day window", lambda: gather([older], text, now=NOW))
        baseline(database)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
