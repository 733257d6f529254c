"""``raygang.collector``: fewer young collections during a planning pass change nothing but
when the collector runs; Python's default is the specification."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang import cli, pipeline
from raygang.collector import PLANNING_THRESHOLD, young_collections_every
from raygang.kube.snapshot import snapshot_from_objects
from raygang.loader import load_documents
from raygang.render import render_json
from raygang.settings import StackSettings

from benchmarks.synth import make_documents, make_snapshot_objects

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def default_thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_the_young_threshold_is_raised_inside_and_restored_after(
    default_thresholds: tuple[int, int, int],
) -> None:
    with young_collections_every(10_000):
        assert gc.get_threshold() == (10_000, 10, 10)
    assert gc.get_threshold() == default_thresholds


def test_the_thresholds_are_restored_after_an_error(
    default_thresholds: tuple[int, int, int],
) -> None:
    with pytest.raises(RuntimeError), young_collections_every(10_000):
        raise RuntimeError("planning failed")
    assert gc.get_threshold() == default_thresholds


def test_a_process_that_collects_less_often_or_not_at_all_is_left_alone(
    default_thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(50_000, 10, 10)
    with young_collections_every(10_000):
        assert gc.get_threshold() == (50_000, 10, 10)
    gc.set_threshold(*default_thresholds)
    gc.disable()
    try:
        with young_collections_every(10_000):
            assert not gc.isenabled()
            assert gc.get_threshold() == default_thresholds
    finally:
        gc.enable()


def test_planning_collects_young_objects_less_often(
    monkeypatch: pytest.MonkeyPatch, default_thresholds: tuple[int, int, int]
) -> None:
    seen: list[tuple[int, int, int]] = []
    real = pipeline._plan_everything

    def spy(*args: object) -> object:
        seen.append(gc.get_threshold())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "_plan_everything", spy)
    docs = load_documents(make_documents(2, 7))
    pipeline.plan_everything(docs, StackSettings(), base=ROOT)
    assert seen == [(PLANNING_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == default_thresholds


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    jobs=st.integers(min_value=1, max_value=12),
    nodes=st.sampled_from([0, 8, 40]),
)
def test_plans_are_the_same_as_under_pythons_default(seed: int, jobs: int, nodes: int) -> None:
    docs = make_documents(jobs, seed)
    snapshot = snapshot_from_objects(make_snapshot_objects(nodes), "test") if nodes else None

    def plan() -> str:
        loaded = load_documents(docs)
        return render_json(
            pipeline.plan_everything(loaded, StackSettings(), base=ROOT, snapshot=snapshot)
        )

    tuned = plan()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "young_collections_every", lambda _: contextlib.nullcontext())
        default = plan()
    assert tuned == default


def test_the_command_line_runs_under_the_policy(
    monkeypatch: pytest.MonkeyPatch, default_thresholds: tuple[int, int, int]
) -> None:
    seen: list[tuple[int, int, int]] = []

    def spy(argv: object) -> int:
        seen.append(gc.get_threshold())
        return 0

    monkeypatch.setattr(cli, "_main", spy)
    assert cli.main(["plan"]) == 0
    assert seen == [(PLANNING_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == default_thresholds
