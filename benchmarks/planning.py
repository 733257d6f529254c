"""How planning grows: the planning pass timed in jobs and in nodes, in this process.

``raygang.plan_everything`` is what ``raygang plan`` and the Pulumi program run: the
plan, the lifecycle decision and the preflight of every job. Each point is the loaded
documents planned against a cluster snapshot and written as JSON (the inputs are read
before the clock starts); the growth exponent is the least-squares slope of log(time) on
log(size), 1.0 being linear.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from raygang import (
    ClusterSnapshot,
    Documents,
    StackPlan,
    StackSettings,
    load_documents,
    plan_everything,
    snapshot_from_objects,
    write_json,
)

from benchmarks.measure import best_of, fit_exponent
from benchmarks.synth import make_documents, make_snapshot_objects

__all__ = [
    "GrowthSeries",
    "load_planner",
    "plan_once",
    "run_growth",
]

# A fixed clock keeps the lifecycle decisions (and so the plans) the same on every run.
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

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


@dataclass(frozen=True)
class GrowthSeries:
    """Planning time over one varying size, the other fixed.

    Attributes:
        varying: ``jobs`` or ``nodes``.
        fixed: the other size, described (``500 nodes``, ``100 jobs``).
        sizes: the varying size at each point.
        seconds: best wall time at each point.
    """

    varying: str
    fixed: str
    sizes: tuple[int, ...]
    seconds: tuple[float, ...]

    @property
    def exponent(self) -> float:
        """The fitted growth exponent."""
        return fit_exponent(self.sizes, self.seconds)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "exponent": self.exponent}


def _time(jobs: int, nodes: int, repeat: int) -> float:
    planner = load_planner()
    docs = make_documents(jobs)
    snapshot = snapshot_from_objects(make_snapshot_objects(nodes), f"{nodes} nodes")
    seconds, (_, planned) = best_of(
        repeat, lambda: plan_once(planner, docs, StackSettings(), snapshot)
    )
    if planned != jobs:
        raise AssertionError(f"planned {planned} jobs of {jobs}")
    return seconds


def run_growth(
    job_sizes: Sequence[int], node_sizes: Sequence[int], jobs: int, nodes: int, repeat: int
) -> list[GrowthSeries]:
    """Two series: ``job_sizes`` jobs against ``nodes`` nodes, and ``jobs`` jobs against
    ``node_sizes`` nodes (the preflight judges every job against every node)."""
    in_jobs = tuple(_time(n, nodes, repeat) for n in job_sizes)
    in_nodes = tuple(_time(jobs, n, repeat) for n in node_sizes)
    return [
        GrowthSeries("jobs", f"{nodes} nodes", tuple(job_sizes), in_jobs),
        GrowthSeries("nodes", f"{jobs} jobs", tuple(node_sizes), in_nodes),
    ]
