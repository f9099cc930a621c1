"""Seed 003 Phase 3: memory claims checked against the SQLite trajectories, read-only.

A seed-003 memory root is ``<DATA>/memory/``; the raw trajectories beside it
are ``<DATA>/mimocode.db`` (MiMoCode) or ``<DATA>/opencode.db`` (OpenCode),
release-channel copies ``<app>-<channel>.db`` included (``locate``). When
``<DATA>`` is the tool's own data directory as its reader resolves it,
``MIMOCODE_DB`` / ``OPENCODE_DB`` replace the file the way the tool reads
them: absolute, or relative to the data directory; ``:memory:`` means there
is no file. A folder under no ``memory`` directory has no trajectories.

Read-only, always: the queries and the refusals that keep a database as it
was are in ``dreamd.dream.trajectorydb``; the claims and the sessions the
index cites in ``dreamd.dream.claims``. The window is the sessions updated
within ``WINDOW_DAYS`` of now, the seed's default (a shorter history is then
all of it). The rows of the parts are read once per pass (the window, then
each cited session outside it) and every open claim is looked for in them
(``_Scan``), at most ``MAX_SCAN_CHARS`` characters per database; a scan cut
short refutes nothing and is reported.

Measured (``benchmarks/trajectories.py``, 100,000 parts, 124 M characters,
80 claims): a first design, one ``instr`` query per claim, took about 0.2 s
per claim over every row (17 s). The single pass reads all rows in 0.1-0.3 s;
with the 7-day window (51 sessions, about 31 M characters) the whole check
took 0.9-1.7 s, and the budget ends a 30-day window over everything after
1.9-2.8 s (a shared, busy machine).

Verdicts (``Evidence.verify``), per claim:

- seen in the window, or in a session an entry naming it cites: True;
- not seen, though an entry naming it cites a session the database has:
  False, its own source does not show it;
- otherwise None: absence from a seven-day window is not evidence.

``confirmed_first`` puts this before the repository check: the trajectories
are the authority (seed 003's first ground rule), so a claim they confirm is
never marked ``[unverified]``; else the repository answers; else the
trajectories' False. Seed 003 only ever adds the mark: a marked entry whose
claims now verify keeps it and is reported (``findings``).

Failures: a database that cannot be opened or queried (locked, corrupt, not
OpenCode-shaped) becomes a finding; its claims stay None and the dream goes
on. ``gather`` never raises for a database's sake.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from dreamd.dream.claims import Needle, cited_sessions, claims_with_sources, source_ids
from dreamd.dream.folder import checks, sections
from dreamd.dream.trajectorydb import (
    known_sessions,
    part_texts,
    window_sessions,
)
from dreamd.readers.opencode import (
    MIMOCODE_READER,
    OPENCODE_READER,
    OpenCodeReader,
    UnreadableSession,
    db_override,
    failure_reason,
    open_database,
    table_columns,
)

__all__ = [
    "MAX_SCAN_CHARS",
    "WINDOW_DAYS",
    "Evidence",
    "Verify",
    "confirmed_first",
    "data_dir_of",
    "findings",
    "gather",
    "locate",
]

#: Seed 003: the dream looks back over the last seven days of sessions.
WINDOW_DAYS = 7
#: Characters of part text read per database, at most (about as many bytes).
MAX_SCAN_CHARS = 64 * 2**20
#: Part texts are searched in batches of about this many characters.
_BATCH_CHARS = 2 * 2**20

#: Each tool's reader and the variable that moves its database.
_TOOLS: tuple[tuple[OpenCodeReader, str], ...] = (
    (MIMOCODE_READER, "MIMOCODE_DB"),
    (OPENCODE_READER, "OPENCODE_DB"),
)


# -- Where the trajectories are ----------------------------------------------------------------


def data_dir_of(folder: Path) -> Path | None:
    """``<DATA>`` of a seed-003 memory root: the parent of the nearest folder named ``memory``."""
    for candidate in (folder, *folder.parents):
        if candidate.name == "memory":
            return candidate.parent
    return None


def locate(folder: Path, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
    """The trajectory databases of the memory folder ``folder`` (existing files only)."""
    data = data_dir_of(folder.absolute())
    if data is None:
        return ()
    found: list[Path] = []
    for reader, variable in _TOOLS:
        found += _tool_databases(reader, variable, data, env, home)
    return tuple(dict.fromkeys(path for path in found if path.is_file()))


def _tool_databases(
    reader: OpenCodeReader, variable: str, data: Path, env: Mapping[str, str], home: Path
) -> list[Path]:
    """One tool's databases in ``data``; its ``*_DB`` override when ``data`` is its own dir."""
    own_data = reader.default_roots(env, home)[-1]  # the data dir comes last (after any DB)
    if own_data.resolve() == data.resolve():
        value = env.get(variable, "")
        if value == ":memory:":
            return []
        override = db_override(value, data)
        if override is not None:
            return [override]
    return reader.databases(data)


# -- Evidence ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the trajectories said about one index: the I/O done, the answers kept.

    ``confirmed``/``refuted``: claims seen / absent from their own cited
    sessions; ``known_sessions``: cited ids that are sessions; ``answered``:
    the databases that were read; ``problems``: one line per database that was
    not, or whose scan was cut short.
    """

    databases: tuple[Path, ...]
    confirmed: frozenset[str] = frozenset()
    refuted: frozenset[str] = frozenset()
    known_sessions: frozenset[str] = frozenset()
    window_sessions: int = 0
    claims: int = 0
    answered: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()

    def verify(self, claim: str) -> bool | None:
        """True seen, False absent from its own cited session, None the trajectories cannot say."""
        if claim in self.confirmed:
            return True
        if claim in self.refuted:
            return False
        return None


Verify = Callable[[str], bool | None]


def confirmed_first(evidence: Evidence, repository: Verify | None) -> Verify:
    """Trajectories confirm first, then the repository's answer, then the trajectories' False."""

    def verify(claim: str) -> bool | None:
        seen = evidence.verify(claim)
        if seen is True:
            return True
        answer = repository(claim) if repository is not None else None
        return answer if answer is not None else seen

    return verify


def gather(
    databases: Sequence[Path],
    index_text: str,
    *,
    now: datetime,
    project: Path | None = None,
    window_days: int = WINDOW_DAYS,
) -> Evidence:
    """Ask every database about the index's claims and cited sessions; never raises for one.

    ``project``, when known, limits the window to sessions run in it or below
    it; cited sessions are searched whatever their project or age.
    """
    claims = claims_with_sources(index_text)
    cited = cited_sessions(index_text)
    if not databases or (not claims and not cited):
        return Evidence(tuple(databases), claims=len(claims))
    since = now - timedelta(days=window_days)
    answers: list[tuple[Path, _Answer]] = []
    problems: list[str] = []
    for database in databases:
        try:
            answer = _read(database, claims, cited, since, project)
        except (UnreadableSession, sqlite3.Error, OSError) as error:
            problems.append(f"{database} could not be read ({failure_reason(error)}): not used")
            continue
        if not answer.complete:
            budget = f"{MAX_SCAN_CHARS // 2**20} Mi characters"
            problems.append(f"{database}: scan stopped after {budget}: nothing refuted")
        answers.append((database, answer))
    return _merged(databases, len(claims), answers, problems)


@dataclass(frozen=True, slots=True)
class _Answer:
    """One database's answers."""

    known: set[str]
    window: int
    confirmed: set[str]
    refuted: set[str]
    complete: bool


def _read(
    database: Path,
    claims: Mapping[str, frozenset[str]],
    cited: Sequence[str],
    since: datetime,
    project: Path | None,
) -> _Answer:
    """One database's answers; raises when it cannot be opened or queried."""
    with closing(open_database(database)) as connection:
        return _ask(connection, claims, cited, since, project)


def _merged(
    databases: Sequence[Path],
    claims: int,
    answers: Sequence[tuple[Path, _Answer]],
    problems: Sequence[str],
) -> Evidence:
    """The answers of the databases read, as one: a claim seen in any is not refuted."""
    confirmed: set[str] = set()
    refuted: set[str] = set()
    known: set[str] = set()
    for _, answer in answers:
        confirmed |= answer.confirmed
        refuted |= answer.refuted
        known |= answer.known
    return Evidence(
        databases=tuple(databases),
        confirmed=frozenset(confirmed),
        refuted=frozenset(refuted - confirmed),
        known_sessions=frozenset(known),
        window_sessions=sum(answer.window for _, answer in answers),
        claims=claims,
        answered=tuple(database for database, _ in answers),
        problems=tuple(problems),
    )


def _ask(
    connection: sqlite3.Connection,
    claims: Mapping[str, frozenset[str]],
    cited: Sequence[str],
    since: datetime,
    project: Path | None,
) -> _Answer:
    """The window's parts against every claim, then each cited session against its own claims.

    A claim is refuted only when the whole scan finished within its budget.
    """
    columns = table_columns(connection)
    known = known_sessions(connection, cited)
    recent = window_sessions(connection, columns, since, project)
    scan = _Scan(MAX_SCAN_CHARS)
    confirmed = scan.find(part_texts(connection, columns, recent), claims)
    for sid in sorted(known - set(recent)):
        wanted = [claim for claim, sources in claims.items() if sid in sources]
        wanted = [claim for claim in wanted if claim not in confirmed]
        if wanted:
            confirmed |= scan.find(part_texts(connection, columns, [sid]), wanted)
    refuted = {
        claim for claim, sources in claims.items() if claim not in confirmed and sources & known
    }
    return _Answer(
        known, len(recent), confirmed, refuted if scan.complete else set(), scan.complete
    )


# -- The scan ----------------------------------------------------------------------------------


class _Scan:
    """Claims searched in part texts under one budget of characters read.

    Texts are joined into batches of about ``_BATCH_CHARS`` (with newlines,
    which JSON text never holds raw, so no match spans two parts); each open
    claim is looked for with its ``Needle``.
    """

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.complete = True

    def find(self, texts: Iterable[str], claims: Iterable[str]) -> set[str]:
        """The claims seen in ``texts``; stops early once all are seen or the budget is spent."""
        open_claims = {claim: Needle.of(claim) for claim in claims}
        found: set[str] = set()
        if not open_claims:
            return found
        for batch in _batches(texts):
            if self.left <= 0:
                self.complete = False
                break
            self.left -= len(batch)
            for claim, needle in list(open_claims.items()):
                if needle.found_in(batch):
                    found.add(claim)
                    del open_claims[claim]
            if not open_claims:
                break
        return found


def _batches(texts: Iterable[str]) -> Iterator[str]:
    batch: list[str] = []
    size = 0
    for text in texts:
        batch.append(text)
        size += len(text)
        if size >= _BATCH_CHARS:
            yield "\n".join(batch)
            batch, size = [], 0
    if batch:
        yield "\n".join(batch)


# -- What the report says (pure) ---------------------------------------------------------------


def findings(index_text: str, evidence: Evidence, verify: Verify) -> list[str]:
    """Report lines: unreadable databases, missing sources, marks the evidence no longer backs.

    ``verify`` is the combined check (``confirmed_first``); line numbers are
    those of ``index_text``.
    """
    lines = [f"trajectories: {problem}" for problem in evidence.problems]
    if evidence.answered:
        lines.append(_summary(evidence))
        lines += _missing_sources(index_text, evidence)
    lines += _liftable_marks(index_text, verify)
    return lines


def _summary(evidence: Evidence) -> str:
    names = ", ".join(path.name for path in evidence.answered)
    return (
        f"trajectories {names}: {evidence.window_sessions} session(s) in the "
        f"{WINDOW_DAYS}-day window; {len(evidence.confirmed)} of {evidence.claims} claim(s) seen"
    )


def _missing_sources(index_text: str, evidence: Evidence) -> Iterable[str]:
    names = ", ".join(path.name for path in evidence.answered)
    for entry in sections.sectioned_entries(index_text):
        for sid in source_ids(entry.text):
            if sid not in evidence.known_sessions:
                yield f"MEMORY.md:{entry.first_line}: source [{sid}] is not a session in {names}"


def _liftable_marks(index_text: str, verify: Verify) -> Iterable[str]:
    """Marked entries whose every claim now verifies: seed 003 has no rule to lift a mark."""
    for entry in sections.sectioned_entries(index_text):
        if checks.UNVERIFIED_MARK not in entry.text.lower():
            continue
        claims = checks.entry_claims(entry.text)
        if claims and all(verify(claim) is True for claim in claims):
            shown = ", ".join(f"`{claim}`" for claim in claims)
            yield (
                f"MEMORY.md:{entry.first_line}: marked {checks.UNVERIFIED_MARK}, yet every claim "
                f"now verifies ({shown}); the mark stays (dreamd never lifts a mark itself): "
                "remove it by hand if you agree"
            )
