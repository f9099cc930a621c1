"""The collector pauses the cycle collector for the scan and selection, and only then."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from dreamd.gcpause import collector_paused
from tests.core.test_catalog import write_claude
from tests.process import modules_loaded


def test_the_cycle_collector_is_off_inside_and_back_on_after_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("a scan that fails")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


#: Runs ``dreamd`` with the JSON rendering of a conversation spied on: whether the cycle
#: collector ran while it was built, and after the command, on the last stderr line.
_RENDER_PROBE = """
import gc, json, sys
import dreamd.render as render
seen = []
real = render.conversation_json
def spy(conversation):
    seen.append("collecting" if gc.isenabled() else "paused")
    return real(conversation)
render.conversation_json = spy
from dreamd.cli import main
try:
    main()
except SystemExit:
    pass
seen.append("on after" if gc.isenabled() else "off after")
print(json.dumps(seen), file=sys.stderr)
"""


def test_showing_a_session_renders_it_with_the_collector_paused(isolated_home: Path) -> None:
    """The rows of a large transcript's messages hold no cycle: ``sources show`` builds
    them without full collections walking the conversation over and over."""
    write_claude(isolated_home, "s1", ["hi", "there"])
    seen = modules_loaded(
        isolated_home, "sources", "show", "claude-code:s1", "--json", code=_RENDER_PROBE
    )
    assert seen == {"paused", "on after"}
