"""``dreamd cursor import`` and legacy cursors, through the real program (issue 14, issue 15 12e-h).

The import checks the document (one line naming what is wrong), refuses
another host's cursor unless ``--force``, keeps the cursor it replaces (0600,
in the data dir, the path printed) and prints what changes. Collecting after
importing legacy or foreign V2 cursors plants nothing twice.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.collect.test_collect_cli import PROMPTS, SID, collect, data, inbox, session, sql_keys
from tests.process import run_dreamd

OTHER = "99999999-2222-4333-8444-555555555555"


def configure(home: Path, machine: str = "laptop") -> None:
    folder = home / ".config" / "dreamd"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f'machine = "{machine}"\n')


def write(tmp_path: Path, document: Any, name: str = "cursor.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def exported(home: Path) -> dict[str, Any]:
    result = run_dreamd(home, "cursor", "export")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def older(path: Path, seconds: int) -> None:
    """Move every timestamp of a session file ``seconds`` earlier (its mtime too)."""
    written = path.stat().st_mtime - seconds
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        moment = datetime.fromisoformat(record["timestamp"]).timestamp() - seconds
        stamp = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(json.dumps({**record, "timestamp": stamp}))
    path.write_text("\n".join(lines) + "\n")
    os.utime(path, (written, written))


def a_collected_cursor(home: Path) -> dict[str, Any]:
    """A host whose cursor has one resolved session."""
    configure(home)
    session(home, PROMPTS)
    assert collect(home).returncode == 0
    return exported(home)


class TestRefused:
    def test_a_document_that_is_no_cursor_resets_nothing(self, isolated_home: Path,
                                                        tmp_path: Path) -> None:  # fmt: skip
        """Issue 14: ``{"bad":1}`` used to reset every session; now one line, exit 1, kept."""
        before = a_collected_cursor(isolated_home)
        result = run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, {"bad": 1})))
        assert result.returncode == 1 and result.stdout == ""
        (line,) = result.stderr.strip().splitlines()
        assert "cursor.json: not a cursor document: not a cursor: none of collectorV2" in line
        assert "(found: bad)" in line
        assert exported(isolated_home) == before

    def test_a_misshapen_field_is_named_by_its_json_path(self, isolated_home: Path,
                                                        tmp_path: Path) -> None:  # fmt: skip
        before = a_collected_cursor(isolated_home)
        document = {"collectorV2": {"sources": {"pi": {"sessions": {"s": {"generation": -1}}}}}}
        result = run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, document)))
        assert result.returncode == 1
        (line,) = result.stderr.strip().splitlines()
        assert line.endswith(
            "cursor.json: not a cursor document: collectorV2.sources.pi.sessions.s.generation: "
            "must be a whole number of at least 0, not -1"
        )
        broken = run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, "{not json")))
        assert broken.returncode == 1 and len(broken.stderr.strip().splitlines()) == 1
        assert "cursor.json: not JSON: " in broken.stderr
        assert exported(isolated_home) == before

    def test_another_hosts_cursor_is_refused_then_adopted_with_force(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """12h: a cursor naming another host is refused; ``--force`` adopts it, saying so."""
        theirs = a_collected_cursor(isolated_home)
        theirs["collectorV2"]["host"] = "desktop"
        path = write(tmp_path, theirs)
        configure(isolated_home, "laptop")
        refused = run_dreamd(isolated_home, "cursor", "import", str(path))
        assert refused.returncode == 1
        (line,) = refused.stderr.strip().splitlines()
        assert "this is the cursor of host 'desktop', not 'laptop': nothing imported" in line
        assert "--force" in line
        assert exported(isolated_home)["collectorV2"]["host"] == "laptop"
        adopted = run_dreamd(isolated_home, "cursor", "import", "--force", str(path))
        assert adopted.returncode == 0, adopted.stderr
        assert "adopted from host desktop: it now names laptop" in adopted.stdout
        document = exported(isolated_home)
        assert document["collectorV2"]["host"] == "laptop"
        assert document["collectorV2"]["sources"] == theirs["collectorV2"]["sources"]


class TestReplaced:
    def test_the_replaced_cursor_is_kept_private_and_the_change_printed(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """A backup in the data dir (0600 in a 0700 folder), its path printed, the counts
        before and after; importing the backup restores the cursor."""
        before = a_collected_cursor(isolated_home)
        legacy = {"highWater": "2026-01-01T00:00:00Z", "sources": {"pi": {"processed": ["x"]}}}
        result = run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, legacy)))
        assert result.returncode == 0, result.stderr
        out = result.stdout
        assert "cursor of laptop imported from " in out
        assert "before: 1 sessions finished, 0 pending (0 with an open window); legacy " \
               "records: 0 with a time, 0 held for review" in out  # fmt: skip
        assert "after:  0 sessions finished, 0 pending (0 with an open window); legacy " \
               "records: 0 with a time, 1 held for review" in out  # fmt: skip
        assert f"no longer finished: 1 (claude-code:{SID}); they will be collected again" in out
        (backup,) = (data(isolated_home) / "cursor-backups").glob("laptop-*.json")
        assert f"the replaced cursor is saved in {backup}" in out
        assert stat.S_IMODE(backup.stat().st_mode) == 0o600
        assert stat.S_IMODE(backup.parent.stat().st_mode) == 0o700
        assert json.loads(backup.read_text()) == before
        restored = run_dreamd(isolated_home, "cursor", "import", str(backup))
        assert restored.returncode == 0, restored.stderr
        assert exported(isolated_home) == before
        assert len(list(backup.parent.glob("laptop-*.json"))) == 2

    def test_a_first_import_has_nothing_to_back_up(self, isolated_home: Path,
                                                  tmp_path: Path) -> None:  # fmt: skip
        configure(isolated_home)
        result = run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, {"pi": {
            "processed": {"a": {"at": "2026-01-01T00:00:00Z"}}}})))  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert "there was no cursor before: nothing to back up" in result.stdout
        assert "legacy records: 1 with a time, 0 held for review" in result.stdout


class TestCollectingAfterAnImport:
    def test_a_flat_dev_map_finishes_sessions_before_the_budget(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """12e/12f: a session the flat dev map records as processed (``at``) is resolved
        before the budget: the one-session budget goes to the unfinished session, and the
        processed text is never planted."""
        configure(isolated_home)
        session(isolated_home, PROMPTS)  # processed by the old collector, and the newest
        older(session(isolated_home, PROMPTS[:3] + PROMPTS[4:], sid=OTHER), 600)
        now = datetime.now(UTC).isoformat()
        legacy = {"claudecode": {"processed": {SID: {"at": now}}}, "highWater": 5}
        assert (
            run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, legacy))).returncode
            == 0
        )
        report = json.loads(collect(isolated_home, "--json", "--budget", "1").stdout)
        assert report["selected"] == [f"claude-code:{OTHER}"]
        listed = json.loads(run_dreamd(isolated_home, "sources", "list", "--json").stdout)
        mine = {row["id"]: row for row in listed}
        assert mine[SID]["status"] == "resolved"
        assert "finished in the legacy cursor (claudecode.processed)" in mine[SID]["reason"]
        again = json.loads(collect(isolated_home, "--json").stdout)
        assert again["selected"] == []  # nothing left: the legacy session is never taken
        texts = " ".join(
            (isolated_home / ".claude/projects/-work-app/memory/.inbox" / n).read_text()
            for n in inbox(isolated_home)
        )
        assert f"source:claude-code:laptop:{SID}" not in texts
        assert exported(isolated_home)["highWater"] == 5

    def test_imported_v2_entries_stay_finished_under_one_tool_key(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """12g: a collected cursor re-imported with the tool under ``claudecode``: nothing is
        collected again, and the export carries the tool once, under ``claude-code``."""
        document = a_collected_cursor(isolated_home)
        planted = sql_keys(isolated_home)
        sources = document["collectorV2"]["sources"]
        sources["claudecode"] = sources.pop("claude-code")
        assert (
            run_dreamd(isolated_home, "cursor", "import", str(write(tmp_path, document))).returncode
            == 0
        )
        session(isolated_home, PROMPTS)  # rewritten, same content: the same revision
        report = json.loads(collect(isolated_home, "--json").stdout)
        assert report["selected"] == [] and report["planted"]["total"] == 0
        assert sql_keys(isolated_home) == planted
        session(isolated_home, [*PROMPTS, "Always pin the Python version in CI, from now on."])
        assert collect(isolated_home).returncode == 0
        tools = exported(isolated_home)["collectorV2"]["sources"]
        assert list(tools) == ["claude-code"]
        assert tools["claude-code"]["sessions"][SID]["status"] == "resolved"

    def test_an_open_window_is_reconciled_before_its_session_completes(
        self, isolated_home: Path, tmp_path: Path
    ) -> None:
        """12g: an imported entry that says resolved but holds an open window is taken again:
        its plan (not on this host) is quarantined and the window closed without
        acknowledging anything; only then is the session finished again (every message was
        acknowledged before), and nothing is planted twice."""
        document = a_collected_cursor(isolated_home)
        planted = sql_keys(isolated_home)
        entry = document["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
        entry["pendingWindow"] = {"windowKey": "w-elsewhere", "planId": "p-elsewhere"}
        path = write(tmp_path, document)
        assert run_dreamd(isolated_home, "cursor", "import", str(path)).returncode == 0
        report = json.loads(collect(isolated_home, "--json").stdout)
        assert report["selected"] == [f"claude-code:{SID}"]
        assert report["cursor"]["resolved"] == [] and sql_keys(isolated_home) == planted
        (quarantined,) = report["quarantined"]
        assert quarantined["plan_id"] == "p-elsewhere" and quarantined["stage"] == "replay"
        state = exported(isolated_home)["collectorV2"]["sources"]["claude-code"]["sessions"][SID]
        assert state["intent"] is None and state["reconciled"] == ["p-elsewhere"]
        again = json.loads(collect(isolated_home, "--json").stdout)
        assert again["planted"]["total"] == 0  # the quarantine stays listed until handled
        assert sql_keys(isolated_home) == planted
