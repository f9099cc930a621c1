"""Fuzz: hostile characters in every text field of every reader's records (issue 15).

Each reader's seed transcript (the mutation suite's, ``test_corruption``) has
NULs, lone surrogates (as JavaScript escapes them, and as raw bytes a broken
writer leaves), U+FFFF, U+2028, byte-order marks and CRLF put into its
strings, its lines and its database cells, by seeded mutations. Every read
must give a ``Conversation`` whose every string is valid text (strict UTF-8,
no NUL) or an ``Unresolved`` whose strings are, never an exception; and the
commands that print sessions must exit 0 over such a HOME. Bounded in time:
the whole module takes well under a minute.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from dreamd.readers import READERS, Conversation, SessionRef, Unresolved
from tests.process import run_dreamd
from tests.readers.test_corruption import Seed, synthetic_seeds

#: Pieces a hostile or broken writer leaves in text.
HOSTILE = ("\x00", "\ud83d", "\ude00", "\udcff", "\uffff", "\u2028", "\ufeff", "\r\n", "\r")
ROUNDS_PER_SEED = 80
#: Wall-clock budget of the per-reader rounds, all seeds together (seconds).
BUDGET = 40.0
OLD = time.time() - 7 * 86400


def hostile(text: str, rng: random.Random) -> str:
    """``text`` with one to three hostile pieces put in (or made of them alone)."""
    if rng.random() < 0.1:
        return "".join(rng.choices(HOSTILE, k=rng.randint(1, 3)))
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(HOSTILE) + text[at:]
    return text


#: Fields that say what a record is: mutated rarely, so that most records stay records.
STRUCTURAL = frozenset(
    [
        "type",
        "role",
        "subtype",
        "operation",
        "kind",
        "status",
        "version",
        "timestamp",
        "startTime",
        "lastUpdated",
        "createdAt",
        "lastUpdatedAt",
        "entrypoint",
        "userType",
        "model",
        "source",
        "originator",
        "mode",
        "agent",
    ]
)
#: Identifiers: mutated now and then, to exercise their cleaning.
IDENTIFIERS = frozenset(
    [
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "id",
        "parentId",
        "sessionId",
        "session_id",
        "composerId",
        "bubbleId",
        "tabId",
        "call_id",
        "leafUuid",
        "messageID",
        "partID",
        "projectHash",
        "tool_use_id",
    ]
)


def mutate(value: Any, rng: random.Random, key: str = "") -> Any:
    """``value`` with hostile pieces in its text fields (keys kept: shapes stay)."""
    if isinstance(value, str):
        chance = 0.03 if key in STRUCTURAL else 0.15 if key in IDENTIFIERS else 0.8
        return hostile(value, rng) if rng.random() < chance else value
    if isinstance(value, list):
        return [mutate(item, rng, key) for item in value]
    if isinstance(value, dict):
        return {name: mutate(item, rng, name) for name, item in value.items()}
    return value


def dump(value: Any, rng: random.Random) -> bytes:
    """JSON as JavaScript writes it (escapes), or as a broken writer does (raw surrogates)."""
    if rng.random() < 0.8:
        return json.dumps(value).encode()
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def mutate_lines(data: bytes, rng: random.Random) -> bytes:
    """Every record of a JSON Lines file mutated; CRLF endings and a BOM sometimes."""
    lines = [dump(mutate(json.loads(line), rng), rng) for line in data.splitlines() if line]
    ending = b"\r\n" if rng.random() < 0.3 else b"\n"
    body = ending.join(lines) + ending
    return (b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + body


def mutate_document(data: bytes, rng: random.Random) -> bytes:
    body = dump(mutate(json.loads(data), rng), rng)
    return (b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + body


def mutate_text(data: bytes, rng: random.Random) -> bytes:
    """A Markdown log (Aider) with hostile pieces in most lines, raw surrogates as bytes."""
    lines = data.decode().split("\n")
    text = "\n".join(
        hostile(line, rng) if rng.random() < 0.5 and not line.startswith("# aider") else line
        for line in lines
    )
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8", "surrogatepass")


#: Columns that key and link rows: mutated now and then only.
KEY_COLUMNS = frozenset({"id", "key", "session_id", "message_id", "project_id", "parent_id"})


def mutate_database(path: Path, rng: random.Random) -> None:
    """Hostile pieces in the text cells of every table: JSON cells keep their shape."""
    with closing(sqlite3.connect(path)) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in db.execute(f"SELECT rowid, * FROM {table}").fetchall():
                columns = [d[0] for d in db.execute(f"SELECT * FROM {table} LIMIT 0").description]
                for column, value in zip(columns, row[1:], strict=True):
                    chance = 0.1 if column in KEY_COLUMNS else 0.8
                    if isinstance(value, str) and rng.random() < chance:
                        new = _cell(value, rng)
                        db.execute(
                            f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, row[0])
                        )
        db.commit()


def _cell(value: str, rng: random.Random) -> str | bytes:
    """A mutated cell: JSON stays JSON (escaped surrogates); text gets raw bytes if it must."""
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict | list):
        return json.dumps(mutate(decoded, rng))
    text = hostile(value, rng)
    try:
        return text.encode("utf-8").decode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")  # SQLite holds what it is given


def write_mutated(seed: Seed, home: Path, rng: random.Random) -> Path:
    target = home / seed.place
    target.parent.mkdir(parents=True, exist_ok=True)
    for side in target.parent.glob(target.name + "-*"):
        side.unlink()
    if seed.kind == "sqlite":
        target.write_bytes(seed.data)
        mutate_database(target, rng)
    else:
        mutate_kind = {"jsonl": mutate_lines, "json": mutate_document, "text": mutate_text}
        target.write_bytes(mutate_kind[seed.kind](seed.data, rng))
    os.utime(target, (OLD, OLD))
    return target


def valid(text: str | None) -> bool:
    if text is None:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def invalid_strings(result: Conversation | Unresolved) -> list[str]:
    """Every string of a result that is not valid text (by what it is, for the message)."""
    if isinstance(result, Unresolved):
        fields = {"reason": result.reason, "path": str(result.path), "key": result.key}
        return [name for name, text in fields.items() if not valid(text)]
    bad = [name for name in ("project", "session_id") if not valid(getattr(result, name))]
    bad += [f"note {n}" for n in getattr(result, "notes", ()) if not valid(n)]
    for message in result.messages:
        bad += [f"{message.id!r}.{f}" for f in ("id", "text") if not valid(getattr(message, f))]
    return bad


def read_all(tool: str, home: Path) -> Iterator[Conversation | Unresolved]:
    reader = READERS[tool]
    for root in reader.default_roots({}, home):
        for item in reader.discover(root):
            yield reader.read(item) if isinstance(item, SessionRef) else item


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> list[Seed]:
    return synthetic_seeds(tmp_path_factory.mktemp("fuzz-seeds"))


def test_every_reader_is_fuzzed(seeds: list[Seed]) -> None:
    """The seeds cover every registered reader."""
    assert {seed.tool for seed in seeds} == set(READERS)


def test_hostile_text_in_every_field_gives_valid_text_or_unresolved(
    seeds: list[Seed], isolated_home: Path
) -> None:
    """Seeded rounds per reader: a Conversation of valid text or an Unresolved, never raising."""
    deadline = time.monotonic() + BUDGET
    rounds = 0
    for index, seed in enumerate(seeds):
        rng = random.Random(f"dreamd-fuzz-{seed.name}")
        for number in range(ROUNDS_PER_SEED):
            if time.monotonic() > deadline and number >= 3:
                break
            path = write_mutated(seed, isolated_home, rng)
            for result in read_all(seed.tool, isolated_home):
                assert isinstance(result, Conversation | Unresolved), (seed.name, number)
                assert invalid_strings(result) == [], (seed.name, number)
            path.unlink()
            rounds += 1
        assert rounds >= 3 * (index + 1)


def test_hostile_text_reaches_the_messages_cleaned(seeds: list[Seed], isolated_home: Path) -> None:
    """The mutations do reach message text: U+FFFD for surrogates, NULs gone, the rest kept."""
    rng = random.Random("dreamd-fuzz-reach")
    seen: set[str] = set()
    for seed in seeds:
        for _ in range(5):
            path = write_mutated(seed, isolated_home, rng)
            for result in read_all(seed.tool, isolated_home):
                if isinstance(result, Conversation):
                    seen.update(
                        ch for m in result.messages for ch in m.text if ch in "\ufffd\uffff\u2028"
                    )
            path.unlink()
    assert {"\ufffd", "\uffff", "\u2028"} <= seen


def test_the_commands_exit_0_over_a_hostile_home(seeds: list[Seed], isolated_home: Path) -> None:
    """``sources list --json`` and ``sources show --json`` print valid JSON and exit 0."""
    rng = random.Random("dreamd-fuzz-cli")
    for seed in seeds:
        write_mutated(seed, isolated_home, rng)
    listed = run_dreamd(isolated_home, "sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    readable = [s for s in sessions if s["status"] != "unresolved" and s["tool"] == "claude-code"]
    assert readable, [(s["tool"], s["reason"]) for s in sessions]
    shown = run_dreamd(
        isolated_home, "sources", "show", "--json", f"claude-code:{readable[0]['id']}"
    )
    assert shown.returncode == 0, shown.stderr
    assert all(valid(m["text"]) for m in json.loads(shown.stdout)["messages"])


def test_collect_dream_and_status_never_crash_over_a_hostile_home(
    seeds: list[Seed], isolated_home: Path
) -> None:
    """Issue 15 acceptance: every command exits 0 (a damaged session is reported unresolved,
    never an "internal error") and what it prints as JSON parses."""
    rng = random.Random("dreamd-fuzz-jobs")
    for seed in seeds:
        write_mutated(seed, isolated_home, rng)
    for args in (("collect", "--json"), ("dream", "--dry-run", "--json"), ("status", "--json")):
        done = run_dreamd(isolated_home, *args)
        assert done.returncode == 0, (args, done.stderr[-2000:])
        assert "internal error" not in done.stderr, args
        assert json.loads(done.stdout)["schema"] == 1, args
