"""Planning benchmarks: ``load_documents`` + ``plan_everything`` + ``write_json``.

``raygang.plan_everything`` is what ``raygang plan`` and the Pulumi program
run: the plan, the lifecycle decision and the preflight of every job.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from raygang import (
    Accounting,
    ClusterSnapshot,
    Documents,
    StackPlan,
    StackSettings,
    load_documents,
    plan_everything,
    snapshot_from_objects,
    write_json,
)

from benchmarks.measure import best_of, fit_exponent, maxrss_bytes
from benchmarks.synth import make_documents, make_snapshot_objects

__all__ = [
    "MemoryResult",
    "PlanSeries",
    "load_planner",
    "measure_memory",
    "plan_once",
    "run_planning",
]

# A fixed clock keeps the lifecycle decisions (and so the plans) the same on every run.
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
DESCRIPTION = "plan_everything (plan, lifecycle, preflight)"

Planner = Callable[[Documents, StackSettings, ClusterSnapshot | None], StackPlan]


def load_planner() -> Planner:
    """The planning pass ``raygang plan`` runs, with the benchmark's fixed clock."""
    base = Path.cwd()

    def planner(
        docs: Documents, settings: StackSettings, snapshot: ClusterSnapshot | None
    ) -> StackPlan:
        return plan_everything(docs, settings, base=base, snapshot=snapshot, now=NOW)

    return planner


def plan_once(
    planner: Planner,
    docs: Sequence[tuple[str, object]],
    settings: StackSettings,
    snapshot: ClusterSnapshot | None = None,
) -> tuple[str, int]:
    """What ``raygang plan --format json`` does after reading its inputs: the plan is
    written as it is produced (to stdout there; here to a sink that keeps its digest).

    Returns:
        The SHA-256 of the JSON text and the number of jobs planned.
    """
    sink = DigestSink()
    plan = planner(load_documents(docs), settings, snapshot)
    write_json(plan, sink)
    if not sink.chars:
        raise AssertionError("the plan wrote nothing")
    return sink.hexdigest(), len(plan.jobs)


class DigestSink(io.TextIOBase):
    """A text stream that keeps only the SHA-256 and the length of what is written."""

    def __init__(self) -> None:
        super().__init__()
        self._hash = hashlib.sha256()
        self.chars = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._hash.update(text.encode("utf-8"))
        self.chars += len(text)
        return len(text)

    def hexdigest(self) -> str:
        """The SHA-256 of the UTF-8 text written so far."""
        return self._hash.hexdigest()


@dataclass
class PlanSeries:
    """One planning series: an accounting, with or without a cluster snapshot.

    Attributes:
        accounting: ``kuberay`` or ``effective``.
        snapshot: a description of the snapshot (``none``, ``500 nodes``).
        sizes: job counts.
        seconds: best-of wall time of the whole plan, per size.
        skipped_sizes: sizes left out because they would exceed the time budget.
        notes: why they were left out.
    """

    accounting: str
    snapshot: str
    sizes: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    skipped_sizes: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def per_job(self) -> list[float]:
        """Seconds per job, per size."""
        return [t / n for t, n in zip(self.seconds, self.sizes, strict=True)]

    @property
    def exponent(self) -> float | None:
        """The fitted growth exponent (None when skipped or one size only)."""
        if len(self.sizes) < 2:
            return None
        return fit_exponent(self.sizes, self.seconds)

    def seconds_at(self, jobs: int) -> tuple[float, bool] | None:
        """Time for ``jobs`` jobs: measured, or extrapolated from the largest size.

        Extrapolation follows the fitted exponent (at least 1, so never below linear).

        Returns:
            The seconds and whether they were measured; None when the series did not run.
        """
        if not self.sizes:
            return None
        if jobs in self.sizes:
            return self.seconds[self.sizes.index(jobs)], True
        exponent = max(1.0, self.exponent or 1.0)
        growth: float = (jobs / self.sizes[-1]) ** exponent
        return self.seconds[-1] * growth, False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "accounting": self.accounting,
            "snapshot": self.snapshot,
            "sizes": self.sizes,
            "seconds": self.seconds,
            "seconds_per_job": self.per_job,
            "exponent": self.exponent,
            "skipped_sizes": self.skipped_sizes,
            "notes": self.notes,
        }


@dataclass
class PlanningResult:
    """Every planning series plus what building the snapshot cost."""

    planner: str
    series: list[PlanSeries]
    snapshot_nodes: int
    snapshot_objects: int
    snapshot_build_seconds: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "planner": self.planner,
            "series": [s.as_dict() for s in self.series],
            "snapshot_nodes": self.snapshot_nodes,
            "snapshot_objects": self.snapshot_objects,
            "snapshot_build_seconds": self.snapshot_build_seconds,
        }


def _predict(row: PlanSeries, n: int) -> float:
    """Seconds ``n`` jobs should take, from the sizes measured so far.

    With one point the growth is assumed to be N^1.5 (preflight can be super-linear);
    with more, the fitted exponent (at least 1).
    """
    exponent = 1.5 if len(row.sizes) < 2 else max(1.0, fit_exponent(row.sizes, row.seconds))
    growth: float = (n / row.sizes[-1]) ** exponent
    return row.seconds[-1] * growth


def _run_series(
    row: PlanSeries,
    sizes: Sequence[int],
    budget: float,
    measure: Callable[[int], tuple[float, int]],
) -> None:
    """Measure ``row`` at each size while the predicted time fits in ``budget`` seconds."""
    spent = 0.0
    for n in sizes:
        if row.seconds:
            predicted = _predict(row, n)
            if spent + predicted > budget:
                row.skipped_sizes.append(n)
                row.notes.append(
                    f"N={n} not run: about {predicted:.0f} s predicted, over the "
                    f"{budget:.0f} s budget of this series"
                )
                continue
        start = time.perf_counter()
        seconds, planned = measure(n)
        spent += time.perf_counter() - start
        if planned != n:
            raise AssertionError(f"planned {planned} jobs of {n}")
        row.sizes.append(n)
        row.seconds.append(seconds)


def run_planning(
    sizes: Sequence[int],
    snapshot_sizes: Sequence[int],
    repeat: int,
    nodes: int = 500,
    budget: float = 150.0,
    seed: int = 20251129,
) -> PlanningResult:
    """Time the planner for every size and accounting, without and with a snapshot.

    Args:
        sizes: job counts without a snapshot, ascending.
        snapshot_sizes: job counts with the snapshot, ascending (preflight is slower, so
            these start smaller).
        repeat: best of how many runs.
        nodes: Nodes in the cluster snapshot.
        budget: seconds a snapshot (preflight) series may take; larger sizes are skipped.
        seed: the generator's seed.
    """
    planner = load_planner()
    objects = make_snapshot_objects(nodes)
    start = time.perf_counter()
    snapshot = snapshot_from_objects(objects, "bench snapshot")
    build = time.perf_counter() - start
    all_sizes = sorted({*sizes, *snapshot_sizes})
    docs_by_size = {n: make_documents(n, seed) for n in all_sizes}
    series: list[PlanSeries] = []
    for with_snapshot in (False, True):
        for accounting in Accounting:
            settings = StackSettings(accounting=accounting)
            row = PlanSeries(str(accounting), f"{nodes} nodes" if with_snapshot else "none")
            series.append(row)

            def measure(
                n: int, settings: StackSettings = settings, with_snapshot: bool = with_snapshot
            ) -> tuple[float, int]:
                run = functools.partial(
                    plan_once,
                    planner,
                    docs_by_size[n],
                    settings,
                    snapshot if with_snapshot else None,
                )
                seconds, (_, planned) = best_of(repeat, run)
                return seconds, planned

            if with_snapshot:
                _run_series(row, snapshot_sizes, budget, measure)
            else:
                _run_series(row, sizes, float("inf"), measure)
    return PlanningResult(DESCRIPTION, series, nodes, len(snapshot.objects), build)


@dataclass
class MemoryResult:
    """Peak memory of one plan.

    Attributes:
        jobs: how many jobs were planned.
        snapshot: the snapshot planned against (``none``, ``500 nodes``).
        tracemalloc_peak: peak bytes allocated by Python while planning (inputs excluded;
            the snapshot's stack-wide caches included).
        maxrss: the process's peak resident set size right after (imports included).
    """

    jobs: int
    snapshot: str
    tracemalloc_peak: int
    maxrss: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return dataclasses.asdict(self)


def measure_memory(jobs: int, nodes: int = 0, seed: int = 20251129) -> MemoryResult:
    """Peak memory of planning ``jobs`` jobs (effective accounting), against a snapshot of
    ``nodes`` nodes when not 0 (read anew: its caches are counted)."""
    docs = make_documents(jobs, seed)
    planner = load_planner()
    snapshot = snapshot_from_objects(make_snapshot_objects(nodes), "bench") if nodes else None
    tracemalloc.start()
    try:
        digest, planned = plan_once(planner, docs, StackSettings(), snapshot)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if planned != jobs or not digest:
        raise AssertionError(f"planned {planned} jobs of {jobs}")
    return MemoryResult(jobs, f"{nodes} nodes" if nodes else "none", peak, maxrss_bytes())
