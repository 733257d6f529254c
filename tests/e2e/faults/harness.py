"""What every fault case does around its fault: a stack of its own, a `pulumi up` that runs in
the background while the fault is injected, and the checks that nothing was lost or done
twice once a later `up` with live facts has converged.

Each case's job is held back by a node selector that only a node of its own matches: the
RayCluster cannot become ready (so `up` waits for it) until the case adds that node.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, NodeShape, wait_until

from tests.e2e.jobs import small_rayjob

NS = "default"
PG_KIND = "podgroups.scheduling.volcano.sh"
RC_KIND = "rayclusters.ray.io"
QUEUE_KIND = "queues.scheduling.volcano.sh"
SELECTOR = "raygang.dev/fault-case"
RECORD_KEYS = (
    "raygang.dev/submission-id",
    "raygang.dev/base-submission-id",
    "raygang.dev/attempt",
    "raygang.dev/first-attempt",
)
# Long enough for the slowest fault (the API server takes about 40 s to come back on two
# busy cores) and the gang's placement after it.
READY_TIMEOUT_S = 600


def job(
    name: str, queue: str, case: str, worker_case: str | None = None, **spec: Any
) -> dict[str, Any]:
    """A RayJob of one head and one worker (1 cpu, 1Gi each) placed only on the case's node
    (the worker on ``worker_case``'s when given)."""
    return small_rayjob(
        name,
        queue,
        namespace=NS,
        head_pod={"nodeSelector": {SELECTOR: case}},
        worker_pod={"nodeSelector": {SELECTOR: worker_case or case}},
        **spec,
    )


def queue(name: str) -> dict[str, Any]:
    return {"name": name, "spec": {"weight": 1, "capability": {"cpu": "8", "memory": "16Gi"}}}


def case_node(case: str) -> NodeShape:
    return NodeShape(f"fault-{case}", labels={SELECTOR: case})


@dataclass
class Case:
    """One case's stack in the suite's project, with the `up`s it ran."""

    pulumi: LocalPulumi
    cluster: LocalCluster
    stack: str
    ups: int = 0
    outputs: list[str] = field(default_factory=list)

    def write(self, jobs: list[dict[str, Any]], queues: list[dict[str, Any]]) -> None:
        config: dict[str, Any] = {
            "raygang:queues": queues,
            "raygang:clusterReadyTimeoutSeconds": READY_TIMEOUT_S,
            "raygang:jobs": jobs,
            "raygang:liveFacts": True,
        }
        path = self.pulumi.project / "stacks" / f"Pulumi.{self.stack}.yaml"
        kept = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
        kept["config"] = config  # the encryption salt `stack init` wrote stays
        path.write_text(yaml.safe_dump(kept, sort_keys=False))

    def init(self) -> None:
        self.pulumi.run("stack", "init", self.stack)

    def start_up(self) -> Background:
        """`pulumi up` in a session of its own, so a SIGKILL can take its plugins with it."""
        self.ups += 1
        log = self.pulumi.project / f"up-{self.stack}-{self.ups}.log"
        out = log.open("w")
        popen = subprocess.Popen(
            ["pulumi", "up", "--yes", "--skip-preview", "--stack", self.stack,
             "--non-interactive"],
            cwd=self.pulumi.project,
            env=self.pulumi.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )  # fmt: skip
        out.close()
        return Background(popen, log)

    def up(self) -> subprocess.CompletedProcess[str]:
        self.ups += 1
        done = self.pulumi.run("up", "--yes", "--skip-preview", "--stack", self.stack,
                               check=False)  # fmt: skip
        self.outputs.append(done.stdout + done.stderr)
        return done

    def finished(self, name: str) -> None:
        """Wait for the job's own course: kwok finishes the submitter's pod at once, and the
        next `up` with live facts then declares the finished job (the PodGroup without the
        submitter's reservation). Converging before that would race it."""
        until(lambda: (self.get("jobs.batch", name) or {}).get("status", {}).get("succeeded"),
              600, "the submitter Job succeeded")  # fmt: skip

    def no_changes(self) -> bool:
        done = self.pulumi.run("preview", "--expect-no-changes", "--diff", "--stack",
                               self.stack, check=False)  # fmt: skip
        self.outputs.append(done.stdout + done.stderr)
        return done.returncode == 0

    def converge(self, most: int = 4) -> int:
        """Run `up` (with live facts) until a preview finds nothing left to change; return
        how many `up`s this case ran in all, the one the fault hit included."""
        for _ in range(most):
            if self.no_changes():
                return self.ups
            self.up()
        raise AssertionError(f"not converged after {most} `up`s:\n" + "\n".join(self.outputs[-3:]))

    def clean(self) -> None:
        """`pulumi refresh` succeeds and leaves a state a preview finds nothing to change."""
        self.pulumi.run("refresh", "--yes", "--skip-preview", "--stack", self.stack)
        done = self.pulumi.run("preview", "--expect-no-changes", "--diff", "--stack",
                               self.stack, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert not pending_operations(self.pulumi, self.stack)

    # -- what is on the API server ----------------------------------------------------------

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        done = self.cluster.kubectl("get", kind, name, "-n", NS, "-o", "json", check=False)
        return json.loads(done.stdout) if done.returncode == 0 else None

    def pods(self, name: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.cluster.get(
            "pods", "-n", NS, "-l", f"ray.io/cluster={name}"
        )["items"]
        return items

    def bound(self, name: str) -> list[str]:
        return sorted(
            p["metadata"]["name"] for p in self.pods(name) if p["spec"].get("nodeName")
        )  # fmt: skip

    def ready(self, name: str) -> bool:
        rc = self.get(RC_KIND, name)
        return bool(rc and rc.get("status", {}).get("state") == "ready")

    def snapshot(self, name: str) -> dict[str, Any]:
        """What must not change once the job runs: the record's attempt and submission IDs,
        the UIDs of the objects of the attempt, the PodGroup's numbers, the submitter's runs."""
        record = self.get("configmap", name) or {}
        annotations = record.get("metadata", {}).get("annotations", {})
        pg = self.get(PG_KIND, f"ray-{name}-pg") or {}
        rc = self.get(RC_KIND, name) or {}
        sub = self.get("jobs.batch", name) or {}
        submitter_pods = self.cluster.get("pods", "-n", NS, "-l", f"job-name={name}")["items"]
        return {
            "record": {k: annotations.get(k) for k in RECORD_KEYS},
            "record uid": record.get("metadata", {}).get("uid"),
            "podgroup uid": pg.get("metadata", {}).get("uid"),
            "podgroup numbers": (
                pg.get("spec", {}).get("minMember"),
                pg.get("spec", {}).get("minResources"),
            ),
            "raycluster uid": rc.get("metadata", {}).get("uid"),
            "ray pods": len(self.pods(name)),
            "submitter uid": sub.get("metadata", {}).get("uid"),
            "submitter pods": len(submitter_pods),
        }


# What a snapshot taken as soon as the RayCluster exists already holds for good.
IDENTITY = ("record", "record uid", "podgroup uid", "raycluster uid")


def lost(early: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> str:
    """What changed, in words ("nothing" when all agree): the job's identity from the first
    moment the RayCluster existed (``early``, before the fault) to the end, and everything
    from the converged run (``before``) to one more `up` (``after``)."""
    changed = [f"{k}: {early[k]!r} -> {after[k]!r}" for k in IDENTITY if early[k] != after[k]]
    changed += [f"{k}: {before[k]!r} -> {after[k]!r}" for k in before if before[k] != after[k]]
    return "; ".join(changed) or "nothing"


@dataclass
class Background:
    popen: subprocess.Popen[str]
    log: Path

    def alive(self) -> bool:
        return self.popen.poll() is None

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait(self, timeout: float) -> int:
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired as late:
            self.kill()
            raise AssertionError(
                f"`pulumi up` still running after {timeout:.0f} s:\n{self.text()}"
            ) from late

    def interrupt(self) -> None:
        """Ctrl-C as a terminal sends it: SIGINT to the CLI."""
        self.popen.send_signal(signal.SIGINT)

    def kill(self) -> None:
        """SIGKILL to the CLI and every process of its session: the engine starts each plugin
        (the kubernetes provider, the language host) in a process group of its own, so killing
        the CLI's group alone left providers running."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=60)
        for pid in _session(self.popen.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _session(sid: int) -> list[int]:
    """The processes whose session is ``sid`` (Linux's /proc: field 6 of ``stat``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            # The command name (field 2) is in parentheses and may hold spaces.
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                found.append(int(stat.parent.name))
    return found


def open_case(
    project: LocalPulumi,
    cluster: LocalCluster,
    name: str,
    jobs: list[dict[str, Any]],
    *,
    nodes: Sequence[NodeShape] = (),
    up: bool = False,
) -> Case:
    """Every case's prelude: the nodes it holds its pods on, its stack ``name`` in the
    module's project (its jobs, a queue of the same name, live facts), ``pulumi stack init``
    and, with ``up``, a first ``pulumi up`` that must succeed."""
    if nodes:
        cluster.add_nodes(list(nodes))
    case = Case(project, cluster, name)
    case.write(jobs, [queue(name)])
    case.init()
    if up:
        assert case.up().returncode == 0, case.outputs[-1]
    return case


def exported(pulumi: LocalPulumi, stack: str) -> dict[str, Any]:
    """The stack's state as ``pulumi stack export`` prints it."""
    state: dict[str, Any] = json.loads(pulumi.run("stack", "export", "--stack", stack).stdout)
    return state


def pending_operations(pulumi: LocalPulumi, stack: str) -> list[dict[str, Any]]:
    pending: list[dict[str, Any]] = (
        exported(pulumi, stack).get("deployment", {}).get("pending_operations") or []
    )
    return pending


def awaiting(text: str, step: str) -> bool:
    """`up`'s output shows the provider waiting for ``step``'s object to be ready (it polled
    and found no ready state)."""
    return any(step in line and "selected nothing" in line for line in text.splitlines())


def until(probe: Any, timeout: float, what: str) -> Any:
    return wait_until(probe, timeout, what, interval=1.0)
