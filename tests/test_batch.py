"""batch_collection: no collection while a stack is planned, the collector restored."""

from __future__ import annotations

import gc
from collections.abc import Iterable

import pytest
from raygang.batch import batch_collection
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.settings import StackSettings

from benchmarks.planning import load_planner, plan_once
from benchmarks.synth import make_documents, make_snapshot_objects


def test_collection_is_off_during_the_batch_and_restored_after() -> None:
    assert gc.isenabled()
    with batch_collection():
        assert not gc.isenabled()
        with batch_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner batch leaves the outer one's setting alone
    assert gc.isenabled()


def test_restores_after_an_error() -> None:
    with pytest.raises(RuntimeError), batch_collection():
        raise RuntimeError("boom")
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_collector_disabled_by_the_process_stays_disabled() -> None:
    gc.disable()
    try:
        with batch_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_the_batch_made_ends_in_the_oldest_generation() -> None:
    class Made:
        pass

    with batch_collection():
        made = Made()
    assert any(o is made for o in gc.get_objects(generation=2))
    assert not any(o is made for o in gc.get_objects(generation=0))


def test_a_cycle_made_in_the_batch_is_still_collected_later() -> None:
    import weakref

    class Node:
        pass

    with batch_collection():
        node = Node()
        node.self = node  # type: ignore[attr-defined]
        ref = weakref.ref(node)
        del node
        churn = [[] for _ in range(50_000)]  # would trigger collections if they ran
        assert ref() is not None
        del churn
    gc.collect()
    assert ref() is None


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


def _plan_with_collector_off(
    jobs: int, snapshots: Iterable[ClusterSnapshot]
) -> tuple[list[str], int]:
    """Plan ``jobs`` synthetic jobs once per snapshot with the collector off, as a process
    planning in a loop would: the plans' texts, and how many objects ended in cycles."""
    docs = make_documents(jobs)
    planner = load_planner()
    texts = []
    gc.collect()
    gc.disable()
    try:
        for snapshot in snapshots:
            text, planned = plan_once(planner, docs, StackSettings(), snapshot)
            assert planned == jobs
            texts.append(text)
        del snapshot
        found = gc.collect()
    finally:
        gc.enable()
    return texts, found


def test_planning_makes_almost_no_cyclic_garbage() -> None:
    # Why the collector may stay off while a stack is planned: what planning makes is
    # freed by reference counting, not left in cycles for a collection to find, also when
    # a process plans again and again (a stale node ranking used to stay behind per pass).
    jobs, passes = 60, 3
    snapshot = snapshot_from_objects(make_snapshot_objects(40), "test")
    texts, found = _plan_with_collector_off(jobs, [snapshot] * passes)
    assert found <= jobs, f"{found} objects in garbage cycles after {passes} plans of {jobs} jobs"
    # Each pass released the previous pass's ranking and ranked anew: the same plan.
    assert texts[0] and all(t == texts[0] for t in texts)


def test_planning_against_many_snapshots_leaves_no_cycles() -> None:
    # Parsed snapshots are cached (a few); the ones pushed out must not stay behind in
    # cycles with their node rankings either.
    jobs, count = 8, 7
    snapshots = (
        snapshot_from_objects(make_snapshot_objects(12 + i), f"test {i}") for i in range(count)
    )
    _, found = _plan_with_collector_off(jobs, snapshots)
    assert found <= jobs, f"{found} objects in garbage cycles after {count} snapshots"
