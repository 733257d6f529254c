"""The number users feel: ``raygang plan`` of one file of 1000 KubeRay-style jobs, against a
floor, and its peak memory.

The file is the planning benchmark's synthetic stack (its Queues and RayJobs, 10.4 worker
groups per job on average) written as one multi-document YAML file: 7 MB and about 700,000
YAML nodes for 1000 jobs. ``raygang plan --format json FILE`` runs as its own process, as a
user runs it (interpreter start and imports included), and its peak resident set size is
the kernel's (``wait4``'s ``ru_maxrss``, what ``/usr/bin/time -v`` prints), taken by a small
process that starts it: Linux counts the memory of the process that forks a command in the
command's peak, and this one holds the file it just loaded for the floor. The floor is
what no planner of that file can avoid: libyaml's C loader (``yaml.CSafeLoader``) reading
it, then ``json.dumps(indent=2)`` of what it read, in this process. Both are measured in the
same run, best of k, alternately.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from benchmarks.measure import best_of
from benchmarks.synth import make_documents

__all__ = ["FileResult", "run_file_plan", "run_process", "write_jobs_file"]


@dataclass(frozen=True)
class FileResult:
    """``raygang plan`` of one file against the floor of the same file.

    Attributes:
        jobs: RayJobs in the file.
        file_bytes: its size.
        plan_seconds: best wall time of ``python -m raygang plan --format json FILE``.
        plan_peak_rss: the largest peak resident set size of those runs, in bytes.
        floor_seconds: best wall time of libyaml's load + ``json.dumps`` of the file.
        startup_seconds: best wall time of ``python -c "import raygang.cli"`` (reported).
    """

    jobs: int
    file_bytes: int
    plan_seconds: float
    plan_peak_rss: int
    floor_seconds: float
    startup_seconds: float

    @property
    def ratio(self) -> float:
        """``raygang plan`` time / floor time."""
        return self.plan_seconds / self.floor_seconds

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "ratio": self.ratio}


def write_jobs_file(path: Path, jobs: int, seed: int = 20251129) -> Path:
    """The benchmark's Queues and ``jobs`` RayJobs as one multi-document YAML file."""
    documents = [obj for _, obj in make_documents(jobs, seed)]
    path.write_text(
        yaml.dump_all(documents, Dumper=yaml.CSafeDumper, sort_keys=False), encoding="utf-8"
    )
    return path


def _floor(path: Path) -> str:
    with path.open("rb") as handle:
        documents = list(yaml.load_all(handle, Loader=yaml.CSafeLoader))
    return json.dumps(documents, indent=2)


# Starts the command given as its arguments (output discarded, stderr passed on), then
# prints its wall time and wait4's ru_maxrss, and exits with its status.
_STARTER = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_process(args: list[str]) -> tuple[float, int]:
    """Wall time and peak resident set size (bytes) of one command, output discarded."""
    done = subprocess.run(
        [sys.executable, "-c", _STARTER, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{args[2:5]} exited {done.returncode}: {done.stderr[-2000:]}")
    seconds, peak = done.stdout.split()
    scale = 1 if sys.platform == "darwin" else 1024
    return float(seconds), int(peak) * scale


def run_file_plan(jobs: int, repeat: int) -> FileResult:
    """Write the file, then time ``raygang plan`` of it and its floor, ``repeat`` times."""
    with tempfile.TemporaryDirectory(prefix="raygang-bench-") as tmp:
        path = write_jobs_file(Path(tmp) / "jobs.yaml", jobs)
        plan = [sys.executable, "-m", "raygang", "plan", "--format", "json", str(path)]
        startup = [sys.executable, "-c", "import raygang.cli"]
        plan_best = floor_best = startup_best = float("inf")
        peak = 0
        for _ in range(max(1, repeat)):
            floor_best = min(floor_best, best_of(1, lambda: _floor(path))[0])
            seconds, rss = run_process(plan)
            plan_best, peak = min(plan_best, seconds), max(peak, rss)
            startup_best = min(startup_best, run_process(startup)[0])
        return FileResult(jobs, path.stat().st_size, plan_best, peak, floor_best, startup_best)
