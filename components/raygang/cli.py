"""``raygang``: plan RayJob gangs offline, with the same code the Pulumi program runs.

Exit codes: 0 success; 2 invalid input, or an ``--out`` that cannot be written (a message
naming the file and field, no traceback); 3 a gang that can never be admitted, where
``pulumi preview`` fails too (unless ``--preflight warn|off`` or ``raygang:preflight``);
1 an error nobody expected (a bug: a short message naming the input, never a traceback).

Internal: not part of raygang's public surface (the names ``raygang`` exports); this module may
change without notice.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from raygang.kube.errors import SpecError, internal_error
from raygang.kuberay.gang import Accounting
from raygang.loader import load_files
from raygang.pipeline import plan_everything, preflight_gate, resolve_now, resolve_snapshot
from raygang.plan import StackPlan
from raygang.render import OutDirError, render_table, render_yaml, write_json, write_manifests
from raygang.settings import StackSettings, read_stack_file

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_INVALID",
    "EXIT_NEVER_ADMITTED",
    "build_plan",
    "find_project_dir",
    "main",
]

EXIT_INTERNAL = 1
EXIT_INVALID = 2
EXIT_NEVER_ADMITTED = 3

_DESCRIPTION = """\
Without FILE, plans the jobs of the stack --stack (default: dev) with its raygang:* settings,
as `pulumi preview` on that stack would.

With FILE, plans those RayJob manifests and their companion objects (every other object in
the file). Settings: with --stack, that stack's raygang:* settings (accounting, preflight,
clusterSnapshot, nodeShapes, now, waits ...), but not its jobs, manifests or queues; without
--stack, raygang's defaults, as a program with an empty stack config.

exit status: 0 planned; 2 invalid input, or --out cannot be written; 3 a gang can never be
admitted (preflight error, as `pulumi preview` fails; --preflight warn|off to exit 0).
"""


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
    snapshot_max_mib: int | None = None,
) -> StackPlan:
    """:func:`plan_with_settings`, the plan only."""
    return plan_with_settings(
        files, stack, accounting, project_dir, cluster, now, snapshot_max_mib
    )[0]


def resolve_settings(
    files: Sequence[Path], stack: str | None, project_dir: Path
) -> tuple[str | None, StackSettings]:
    """The stack whose settings apply, and those settings (see the command's help).

    Without FILE the stack is ``stack`` or ``dev``; with FILE it is ``stack`` or none
    (raygang's defaults).
    """
    if stack is not None and not _STACK_NAME.fullmatch(stack):
        # '' planned nothing with exit 0; a name with '/' would read a file elsewhere.
        raise SpecError.one(
            "--stack",
            "<value>",
            f"{stack!r} is not a stack name",
            "a Pulumi stack name of at most 100 letters, digits, '-', '_' and '.', e.g. dev "
            "(its settings are stacks/Pulumi.<stack>.yaml)",
        )
    if stack is None and not files:
        stack = "dev"
    if not stack:
        return None, StackSettings()
    return stack, read_stack_file(project_dir / "stacks" / f"Pulumi.{stack}.yaml")


# Pulumi's ValidateStackName (sdk/go/common/tokens): a simple stack name.
_STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def plan_with_settings(
    files: Sequence[Path],
    stack: str | None,
    accounting: str | None,
    project_dir: Path,
    cluster: Path | None = None,
    now: str | None = None,
    snapshot_max_mib: int | None = None,
) -> tuple[StackPlan, StackSettings]:
    """Load inputs and plan them, exactly as the Pulumi program would.

    Args:
        files: RayJob/Queue YAML files; when empty, the stack's own jobs are planned.
        stack: the stack whose ``raygang:*`` settings apply (``dev`` when planning a stack).
        accounting: overrides the stack's accounting.
        project_dir: where ``Pulumi.yaml`` and ``stacks/`` are.
        cluster: a cluster snapshot (``kubectl get ... -A -o yaml``) for facts and preflight;
            overrides ``raygang:clusterSnapshot``.
        now: the clock for lifecycle decisions (RFC 3339); overrides ``raygang:now``.
        snapshot_max_mib: read the snapshot with bounds sized for this many MiB; overrides
            ``raygang:snapshotMaxMiB``.

    Raises:
        SpecError: every problem found in the inputs.
    """
    stack, settings = resolve_settings(files, stack, project_dir)
    if accounting is not None:
        settings = settings.model_copy(update={"accounting": Accounting(accounting)})
    if snapshot_max_mib is not None:
        settings = settings.model_copy(update={"snapshot_max_mib": snapshot_max_mib})
    if files:
        docs = load_files(list(files))
    else:
        docs = load_files(
            [Path(m) for m in settings.manifests], settings.jobs, settings.queues, base=project_dir
        )
    snapshot = (
        resolve_snapshot(str(cluster), Path.cwd(), settings.snapshot_max_mib) if cluster else None
    )
    clock = resolve_now(now) if now else None
    plan = plan_everything(docs, settings, base=project_dir, snapshot=snapshot, now=clock)
    return plan, settings


def _positive_mib(text: str) -> int:
    """``--snapshot-max-mib``: a whole number of MiB, 1 to 1048576."""
    if not (text.isascii() and text.isdigit() and 0 < int(text) <= 1 << 20):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of MiB from 1 to 1048576")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="raygang",
        description="Gang-schedule KubeRay RayJobs with Volcano: plan offline what Pulumi creates.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    plan = sub.add_parser(
        "plan",
        help="print the PodGroup gang and the objects a stack or RayJob files would create",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plan.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="YAML with RayJobs, Queues and companion objects (kind: List files too)",
    )
    plan.add_argument(
        "--stack",
        help="stack whose raygang:* settings apply (without FILE: its jobs too; default dev)",
    )
    plan.add_argument("--accounting", choices=[a.value for a in Accounting])
    plan.add_argument(
        "--preflight",
        choices=["error", "warn", "off"],
        help="a gang that can never be admitted: exit 3 (error), warn on stderr, or ignore "
        "(default: the stack's raygang:preflight, error)",
    )
    plan.add_argument("--format", choices=["table", "json", "yaml"], default="table")
    plan.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write one manifest file per object (JSON with --format json, else YAML) and "
        "an index raygang.index; DIR must be new or empty",
    )
    plan.add_argument(
        "--replace",
        action="store_true",
        help="with --out: first remove the files an earlier run listed in DIR/raygang.index "
        "(and only those)",
    )
    plan.add_argument(
        "--cluster",
        type=Path,
        metavar="FILE",
        help=(
            "cluster snapshot: kubectl get nodes,pods,queues,podgroups,rayclusters,jobs,"
            "configmaps,events -A -o yaml"
        ),
    )
    plan.add_argument(
        "--snapshot-max-mib",
        type=_positive_mib,
        metavar="MIB",
        help="read the cluster snapshot with bounds sized for MIB mebibytes (default 64, "
        "about 10,000 nodes); overrides raygang:snapshotMaxMiB",
    )
    plan.add_argument(
        "--now", metavar="TIMESTAMP", help="fix the clock (RFC 3339) for lifecycle decisions"
    )
    plan.add_argument("--project-dir", type=Path, help="directory of Pulumi.yaml (default: found)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Whatever fails, the user gets a message, never a traceback: an exception nobody expected
    ends the command with a short error naming the input and asking for a report
    (exit :data:`EXIT_INTERNAL`).
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("raygang: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `raygang plan | head`: the reader left; nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERNAL
    except Exception as exc:
        print(internal_error(exc, _inputs(argv)), file=sys.stderr)
        return EXIT_INTERNAL


def _inputs(argv: Sequence[str] | None) -> str:
    """The inputs of a command line, for a message: its files, or its stack's file."""
    try:
        args, _ = _parser().parse_known_args(argv)
    except SystemExit:
        return "the command line's inputs"
    named = [str(f) for f in getattr(args, "files", None) or []]
    if not named or args.stack:
        stack = args.stack or "dev"
        named.append(f"stack {stack} (stacks/Pulumi.{stack}.yaml)")
    if getattr(args, "cluster", None):
        named.append(f"--cluster {args.cluster}")
    return ", ".join(named)


def _encodes(text: str) -> bool:
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _printable(table: str | None, plan: StackPlan) -> str:
    """The table, or the YAML, as stdout can take it: under an ASCII locale (``LANG=C``) a
    non-ASCII annotation was an internal error. YAML then uses its own escapes ("\\u00e9"),
    which read back as the same text; the table, for people, Python's backslash escapes."""
    if table is not None:
        return table if _encodes(table) else table.encode("ascii", "backslashreplace").decode()
    text = render_yaml(plan)
    return text if _encodes(text) else render_yaml(plan, allow_unicode=False)


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    project_dir = args.project_dir or find_project_dir()
    if args.replace and args.out is None:
        print("raygang: --replace needs --out DIR", file=sys.stderr)
        return EXIT_INVALID
    try:
        plan, settings = plan_with_settings(
            args.files,
            args.stack,
            args.accounting,
            project_dir,
            args.cluster,
            args.now,
            args.snapshot_max_mib,
        )
    except SpecError as exc:
        print("raygang: invalid input:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_INVALID
    if settings.live_facts and not settings.cluster_snapshot and args.cluster is None:
        print(
            "raygang: note: raygang:liveFacts is not read offline; every job is planned as "
            "new (give --cluster with a snapshot to see what `pulumi up` would do)",
            file=sys.stderr,
        )
    if args.out is not None:
        fmt = "json" if args.format == "json" else "yaml"
        try:
            written, notes = write_manifests(plan, args.out, fmt, replace=args.replace)
        except OutDirError as exc:
            print(f"raygang: --out {exc}", file=sys.stderr)
            return EXIT_INVALID
        for note in notes:
            print(f"raygang: note: {note}", file=sys.stderr)
        for path in written:
            print(path)
    elif args.format == "json":
        write_json(plan, sys.stdout)
    else:
        sys.stdout.write(_printable(render_table(plan) if args.format == "table" else None, plan))
    gate = preflight_gate(plan, args.preflight or settings.preflight)
    for warning in gate.warnings:
        print(f"raygang: warning: {warning}", file=sys.stderr)
    if gate.errors:
        for error in gate.errors:
            print(f"raygang: {error}", file=sys.stderr)
        print(
            f"raygang: exit {EXIT_NEVER_ADMITTED}: `pulumi preview` fails on this plan too "
            "(--preflight warn, or raygang:preflight: warn, to plan anyway)",
            file=sys.stderr,
        )
        return EXIT_NEVER_ADMITTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
