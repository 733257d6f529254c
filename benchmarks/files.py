"""The number users feel: ``raygang plan`` of 1000 jobs' files, against a floor.

The files are the planning benchmark's synthetic stack (its Queues and RayJobs) written as
multi-document YAML files of ``PER_FILE`` documents each: one file of this benchmark's 1000
jobs (7 MB, about 700,000 YAML nodes; 10.4 worker groups per job on average) is past the
bounded reader's 100,000-node limit per stream (``raygang.kube.kubeyaml.Limits.max_nodes``),
which ``raygang plan`` refuses with exit 2. ``raygang plan --format json FILE...`` runs as
its own process, as a user runs it (interpreter start and imports included). The floor is
what no planner of those files can avoid: libyaml's C loader (``yaml.CSafeLoader``) reading
them, then ``json.dumps(indent=2)`` of what it read, in this process. Both are measured in
the same run, best of k, alternately.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from benchmarks.measure import best_of
from benchmarks.synth import make_documents

__all__ = ["PER_FILE", "FileResult", "run_file_plan", "write_stack_files"]

# Documents per file: a round number the bounded reader accepts for these jobs.
PER_FILE = 100


@dataclass(frozen=True)
class FileResult:
    """``raygang plan`` of one file against the floor of the same file.

    Attributes:
        jobs: RayJobs in the files.
        files: how many files.
        file_bytes: their total size.
        plan_seconds: best wall time of ``python -m raygang plan --format json FILE...``.
        floor_seconds: best wall time of libyaml's load + ``json.dumps`` of the files.
        startup_seconds: best wall time of ``python -c "import raygang.cli"`` (reported).
    """

    jobs: int
    files: int
    file_bytes: int
    plan_seconds: float
    floor_seconds: float
    startup_seconds: float

    @property
    def ratio(self) -> float:
        """``raygang plan`` time / floor time."""
        return self.plan_seconds / self.floor_seconds

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "ratio": self.ratio}


def write_stack_files(folder: Path, jobs: int, seed: int = 20251129) -> list[Path]:
    """The benchmark's Queues and ``jobs`` RayJobs as multi-document YAML files."""
    documents = [obj for _, obj in make_documents(jobs, seed)]
    paths = []
    for start in range(0, len(documents), PER_FILE):
        path = folder / f"jobs-{start // PER_FILE:03d}.yaml"
        chunk = documents[start : start + PER_FILE]
        path.write_text(
            yaml.dump_all(chunk, Dumper=yaml.CSafeDumper, sort_keys=False), encoding="utf-8"
        )
        paths.append(path)
    return paths


def _floor(paths: list[Path]) -> str:
    documents: list[object] = []
    for path in paths:
        with path.open("rb") as handle:
            documents.extend(yaml.load_all(handle, Loader=yaml.CSafeLoader))
    return json.dumps(documents, indent=2)


def _run(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def run_file_plan(jobs: int, repeat: int) -> FileResult:
    """Write the files, then time ``raygang plan`` of them and their floor, ``repeat`` times."""
    with tempfile.TemporaryDirectory(prefix="raygang-bench-") as tmp:
        paths = write_stack_files(Path(tmp), jobs)
        plan = [sys.executable, "-m", "raygang", "plan", "--format", "json", *map(str, paths)]
        startup = [sys.executable, "-c", "import raygang.cli"]
        plan_best = floor_best = startup_best = float("inf")
        for _ in range(max(1, repeat)):
            floor_best = min(floor_best, best_of(1, lambda: _floor(paths))[0])
            plan_best = min(plan_best, _run(plan))
            startup_best = min(startup_best, _run(startup))
        size = sum(p.stat().st_size for p in paths)
        return FileResult(jobs, len(paths), size, plan_best, floor_best, startup_best)
