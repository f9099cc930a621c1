"""The MEMORY.md store's validate gate and dream: accept, merge, reject, collapse, undo."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from dreamd.dream.execute import undo_run
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.sectioned import (
    collapse,
    dream_memory_md,
    duplicate_entries,
    gate_records,
    stale_entries,
)
from dreamd.stores import MemoryItem, Quote
from dreamd.stores.memory_md import MemoryMdStore, Record, parse_records, render_record
from dreamd.stores.sectioned import entries
from tests.conftest import SHARED_FIXTURES

NOW = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)
SESSION = "claude-code:box:ses-1"
INDEX = (
    "# Project memory\n\nNotes kept by hand.\n\n"
    "## Rules\n- Never push to main directly, always open a PR [ses_0]\n\n"
    "## Gotchas\n- The CI cache breaks when the lockfile changes [ses_0]\n"
)
WHERE = Path("/m/MEMORY.md")
OTHER = "claude-code:box:other"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def item(
    body: str,
    *,
    category: str = "Decision",
    quote_session: str = SESSION,
    collected: date = date(2026, 11, 30),
    project: str | None = None,
) -> MemoryItem:
    return MemoryItem(
        type="project", category=category, name=body[:24], description=body[:40], body=body,
        confidence=0.8, source=f"source:{SESSION}", collected=collected,
        quotes=(Quote(f"{quote_session}:m1", body),), project=project,
    )  # fmt: skip


def record(key: str, value: MemoryItem) -> Record:
    (parsed,) = parse_records(render_record(key, value))
    return parsed


def gate(records: list[Record], text: str = INDEX, **views: RepoView) -> tuple[list[str], str]:
    decisions, new = gate_records(records, text, now=NOW, views=views, where=WHERE)
    return [f"{d.verdict}:{d.reason}" for d in decisions], new


def test_an_accepted_entry_joins_its_section_and_nothing_else_moves() -> None:
    """The entry, op comment and session tag included, is added; a missing section is made."""
    verdicts, new = gate([record("k1", item("Use SQLite for the cursor store"))])
    assert verdicts == [f"accept:provenance {SESSION}"]
    added = '## Architecture decisions\n- Use SQLite for the cursor store <!-- dreamd:op ["k1"] -->'
    assert added + " [ses-1]\n\n## Gotchas" in new
    assert new.replace(added + " [ses-1]\n\n", "") == INDEX


def test_a_near_duplicate_in_the_same_section_is_merged_with_its_sources() -> None:
    """The existing words stay; the entry gains the new key and session, nothing is appended."""
    same = item("Never push directly to main: always open a PR first", category="Rule")
    verdicts, new = gate([record("k2", same)])
    assert verdicts[0].startswith("merge:says the same as 'Never push to main directly")
    assert (
        '- Never push to main directly, always open a PR <!-- dreamd:op ["k2"] --> [ses_0, ses-1]\n'
        in new
    )
    assert len(entries(new)) == len(entries(INDEX))
    elsewhere = dataclasses.replace(same, category="Decision")
    assert gate([record("k3", elsewhere)])[0][0].startswith("accept")


def test_a_later_record_duplicating_one_accepted_in_the_run_is_merged_into_it() -> None:
    """Two records saying the same thing leave one entry listing both keys."""
    body = "Cache the parsed manifests between dream runs"
    verdicts, new = gate([record("a", item(body)), record("b", item(body + "."))])
    assert [v.split(":")[0] for v in verdicts] == ["accept", "merge"]
    assert '<!-- dreamd:op ["a","b"] --> [ses-1]' in new


def _edited(value: Record, old: str, new: str) -> Record:
    (parsed,) = parse_records(value.text.replace(old, new, 1))
    return parsed


REJECTIONS = {
    "no item": (
        lambda r: _edited(r, '"updates":[]', '"updates":7'),
        "malformed: the record holds no valid item",
    ),
    "4 lines": (
        lambda r: _edited(r, "- Use", "- one\n  two\n  three\n  Use"),
        "malformed: an entry has 1 to 3 lines, this one 4",
    ),
    "wrong tag": (
        lambda r: _edited(r, "[ses-1]", "[ses-9]"),
        "untraceable: the entry does not end in its session [ses-1]",
    ),
    "no keys": (
        lambda r: _edited(r, ' <!-- dreamd:op ["k"] -->', ""),
        "malformed: the entry does not list its operation keys",
    ),
    "secret by hand": (
        lambda r: _edited(r, "- Use", f"- {TOKEN} Use"),
        "credential-shaped value",
    ),
}


@pytest.mark.parametrize("case", sorted(REJECTIONS))
def test_malformed_or_edited_records_are_rejected_with_a_reason(case: str) -> None:
    """The entry must be the seed's shape, carry its session and keys, and hold no secret."""
    edit, reason = REJECTIONS[case]
    verdicts, new = gate([edit(record("k", item("Use SQLite for the cursor store")))])
    assert verdicts == [f"reject:{reason}"]
    assert new == INDEX


def test_items_are_rejected_for_provenance_quotes_and_stale_references() -> None:
    """Another session's quote, a future collection day, references gone at birth."""
    view = RepoView.build(Path("/repo"), ["src/app.py", "README.md"], ["main"])
    cases = [
        item("Use SQLite here", quote_session="claude-code:box:other"),
        item("Use SQLite here", collected=date(2026, 12, 9)),
        item("Retry logic lives in `src/gone.py` now", project="/repo"),
    ]
    verdicts, new = gate([record(f"k{i}", c) for i, c in enumerate(cases)], **{"/repo": view})
    assert verdicts == [
        f"reject:untraceable: a quote cites {OTHER}:m1, not session {SESSION}",
        "reject:no provenance: collected 2026-12-09 is in the future",
        "reject:stale at birth: every reference is missing from the repository (src/gone.py)",
    ]
    assert new == INDEX


def test_a_record_already_in_memory_md_is_accepted_again_without_a_change() -> None:
    """A run cut off after writing MEMORY.md: the next one only moves the record out."""
    first = record("k1", item("Use SQLite for the cursor store"))
    _, once = gate([first])
    verdicts, twice = gate([first], once)
    assert verdicts == ["accept:already in MEMORY.md"] and twice == once


def test_entries_that_say_the_same_collapse_into_the_first_of_their_section() -> None:
    """Equal once folded (or 90 % of the words): the later one goes, its sources join."""
    text = (
        "## Rules\n- Always run the linter before committing [s-1]\n"
        "- always run the  LINTER before committing [s-2]\n"
        "- Always run the linter before pushing [s-3]\n\n"
        "## Gotchas\n- Always run the linter before committing [s-4]\n"
    )
    (found,) = duplicate_entries(text)
    assert (found.removed.first, found.kept.first) == (2, 1)
    assert collapse(text, [found]) == (
        "## Rules\n- Always run the linter before committing [s-1, s-2]\n"
        "- Always run the linter before pushing [s-3]\n\n"
        "## Gotchas\n- Always run the linter before committing [s-4]\n"
    )


def test_stale_entries_are_flagged_only_against_a_repository() -> None:
    """Every checkable reference missing: flagged; no repository: nothing to say."""
    text = "## Patterns\n- Parsers live in `src/old_parser.py` [s-1]\n- Use `src/app.py` [s-2]\n"
    view = RepoView.build(Path("/repo"), ["src/app.py"], ["main"])
    assert [(e.first, why) for e, why in stale_entries(text, view, WHERE)] == [
        (1, "src/old_parser.py")
    ]
    assert stale_entries(text, None, WHERE) == []


# --- the I/O edge -----------------------------------------------------------------------------


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (lock files left out), by relative path."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def planted(folder: Path) -> MemoryMdStore:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(INDEX)
    store = MemoryMdStore(folder / "MEMORY.md")
    store.write("good", item("Use SQLite for the cursor store"))
    store.write(
        "twin", item("Never push directly to main: always open a PR first", category="Rule")
    )
    store.write("bad", item(f"Deploy with {TOKEN} as the key"))
    return store


def test_a_run_moves_every_record_out_and_deletes_nothing(tmp_path: Path) -> None:
    """Accepted and merged records go to the ledger, rejected ones to the trash, with reasons."""
    store = planted(tmp_path / "memory")
    result = dream_memory_md(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    assert [line.split(":")[0] for line in result.changes] == [
        "merged MEMORY.inbox.md", "accepted MEMORY.inbox.md", "rejected MEMORY.inbox.md",
    ]  # fmt: skip
    assert parse_records(store.holding_path.read_text()) == []
    assert [r.op_key for r in parse_records(store.ledger_path.read_text())] == ["twin", "good"]
    trash = store.folder / ".trash" / "2026-12-01" / "MEMORY.inbox.md"
    assert [r.op_key for r in parse_records(trash.read_text())] == ["bad"]
    assert '"reason":"credential-shaped value"' in trash.read_text()
    assert (store.folder / ".MEMORY.md.prev").read_text() == INDEX
    for key in ("good", "twin"):
        receipt = store.find(key)
        assert receipt is not None and store.verify(receipt, key)
        assert receipt.location.startswith("MEMORY.md#")
    assert store.find("bad") is None


def test_a_dry_run_changes_no_byte(tmp_path: Path) -> None:
    """Every line says what would happen; the folder stays as it was."""
    store = planted(tmp_path / "memory")
    before = files(store.folder)
    result = dream_memory_md(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=True)
    assert result.changes and all(line.startswith("would ") for line in result.changes)
    assert files(store.folder) == before and not (tmp_path / "runs").exists()


def test_undo_puts_back_every_byte(tmp_path: Path) -> None:
    """The run is journaled: undo restores MEMORY.md and the holding file; no ledger, no trash."""
    store = planted(tmp_path / "memory")
    before = files(store.folder)
    run_dir = tmp_path / "runs" / "r1"
    dream_memory_md(store, run_dir=run_dir, now=NOW, dry_run=False)
    assert files(store.folder) != before
    for journal in run_dir.iterdir():
        undo_run(journal)
    assert files(store.folder) == before
    assert not (store.folder / ".trash").exists()


def test_a_second_run_changes_nothing(tmp_path: Path) -> None:
    """Once gated, the next dream has nothing to do (a no-op, findings only)."""
    store = planted(tmp_path / "memory")
    dream_memory_md(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    before = files(store.folder)
    again = dream_memory_md(store, run_dir=tmp_path / "runs" / "r2", now=NOW, dry_run=False)
    assert again.changes == [] and files(store.folder) == before


def test_a_linked_memory_md_is_left_alone(tmp_path: Path) -> None:
    """The gate never writes through a symbolic link; it says so."""
    store = planted(tmp_path / "memory")
    target = tmp_path / "real.md"
    store.path.rename(target)
    store.path.symlink_to(target)
    before = files(store.folder)
    result = dream_memory_md(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    assert result.changes == [] and "symbolic link" in result.flags[0]
    assert files(store.folder) == before


@pytest.mark.parametrize(
    "fixture",
    ["ActorForth__ActorForth__claude-memory", "AnotherSava__bga-assistant__claude-memory"],
)
def test_a_real_memory_md_keeps_every_line_through_a_gate_run(fixture: str, tmp_path: Path) -> None:
    """Real files (copied, never written in place): each line stays, in order; entries join."""
    source = SHARED_FIXTURES / "memory" / fixture / "MEMORY.md"
    if not source.is_file():
        pytest.skip(f"shared memory fixtures not found at {source}")
    folder = tmp_path / "memory"
    folder.mkdir()
    shutil.copyfile(source, folder / "MEMORY.md")
    (folder / "MEMORY.md").chmod(0o644)
    store = MemoryMdStore(folder / "MEMORY.md")
    store.write("k1", item("Use SQLite for the cursor store"))
    store.write("k2", item("Watch the build cache after upgrades", category="Gotcha"))
    result = dream_memory_md(store, run_dir=tmp_path / "runs" / "r1", now=NOW, dry_run=False)
    assert [line.split(" ")[0] for line in result.changes] == ["accepted", "accepted"]
    old = source.read_text().split("\n")
    new = store.path.read_text().split("\n")
    rest = iter(new)
    assert all(line in rest for line in old)  # every old line, in order
    assert len(new) == len(old) + 6  # two entries, two headings, two blank lines
    assert store.find("k1") is not None and store.find("k2") is not None
