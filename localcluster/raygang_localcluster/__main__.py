"""``python -m raygang_localcluster``: start the local cluster, and keep it or run a command.

python -m raygang_localcluster up                 # start, print the kubeconfig, wait for Ctrl-C
python -m raygang_localcluster run -- pulumi up   # start, run the command with KUBECONFIG set, stop
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from raygang_localcluster._cluster import LocalCluster
from raygang_localcluster._errors import ClusterError
from raygang_localcluster._nodes import DEFAULT_NODES, NodeShape
from raygang_localcluster._paths import default_paths
from raygang_localcluster._pulumi import copy_project, local_pulumi


def _node(text: str) -> NodeShape:
    # name=cpu,memory[,extra=value...] e.g. n0=8,32Gi or g0=16,64Gi,nvidia.com/gpu=4
    try:
        name, rest = text.split("=", 1)
        cpu, memory, *extras = rest.split(",")
        extra = dict(e.split("=", 1) for e in extras)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=CPU,MEMORY[,RESOURCE=AMOUNT...], e.g. n0=8,32Gi"
        ) from None
    return NodeShape(name, cpu=cpu, memory=memory, extra=extra)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m raygang_localcluster", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--workdir", type=Path, help="keep certificates, data and logs here")
    p.add_argument("--tools", type=Path, help="the .tools folder (default: found upward)")
    p.add_argument("--node", type=_node, action="append", dest="nodes",
                   help="a fake node NAME=CPU,MEMORY[,RESOURCE=AMOUNT]; repeatable "
                   "(default: two nodes of 8 cpu, 32Gi)")  # fmt: skip
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("up", help="start the cluster and wait for Ctrl-C")
    run = sub.add_parser("run", help="start the cluster, run a command, stop")
    run.add_argument("argv", nargs=argparse.REMAINDER, help="the command (after --)")
    try_ = sub.add_parser(
        "try", help="start the cluster, `pulumi up` a stack of the project here, wait for Ctrl-C"
    )
    try_.add_argument("--stack", default="dev")
    try_.add_argument("--project", type=Path, default=Path.cwd(), help="default: here")
    try_.add_argument("--no-wait", action="store_true", help="stop once `pulumi up` is done")
    return p


def _try(cluster: LocalCluster, bin_dir: Path, args: argparse.Namespace) -> int:
    """`pulumi up` of a copy of the project (stack init writes into its stack files) with a
    local backend in the cluster's work directory."""
    project = copy_project(args.project, cluster.workdir / "project")
    pulumi = local_pulumi(bin_dir, cluster.kubeconfig, project, cluster.workdir, [args.stack])
    print(f"pulumi up --stack {args.stack} (in {project})", file=sys.stderr)
    up = ["pulumi", "up", "--yes", "--stack", args.stack, "--non-interactive"]
    code = subprocess.run(up, cwd=project, env=pulumi.env, check=False).returncode
    print(
        f"\nThe cluster stays up until Ctrl-C. In another shell:\n"
        f"  export KUBECONFIG={cluster.kubeconfig} PATH={bin_dir}:$PATH\n"
        f"  kubectl get queues,podgroups,rayclusters,jobs,pods -A\n"
        f"  cd {project} && PULUMI_BACKEND_URL={pulumi.env['PULUMI_BACKEND_URL']} "
        f"PULUMI_HOME={pulumi.env['PULUMI_HOME']} PULUMI_CONFIG_PASSPHRASE="
        f"{pulumi.env['PULUMI_CONFIG_PASSPHRASE']} pulumi preview --diff --stack {args.stack}",
        file=sys.stderr,
    )
    if args.no_wait:
        return code
    while True:
        time.sleep(2)
        cluster.check()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.tools:
            bin_dir, share_dir = args.tools / "bin", args.tools / "share"
        else:
            bin_dir, share_dir = default_paths()
        cluster = LocalCluster(bin_dir, share_dir, args.workdir, args.nodes or DEFAULT_NODES)
        # SIGTERM ends the cluster as Ctrl-C does.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        started = time.monotonic()
        print(f"starting the local cluster in {cluster.workdir} ...", file=sys.stderr)
        with cluster:
            print(f"ready in {time.monotonic() - started:.0f} s; logs in {cluster.logs}",
                  file=sys.stderr)  # fmt: skip
            print(f"export KUBECONFIG={cluster.kubeconfig}")
            sys.stdout.flush()
            if args.command == "try":
                return _try(cluster, bin_dir, args)
            if args.command == "run":
                command = [a for a in args.argv if a != "--"] or ["true"]
                env = {**os.environ, **cluster.env()}
                return subprocess.run(command, env=env, check=False).returncode
            while True:
                time.sleep(2)
                cluster.check()
    except ClusterError as e:
        print(f"raygang_localcluster: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
