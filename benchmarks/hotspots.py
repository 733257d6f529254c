"""``python -m benchmarks.hotspots SCENARIO``: cProfile one benchmark scenario, hot spots first.

Scenarios: ``plan`` (load + planning pass + render, no snapshot) and ``preflight`` (the same
against the synthetic snapshot). Prints the top functions by own time and by cumulative
time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from collections.abc import Callable, Sequence

from raygang import Accounting, StackSettings, snapshot_from_objects

from benchmarks.planning import load_planner, plan_once
from benchmarks.synth import make_documents, make_snapshot_objects

__all__ = ["main"]


def _scenario(name: str, jobs: int, nodes: int, accounting: str) -> Callable[[], object]:
    docs = make_documents(jobs)
    settings = StackSettings(accounting=Accounting(accounting))
    planner = load_planner()
    if name == "plan":
        return lambda: plan_once(planner, docs, settings)
    snapshot = snapshot_from_objects(make_snapshot_objects(nodes))
    return lambda: plan_once(planner, docs, settings, snapshot)


def main(argv: Sequence[str] | None = None) -> int:
    """Profile one scenario and print its hot spots."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hotspots")
    parser.add_argument("scenario", choices=["plan", "preflight"])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--accounting", choices=[a.value for a in Accounting], default="effective")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    run = _scenario(args.scenario, args.jobs, args.nodes, args.accounting)
    profiler = cProfile.Profile()
    profiler.runcall(run)
    for order in ("tottime", "cumulative"):
        buffer = io.StringIO()
        stats = pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(order)
        stats.print_stats(args.top)
        sys.stdout.write(f"== by {order} ==\n{buffer.getvalue()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
