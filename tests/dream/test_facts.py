"""Facts kept between dreams: the same answers as computing them, for exactly the same text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from dreamd.dream.folder import facts
from dreamd.dream.folder.cues import cue_objects
from dreamd.dream.folder.dates import MENTIONS, _mentions
from dreamd.dream.folder.facts import Kind, kept_facts, remembered
from dreamd.dream.folder.refs import REFERENCES, references
from dreamd.dream.folder.similarity import CUES, SUBJECT
from dreamd.dream.folder.subjects import subject_of
from tests.dream.test_dream_cli import decisions, repo_memory, run, topic, tree
from tests.dream.test_inventory import parse

__all__ = ["repo_memory"]  # the fixture, shared

UPPER: Kind[str] = Kind("upper", lambda value: value, str)


class Counting:
    """``str.upper`` that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> Callable[[], str]:
        def compute() -> str:
            self.calls += 1
            return text.upper()

        return compute


class TestRemembered:
    def test_outside_a_block_every_call_computes(self) -> None:
        """Without ``kept_facts`` nothing is kept."""
        upper = Counting()
        assert remembered(UPPER, "a", upper("a")) == remembered(UPPER, "a", upper("a")) == "A"
        assert upper.calls == 2

    def test_the_next_block_answers_the_same_text_from_the_store(self, tmp_path: Path) -> None:
        """Asked again for the same text, the next dream does not compute; another text does."""
        store, upper = tmp_path / "facts" / "f.msgpack", Counting()
        with kept_facts(store):
            assert remembered(UPPER, "memory one", upper("memory one")) == "MEMORY ONE"
        with kept_facts(store):
            assert remembered(UPPER, "memory one", upper("memory one")) == "MEMORY ONE"
            assert remembered(UPPER, "memory one!", upper("memory one!")) == "MEMORY ONE!"
        assert upper.calls == 2

    def test_only_what_the_last_dream_asked_for_is_kept(self, tmp_path: Path) -> None:
        """A text no longer asked about (a deleted memory) leaves the store."""
        store, upper = tmp_path / "f.msgpack", Counting()
        with kept_facts(store):
            remembered(UPPER, "kept", upper("kept"))
            remembered(UPPER, "deleted", upper("deleted"))
        with kept_facts(store):
            remembered(UPPER, "kept", upper("kept"))
        with kept_facts(store):
            remembered(UPPER, "deleted", upper("deleted"))
        assert upper.calls == 3

    def test_kinds_do_not_share_answers(self, tmp_path: Path) -> None:
        """The same text under two kinds is two facts."""
        lower: Kind[str] = Kind("lower", lambda value: value, str)
        with kept_facts(tmp_path / "f.msgpack"):
            assert remembered(UPPER, "Ab", lambda: "AB") == "AB"
            assert remembered(lower, "Ab", lambda: "ab") == "ab"

    @pytest.mark.parametrize(
        "content",
        [
            b"not msgpack at all \xff\x00",
            msgspec.msgpack.encode({"version": facts.FACTS_VERSION + 1, "facts": {}}),
            msgspec.msgpack.encode([1, 2, 3]),
        ],
    )
    def test_a_damaged_or_foreign_store_costs_only_the_computation(
        self, tmp_path: Path, content: bytes
    ) -> None:
        """Garbage, another version or another shape: computed, and the store written anew."""
        store, upper = tmp_path / "f.msgpack", Counting()
        store.write_bytes(content)
        with kept_facts(store):
            assert remembered(UPPER, "x", upper("x")) == "X"
        with kept_facts(store):
            assert remembered(UPPER, "x", upper("x")) == "X"
        assert upper.calls == 1

    def test_a_damaged_entry_is_computed_again(self, tmp_path: Path) -> None:
        """An entry that does not read back as its kind is computed, not trusted."""
        store = tmp_path / "f.msgpack"
        with kept_facts(store):
            remembered(REFERENCES, "see src/a.py", lambda: references("see src/a.py"))
        document = msgspec.msgpack.decode(store.read_bytes())
        document["facts"] = dict.fromkeys(document["facts"], 7)
        store.write_bytes(msgspec.msgpack.encode(document))
        with kept_facts(store):
            assert references("see src/a.py") == (("src/a.py",), ())


MEMORY = (
    "---\nname: Deploy key rotation\ndescription: Rotate the deploy keys in `ops/keys.yml`\n"
    "type: project\n---\nAlways use `rotate_keys()` for the deploy keys; never use the old "
    "script. Yesterday we moved it to src/ops/rotate.py, last week 42 tests failed.\n"
)


def _round_trip(kind: Kind[Any], value: Any) -> Any:
    return kind.load(msgspec.msgpack.decode(msgspec.msgpack.encode(kind.dump(value))))


class TestKinds:
    def test_every_kind_reads_back_what_it_kept(self) -> None:
        """References, cues, subject words and relative dates survive the store unchanged."""
        memory = parse(MEMORY)
        text = f"{memory.description}\n{memory.body}"
        found = references(text)
        assert found[0] and found[1]
        assert _round_trip(REFERENCES, found) == found
        cues = cue_objects(memory.body)
        assert cues
        assert _round_trip(CUES, cues) == cues
        subject = subject_of(memory)
        assert _round_trip(SUBJECT, subject) == subject
        mentions = _mentions(memory.body)
        assert mentions
        assert _round_trip(MENTIONS, mentions) == mentions


class TestDreams:
    def test_kept_facts_change_no_decision(self, repo_memory: Path, isolated_home: Path) -> None:
        """A dry run answered from the kept facts reports what one computing them reports."""
        args = ("dream", "--dry-run", "--json", "--root", str(repo_memory))
        first = json.loads(run(isolated_home, *args).stdout)
        kept = list((isolated_home / ".local" / "share" / "dreamd" / "facts").glob("*.msgpack"))
        assert len(kept) == 1
        second = json.loads(run(isolated_home, *args).stdout)
        first.pop("run_id"), second.pop("run_id")
        assert first == second

    def test_an_edited_memory_is_read_again(self, repo_memory: Path, isolated_home: Path) -> None:
        """A memory whose references changed since the last dream is judged by the new ones."""
        args = ("dream", "--dry-run", "--json", "--root", str(repo_memory))
        before = decisions(json.loads(run(isolated_home, *args).stdout))
        assert before["project_live.md"]["classification"] == "FRESH"
        topic(
            repo_memory / "project_live.md",
            "project",
            "config loading",
            "Config is read by `load_config()` in `src/app.py` and `src/gone_now.py`.",
        )
        snapshot = tree(repo_memory)
        after = decisions(json.loads(run(isolated_home, *args).stdout))
        assert after["project_live.md"]["classification"] == "PARTIALLY_STALE"
        assert after["project_live.md"]["missing_refs"] == ["src/gone_now.py"]
        assert tree(repo_memory) == snapshot
