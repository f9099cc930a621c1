"""The reader data model checks its invariants on construction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.readers import Conversation, FileVersion, Message, SessionRef, isoformat

REF = SessionRef("pi", "s", Path("/s.jsonl"), FileVersion(1, 1, 1, 1))


def test_fingerprint_depends_on_role_and_text_only() -> None:
    """Equal role and text give equal fingerprints whatever the id or time."""
    a = Message("1", "user", "hello", None)
    b = Message("2", "user", "hello", None)
    assert a.fingerprint == b.fingerprint
    assert Message("1", "assistant", "hello", None).fingerprint != a.fingerprint
    assert Message("1", "user", "hello!", None).fingerprint != a.fingerprint


def test_revision_changes_with_any_edit_insert_or_reorder() -> None:
    """The revision is a hash over ids and fingerprints in order."""
    one = Message("1", "user", "first", None)
    two = Message("2", "assistant", "second", None)
    base = Conversation(REF, None, (one, two)).revision
    assert Conversation(REF, None, (one, two)).revision == base
    assert Conversation(REF, None, (two, one)).revision != base
    assert Conversation(REF, None, (one,)).revision != base
    assert (
        Conversation(REF, None, (one, Message("2", "assistant", "edited", None))).revision != base
    )


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("1", "system", "x", None), "role"),
        (("", "user", "x", None), "id"),
        (("1", "user", "   ", None), "no text"),
        (("1", "user", "x", datetime(2026, 1, 1)), "timezone"),
    ],
)
def test_bad_messages_are_rejected(args: tuple[object, ...], problem: str) -> None:
    """A message with a bad role, no id, no text or a naive time cannot exist."""
    with pytest.raises(ValueError, match=problem):
        Message(*args)  # type: ignore[arg-type]


def test_duplicate_message_ids_are_rejected() -> None:
    """A conversation cannot hold two messages with one id."""
    with pytest.raises(ValueError, match="duplicate"):
        Conversation(
            REF, None, (Message("1", "user", "a", None), Message("1", "assistant", "b", None))
        )


@settings(max_examples=300, deadline=None)
@given(
    moment=st.datetimes(
        min_value=datetime(2, 1, 1),
        max_value=datetime(9998, 12, 31),
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone.min]),
    )
)
def test_isoformat_writes_what_the_standard_library_writes(moment: datetime) -> None:
    """Milliseconds, UTC, ``Z``: the same text as ``datetime.isoformat`` gives, from any zone."""
    expected = moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert isoformat(moment) == expected
    assert isoformat(None) is None


@given(
    st.builds(
        FileVersion,
        st.integers(min_value=0),
        st.integers(min_value=0),
        st.integers(min_value=0),
        st.integers(min_value=0),
        st.text(max_size=8),
    )
)
def test_a_file_version_as_a_dict_holds_every_field_by_name(version: FileVersion) -> None:
    """``as_dict`` spells the fields out for speed: it must name each one, in order."""
    assert list(version.as_dict().items()) == list(zip(FileVersion._fields, version, strict=True))
