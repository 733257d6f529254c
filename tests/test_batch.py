"""batch_collection: fewer collections while a stack is planned, the setting restored."""

from __future__ import annotations

import gc

import pytest

from components.batch import batch_collection


def test_raises_the_young_threshold_and_restores_it() -> None:
    before = gc.get_threshold()
    with batch_collection():
        inside = gc.get_threshold()
        assert inside[0] >= 10_000
        assert inside[1:] == before[1:]
    assert gc.get_threshold() == before


def test_restores_after_an_error_and_keeps_a_higher_setting() -> None:
    before = gc.get_threshold()
    gc.set_threshold(50_000, *before[1:])
    try:
        with pytest.raises(RuntimeError), batch_collection():
            assert gc.get_threshold()[0] == 50_000  # never lowered
            raise RuntimeError("boom")
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.set_threshold(*before)
