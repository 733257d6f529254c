"""``raygang``: plan RayJob gangs offline, with the same code the Pulumi program runs.

Exit codes: 0 success, 2 invalid input (a message naming the file and field, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from raygang.kube.errors import SpecError
from raygang.kuberay.gang import Accounting
from raygang.loader import load_files
from raygang.pipeline import plan_everything, resolve_now, resolve_snapshot
from raygang.plan import StackPlan
from raygang.render import render_json, render_table, render_yaml, write_manifests
from raygang.settings import StackSettings, read_stack_file

__all__ = ["build_plan", "find_project_dir", "main"]

EXIT_INVALID = 2


def find_project_dir(start: Path | None = None) -> Path:
    """The nearest directory holding ``Pulumi.yaml``, from ``start`` up; else this checkout."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    return Path(__file__).resolve().parent.parent


def build_plan(
    files: Sequence[Path],
    stack: str | None,
    accounting: str | None,
    project_dir: Path,
    cluster: Path | None = None,
    now: str | None = None,
) -> StackPlan:
    """Load inputs and plan them, exactly as the Pulumi program would.

    Args:
        files: RayJob/Queue YAML files; when empty, the stack's own jobs are planned.
        stack: the stack whose ``raygang:*`` settings apply (``dev`` when planning a stack).
        accounting: overrides the stack's accounting.
        project_dir: where ``Pulumi.yaml`` and ``stacks/`` are.
        cluster: a cluster snapshot (``kubectl get ... -A -o yaml``) for facts and preflight;
            overrides ``raygang:clusterSnapshot``.
        now: the clock for lifecycle decisions (RFC 3339); overrides ``raygang:now``.

    Raises:
        SpecError: every problem found in the inputs.
    """
    if stack is None and not files:
        stack = "dev"
    settings = (
        read_stack_file(project_dir / "stacks" / f"Pulumi.{stack}.yaml")
        if stack
        else StackSettings()
    )
    if accounting is not None:
        settings = settings.model_copy(update={"accounting": Accounting(accounting)})
    if files:
        docs = load_files(list(files))
    else:
        docs = load_files(
            [Path(m) for m in settings.manifests], settings.jobs, settings.queues, base=project_dir
        )
    snapshot = resolve_snapshot(str(cluster), Path.cwd()) if cluster else None
    clock = resolve_now(now) if now else None
    return plan_everything(docs, settings, base=project_dir, snapshot=snapshot, now=clock)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="raygang",
        description="Gang-schedule KubeRay RayJobs with Volcano: plan offline what Pulumi creates.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser(
        "plan",
        help="print the PodGroup gang and the objects a stack or RayJob files would create",
        description="Without FILE, plans the jobs of the stack (default: dev).",
    )
    plan.add_argument("files", nargs="*", type=Path, metavar="FILE", help="RayJob / Queue YAML")
    plan.add_argument("--stack", help="stack whose raygang:* settings apply (default: dev)")
    plan.add_argument("--accounting", choices=[a.value for a in Accounting])
    plan.add_argument("--format", choices=["table", "json", "yaml"], default="table")
    plan.add_argument("--out", type=Path, metavar="DIR", help="write one manifest file per object")
    plan.add_argument(
        "--cluster",
        type=Path,
        metavar="FILE",
        help=(
            "cluster snapshot: kubectl get nodes,pods,queues,podgroups,rayclusters,jobs,"
            "configmaps -A -o yaml"
        ),
    )
    plan.add_argument(
        "--now", metavar="TIMESTAMP", help="fix the clock (RFC 3339) for lifecycle decisions"
    )
    plan.add_argument("--project-dir", type=Path, help="directory of Pulumi.yaml (default: found)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = _parser().parse_args(argv)
    project_dir = args.project_dir or find_project_dir()
    try:
        plan = build_plan(
            args.files, args.stack, args.accounting, project_dir, args.cluster, args.now
        )
    except SpecError as exc:
        print("raygang: invalid input:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_INVALID
    if args.out is not None:
        for path in write_manifests(plan, args.out):
            print(path)
        return 0
    render = {"table": render_table, "json": render_json, "yaml": render_yaml}[args.format]
    sys.stdout.write(render(plan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
