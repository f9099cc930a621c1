"""An opening prompt is a machine's when two independent signals say so (or a placeholder).

The signals are counted cheapest first and the slow output-contract search is
skipped when it cannot change the count: every combination must still count.
"""

from __future__ import annotations

import itertools

import pytest

from dreamd.sessioninfo import is_machine_opening

#: Each signal alone, in a sentence a person might type around it.
SIGNALS = {
    "voice": "You are a careful reviewer of this patch.",
    "scaffold": "<task>look at the loader</task>",
    "contract": "Respond only with valid JSON.",
    "long": "word " * 900,
}


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4])
def test_two_signals_of_any_kind_make_a_machine_opening(count: int) -> None:
    for names in itertools.combinations(SIGNALS, count):
        # The voice is anchored at the start: it goes first.
        text = " ".join(SIGNALS[name] for name in sorted(names, key=lambda n: n != "voice"))
        assert is_machine_opening(text or "fix the flaky test") is (count >= 2), names


def test_a_placeholder_alone_makes_a_machine_opening() -> None:
    assert is_machine_opening("Summarise {{ diff }} for the changelog")
