"""The collector pauses the cycle collector for the scan and selection, and only then."""

from __future__ import annotations

import gc

import pytest

from dreamd.gcpause import collector_paused


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
