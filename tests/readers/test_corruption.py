"""Mutation tests: a thousand corrupted transcripts through every reader, and no traceback.

Each reader gets a small valid transcript of its own format (written here, so
the test needs nothing outside the project), laid out where the tool keeps it.
Seeded mutations then damage it the ways real files get damaged: torn writes,
flipped and inserted bytes, lost or doubled lines, records joined onto one
line, JSON values of the wrong type, garbage, emptiness, a damaged SQLite
page or row. After each mutation every discovered session is read, and the
only acceptable outcomes are a ``Conversation`` or an ``Unresolved`` with a
reason. Where ``../shared`` is present, real transcripts are mutated too.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dreamd.readers import READERS, Conversation, SessionRef, Unresolved

MUTATIONS_PER_SEED = 1000
T0 = 1_777_000_000_000  # 2026-04-24, epoch milliseconds


def iso(offset_s: int) -> str:
    from datetime import UTC, datetime

    moment = datetime.fromtimestamp(T0 / 1000 + offset_s, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def jsonl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


# --------------------------------------------------------------------- seeds


def claude_seed() -> bytes:
    common = {
        "sessionId": "0f0f0f0f-1111-4222-8333-444455556666",
        "cwd": "/work/app",
        "isSidechain": False,
        "userType": "external",
        "version": "2.1.37",
    }
    return jsonl(
        [
            {"type": "summary", "summary": "Loader work", "leafUuid": "x"},
            {
                **common,
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "timestamp": iso(0),
                "message": {"role": "user", "content": "Always run the linter before committing."},
            },
            {
                **common,
                "type": "assistant",
                "uuid": "a1",
                "parentUuid": "u1",
                "timestamp": iso(5),
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "private"}],
                },
            },
            {
                **common,
                "type": "assistant",
                "uuid": "a2",
                "parentUuid": "a1",
                "timestamp": iso(6),
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Understood, I will lint first."}],
                },
            },
            {
                **common,
                "type": "assistant",
                "uuid": "a3",
                "parentUuid": "a2",
                "timestamp": iso(7),
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Bash",
                            "input": {"command": "ruff ."},
                        }
                    ],
                },
            },
            {
                **common,
                "type": "user",
                "uuid": "u2",
                "parentUuid": "a3",
                "timestamp": iso(8),
                "toolUseResult": {"stdout": "ok"},
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "All checks passed"}
                    ],
                },
            },
            {
                **common,
                "type": "user",
                "uuid": "u3",
                "parentUuid": "u2",
                "timestamp": iso(20),
                "message": {"role": "user", "content": "Now fix the failing parser test please."},
            },
            {
                **common,
                "type": "assistant",
                "uuid": "a4",
                "parentUuid": "u3",
                "timestamp": iso(30),
                "message": {
                    "id": "msg_2",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Fixed: the parser now streams lines."}],
                },
            },
        ]
    )


def codex_seed() -> bytes:
    sid = "019e0000-1111-7222-8333-444455556666"
    return jsonl(
        [
            {
                "timestamp": iso(0),
                "type": "session_meta",
                "payload": {
                    "id": sid,
                    "timestamp": iso(0),
                    "cwd": "/work/app",
                    "originator": "codex_cli_rs",
                    "cli_version": "0.125.0",
                    "source": "cli",
                },
            },
            {
                "timestamp": iso(1),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>cwd</environment_context>",
                        }
                    ],
                },
            },
            {
                "timestamp": iso(2),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Never push to main directly."}],
                },
            },
            {
                "timestamp": iso(2),
                "type": "event_msg",
                "payload": {"type": "user_message", "message": "Never push to main directly."},
            },
            {
                "timestamp": iso(3),
                "type": "response_item",
                "payload": {"type": "reasoning", "summary": [], "encrypted_content": "zz"},
            },
            {
                "timestamp": iso(4),
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": '{"cmd":"ls"}',
                    "call_id": "c1",
                },
            },
            {
                "timestamp": iso(5),
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": "c1", "output": "a b c"},
            },
            {
                "timestamp": iso(6),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "Noted: branches and pull requests only."}
                    ],
                },
            },
            {
                "timestamp": iso(7),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Then open a PR for the fix."}],
                },
            },
            {
                "timestamp": iso(8),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "PR opened."}],
                },
            },
        ]
    )


def pi_seed() -> bytes:
    return jsonl(
        [
            {
                "type": "session",
                "version": 3,
                "id": "019e0000-aaaa-7bbb-8ccc-dddddddddddd",
                "timestamp": iso(0),
                "cwd": "/work/app",
            },
            {
                "type": "model_change",
                "id": "e0000001",
                "parentId": None,
                "timestamp": iso(0),
                "provider": "p",
                "modelId": "m",
            },
            {
                "type": "message",
                "id": "e0000002",
                "parentId": "e0000001",
                "timestamp": iso(1),
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "Prefer pnpm over npm."}],
                    "timestamp": T0,
                },
            },
            {
                "type": "message",
                "id": "e0000003",
                "parentId": "e0000002",
                "timestamp": iso(2),
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hmm"},
                        {"type": "text", "text": "Switching the scripts to pnpm."},
                    ],
                    "timestamp": T0 + 2000,
                },
            },
            {
                "type": "message",
                "id": "e0000004",
                "parentId": "e0000003",
                "timestamp": iso(3),
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "And update the CI too."}],
                    "timestamp": T0 + 3000,
                },
            },
            {
                "type": "message",
                "id": "e0000005",
                "parentId": "e0000004",
                "timestamp": iso(4),
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "CI updated."}],
                    "timestamp": T0 + 4000,
                },
            },
        ]
    )


def gemini_json_seed() -> bytes:
    return json.dumps(
        {
            "sessionId": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
            "projectHash": "ab" * 32,
            "startTime": iso(0),
            "lastUpdated": iso(9),
            "messages": [
                {
                    "id": "m1",
                    "timestamp": iso(0),
                    "type": "user",
                    "content": "We decided to use Postgres.",
                },
                {
                    "id": "m2",
                    "timestamp": iso(2),
                    "type": "gemini",
                    "content": "Great, Postgres it is.",
                    "thoughts": [{"subject": "s", "description": "d"}],
                    "toolCalls": [
                        {
                            "id": "t",
                            "name": "ls",
                            "args": {},
                            "result": [
                                {
                                    "functionResponse": {
                                        "id": "t",
                                        "name": "ls",
                                        "response": {"output": "x"},
                                    }
                                }
                            ],
                        }
                    ],
                },
                {"id": "m3", "timestamp": iso(4), "type": "info", "content": "Model switched"},
                {
                    "id": "m4",
                    "timestamp": iso(6),
                    "type": "user",
                    "content": "Write the migration.",
                },
                {
                    "id": "m5",
                    "timestamp": iso(8),
                    "type": "gemini",
                    "content": "Migration written.",
                },
            ],
        },
        indent=2,
    ).encode()


def gemini_jsonl_seed() -> bytes:
    return jsonl(
        [
            {
                "sessionId": "gemini-seed",
                "projectHash": "cd" * 32,
                "startTime": iso(0),
                "lastUpdated": iso(0),
                "kind": "main",
            },
            {
                "id": "g1",
                "timestamp": iso(1),
                "type": "user",
                "content": [{"text": "Remember the API is v2."}],
            },
            {"$set": {"lastUpdated": iso(1)}},
            {
                "id": "g2",
                "timestamp": iso(2),
                "type": "gemini",
                "content": "Using the v2 API.",
                "thoughts": [],
            },
            {
                "id": "g3",
                "timestamp": iso(3),
                "type": "user",
                "content": [{"text": "Add retries."}],
            },
            {"id": "g4", "timestamp": iso(4), "type": "gemini", "content": "Retries added."},
        ]
    )


def cursor_seed() -> bytes:
    return jsonl(
        [
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "text",
                            "text": "<user_query>\nDon't touch the vendored code.\n</user_query>",
                        }
                    ]
                },
            },
            {
                "role": "assistant",
                "message": {
                    "content": [
                        {"type": "text", "text": "I will leave vendor/ alone."},
                        {"type": "tool_use", "name": "Shell", "input": {"command": "ls"}},
                    ]
                },
            },
            {
                "role": "user",
                "message": {
                    "content": [
                        {
                            "type": "text",
                            "text": "<user_query>\nNow bump the version.\n</user_query>",
                        }
                    ]
                },
            },
            {
                "role": "assistant",
                "message": {"content": [{"type": "text", "text": "Bumped to 1.2.0."}]},
            },
        ]
    )


def aider_seed() -> bytes:
    return (
        b"\n# aider chat started at 2026-04-24 10:00:00\n\n"
        b"> Aider v0.86.1  \n> Main model: gpt  \n\n"
        b"#### From now on use tabs in Makefiles.  \n\n"
        b"Understood, tabs in Makefiles from now on.\n\n"
        b"> Tokens: 1k sent, 20 received.  \n\n"
        b"#### /add Makefile  \n\n"
        b"> Added Makefile to the chat  \n\n"
        b"#### Fix the install target.  \n\n"
        b"Makefile\n```\n<<<<<<< SEARCH\ninstall:\n=======\n"
        b"install: build\n>>>>>>> REPLACE\n```\n\n"
        b"Done, install now depends on build.\n\n"
    )


OPENCODE_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
    slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
    revert TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
"""


def opencode_db_seed(directory: Path) -> bytes:
    path = directory / "seed.db"
    path.unlink(missing_ok=True)
    with closing(sqlite3.connect(path)) as db:
        db.executescript(OPENCODE_SCHEMA)
        db.execute("INSERT INTO project VALUES ('p', '/work/app', ?, ?, '[]')", (T0, T0))
        db.execute(
            "INSERT INTO session VALUES "
            "('ses_1', 'p', NULL, 's', '/work/app', 't', '1.16', NULL, ?, ?, NULL)",
            (T0, T0 + 9000),
        )
        turns = [
            ("user", "Use uv for Python installs."),
            ("assistant", "Switching to uv."),
            ("user", "Pin the lockfile too."),
            ("assistant", "Lockfile pinned."),
        ]
        for index, (role, text) in enumerate(turns):
            mid, moment = f"msg_{index}", T0 + index * 1000
            db.execute(
                "INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)",
                (mid, moment, moment, json.dumps({"role": role, "time": {"created": moment}})),
            )
            db.execute(
                "INSERT INTO part VALUES (?, ?, 'ses_1', ?, ?, ?)",
                (f"prt_{index}a", mid, moment, moment, json.dumps({"type": "step-start"})),
            )
            db.execute(
                "INSERT INTO part VALUES (?, ?, 'ses_1', ?, ?, ?)",
                (f"prt_{index}b", mid, moment, moment, json.dumps({"type": "text", "text": text})),
            )
        db.commit()
    return path.read_bytes()


def vscdb_seed(directory: Path) -> bytes:
    path = directory / "seed.vscdb"
    path.unlink(missing_ok=True)
    composer = {
        "allComposers": [
            {
                "composerId": "comp-1",
                "createdAt": T0,
                "lastUpdatedAt": T0 + 9000,
                "conversation": [
                    {"type": 1, "bubbleId": "b1", "text": "Always use UTC in logs."},
                    {"type": 2, "bubbleId": "b2", "text": "Logs now use UTC."},
                    {"type": 1, "bubbleId": "b3", "text": "Add a test for it."},
                    {"type": 2, "bubbleId": "b4", "text": "Test added."},
                ],
            }
        ],
        "selectedComposerId": "comp-1",
        "composerDataVersion": 0,
    }
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute(
            "INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps(composer),)
        )
        db.commit()
    return path.read_bytes()


@dataclass(frozen=True)
class Seed:
    """A valid transcript of one format and where its tool keeps it under HOME."""

    name: str
    tool: str
    place: str
    kind: str  # "jsonl", "json", "text" or "sqlite"
    data: bytes


def synthetic_seeds(scratch: Path) -> list[Seed]:
    return [
        Seed(
            "claude",
            "claude-code",
            ".claude/projects/-work-app/0f0f0f0f-1111-4222-8333-444455556666.jsonl",
            "jsonl",
            claude_seed(),
        ),
        Seed(
            "codex",
            "codex",
            ".codex/sessions/2026/04/24/rollout-2026-04-24T10-00-00-019e0000-1111-7222-8333-444455556666.jsonl",
            "jsonl",
            codex_seed(),
        ),
        Seed(
            "pi",
            "pi",
            ".pi/agent/sessions/--work-app--/2026-04-24T10-00-00-000Z_019e0000-aaaa-7bbb-8ccc-dddddddddddd.jsonl",
            "jsonl",
            pi_seed(),
        ),
        Seed(
            "omp",
            "omp",
            ".omp/agent/sessions/--work-app--/2026-04-24T10-00-00-000Z_019e0000-aaaa-7bbb-8ccc-dddddddddddd.jsonl",
            "jsonl",
            pi_seed(),
        ),
        Seed(
            "gemini-json",
            "gemini",
            ".gemini/tmp/abab/chats/session-2026-04-24T10-00-aaaaaaaa.json",
            "json",
            gemini_json_seed(),
        ),
        Seed(
            "gemini-jsonl",
            "gemini",
            ".gemini/tmp/cdcd/chats/session-2026-04-24T10-00-gemseed1.jsonl",
            "jsonl",
            gemini_jsonl_seed(),
        ),
        Seed(
            "cursor-jsonl",
            "cursor",
            ".cursor/projects/work-app/agent-transcripts/c0ffee00-1111-4222-8333-444455556666.jsonl",
            "jsonl",
            cursor_seed(),
        ),
        Seed("aider", "aider", "src/app/.aider.chat.history.md", "text", aider_seed()),
        Seed(
            "opencode-db",
            "opencode",
            ".local/share/opencode/opencode.db",
            "sqlite",
            opencode_db_seed(scratch),
        ),
        Seed(
            "mimocode-db",
            "mimocode",
            ".local/share/mimocode/mimocode.db",
            "sqlite",
            opencode_db_seed(scratch),
        ),
        Seed(
            "cursor-vscdb",
            "cursor",
            ".config/Cursor/User/workspaceStorage/0123abcd/state.vscdb",
            "sqlite",
            vscdb_seed(scratch),
        ),
    ]


# ----------------------------------------------------------------- mutations


def wrong_type(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            0,
            -1,
            1e308,
            "",
            "x" * rng.randint(1, 50),
            [],
            {},
            True,
            [[[[[]]]]],
            {"type": {"nested": []}},
            "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
        ]
    )


def mutate_json_value(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """Replace one randomly chosen value somewhere in ``value`` by one of another type."""
    if isinstance(value, dict) and value and depth < 6:
        key = rng.choice(list(value))
        if rng.random() < 0.3:
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: mutate_json_value(value[key], rng, depth + 1)}
    if isinstance(value, list) and value and depth < 6:
        index = rng.randrange(len(value))
        copy = list(value)
        copy[index] = mutate_json_value(value[index], rng, depth + 1)
        return copy
    return wrong_type(rng)


def mutate_structure(data: bytes, kind: str, rng: random.Random) -> bytes:
    """A JSON value of the wrong type (or a missing key) in one record."""
    if kind == "json":
        try:
            return json.dumps(mutate_json_value(json.loads(data), rng)).encode()
        except ValueError:
            return data
    lines = data.split(b"\n")
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if not candidates:
        return data
    index = rng.choice(candidates)
    with suppress(ValueError):
        lines[index] = json.dumps(mutate_json_value(json.loads(lines[index]), rng)).encode()
    return b"\n".join(lines)


def mutate_bytes(data: bytes, kind: str, rng: random.Random) -> bytes:
    """One byte-level or line-level damage."""
    size = len(data)
    position = rng.randrange(size + 1) if size else 0
    lines = data.split(b"\n")
    operation = rng.randrange(12)
    if operation == 0:  # torn write
        return data[:position]
    if operation == 1:  # inserted noise
        return data[:position] + rng.randbytes(rng.randint(1, 64)) + data[position:]
    if operation == 2:  # flipped bytes
        buffer = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if buffer:
                buffer[rng.randrange(len(buffer))] = rng.randrange(256)
        return bytes(buffer)
    if operation == 3:  # lost span
        end = min(size, position + rng.randint(1, 200))
        return data[:position] + data[end:]
    if operation == 4 and len(lines) > 1:  # doubled line
        index = rng.randrange(len(lines))
        return b"\n".join([*lines[: index + 1], lines[index], *lines[index + 1 :]])
    if operation == 5 and len(lines) > 2:  # two records on one line
        index = rng.randrange(len(lines) - 1)
        return b"\n".join([*lines[:index], lines[index] + lines[index + 1], *lines[index + 2 :]])
    if operation == 6 and len(lines) > 2:  # reordered lines
        shuffled = list(lines)
        rng.shuffle(shuffled)
        return b"\n".join(shuffled)
    if operation == 7:
        return rng.choice(
            [
                b"",
                b"\n\n",
                b"\x00" * 64,
                rng.randbytes(rng.randint(1, 4096)),
                b"[]",
                b"null",
                b"{}",
                b'"text"',
                b"\xef\xbb\xbf" + data,
                data.replace(b"\n", b"\r\n"),
            ]
        )
    if operation == 8:  # invalid UTF-8 inside a string
        return data[:position] + b"\xc3\x28\xa0\xa1" + data[position:]
    if operation == 9:  # a line of deep nesting
        return data + b"[" * rng.randint(100, 5000) + b"\n"
    return mutate_structure(data, kind, rng) if kind in ("json", "jsonl") else data[:position]


def mutate_sqlite(path: Path, rng: random.Random) -> None:
    """Damage a SQLite file: a page's bytes, its length, or a JSON value in a row."""
    operation = rng.randrange(4)
    data = path.read_bytes()
    if operation == 0:
        path.write_bytes(data[: rng.randrange(len(data) + 1)])
    elif operation == 1:
        buffer = bytearray(data)
        page = rng.randrange(max(1, len(buffer) // 4096))
        for _ in range(rng.randint(1, 32)):
            buffer[min(len(buffer) - 1, page * 4096 + rng.randrange(4096))] = rng.randrange(256)
        path.write_bytes(bytes(buffer))
    else:
        with closing(sqlite3.connect(path)) as db:
            tables = {
                row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            for table, column in (
                ("part", "data"),
                ("message", "data"),
                ("session", "directory"),
                ("ItemTable", "value"),
                ("cursorDiskKV", "value"),
            ):
                if table not in tables:
                    continue
                rows = db.execute(f"SELECT rowid, {column} FROM {table}").fetchall()
                if not rows:
                    continue
                rowid, value = rng.choice(rows)
                try:
                    new = json.dumps(mutate_json_value(json.loads(value), rng))
                except (TypeError, ValueError):
                    new = wrong_type(rng)
                if operation == 3:
                    new = rng.choice([None, 42, b"\xff\xfe", "not json {", ""])
                if not isinstance(new, str | bytes | int | float | None):
                    new = json.dumps(new)
                update = f"UPDATE {table} SET {column} = ? WHERE rowid = ?"
                try:
                    db.execute(update, (new, rowid))
                except sqlite3.IntegrityError:  # NOT NULL column: damage it with text instead
                    db.execute(update, ("\x00garbage", rowid))
                break
            db.commit()


# ------------------------------------------------------------------- driving


def read_everything(tool: str, home: Path) -> Iterator[Conversation | Unresolved]:
    reader = READERS[tool]
    for root in reader.default_roots({}, home):
        for item in reader.discover(root):
            assert isinstance(item, SessionRef | Unresolved)
            yield reader.read(item) if isinstance(item, SessionRef) else item


def check_outcomes(tool: str, home: Path, label: str) -> None:
    for result in read_everything(tool, home):
        assert isinstance(result, Conversation | Unresolved), label
        if isinstance(result, Unresolved):
            assert result.reason, label


def run_mutations(seed: Seed, home: Path, count: int, rng: random.Random) -> int:
    target = home / seed.place
    target.parent.mkdir(parents=True, exist_ok=True)
    done = 0
    for number in range(count):
        for leftover in target.parent.glob(target.name + "-*"):
            leftover.unlink()
        target.write_bytes(seed.data)
        if seed.kind == "sqlite":
            mutate_sqlite(target, rng)
        else:
            target.write_bytes(mutate_bytes(seed.data, seed.kind, rng))
        check_outcomes(seed.tool, home, f"{seed.name} mutation {number}")
        done += 1
    target.unlink()
    return done


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> list[Seed]:
    return synthetic_seeds(tmp_path_factory.mktemp("seeds"))


def test_every_reader_has_a_seed(seeds: list[Seed]) -> None:
    """Each registered reader is exercised by at least one seed format."""
    assert {seed.tool for seed in seeds} == set(READERS)


def test_seeds_are_valid_transcripts(seeds: list[Seed], isolated_home: Path) -> None:
    """Before mutation, each seed reads as a conversation with user and assistant turns."""
    for seed in seeds:
        target = isolated_home / seed.place
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(seed.data)
        results = list(read_everything(seed.tool, isolated_home))
        conversations = [r for r in results if isinstance(r, Conversation) and r.messages]
        assert conversations, f"{seed.name}: {results}"
        roles = {m.role for c in conversations for m in c.messages}
        assert roles == {"user", "assistant"}, seed.name
        target.unlink()


@pytest.mark.parametrize("index", range(11))
def test_a_thousand_mutations_per_format_never_raise(
    seeds: list[Seed], index: int, isolated_home: Path
) -> None:
    """1,000 corrupted transcripts per format give a conversation or a reason, never an error."""
    seed = seeds[index]
    rng = random.Random(f"dreamd-{seed.name}")
    assert run_mutations(seed, isolated_home, MUTATIONS_PER_SEED, rng) == MUTATIONS_PER_SEED


REAL_SEEDS = {
    "claude-code/entire_c6-39a44ea03d-0_full.jsonl": (
        "claude-code",
        ".claude/projects/-x/real.jsonl",
        "jsonl",
    ),
    "codex/codemie_turn-2.jsonl": (
        "codex",
        ".codex/sessions/2026/05/12/rollout-2026-05-12T10-00-00-a1b2c3d4-e5f6-7890-abcd-ef1234567890.jsonl",
        "jsonl",
    ),
    "pi/agentsessions_pi_small.jsonl": (
        "pi",
        ".pi/agent/sessions/--x--/2026-05-12T01-02-27-657Z_x.jsonl",
        "jsonl",
    ),
    "gemini/agentsessions_jsonl_v040.jsonl": (
        "gemini",
        ".gemini/tmp/h/chats/session-2026-04-29T21-39-real.jsonl",
        "jsonl",
    ),
    "gemini/entire_9c-53780d06b7-0_full.jsonl.json": (
        "gemini",
        ".gemini/tmp/h/chats/session-2026-01-15T20-51-real.json",
        "json",
    ),
    "cursor/agentsessions_test-session.jsonl": (
        "cursor",
        ".cursor/projects/x/agent-transcripts/real.jsonl",
        "jsonl",
    ),
    "aider/zenmcp.aider.chat.history.md": ("aider", "src/zen/.aider.chat.history.md", "text"),
    "opencode/stunningmemory_opencode.db": (
        "opencode",
        ".local/share/opencode/opencode.db",
        "sqlite",
    ),
}


@pytest.mark.parametrize("fixture", sorted(REAL_SEEDS))
def test_mutated_real_transcripts_never_raise(
    fixture: str, shared_transcripts: Path, isolated_home: Path
) -> None:
    """Real transcripts of every format, damaged 150 ways each, give a result or a reason."""
    tool, place, kind = REAL_SEEDS[fixture]
    seed = Seed(fixture, tool, place, kind, (shared_transcripts / fixture).read_bytes())
    rng = random.Random(f"dreamd-real-{fixture}")
    assert run_mutations(seed, isolated_home, 150, rng) == 150


# ------------------------------------------------------- unreadable sources


def _unreadable_home() -> Path:
    """A HOME outside pytest's private temp dir, so that another user can enter it."""
    home = Path(tempfile.mkdtemp(prefix="dreamd-unreadable-"))
    home.chmod(0o755)
    return home


UNREADABLE_PROBE = """
import json, os, sys
from pathlib import Path
from dreamd.readers import READERS, SessionRef
# Import every reader first (the interpreter's own files may be private to root), then drop
# to nobody.
readers = dict(READERS)
os.setgid(65534); os.setuid(65534)
home = Path(sys.argv[1])
out = []
for tool, reader in readers.items():
    for root in reader.default_roots({}, home):
        for item in reader.discover(root):
            result = reader.read(item) if isinstance(item, SessionRef) else item
            out.append([tool, type(result).__name__, getattr(result, "reason", "")])
print(json.dumps(out))
"""


@pytest.mark.skipif(not hasattr(os, "setuid"), reason="needs POSIX users")
def test_unreadable_files_are_unresolved_with_a_reason(seeds: list[Seed]) -> None:
    """A transcript its reader may not open is listed as unresolved, never read as empty."""
    home = _unreadable_home()
    try:
        for seed in seeds:
            target = home / seed.place
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(seed.data)
            target.chmod(0)
        for folder in home.rglob("*"):
            if folder.is_dir():
                folder.chmod(0o755)
        command = [sys.executable, "-c", UNREADABLE_PROBE, str(home)]
        if os.geteuid() != 0:
            pytest.skip("dropping to another user needs root; as a user chmod 0 already applies")
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, result.stderr
        outcomes = json.loads(result.stdout)
        tools = {seed.tool for seed in seeds}
        assert {tool for tool, _, _ in outcomes} == tools
        for tool, kind, reason in outcomes:
            assert kind == "Unresolved", (tool, kind)
            assert "permission" in reason or "unable to open" in reason or "denied" in reason, (
                tool,
                reason,
            )
    finally:
        for path in [home, *home.rglob("*")]:
            path.chmod(stat.S_IRWXU)
        shutil.rmtree(home)


def test_symlink_loops_and_dangling_links_are_unresolved(isolated_home: Path) -> None:
    """A transcript name that is a symlink loop or points nowhere is reported, not skipped."""
    folder = isolated_home / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    (folder / "loop-a.jsonl").symlink_to(folder / "loop-b.jsonl")
    (folder / "loop-b.jsonl").symlink_to(folder / "loop-a.jsonl")
    (folder / "dangling.jsonl").symlink_to(folder / "missing.jsonl")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to(folder)
    results = {r.session_id: r.reason for r in read_everything("claude-code", isolated_home)}  # type: ignore[union-attr]
    assert results == {
        "loop-a": "symlink loop",
        "loop-b": "symlink loop",
        "dangling": "no such file or directory",
    }


def test_locked_database_is_unresolved(isolated_home: Path, seeds: list[Seed]) -> None:
    """A database another process holds an exclusive lock on is unresolved, not empty."""
    seed = next(s for s in seeds if s.name == "opencode-db")
    target = isolated_home / seed.place
    target.parent.mkdir(parents=True)
    target.write_bytes(seed.data)
    holder = sqlite3.connect(target, isolation_level=None, timeout=0)
    try:
        holder.execute("PRAGMA journal_mode=DELETE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("UPDATE session SET title = 'x'")
        results = list(read_everything("opencode", isolated_home))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert results and all(isinstance(r, Unresolved) for r in results)
    assert all("locked" in r.reason for r in results if isinstance(r, Unresolved))


def test_not_a_database_is_unresolved(isolated_home: Path) -> None:
    """Text where a database should be is reported with a reason."""
    for place in (
        ".local/share/opencode/opencode.db",
        ".config/Cursor/User/workspaceStorage/h/state.vscdb",
    ):
        target = isolated_home / place
        target.parent.mkdir(parents=True)
        target.write_bytes(b"this is not a database\n" * 100)
    for tool in ("opencode", "cursor"):
        results = list(read_everything(tool, isolated_home))
        assert results and all(isinstance(r, Unresolved) for r in results), tool
