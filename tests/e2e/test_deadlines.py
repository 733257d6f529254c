"""preRunningDeadlineSeconds frees the queue, on the local control plane with the real Volcano.

A gang Volcano admits to its queue but can never place (its head asks for a node label no
node has) sits Inqueue and holds the queue's room: volcano#4471. A second gang in the same
queue then waits, Pending. Once the first job's pre-running deadline has passed, the next
``up`` with live facts fails it (PreRunningDeadlineExceeded, as KubeRay v1.6 does), its
``shutdownAfterJobFinishes`` removes its RayCluster and zeroes its PodGroup, and the real
Volcano admits and places the waiting gang.

The steps share one stack and run in file order.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, PulumiError, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import small_rayjob

pytestmark = pytest.mark.e2e

STACK = "deadlines"
NS = "default"
STUCK, NEXT = "stuck-job", "next-job"
QUEUE = "dl-queue"
PG_KIND = "podgroups.scheduling.volcano.sh"
DEADLINE = 60  # long enough for the second gang to be seen waiting first


def _job(name: str, **spec: Any) -> dict[str, Any]:
    # The stuck gang's head asks for a node label no node has.
    head = {"nodeSelector": {"raygang.dev/no-such-node": "true"}} if name == STUCK else None
    return small_rayjob(name, QUEUE, namespace=NS, head_pod=head, **spec)


def _stuck() -> dict[str, Any]:
    return _job(
        STUCK,
        preRunningDeadlineSeconds=DEADLINE,
        shutdownAfterJobFinishes=True,
        ttlSecondsAfterFinished=0,
    )


def _write_stack(pulumi: LocalPulumi, jobs: list[dict[str, Any]]) -> None:
    config = {
        # Room for one gang of 2500m (head, worker, the submitter's reservation), not two.
        "raygang:queues": [
            {"name": QUEUE, "spec": {"weight": 1, "capability": {"cpu": "4", "memory": "8Gi"}}}
        ],
        # The stuck gang is refused by the preflight otherwise (it can never be placed): the
        # point here is what happens when such a gang reaches the cluster anyway.
        "raygang:preflight": "warn",
        "raygang:clusterReadyTimeoutSeconds": 20,
        "raygang:liveFacts": True,
        "raygang:jobs": jobs,
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    kept = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
    kept["config"] = config
    path.write_text(yaml.safe_dump(kept, sort_keys=False))


@pytest.fixture(scope="module")
def deadlines(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    pulumi = make_pulumi(tools, cluster, tmp_path_factory.mktemp("deadlines"), ())
    _write_stack(pulumi, [_stuck()])
    pulumi.run("stack", "init", STACK)
    return pulumi


def _up(pulumi: LocalPulumi) -> None:
    pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK)


def _phase(cluster: LocalCluster, job: str) -> str:
    return str(cluster.get(PG_KIND, f"ray-{job}-pg", "-n", NS).get("status", {}).get("phase"))


def _unbound(cluster: LocalCluster, job: str) -> list[str]:
    pods = cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={job}")["items"]
    return [p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName")]


def test_a_a_gang_that_can_never_be_placed_holds_its_queue(
    deadlines: LocalPulumi, cluster: LocalCluster
) -> None:
    with pytest.raises(PulumiError):
        _up(deadlines)  # its RayCluster never becomes ready
    wait_until(lambda: _phase(cluster, STUCK) == "Inqueue", 60, "the stuck gang Inqueue")
    assert _unbound(cluster, STUCK), "the stuck gang's pods should be unplaceable"


def test_b_a_second_gang_in_the_queue_waits(deadlines: LocalPulumi, cluster: LocalCluster) -> None:
    _write_stack(deadlines, [_stuck(), _job(NEXT)])
    with pytest.raises(PulumiError):
        _up(deadlines)
    # The fault is real: the queue is full of the stuck gang, so Volcano leaves this one
    # Pending, its pods unbound.
    assert _phase(cluster, NEXT) == "Pending"
    assert _unbound(cluster, NEXT)
    assert _phase(cluster, STUCK) == "Inqueue"


def test_c_past_its_deadline_the_stuck_job_fails_and_the_waiting_gang_runs(
    deadlines: LocalPulumi, cluster: LocalCluster
) -> None:
    created = cluster.get("rayclusters.ray.io", STUCK, "-n", NS)["metadata"]["creationTimestamp"]
    due = datetime.fromisoformat(created.replace("Z", "+00:00")) + timedelta(seconds=DEADLINE)
    time.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()) + 1)
    _up(deadlines)
    record = cluster.get("configmap", STUCK, "-n", NS)["metadata"]["annotations"]
    assert record["raygang.dev/result"] == "failed"
    assert record["raygang.dev/reason"] == "PreRunningDeadlineExceeded"
    # shutdownAfterJobFinishes: its cluster is gone and its PodGroup holds nothing.
    assert cluster.kubectl("get", "rayclusters.ray.io", STUCK, "-n", NS, check=False).returncode
    pg = cluster.get(PG_KIND, f"ray-{STUCK}-pg", "-n", NS)["spec"]
    assert not pg.get("minMember") and not pg.get("minResources"), pg
    # The real Volcano admitted and placed the gang that waited.
    wait_until(lambda: not _unbound(cluster, NEXT), 120, "the waiting gang placed")
    assert cluster.get("rayclusters.ray.io", NEXT, "-n", NS)["status"]["state"] == "ready"
    assert _phase(cluster, NEXT) in ("Running", "Inqueue")
    # kwok finishes its submitter at once: one more `up` records that, then nothing is left.
    _up(deadlines)
    done = deadlines.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_d_destroy_leaves_nothing(deadlines: LocalPulumi, cluster: LocalCluster) -> None:
    deadlines.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    for name in (STUCK, NEXT):
        for kind in ("configmap", PG_KIND, "rayclusters.ray.io", "jobs.batch"):
            target = f"ray-{name}-pg" if kind == PG_KIND else name
            gone = cluster.kubectl("get", kind, target, "-n", NS, check=False).returncode != 0
            assert gone, (kind, target)
