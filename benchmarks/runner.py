"""``python -m benchmarks``: every scenario in one run, ratios against in-run baselines.

Absolute times depend on the machine; each target is a ratio or an exponent measured in
the same process, so it travels. A missed target is reported (``MISSED``) and the exit
status stays 0; only a crash exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from benchmarks.files import FileResult, run_file_plan
from benchmarks.measure import LONG_RUN_SECONDS, format_seconds, load_average, machine_info
from benchmarks.planning import MemoryResult, PlanningResult, measure_memory, run_planning
from benchmarks.pulumi_mocks import LONG_RUN_REPEATS, PulumiResult, run_pulumi
from benchmarks.quantities import QuantityResult, run_quantities

__all__ = ["SCENARIOS", "TARGETS", "Config", "Target", "main"]

# Section names, in print order; the smoke test checks every one is printed.
SCENARIOS = ("quantity", "planning", "file", "memory", "pulumi", "plan-vs-pulumi")

# name: (limit, what the value is).
TARGETS: dict[str, tuple[float, str]] = {
    "file-plan": (3.0, "raygang plan of the files / libyaml load + json.dumps of them"),
    "plan-vs-pulumi": (0.5, "plan time / Pulumi bare registration time, same jobs, no snapshot"),
    "plan-vs-pulumi-snapshot": (
        0.5,
        "plan time with the node snapshot / Pulumi bare registration time, same jobs",
    ),
    "plan-growth": (1.1, "worst fitted growth exponent of planning time"),
    "component-overhead": (1.3, "RayJobGang registration time / bare resources"),
    "quantity-parse": (1.0, "Quantity.parse time / lightkube parse_quantity time"),
    "memory-per-job": (100.0, "tracemalloc peak KiB per job, planning the largest size"),
}


@dataclass(frozen=True)
class Config:
    """Sizes and repetitions of one run."""

    quick: bool
    repeat: int
    pulumi_repeat: int
    plan_sizes: tuple[int, ...]
    snapshot_sizes: tuple[int, ...]
    pulumi_sizes: tuple[int, ...]
    memory_jobs: int
    file_jobs: int
    nodes: int
    preflight_budget: float
    quantity_inputs: int
    preview: bool

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Config:
        """The full run, or the ``--quick`` one; explicit options override either."""
        if args.quick:
            base = cls(
                quick=True,
                repeat=1,
                pulumi_repeat=1,
                plan_sizes=(5, 10),
                snapshot_sizes=(5, 10),
                pulumi_sizes=(2, 6),
                memory_jobs=10,
                file_jobs=10,
                nodes=20,
                preflight_budget=20.0,
                quantity_inputs=2000,
                preview=True,
            )
        else:
            base = cls(
                quick=False,
                repeat=3,
                pulumi_repeat=5,
                plan_sizes=(10, 100, 1000),
                snapshot_sizes=(10, 100, 1000),
                pulumi_sizes=(10, 100, 1000),
                memory_jobs=1000,
                file_jobs=1000,
                nodes=500,
                preflight_budget=150.0,
                quantity_inputs=20000,
                preview=True,
            )
        changes: dict[str, Any] = {}
        if args.repeat is not None:
            changes["repeat"] = changes["pulumi_repeat"] = args.repeat
        if args.plan_sizes:
            changes["plan_sizes"] = tuple(sorted(args.plan_sizes))
            changes["memory_jobs"] = changes["file_jobs"] = max(args.plan_sizes)
        if args.snapshot_sizes:
            changes["snapshot_sizes"] = tuple(sorted(args.snapshot_sizes))
        if args.pulumi_sizes:
            changes["pulumi_sizes"] = tuple(sorted(args.pulumi_sizes))
        if args.nodes is not None:
            changes["nodes"] = args.nodes
        if args.preflight_budget is not None:
            changes["preflight_budget"] = args.preflight_budget
        if args.no_preview:
            changes["preview"] = False
        return cls(**{**asdict(base), **changes})


@dataclass
class Target:
    """One target: a ratio or exponent, its limit, and whether it was met."""

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
    quantity: QuantityResult | None = None
    planning: PlanningResult | None = None
    file: FileResult | None = None
    memory: list[MemoryResult] = field(default_factory=list)
    pulumi: list[PulumiResult] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "machine": self.machine,
            "config": asdict(self.config),
            "quantity": self.quantity.as_dict() if self.quantity else None,
            "planning": self.planning.as_dict() if self.planning else None,
            "file": self.file.as_dict() if self.file else None,
            "memory": [m.as_dict() for m in self.memory],
            "pulumi": [p.as_dict() for p in self.pulumi],
            "targets": [t.as_dict() for t in self.targets],
        }


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _mib(value: float) -> str:
    return f"{value / 2**20:.1f} MiB"


def _target_line(target: Target) -> str:
    return (
        f"  ratio {target.name}: {_ratio(target.value)} (target <= {target.limit:.2f}): "
        f"{target.status} -- {target.detail}"
    )


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


def _quantity_section(p: Printer, config: Config) -> tuple[QuantityResult, Target]:
    # A pass takes tens of milliseconds: many interleaved passes cost little and steady it.
    result = run_quantities(config.quantity_inputs, max(config.repeat, 15))
    p.line("[quantity] raygang.kube.quantity.Quantity.parse vs lightkube parse_quantity")
    if result.skipped:
        p.line(f"  {result.skipped}")
        target = Target("quantity-parse", None, TARGETS["quantity-parse"][0], result.skipped)
    else:
        p.line(
            f"  {result.inputs} inputs accepted by both ({result.rejected} generated inputs "
            "refused by one of them and left out)"
        )
        p.table(
            [
                ["", "raygang", "lightkube", "ratio"],
                [
                    "parse",
                    f"{result.ours_parse * 1e6:.2f} µs/op",
                    f"{result.theirs_parse * 1e6:.2f} µs/op",
                    _ratio(result.parse_ratio),
                ],
                *[
                    [
                        f"  {form} ({count})",
                        f"{ours * 1e6:.2f} µs/op",
                        f"{theirs * 1e6:.2f} µs/op",
                        _ratio(ours / theirs),
                    ]
                    for form, (count, ours, theirs) in result.by_form.items()
                ],
                [
                    "sum",
                    f"{1 / result.ours_add / 1e6:.2f} M adds/s",
                    f"{1 / result.theirs_add / 1e6:.2f} M adds/s (Decimal)",
                    _ratio(result.add_ratio),
                ],
            ]
        )
        target = Target(
            "quantity-parse",
            result.parse_ratio,
            TARGETS["quantity-parse"][0],
            "time per parse, raygang / lightkube, same inputs",
        )
    p.line(_target_line(target))
    return result, target


def _planning_section(p: Printer, config: Config) -> tuple[PlanningResult, Target]:
    result = run_planning(
        config.plan_sizes,
        config.snapshot_sizes,
        config.repeat,
        nodes=config.nodes,
        budget=config.preflight_budget,
    )
    p.line(f"[planning] load_documents + {result.planner} + write_json, time per job")
    p.line(
        f"  snapshot: {result.snapshot_nodes} nodes, {result.snapshot_objects} objects, "
        f"indexed in {format_seconds(result.snapshot_build_seconds)} (not in the times below)"
    )
    sizes = sorted({n for s in result.series for n in s.sizes} | set(config.plan_sizes))
    rows = [["accounting", "snapshot", *[f"N={n}" for n in sizes], "exponent"]]
    notes: list[str] = []
    for series in result.series:
        cells = []
        for n in sizes:
            if n in series.sizes:
                cells.append(format_seconds(series.seconds[series.sizes.index(n)] / n))
            else:
                cells.append("-")
        rows.append([series.accounting, series.snapshot, *cells, _ratio(series.exponent)])
        notes += [f"{series.accounting}/{series.snapshot}: {note}" for note in series.notes]
    p.table(rows)
    for note in notes:
        p.line(f"  note: {note}")
    fitted = [(s.exponent, s) for s in result.series if s.exponent is not None]
    if fitted:
        worst, which = max(fitted, key=lambda item: item[0] or 0.0)
        detail = (
            f"worst series {which.accounting}/{which.snapshot} over N={which.sizes}; "
            "least-squares slope of log(time) on log(N)"
        )
        target = Target("plan-growth", worst, TARGETS["plan-growth"][0], detail)
    else:
        target = Target("plan-growth", None, TARGETS["plan-growth"][0], "no series fitted")
    p.line(_target_line(target))
    return result, target


def _file_section(p: Printer, config: Config) -> tuple[FileResult, Target]:
    result = run_file_plan(config.file_jobs, config.repeat)
    p.line(
        f"[file] python -m raygang plan --format json of {result.jobs} jobs in "
        f"{result.files} files ({result.file_bytes / 1e6:.1f} MB) vs the floor: libyaml "
        "load (yaml.CSafeLoader) + json.dumps(indent=2) of the same files"
    )
    p.line(
        f"  raygang plan {format_seconds(result.plan_seconds)} (interpreter start and "
        f"imports {format_seconds(result.startup_seconds)} of it), floor "
        f"{format_seconds(result.floor_seconds)}"
    )
    target = Target(
        "file-plan",
        result.ratio,
        TARGETS["file-plan"][0],
        f"{result.jobs} jobs, best of {config.repeat}, alternately",
    )
    p.line(_target_line(target))
    return result, target


def _memory_section(p: Printer, config: Config) -> tuple[list[MemoryResult], Target]:
    p.line(f"[memory] peak memory of planning {config.memory_jobs} jobs (effective)")
    results = []
    for nodes in (0, config.nodes):
        result = measure_memory(config.memory_jobs, nodes)
        results.append(result)
        p.line(
            f"  snapshot {result.snapshot}: tracemalloc peak {_mib(result.tracemalloc_peak)} "
            f"({result.tracemalloc_peak / result.jobs / 1024:.0f} KiB per job); "
            f"process maxrss so far {_mib(result.maxrss)}"
        )
    worst = max(results, key=lambda r: r.tracemalloc_peak)
    target = Target(
        "memory-per-job",
        worst.tracemalloc_peak / worst.jobs / 1024,
        TARGETS["memory-per-job"][0],
        f"tracemalloc peak / jobs, {worst.jobs} jobs, snapshot {worst.snapshot} (the worse)",
    )
    p.line(_target_line(target))
    return results, target


def _pulumi_section(p: Printer, config: Config) -> tuple[list[PulumiResult], Target]:
    modes = (False, True) if config.preview else (False,)
    results = [run_pulumi(config.pulumi_sizes, config.pulumi_repeat, preview=m) for m in modes]
    p.line(
        "[pulumi] registration under the SDK mocks: RayJobGang components vs bare "
        "pulumi_kubernetes resources (same kinds, inputs, depends_on)"
    )
    rows = [["mode", "jobs", "custom", "components", "bare", "component", "ratio"]]
    for result in results:
        for run in result.runs:
            rows.append(
                [
                    result.mode,
                    str(run.jobs),
                    str(run.custom_resources),
                    str(run.components),
                    format_seconds(run.bare_seconds),
                    format_seconds(run.component_seconds),
                    _ratio(run.ratio),
                ]
            )
    p.table(rows)
    for result in results:
        p.line(
            f"  growth exponent ({result.mode}): bare {_ratio(result.exponent('bare'))}, "
            f"component {_ratio(result.exponent('component'))}"
        )
    largest = [(r.runs[-1].ratio, r) for r in results if r.runs]
    if largest:
        worst, which = max(largest, key=lambda item: item[0])
        detail = f"{which.mode}, {which.runs[-1].jobs} jobs (worst mode at the largest size)"
        target = Target("component-overhead", worst, TARGETS["component-overhead"][0], detail)
    else:
        target = Target("component-overhead", None, TARGETS["component-overhead"][0], "no runs")
    p.line(_target_line(target))
    return results, target


def _plan_vs_pulumi_section(
    p: Printer, planning: PlanningResult, pulumi: Sequence[PulumiResult]
) -> list[Target]:
    jobs = max((max(s.sizes) for s in planning.series if s.sizes), default=0)
    up = next((r for r in pulumi if r.mode == "up" and r.runs), None)
    p.line(f"[plan-vs-pulumi] planning {jobs} jobs vs Pulumi registering their resources (up)")
    names = ("plan-vs-pulumi", "plan-vs-pulumi-snapshot")
    if up is None or jobs == 0:
        targets = [Target(n, None, TARGETS[n][0], "nothing to compare") for n in names]
        for target in targets:
            p.line(_target_line(target))
        return targets
    bare, measured = up.bare_seconds_at(jobs)
    how = "measured" if measured else f"extrapolated linearly from {up.runs[-1].jobs} jobs"
    p.line(f"  Pulumi bare registration of {jobs} jobs: {format_seconds(bare)} ({how})")
    worst: dict[str, tuple[float, str]] = {}
    for series in planning.series:
        at = series.seconds_at(jobs)
        if at is None:
            continue
        seconds, plan_measured = at
        ratio = seconds / bare
        origin = (
            "measured"
            if plan_measured
            else f"extrapolated from N={series.sizes[-1]} with exponent "
            f"{max(1.0, series.exponent or 1.0):.2f}"
        )
        p.line(
            f"  plan {series.accounting}/{series.snapshot}: {format_seconds(seconds)} "
            f"({origin}), ratio {_ratio(ratio)}"
        )
        label = f"{series.accounting}/{series.snapshot}"
        name = names[0] if series.snapshot == "none" else names[1]
        if name not in worst or ratio > worst[name][0]:
            worst[name] = (ratio, label)
    targets = []
    for name in names:
        if name not in worst:
            targets.append(Target(name, None, TARGETS[name][0], "no planning series ran"))
        else:
            detail = f"slowest series {worst[name][1]}, {jobs} jobs; Pulumi time {how}"
            targets.append(Target(name, worst[name][0], TARGETS[name][0], detail))
    for target in targets:
        p.line(_target_line(target))
    return targets


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="raygang benchmarks: planning, Pulumi registration under mocks, "
        "quantity parsing and memory, as ratios against baselines of the same run.",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one run each (smoke)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write results as JSON")
    parser.add_argument("--repeat", type=int, help="best of K runs (default 3, Pulumi 5; quick 1)")
    parser.add_argument("--plan-sizes", type=int, nargs="+", metavar="N", help="job counts")
    parser.add_argument(
        "--snapshot-sizes", type=int, nargs="+", metavar="N", help="job counts with a snapshot"
    )
    parser.add_argument("--pulumi-sizes", type=int, nargs="+", metavar="N", help="job counts")
    parser.add_argument("--nodes", type=int, help="Nodes in the snapshot (default 500)")
    parser.add_argument(
        "--preflight-budget",
        type=float,
        metavar="SECONDS",
        help="time budget of each snapshot series (default 150)",
    )
    parser.add_argument("--no-preview", action="store_true", help="skip the preview-mode runs")
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
    p.line(
        f"runs: best of {config.repeat}, Pulumi best of {config.pulumi_repeat} (a run over "
        f"{LONG_RUN_SECONDS:.0f} s: planning once, Pulumi {LONG_RUN_REPEATS} times); "
        f"plan sizes {list(config.plan_sizes)} (with snapshot {list(config.snapshot_sizes)}), "
        f"Pulumi sizes {list(config.pulumi_sizes)}"
    )
    p.line()

    def quantity() -> None:
        report.quantity, target = _quantity_section(p, config)
        report.targets.append(target)

    def planning() -> None:
        report.planning, target = _planning_section(p, config)
        report.targets.append(target)

    def file() -> None:
        report.file, target = _file_section(p, config)
        report.targets.append(target)

    def memory() -> None:
        report.memory, target = _memory_section(p, config)
        report.targets.append(target)

    def pulumi() -> None:
        report.pulumi, target = _pulumi_section(p, config)
        report.targets.append(target)

    def plan_vs_pulumi() -> None:
        assert report.planning is not None
        report.targets.extend(_plan_vs_pulumi_section(p, report.planning, report.pulumi))

    steps: list[Callable[[], None]] = [quantity, planning, file, memory, pulumi, plan_vs_pulumi]
    for step in steps:
        step()
        p.line()

    order = list(TARGETS)
    report.targets.sort(key=lambda t: order.index(t.name))
    p.line("targets")
    p.table(
        [["target", "value", "limit", "result"]]
        + [[t.name, _ratio(t.value), f"<= {t.limit:.2f}", t.status] for t in report.targets]
    )
    end_load = load_average()
    if end_load is not None:
        p.line(f"load {end_load:.2f} at end (ratios are measured in one process; absolute")
        p.line("times scale with the machine and its load)")
    if args.json is not None:
        args.json.write_text(json.dumps(report.as_dict(), indent=2) + "\n", encoding="utf-8")
        p.line(f"wrote {args.json}")
    return 0
