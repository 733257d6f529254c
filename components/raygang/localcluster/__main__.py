"""``python -m raygang.localcluster``: start the local cluster, and keep it or run a command.

    python -m raygang.localcluster up                 # start, print the kubeconfig, wait for Ctrl-C
    python -m raygang.localcluster run -- pulumi up   # start, run the command with KUBECONFIG set, stop
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from raygang.localcluster._cluster import DEFAULT_NODES, LocalCluster, NodeShape
from raygang.localcluster._errors import ClusterError
from raygang.localcluster._paths import default_paths


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
    p = argparse.ArgumentParser(prog="python -m raygang.localcluster", description=__doc__,
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
    return p


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
            if args.command == "run":
                command = [a for a in args.argv if a != "--"] or ["true"]
                env = {**os.environ, **cluster.env()}
                return subprocess.run(command, env=env, check=False).returncode
            while True:
                time.sleep(2)
                cluster.check()
    except ClusterError as e:
        print(f"raygang.localcluster: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
