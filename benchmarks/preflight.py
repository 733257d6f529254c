"""Planning with the preflight as a user runs it: ``raygang plan --cluster SNAPSHOT FILE``.

100 jobs against a snapshot of 500 nodes (three running pods each, five queues), each a YAML file,
``raygang plan`` as its own process (start-up, reading both files, the plan, the lifecycle,
Volcano's admission and placement of every gang, the JSON). ``make bench`` reports its time;
``make bench-real`` (:mod:`benchmarks.real_engine`) measures it again in its own run and
divides it by the real ``pulumi preview`` of the same 100 jobs.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from benchmarks.files import run_process, write_jobs_file
from benchmarks.synth import make_snapshot_objects

__all__ = ["PREFLIGHT_JOBS", "PREFLIGHT_NODES", "PreflightResult", "run_preflight_plan"]

PREFLIGHT_JOBS = 100
PREFLIGHT_NODES = 500
# Fixed, so the lifecycle decisions (and the plan) are the same on every run.
NOW = "2026-11-29T12:00:00Z"


@dataclass(frozen=True)
class PreflightResult:
    """Best wall time and peak memory of ``raygang plan --cluster``.

    Attributes:
        jobs: RayJobs planned.
        nodes: Nodes in the snapshot.
        seconds: best wall time of the command.
        peak_rss: the largest peak resident set size of its runs, in bytes.
    """

    jobs: int
    nodes: int
    seconds: float
    peak_rss: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def run_preflight_plan(
    jobs: int = PREFLIGHT_JOBS, nodes: int = PREFLIGHT_NODES, repeat: int = 3
) -> PreflightResult:
    """Write the jobs and the snapshot, then time ``raygang plan --cluster`` ``repeat`` times.

    ``--preflight warn``: a gang the preflight finds stuck is reported, and the command
    still exits 0 having done all the work.
    """
    with tempfile.TemporaryDirectory(prefix="raygang-bench-") as tmp:
        folder = Path(tmp)
        path = write_jobs_file(folder / "jobs.yaml", jobs)
        snapshot = folder / "cluster.yaml"
        snapshot.write_text(
            yaml.dump_all(make_snapshot_objects(nodes), Dumper=yaml.CSafeDumper), encoding="utf-8"
        )
        command = [sys.executable, "-m", "raygang", "plan", "--format", "json"]
        command += ["--cluster", str(snapshot), "--preflight", "warn", "--now", NOW, str(path)]
        best, peak = float("inf"), 0
        for _ in range(max(1, repeat)):
            seconds, rss = run_process(command)
            best, peak = min(best, seconds), max(peak, rss)
        return PreflightResult(jobs, nodes, best, peak)
