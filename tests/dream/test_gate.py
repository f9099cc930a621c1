"""The validate gate: inbox items are accepted, merged or rejected with a reason, undoably."""

from __future__ import annotations

import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml

from dreamd.dream.execute import CrashPoint, Executor, undo_run
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.folder import (
    INBOX,
    GateDecision,
    apply_gate,
    gate_decisions,
    load_inbox,
)
from dreamd.stores import MemoryItem, Quote
from dreamd.stores.claude_memory import render_item, stored_op_keys
from tests.conftest import SHARED_FIXTURES

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TODAY = NOW.date()
SESSION = "claude:laptop:s1"
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def item_bytes(
    name: str = "deploy pipeline notes",
    body: str = "Deploys run through the staging cluster before production, always.",
    *,
    type: str = "project",
    session: str = SESSION,
    quote_ids: tuple[str, ...] = ("m1",),
    op_key: str = "op-1",
    collected: date = TODAY,
) -> bytes:
    """A topic file exactly as the collector's Claude memory store writes it."""
    item = MemoryItem(
        type=type,  # type: ignore[arg-type]
        category="Decision",
        name=name,
        description=f"About {name}",
        body=body,
        confidence=0.9,
        source=f"source:{session}",
        collected=collected,
        quotes=tuple(Quote(f"{session}:{q}", "we deploy via staging") for q in quote_ids),
    )
    return render_item(op_key, item)


def plant(folder: Path, name: str, data: bytes) -> Path:
    inbox = folder / INBOX
    inbox.mkdir(parents=True, exist_ok=True)
    path = inbox / name
    path.write_bytes(data)
    return path


def existing(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


EXISTING = """---
name: deploy pipeline
description: How deploys reach production
type: project
metadata:
  source: source:claude:desk:s0
  op_key: op-0
  quotes:
  - message: claude:desk:s0:m9
    text: staging first
---
Deploys run through the staging cluster before production.
"""


def decide(folder: Path, view: RepoView | None = None) -> list[GateDecision]:
    return gate_decisions(load_inbox(folder), load_folder(folder, None).files, view=view, now=NOW)


def run_gate(
    folder: Path, run: str = "run-1", view: RepoView | None = None
) -> tuple[list[str], Path]:
    run_dir = folder.parent / "state" / run
    executor = Executor(folder, run_dir, TODAY, CrashPoint())
    return apply_gate(folder, decide(folder, view), executor), run_dir


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def front(path: Path) -> dict[str, object]:
    loaded = yaml.safe_load(path.read_text().split("---\n")[1])
    assert isinstance(loaded, dict)
    return loaded


def metadata(path: Path) -> dict[str, object]:
    value = front(path)["metadata"]
    assert isinstance(value, dict)
    return value


# --- accept ---------------------------------------------------------------------------------


def test_valid_item_is_accepted_byte_for_byte(tmp_path: Path) -> None:
    """A well-formed, traceable item moves into the folder unchanged; the inbox file is trashed."""
    folder = tmp_path / "mem"
    data = item_bytes()
    plant(folder, "project_deploy_pipeline_notes.md", data)
    lines, _ = run_gate(folder)
    assert (folder / "project_deploy_pipeline_notes.md").read_bytes() == data
    assert not (folder / INBOX / "project_deploy_pipeline_notes.md").exists()
    trashed = folder / ".trash" / TODAY.isoformat() / "project_deploy_pipeline_notes.md"
    assert trashed.read_bytes() == data
    assert lines == [
        f"accepted {INBOX}/project_deploy_pipeline_notes.md as "
        f"project_deploy_pipeline_notes.md: provenance {SESSION}"
    ]


def test_accepted_name_never_overwrites(tmp_path: Path) -> None:
    """A file already holding the planted name (untyped, so no merge) gets a -2 name instead."""
    folder = tmp_path / "mem"
    existing(folder, "project_deploy_pipeline_notes.md", "hand-written, no front matter\n")
    plant(folder, "project_deploy_pipeline_notes.md", item_bytes())
    (decision,) = decide(folder)
    assert (decision.verdict, decision.target) == ("accept", "project_deploy_pipeline_notes-2.md")
    run_gate(folder)
    assert (folder / "project_deploy_pipeline_notes.md").read_text() == (
        "hand-written, no front matter\n"
    )


def test_apply_skips_an_accept_whose_name_appeared(tmp_path: Path) -> None:
    """A file created under the accepted name after the decision is kept; the item stays."""
    folder = tmp_path / "mem"
    plant(folder, "a.md", item_bytes())
    decisions = decide(folder)
    existing(folder, "project_deploy_pipeline_notes.md", "someone else\n")
    executor = Executor(folder, tmp_path / "state", TODAY, CrashPoint())
    (line,) = apply_gate(folder, decisions, executor)
    assert line.startswith(f"skipped {INBOX}/a.md")
    assert (folder / "project_deploy_pipeline_notes.md").read_text() == "someone else\n"
    assert (folder / INBOX / "a.md").exists()


def test_collected_tomorrow_is_accepted_the_day_after_is_not(tmp_path: Path) -> None:
    """A collection day one day past now is tolerated (time zones); two days is rejected."""
    folder = tmp_path / "mem"
    plant(folder, "a.md", item_bytes("first one", collected=date(2026, 12, 1)))
    plant(folder, "b.md", item_bytes("second one", collected=date(2026, 12, 2)))
    first, second = decide(folder)
    assert first.verdict == "accept"
    assert second.verdict == "reject" and "in the future" in second.reason


# --- merge ----------------------------------------------------------------------------------


def test_near_duplicate_is_merged_keeping_sources_quotes_and_text(tmp_path: Path) -> None:
    """A duplicate adds its statement, source, quotes and op key; nothing existing is lost."""
    folder = tmp_path / "mem"
    target = existing(folder, "project_deploy_pipeline.md", EXISTING)
    plant(
        folder,
        "project_deploy_pipeline_notes.md",
        item_bytes(body="Deploys run through the staging cluster before production, then canary."),
    )
    lines, _ = run_gate(folder)
    assert lines[0].startswith(f"merged {INBOX}/project_deploy_pipeline_notes.md into ")
    text = target.read_text()
    assert "Deploys run through the staging cluster before production.\n" in text
    assert text.rstrip().endswith("then canary.")
    meta = metadata(target)
    assert meta["source"] == "source:claude:desk:s0"
    assert meta["sources"] == ["source:claude:desk:s0", f"source:{SESSION}"]
    assert meta["quotes"] == [
        {"message": "claude:desk:s0:m9", "text": "staging first"},
        {"message": f"{SESSION}:m1", "text": "we deploy via staging"},
    ]
    assert stored_op_keys(target.read_bytes()) == {"op-0", "op-1"}
    assert front(target)["description"] == "How deploys reach production"
    assert not list((folder / INBOX).iterdir())
    (memory,) = load_folder(folder, None).files
    assert memory.type == "project"


def test_merge_does_not_repeat_a_statement_already_there(tmp_path: Path) -> None:
    """When the existing body already says it, only the provenance is added."""
    folder = tmp_path / "mem"
    target = existing(folder, "project_deploy_pipeline.md", EXISTING)
    plant(
        folder,
        "x.md",
        item_bytes(body="Deploys run through the staging\n cluster before production."),
    )
    run_gate(folder)
    text = target.read_text()
    assert text.count("staging cluster before production") == 1
    assert metadata(target)["sources"] == ["source:claude:desk:s0", f"source:{SESSION}"]


@pytest.mark.parametrize(
    ("body", "verdict"),
    [
        ("alpha bravo charlie foxtrot golf", "merge"),  # 3 of 5 shared: exactly 0.6
        ("alpha bravo foxtrot golf hotel", "accept"),  # 2 of 5 shared: 0.4
    ],
)
def test_overlap_threshold_is_inclusive_at_six_tenths(
    tmp_path: Path, body: str, verdict: str
) -> None:
    """Same subject with 0.6 word overlap merges; below it the item is its own memory."""
    folder = tmp_path / "mem"
    existing(
        folder,
        "project_deploy_pipeline.md",
        "---\nname: deploy pipeline\ntype: project\n---\nalpha bravo charlie delta echo\n",
    )
    plant(folder, "x.md", item_bytes(body=body))
    (decision,) = decide(folder)
    assert decision.verdict == verdict


def test_high_overlap_without_same_subject_is_accepted(tmp_path: Path) -> None:
    """Overlapping bodies under unrelated names and descriptions are not merged."""
    folder = tmp_path / "mem"
    existing(
        folder,
        "project_billing_export.md",
        "---\nname: billing export\ntype: project\n---\nalpha bravo charlie delta echo\n",
    )
    plant(folder, "x.md", item_bytes(body="alpha bravo charlie delta echo"))
    (decision,) = decide(folder)
    assert decision.verdict == "accept"


def test_identical_name_merges_whatever_the_body(tmp_path: Path) -> None:
    """An item with the same name and type as a memory is merged into it."""
    folder = tmp_path / "mem"
    existing(folder, "project_deploy_pipeline.md", EXISTING)
    plant(folder, "x.md", item_bytes(name="Deploy Pipeline", body="Rollbacks take ten minutes."))
    (decision,) = decide(folder)
    assert (decision.verdict, decision.target) == ("merge", "project_deploy_pipeline.md")
    assert decision.reason.startswith("same name")


def test_same_name_of_another_type_is_not_merged(tmp_path: Path) -> None:
    """Merging only happens within one memory type."""
    folder = tmp_path / "mem"
    existing(folder, "project_deploy_pipeline.md", EXISTING)
    plant(folder, "x.md", item_bytes(name="deploy pipeline", type="feedback"))
    (decision,) = decide(folder)
    assert (decision.verdict, decision.target) == ("accept", "feedback_deploy_pipeline.md")


def test_two_inbox_duplicates_first_accepted_second_merged(tmp_path: Path) -> None:
    """Of two duplicate items the first becomes the memory and the second merges into it."""
    folder = tmp_path / "mem"
    plant(folder, "a.md", item_bytes(op_key="op-a"))
    other = "claude:laptop:s2"
    plant(folder, "b.md", item_bytes(session=other, op_key="op-b"))
    first, second = decide(folder)
    assert first.verdict == "accept" and second.verdict == "merge"
    assert second.target == first.target
    run_gate(folder)
    accepted = folder / "project_deploy_pipeline_notes.md"
    assert metadata(accepted)["source"] == f"source:{SESSION}"
    assert metadata(accepted)["sources"] == [f"source:{SESSION}", f"source:{other}"]
    assert stored_op_keys(accepted.read_bytes()) == {"op-a", "op-b"}
    assert sorted(p.name for p in folder.glob("*.md")) == ["project_deploy_pipeline_notes.md"]


def test_merge_skipped_when_the_memory_changed_since(tmp_path: Path) -> None:
    """A memory edited between decision and apply is not overwritten; the item stays."""
    folder = tmp_path / "mem"
    target = existing(folder, "project_deploy_pipeline.md", EXISTING)
    plant(folder, "x.md", item_bytes())
    decisions = decide(folder)
    target.write_text(EXISTING + "edited\n")
    lines = apply_gate(folder, decisions, Executor(folder, tmp_path / "s", TODAY, CrashPoint()))
    assert lines[0].startswith(f"skipped {INBOX}/x.md")
    assert target.read_text() == EXISTING + "edited\n"


def test_merge_into_broken_yaml_is_left_for_a_person(tmp_path: Path) -> None:
    """A memory whose front matter is not YAML is never rewritten by a merge."""
    folder = tmp_path / "mem"
    broken = EXISTING.replace("description: How deploys", "description: `How` deploys: a: b")
    target = existing(folder, "project_deploy_pipeline.md", broken)
    plant(folder, "x.md", item_bytes())
    (decision,) = decide(folder)
    assert decision.verdict == "merge"
    lines, _ = run_gate(folder)
    assert "no plain YAML front matter" in lines[0]
    assert target.read_text() == broken and (folder / INBOX / "x.md").exists()


# --- reject ---------------------------------------------------------------------------------


def _without_source(data: bytes) -> bytes:
    return data.replace(f"  source: source:{SESSION}\n".encode(), b"")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (_without_source(item_bytes()), "no provenance: metadata.source missing"),
        (
            item_bytes().replace(b"source: source:claude:laptop:s1", b"source: claude:laptop"),
            "no provenance: metadata.source is not",
        ),
        (
            item_bytes().replace(b"message: claude:laptop:s1:m1", b"message: claude:laptop:s9:m1"),
            "untraceable: a quote cites claude:laptop:s9:m1",
        ),
        (
            item_bytes().replace(b"message: claude:laptop:s1:m1", b"message: m1"),
            "untraceable: a quote does not cite",
        ),
        (item_bytes(quote_ids=()), "untraceable: no quoted message"),
        (item_bytes(body=f"Use the token {SECRET} for the bot."), "credential-shaped value"),
        (item_bytes().replace(b"text: we deploy", f"text: {SECRET}".encode()), "credential"),
        (item_bytes().replace(b"type: project", b"type: note"), "malformed: type is not one"),
        (b"---\nname: x\ntype: project\nnever closed\n", "malformed: no front matter"),
        (b"---\nname: x\ntype: project\n---\n   \n", "malformed: empty body"),
        (b"---\nname: [x\ntype: project\n---\nbody\n", "malformed: front matter is not valid"),
        (b"just a note\n", "malformed: no front matter"),
        (b"\xff\xfe---\n", "malformed: not UTF-8"),
    ],
)
def test_rejections_name_their_reason(tmp_path: Path, data: bytes, reason: str) -> None:
    """Untraceable, secret-bearing and malformed items are trashed with the reason why."""
    folder = tmp_path / "mem"
    plant(folder, "x.md", data)
    lines, _ = run_gate(folder)
    assert lines[0].startswith(f"rejected {INBOX}/x.md: {reason}")
    assert (folder / ".trash" / TODAY.isoformat() / "x.md").read_bytes() == data
    assert not list(folder.glob("*.md"))


def test_secret_reason_never_shows_the_value(tmp_path: Path) -> None:
    """The rejection line says a credential was found, never what it was."""
    folder = tmp_path / "mem"
    plant(folder, "x.md", item_bytes(body=f"token {SECRET} here"))
    lines, _ = run_gate(folder)
    assert SECRET not in "".join(lines) and SECRET[:10] not in "".join(lines)


def _view(tmp_path: Path) -> RepoView:
    return RepoView.build(tmp_path / "repo", ["src/app.py", "src/db.py"], ["connect_db"])


def test_all_references_missing_is_rejected_as_stale_at_birth(tmp_path: Path) -> None:
    """An item whose every repository reference is gone is FULLY_STALE at birth: rejected."""
    folder = tmp_path / "mem"
    plant(folder, "x.md", item_bytes(body="The retry loop lives in `src/retry.py`."))
    (decision,) = decide(folder, _view(tmp_path))
    assert decision.verdict == "reject"
    assert decision.reason.startswith("stale at birth") and "src/retry.py" in decision.reason


@pytest.mark.parametrize(
    "body",
    [
        "Connections open in `src/db.py`; retries in `src/retry.py`.",  # one present
        "Settings are read from `~/.config/tool/conf.toml`.",  # unverifiable only
        "Nothing to check here, just a habit of the team.",  # no references
    ],
)
def test_some_verifiable_or_no_references_are_accepted(tmp_path: Path, body: str) -> None:
    """Partly present, unverifiable or absent references do not reject an item."""
    folder = tmp_path / "mem"
    plant(folder, "x.md", item_bytes(body=body))
    (decision,) = decide(folder, _view(tmp_path))
    assert decision.verdict == "accept"


def test_references_without_a_repository_are_unverifiable(tmp_path: Path) -> None:
    """With no repository view, a missing-looking path is unverifiable, so it is accepted."""
    folder = tmp_path / "mem"
    plant(folder, "x.md", item_bytes(body="The retry loop lives in `src/retry.py`."))
    (decision,) = decide(folder, None)
    assert decision.verdict == "accept"


# --- the run as a whole ---------------------------------------------------------------------


def test_undo_restores_a_gate_run_byte_for_byte(tmp_path: Path) -> None:
    """Accept, merge and reject in one run are all put back by undo_run."""
    folder = tmp_path / "mem"
    existing(folder, "project_deploy_pipeline.md", EXISTING)
    existing(folder, "MEMORY.md", "- [deploy](project_deploy_pipeline.md)\n")
    plant(folder, "a.md", item_bytes(body="Deploys run through the staging cluster first."))
    plant(folder, "b.md", item_bytes(name="cache warmup", body="Warm the cache after restarts."))
    plant(folder, "c.md", item_bytes(name="leaky", body=f"key {SECRET}"))
    before = snapshot(folder)
    lines, run_dir = run_gate(folder)
    assert [line.split()[0] for line in lines] == ["merged", "accepted", "rejected"]
    assert snapshot(folder) != before
    undo_run(run_dir)
    assert snapshot(folder) == before


def test_second_run_on_an_empty_inbox_changes_nothing(tmp_path: Path) -> None:
    """After a gate run the inbox is empty, and running again decides and writes nothing."""
    folder = tmp_path / "mem"
    plant(folder, "a.md", item_bytes())
    run_gate(folder, "run-1")
    after = snapshot(folder)
    lines, run_dir = run_gate(folder, "run-2")
    assert lines == [] and snapshot(folder) == after
    assert not (run_dir / "journal.jsonl").exists()


def test_hidden_and_temp_files_in_the_inbox_are_not_items(tmp_path: Path) -> None:
    """The store's lock and a writer's temp file are never read as items."""
    folder = tmp_path / "mem"
    plant(folder, ".lock", b"")
    plant(folder, ".project_x.md.1234.tmp", b"half written")
    plant(folder, "notes.txt", b"not markdown")
    assert load_inbox(folder) == []
    assert load_inbox(tmp_path / "no-folder") == []


def test_real_folder_keeps_its_files_through_a_gate_run(tmp_path: Path) -> None:
    """On a copy of a real memory folder the gate only adds the accepted item."""
    source = SHARED_FIXTURES / "memory"
    folders = sorted(p.parent for p in source.rglob("MEMORY.md")) if source.is_dir() else []
    if not folders:
        pytest.skip("shared memory fixtures absent")
    folder = tmp_path / "mem"
    shutil.copytree(folders[0], folder, symlinks=True)
    before = {p.name: p.read_bytes() for p in folder.glob("*.md")}
    plant(folder, "a.md", item_bytes(name="zz gate probe", body="A probe statement xyzzy."))
    lines, _ = run_gate(folder)
    assert lines[0].startswith("accepted")
    after = {p.name: p.read_bytes() for p in folder.glob("*.md")}
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == {"project_zz_gate_probe.md"}
