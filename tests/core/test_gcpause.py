"""The collector pauses the cycle collector for the scan and selection, and only then."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from dreamd.gcpause import collector_paused
from tests.core.test_catalog import write_claude
from tests.process import modules_loaded, run_dreamd


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


def test_objects_frozen_leaves_the_objects_out_and_only_the_outermost_block_thaws() -> None:
    from dreamd.gcpause import objects_frozen

    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]
    with objects_frozen():
        assert gc.get_freeze_count() >= len(kept)
        with objects_frozen():
            pass
        assert gc.get_freeze_count() >= len(kept)  # the inner block did not thaw them
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1  # garbage made inside is still collected
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), objects_frozen():
        raise RuntimeError("an extraction that fails")
    assert gc.get_freeze_count() == 0


#: Runs ``dreamd collect`` with each selected session's collection spied on: how many
#: objects were frozen meanwhile, and after the command, on the last stderr line.
_TAKE_PROBE = """
import gc, json, sys
import dreamd.collect.collector as collector
seen = []
real = collector._take
def spy(*args):
    seen.append("frozen" if gc.get_freeze_count() > 1000 else "walked")
    return real(*args)
collector._take = spy
from dreamd.cli import main
try:
    main()
except SystemExit:
    pass
seen.append("thawed after" if gc.get_freeze_count() == 0 else "frozen after")
print(json.dumps(seen), file=sys.stderr)
"""


def test_a_collect_freezes_what_it_selected_from_while_it_collects(isolated_home: Path) -> None:
    """The sessions scanned and the decisions made are left out of the collections the
    extraction triggers (their cost would grow with the backlog), and thawed after."""
    for index in range(2):
        write_claude(isolated_home, f"s{index}", ["please fix the build", "it fails on main"])
    seen = modules_loaded(isolated_home, "collect", code=_TAKE_PROBE)
    assert seen == {"frozen", "thawed after"}


#: Runs ``dreamd ARGS`` with an exit handler registered first (so it runs last): whether
#: the objects were frozen by then, and whether a file written through a handler that
#: ran after the freeze reached the disk.
_EXIT_PROBE = """
import atexit, gc, json, sys
def last():
    print(json.dumps(["frozen" if gc.get_freeze_count() > 1000 else "walked"]), file=sys.stderr)
atexit.register(last)
from dreamd.cli import main
main()
"""


def test_a_command_skips_the_final_collection_and_still_exits_as_it_should(
    isolated_home: Path,
) -> None:
    """Every object is frozen by the time the interpreter's last collection would walk
    them; the command's output, exit status and the other exit handlers are unchanged."""
    write_claude(isolated_home, "s1", ["please fix the build", "it fails on main"])
    seen = modules_loaded(isolated_home, "sources", "list", "--json", code=_EXIT_PROBE)
    assert seen == {"frozen"}
    listed = run_dreamd(isolated_home, "sources", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == ["s1"]
