"""Scan benchmark: a synthetic Claude Code transcript tree, listed and read.

Usage::

    python benchmarks/scan.py [SESSIONS] [--keep DIR] [--seed N]

Generates SESSIONS synthetic sessions (10,000 is the reference) under a
temporary HOME, then prints:

1. first scan: discovery plus a full read of every session into the cache;
2. unchanged rescan against a baseline that only ``stat()``s the same files
   (target: at most 2x the baseline), as the service runs it (the catalog
   keeps its cache in memory), and cold (a new process loading the cache);
3. full-read throughput of the Claude Code reader against a baseline that only
   decodes the same lines with the fastest JSON parser installed (target: at
   least 0.5x the baseline).

Every number is measured in this run; ratios compare runs on the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dreamd.readers import Reader, SessionRef

WORDS = [
    "the",
    "loader",
    "parser",
    "config",
    "cache",
    "retry",
    "budget",
    "window",
    "cursor",
    "store",
    "index",
    "memory",
    "test",
    "refactor",
    "failing",
    "flaky",
    "migration",
    "schema",
    "database",
    "deploy",
    "service",
    "timeout",
    "signal",
    "lock",
    "please",
    "check",
    "why",
    "again",
    "tomorrow",
    "always",
    "never",
    "prefer",
    "decided",
    "because",
    "instead",
]


def sentence(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def session_records(
    rng: random.Random, sid: str, cwd: str, start: datetime
) -> list[dict[str, Any]]:
    """One plausible session: prompts, streamed answers, thinking, tools, progress noise."""
    common = {
        "sessionId": sid,
        "cwd": cwd,
        "isSidechain": False,
        "userType": "external",
        "version": "2.1.37",
        "gitBranch": "main",
    }
    records: list[dict[str, Any]] = [
        {
            "type": "summary",
            "summary": sentence(rng, 3, 6),
            "leafUuid": str(uuid.UUID(int=rng.getrandbits(128))),
        }
    ]
    parent = None
    moment = start
    for _turn in range(rng.randint(2, 8)):
        moment += timedelta(seconds=rng.randint(20, 600))
        user_id = str(uuid.UUID(int=rng.getrandbits(128)))
        records.append(
            {
                **common,
                "type": "user",
                "uuid": user_id,
                "parentUuid": parent,
                "timestamp": moment.isoformat().replace("+00:00", "Z"),
                "message": {"role": "user", "content": sentence(rng, 6, 40)},
            }
        )
        parent = user_id
        message_id = f"msg_{rng.getrandbits(64):016x}"
        blocks: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": sentence(rng, 20, 80), "signature": "x" * 40},
            {"type": "text", "text": sentence(rng, 10, 60)},
        ]
        if rng.random() < 0.7:
            tool_id = f"toolu_{rng.getrandbits(64):016x}"
            blocks.append(
                {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": "Bash",
                    "input": {"command": "pytest -q", "description": sentence(rng, 3, 8)},
                }
            )
        for block in blocks:
            record_id = str(uuid.UUID(int=rng.getrandbits(128)))
            records.append(
                {
                    **common,
                    "type": "assistant",
                    "uuid": record_id,
                    "parentUuid": parent,
                    "timestamp": moment.isoformat().replace("+00:00", "Z"),
                    "message": {
                        "id": message_id,
                        "role": "assistant",
                        "type": "message",
                        "model": "claude-sonnet-4",
                        "content": [block],
                        "usage": {"input_tokens": 10, "output_tokens": 20},
                    },
                }
            )
            parent = record_id
            if block["type"] == "tool_use":
                for _ in range(rng.randint(0, 3)):
                    records.append(
                        {
                            **common,
                            "type": "progress",
                            "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                            "parentUuid": parent,
                            "timestamp": moment.isoformat().replace("+00:00", "Z"),
                            "data": {"type": "bash_progress", "output": sentence(rng, 5, 20)},
                        }
                    )
                result_id = str(uuid.UUID(int=rng.getrandbits(128)))
                records.append(
                    {
                        **common,
                        "type": "user",
                        "uuid": result_id,
                        "parentUuid": parent,
                        "timestamp": moment.isoformat().replace("+00:00", "Z"),
                        "toolUseResult": {"stdout": sentence(rng, 20, 120), "stderr": ""},
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "type": "tool_result",
                                    "tool_use_id": block["id"],
                                    "content": sentence(rng, 20, 120),
                                }
                            ],
                        },
                    }
                )
                parent = result_id
    return records


def generate(home: Path, sessions: int, seed: int) -> list[Path]:
    """Write ``sessions`` transcripts in 1 of 200 project folders; mtimes in the past."""
    rng = random.Random(seed)
    root = home / ".claude" / "projects"
    paths: list[Path] = []
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for index in range(sessions):
        project = f"/home/user/src/project-{index % 200}"
        folder = root / project.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        start = base + timedelta(minutes=index * 7)
        path = folder / f"{sid}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for record in session_records(rng, sid, project, start):
                handle.write(json.dumps(record, separators=(",", ":")) + "\n")
        stamp = start.timestamp() + 3600
        os.utime(path, (stamp, stamp))
        paths.append(path)
    return paths


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` timings of ``work`` in seconds."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def parse_and_discard(decode: Callable[[bytes], object], blobs: list[bytes]) -> None:
    """Decode every non-blank line and keep nothing: the fastest honest baseline. Keeping
    the decoded objects (a list of them) would add the allocator's and the garbage
    collector's work to the baseline and flatter the reader."""
    for blob in blobs:
        for line in blob.splitlines():
            if line.strip():
                decode(line)


def read_and_discard(reader: Reader, refs: list[SessionRef]) -> None:
    """Read every session and keep nothing, as the baseline does."""
    for ref in refs:
        reader.read(ref)


def json_parsers() -> dict[str, Callable[[bytes], object]]:
    """Every JSON decoder installed here, by name."""
    parsers: dict[str, Callable[[bytes], object]] = {"json": json.loads}
    try:
        import msgspec

        parsers["msgspec"] = msgspec.json.Decoder().decode
    except ImportError:
        pass
    try:
        import orjson

        parsers["orjson"] = orjson.loads
    except ImportError:
        pass
    return parsers


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sessions", type=int, nargs="?", default=10_000)
    parser.add_argument("--keep", type=Path, help="generate into DIR and keep it")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="dreamd-bench-"))
    home = workdir / "home"
    os.environ["HOME"] = str(home)
    os.environ["XDG_DATA_HOME"] = str(workdir / "data")
    os.environ["XDG_CONFIG_HOME"] = str(workdir / "config")
    for name in ("CLAUDE_CONFIG_DIR", "DREAMD_CONFIG"):
        os.environ.pop(name, None)

    from dreamd.catalog import Catalog
    from dreamd.readers import READERS, SessionRef
    from dreamd.readers._io import stat_version
    from dreamd.statedb import open_state

    started = time.perf_counter()
    paths = generate(home, args.sessions, args.seed)
    size = sum(p.stat().st_size for p in paths)
    print(
        f"generated {len(paths):,} sessions, {size / 1e6:.1f} MB "
        f"in {time.perf_counter() - started:.1f} s"
    )

    roots = {"claude-code": READERS["claude-code"].default_roots(os.environ, home)}
    state = open_state(workdir / "data" / "dreamd" / "state.db")
    catalog = Catalog(state, roots)

    started = time.perf_counter()
    first = catalog.scan()
    first_seconds = time.perf_counter() - started
    unresolved = sum(1 for s in first.sessions if s.unresolved)
    print(
        f"first scan:        {first_seconds:8.2f} s  ({len(first.sessions):,} sessions, "
        f"{first.read:,} read, {unresolved} unresolved, {size / 1e6 / first_seconds:.1f} MB/s)"
    )

    names = [str(p) for p in paths]
    baseline = best_of(5, lambda: [os.stat(name) for name in names])
    rescan = best_of(5, catalog.scan)
    again = catalog.scan()
    assert again.read == 0, f"rescan re-read {again.read} sessions"
    cold = best_of(3, lambda: Catalog(state, roots).scan())
    print(f"stat() baseline:   {baseline * 1000:8.1f} ms")
    print(
        f"unchanged rescan:  {rescan * 1000:8.1f} ms  = {rescan / baseline:.2f}x baseline "
        "(target <= 2x; the service's periodic rescan, cache in memory)"
    )
    print(
        f"cold rescan:       {cold * 1000:8.1f} ms  = {cold / baseline:.2f}x baseline "
        "(a new process: the cache is loaded from the state database first)"
    )

    reader = READERS["claude-code"]
    sample = sorted(paths, key=lambda p: p.stat().st_size)[-min(len(paths), 500) :]
    refs = [SessionRef("claude-code", p.stem, p, stat_version(p)) for p in sample]
    blobs = [p.read_bytes() for p in sample]
    sample_bytes = sum(len(b) for b in blobs)
    timings = {}
    for name, decode in json_parsers().items():
        timings[name] = best_of(3, lambda decode=decode: parse_and_discard(decode, blobs))
    fastest = min(timings, key=timings.get)  # type: ignore[arg-type]
    read_seconds = best_of(3, lambda: read_and_discard(reader, refs))
    reader_rate = sample_bytes / 1e6 / read_seconds
    parse_rate = sample_bytes / 1e6 / timings[fastest]
    print(
        "json decode only:  "
        + ", ".join(f"{n} {sample_bytes / 1e6 / t:.0f} MB/s" for n, t in sorted(timings.items()))
    )
    print(
        f"claude-code read:  {reader_rate:8.1f} MB/s = {reader_rate / parse_rate:.2f}x "
        f"{fastest} decode-only "
        f"(target >= 0.5x; {len(refs)} largest files, {sample_bytes / 1e6:.1f} MB)"
    )

    fixtures = (
        Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "transcripts" / "claude-code"
    )
    real = (
        sorted(fixtures.glob("entire_*.jsonl"), key=lambda p: -p.stat().st_size)[:4]
        if fixtures.is_dir()
        else []
    )
    if real:
        real_refs = [SessionRef("claude-code", p.stem, p, stat_version(p)) for p in real]
        real_blobs = [p.read_bytes() for p in real]
        real_bytes = sum(len(b) for b in real_blobs)
        decode = json_parsers()[fastest]
        parse = best_of(3, lambda: parse_and_discard(decode, real_blobs))
        read = best_of(3, lambda: read_and_discard(reader, real_refs))
        print(
            f"real fixtures:     {real_bytes / 1e6 / read:8.1f} MB/s = {parse / read:.2f}x "
            f"{fastest} decode-only "
            f"({len(real)} files, {real_bytes / 1e6:.1f} MB)"
        )
    print(
        f"python {sys.version.split()[0]}, "
        f"median file {statistics.median(p.stat().st_size for p in paths) / 1e3:.1f} kB"
    )
    if args.keep is None:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
