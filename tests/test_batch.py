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


def test_what_exists_before_is_frozen_during_the_batch_and_released_after() -> None:
    assert gc.get_freeze_count() == 0
    with batch_collection():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with batch_collection():  # nested batches leave the outer freeze alone
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    assert gc.get_freeze_count() == 0


def test_a_freeze_made_by_the_process_is_kept() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with batch_collection():
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_garbage_from_before_the_batch_waits_for_its_end() -> None:
    import weakref

    class Node:
        pass

    node = Node()
    node.self = node  # type: ignore[attr-defined]
    ref = weakref.ref(node)
    with batch_collection():
        del node
        gc.collect()
        assert ref() is not None  # frozen: full collections skip it
    gc.collect()
    assert ref() is None
