"""``python -m benchmarks``: every scenario in one run, ratios against in-run baselines.

Absolute times depend on the machine; each target is a ratio, an exponent or a peak measured
in the same run, so it travels. A missed target is reported (``MISSED``) and the exit status
stays 0; only a crash exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from benchmarks.files import FileResult, run_file_plan
from benchmarks.measure import byte_compile, format_seconds, load_average, machine_info
from benchmarks.planning import GrowthSeries, run_growth
from benchmarks.preflight import (
    PREFLIGHT_JOBS,
    PREFLIGHT_NODES,
    PreflightResult,
    run_preflight_plan,
)

__all__ = ["SCENARIOS", "TARGETS", "Config", "Target", "main"]

# Section names, in print order; the smoke test checks every one is printed.
SCENARIOS = ("file", "preflight", "growth")

# name: (limit, what the value is).
TARGETS: dict[str, tuple[float, str]] = {
    "file-plan": (3.0, "raygang plan of one file of the jobs / libyaml load + json.dumps of it"),
    "file-peak-rss": (250.0, "peak resident MiB of that raygang plan process"),
    "growth-jobs": (1.1, "growth exponent of planning time in jobs (snapshot fixed)"),
    "growth-nodes": (1.1, "growth exponent of planning time in nodes (jobs fixed)"),
}


@dataclass(frozen=True)
class Config:
    """Sizes and repetitions of one run."""

    quick: bool
    repeat: int
    file_jobs: int
    preflight_jobs: int
    preflight_nodes: int
    job_sizes: tuple[int, ...]
    node_sizes: tuple[int, ...]

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Config:
        """The full run, or the ``--quick`` one; ``--repeat`` overrides either."""
        if args.quick:
            base = cls(True, 1, 10, 5, 20, (2, 4), (10, 20))
        else:
            base = cls(
                False,
                3,
                1000,
                PREFLIGHT_JOBS,
                PREFLIGHT_NODES,
                # Large enough that the per-pass cost (reading the snapshot into the
                # session) does not flatten the slope.
                (100, 200, 400, 800),
                (250, 500, 1000, 2000),
            )
        if args.repeat is not None:
            return cls(**{**asdict(base), "repeat": args.repeat})
        return base


@dataclass
class Target:
    """One target: a ratio, exponent or peak, its limit, and whether it was met."""

    name: str
    value: float | None
    limit: float
    detail: str

    @property
    def status(self) -> str:
        """``met``, ``MISSED``, or ``skipped`` when nothing was measured."""
        if self.value is None:
            return "skipped"
        return "met" if self.value <= self.limit else "MISSED"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "status": self.status, "means": TARGETS[self.name][1]}


@dataclass
class Report:
    """Everything one run measured."""

    config: Config
    machine: dict[str, Any]
    file: FileResult | None = None
    preflight: PreflightResult | None = None
    growth: list[GrowthSeries] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "machine": self.machine,
            "config": asdict(self.config),
            "file": self.file.as_dict() if self.file else None,
            "preflight": self.preflight.as_dict() if self.preflight else None,
            "growth": [g.as_dict() for g in self.growth],
            "targets": [t.as_dict() for t in self.targets],
        }


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _mib(value: float) -> str:
    return f"{value / 2**20:.0f} MiB"


def _target(name: str, value: float | None, detail: str) -> Target:
    return Target(name, value, TARGETS[name][0], detail)


class Printer:
    """Writes sections as they finish, so a long run shows progress."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, text: str = "") -> None:
        """One line, flushed."""
        self.out.write(text + "\n")
        self.out.flush()

    def table(self, rows: Sequence[Sequence[str]], indent: str = "  ") -> None:
        """Left-aligned columns."""
        widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(len(rows[0]))]
        for row in rows:
            cells = [c.ljust(widths[i]) for i, c in enumerate(row)]
            self.line((indent + "  ".join(cells)).rstrip())

    def target(self, target: Target) -> None:
        """The target's line: value, limit, status and what was measured."""
        self.line(
            f"  ratio {target.name}: {_ratio(target.value)} (target <= {target.limit:.2f}): "
            f"{target.status} -- {target.detail}"
        )


def _file_section(p: Printer, config: Config, report: Report) -> None:
    result = report.file = run_file_plan(config.file_jobs, config.repeat)
    p.line(
        f"[file] python -m raygang plan --format json of one file of {result.jobs} jobs "
        f"({result.file_bytes / 1e6:.1f} MB) vs the floor: libyaml load (yaml.CSafeLoader) "
        "+ json.dumps(indent=2) of the same file"
    )
    p.line(
        f"  raygang plan {format_seconds(result.plan_seconds)} (interpreter start and "
        f"imports {format_seconds(result.startup_seconds)} of it), floor "
        f"{format_seconds(result.floor_seconds)}; peak RSS {_mib(result.plan_peak_rss)}"
    )
    how = f"{result.jobs} jobs, best of {config.repeat}, alternately"
    report.targets += [
        _target("file-plan", result.ratio, how),
        _target("file-peak-rss", result.plan_peak_rss / 2**20, "wait4 ru_maxrss, largest run"),
    ]
    for target in report.targets[-2:]:
        p.target(target)


def _preflight_section(p: Printer, config: Config, report: Report) -> None:
    result = report.preflight = run_preflight_plan(
        config.preflight_jobs, config.preflight_nodes, config.repeat
    )
    p.line(
        f"[preflight] python -m raygang plan --cluster of {result.jobs} jobs against a "
        f"{result.nodes}-node snapshot ({3 * result.nodes} running pods), as its own process"
    )
    p.line(
        f"  {format_seconds(result.seconds)}, peak RSS {_mib(result.peak_rss)} (best of "
        f"{config.repeat}); make bench-real divides it by the real pulumi preview of the same "
        "jobs (target <= 0.25)"
    )


def _growth_section(p: Printer, config: Config, report: Report) -> None:
    jobs, nodes = config.preflight_jobs, config.preflight_nodes
    series = report.growth = run_growth(
        config.job_sizes, config.node_sizes, jobs, nodes, config.repeat
    )
    p.line(
        "[growth] plan_everything + write_json in this process (plan, lifecycle, preflight "
        "against the snapshot), inputs read before the clock starts"
    )
    rows = [["varying", "fixed", "sizes", "times", "exponent"]]
    for row in series:
        rows.append(
            [
                row.varying,
                row.fixed,
                " ".join(map(str, row.sizes)),
                " ".join(format_seconds(s) for s in row.seconds),
                _ratio(row.exponent),
            ]
        )
    p.table(rows)
    detail = "least-squares slope of log(time) on log(size)"
    for row in series:
        report.targets.append(_target(f"growth-{row.varying}", row.exponent, detail))
        p.target(report.targets[-1])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="raygang benchmarks: raygang plan of one 1000-job file against its "
        "floor, its peak memory, planning with the preflight, and the growth exponents, "
        "as ratios against baselines of the same run.",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one run each (smoke)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write results as JSON")
    parser.add_argument("--repeat", type=int, help="best of K runs (default 3; quick 1)")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run every scenario, print the report, and return the exit status (0 unless a crash)."""
    args = _parser().parse_args(argv)
    config = Config.from_args(args)
    p = Printer(out or sys.stdout)
    machine = machine_info()
    report = Report(config, machine)
    quick = "  (--quick: sizes too small for the targets to mean anything)" if config.quick else ""
    p.line(f"raygang benchmarks, {machine['date']}{quick}")
    load = machine["load_average_1m"]
    p.line(
        f"machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['memory_gib']} GiB RAM, "
        f"{machine['python']}, {machine['platform']}"
        + (f", load {load:.2f} at start" if load is not None else "")
    )
    p.line(byte_compile())
    p.line(
        f"runs: best of {config.repeat}; file {config.file_jobs} jobs; preflight "
        f"{config.preflight_jobs} jobs x {config.preflight_nodes} nodes; growth in jobs "
        f"{list(config.job_sizes)}, in nodes {list(config.node_sizes)}"
    )
    p.line()
    for section in (_file_section, _preflight_section, _growth_section):
        section(p, config, report)
        p.line()
    p.line("targets")
    p.table(
        [["target", "value", "limit", "result"]]
        + [[t.name, _ratio(t.value), f"<= {t.limit:.2f}", t.status] for t in report.targets]
    )
    end_load = load_average()
    if end_load is not None:
        p.line(f"load {end_load:.2f} at end (ratios are measured in one run; absolute")
        p.line("times scale with the machine and its load)")
    if args.json is not None:
        args.json.write_text(json.dumps(report.as_dict(), indent=2) + "\n", encoding="utf-8")
        p.line(f"wrote {args.json}")
    return 0
