"""DeleteWorkers on the KubeRay operator we run (v1.5.0, default feature gates), for real.

raygang's DeleteWorkers does what KubeRay v1.7 does: it suspends every worker group. KubeRay
v1.5's ``ValidateRayClusterSpec`` refuses a suspended worker group unless the
``RayJobDeletionPolicy`` feature gate is on (off by default before v1.7): the operator
records a Warning event and leaves the workers running. With live facts the next ``up``
reads that event and scales the groups to zero instead, which every version accepts. The
PodGroup keeps the workers' share while a worker pod holds a node, and the first ``up`` that
sees none shrinks it to the head.

The steps share one stack and run in file order.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang import live_cluster_scoped
from raygang_localcluster import LocalCluster, LocalPulumi, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import small_rayjob

pytestmark = pytest.mark.e2e

STACK = "workers"
NS = "default"
JOB = "dw-job"
QUEUE = "dw-queue"
PG_KIND = "podgroups.scheduling.volcano.sh"
REFUSAL = "can be suspended only when the RayJobDeletionPolicy feature gate is enabled"


def _job() -> dict[str, Any]:
    # The workers go as soon as the job succeeds; the head stays.
    rule = {"policy": "DeleteWorkers", "condition": {"jobStatus": "SUCCEEDED", "ttlSeconds": 0}}
    return small_rayjob(
        JOB, QUEUE, namespace=NS, replicas=2, deletionStrategy={"deletionRules": [rule]}
    )


@pytest.fixture(scope="module")
def workers(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    pulumi = make_pulumi(tools, cluster, tmp_path_factory.mktemp("workers"), ())
    config = {
        "raygang:queues": [
            {"name": QUEUE, "spec": {"weight": 1, "capability": {"cpu": "8", "memory": "16Gi"}}}
        ],
        "raygang:clusterReadyTimeoutSeconds": 180,
        "raygang:liveFacts": True,
        "raygang:jobs": [_job()],
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    pulumi.run("stack", "init", STACK)
    return pulumi


def _up(pulumi: LocalPulumi) -> str:
    return str(pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK).stdout)


def _worker_pods(cluster: LocalCluster) -> list[Any]:
    selector = f"ray.io/cluster={JOB},ray.io/node-type=worker"
    pods = cluster.get("pods", "-n", NS, "-l", selector)["items"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def _any_worker_pod(cluster: LocalCluster) -> bool:
    # Terminating ones included: they hold their nodes until they are gone.
    selector = f"ray.io/cluster={JOB},ray.io/node-type=worker"
    return bool(cluster.get("pods", "-n", NS, "-l", selector)["items"])


def _refusals(cluster: LocalCluster) -> list[Any]:
    events = cluster.get(
        "events",
        "-n",
        NS,
        "--field-selector",
        f"involvedObject.name={JOB},reason=InvalidRayClusterSpec",
    )["items"]
    return [e for e in events if REFUSAL in e.get("message", "")]


def _groups(cluster: LocalCluster) -> list[Any]:
    return list(cluster.get("rayclusters.ray.io", JOB, "-n", NS)["spec"]["workerGroupSpecs"])


def test_0_discovery_names_the_cluster_scoped_kinds(cluster: LocalCluster) -> None:
    # What the program asks with raygang:liveFacts before it loads the companions. (The
    # client reads $KUBECONFIG once, when imported: the file is named here instead.)
    scoped = live_cluster_scoped(kubeconfig=str(cluster.kubeconfig))
    assert {("", "Node"), ("", "Namespace"), ("scheduling.volcano.sh", "Queue")} <= scoped
    assert ("", "Pod") not in scoped and ("ray.io", "RayCluster") not in scoped


def test_a_the_job_runs_and_succeeds(workers: LocalPulumi, cluster: LocalCluster) -> None:
    _up(workers)
    assert cluster.get("rayclusters.ray.io", JOB, "-n", NS)["status"]["state"] == "ready"
    assert len(_worker_pods(cluster)) == 2
    # kwok finishes the submitter's pod at once: the job succeeds.
    wait_until(
        lambda: cluster.get("jobs.batch", JOB, "-n", NS).get("status", {}).get("succeeded"),
        60,
        "submitter Job succeeded",
    )


def test_b_the_operator_refuses_suspended_worker_groups(
    workers: LocalPulumi, cluster: LocalCluster
) -> None:
    _up(workers)
    assert [g.get("suspend") for g in _groups(cluster)] == [True]
    # The fault is real: KubeRay v1.5 refused the spec and the workers still run.
    wait_until(lambda: bool(_refusals(cluster)), 60, "the operator's InvalidRayClusterSpec event")
    assert len(_worker_pods(cluster)) == 2
    # The workers were on their nodes during that `up`: the PodGroup kept their share.
    assert cluster.get(PG_KIND, f"ray-{JOB}-pg", "-n", NS)["spec"]["minMember"] == 3


def test_c_the_plan_says_so_and_the_next_up_scales_the_workers_to_zero_then_shrinks(
    workers: LocalPulumi, cluster: LocalCluster
) -> None:
    # What the plan says, from a snapshot as kubectl writes it (events included).
    snap = cluster.kubectl(
        "get",
        "configmaps,jobs.batch,rayclusters.ray.io,podgroups.scheduling.volcano.sh,pods,events",
        "-n",
        NS,
        "-o",
        "yaml",
    ).stdout
    (workers.project / "cluster.yaml").write_text(snap)
    planned = subprocess.run(
        [sys.executable, "-m", "raygang", "plan", "--stack", STACK, "--cluster", "cluster.yaml",
         "--project-dir", str(workers.project), "--preflight", "off", "--format", "json"],
        cwd=workers.project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "RayJobDeletionPolicy feature gate" in planned.stdout, planned.stdout
    assert f"scale every worker group of RayCluster/{JOB} to zero" in planned.stdout

    _up(workers)
    assert [(g.get("suspend"), g["replicas"], g["minReplicas"]) for g in _groups(cluster)] == [
        (None, 0, 0)
    ]
    wait_until(lambda: not _any_worker_pod(cluster), 60, "the worker pods gone")
    # The `up` that scaled the workers to zero saw them on their nodes: the PodGroup kept
    # their share. The next `up` sees none left and shrinks it to the head.
    pg = cluster.get(PG_KIND, f"ray-{JOB}-pg", "-n", NS)
    assert pg["spec"]["minMember"] == 3  # the head and the two workers
    shrink = f"shrink PodGroup/ray-{JOB}-pg to the head"
    assert shrink in planned.stdout, planned.stdout

    _up(workers)
    pg = cluster.get(PG_KIND, f"ray-{JOB}-pg", "-n", NS)
    assert pg["spec"]["minMember"] == 1  # the head alone
    assert pg["spec"]["minResources"] == {"cpu": "1", "memory": "1Gi"}
    assert cluster.get("rayclusters.ray.io", JOB, "-n", NS)["status"]["state"] == "ready"
    done = workers.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_d_destroy_leaves_nothing(workers: LocalPulumi, cluster: LocalCluster) -> None:
    workers.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    for kind, name in (
        ("configmap", JOB),
        (PG_KIND, f"ray-{JOB}-pg"),
        ("rayclusters.ray.io", JOB),
        ("jobs.batch", JOB),
    ):
        gone = cluster.kubectl("get", kind, name, "-n", NS, check=False).returncode != 0
        assert gone, (kind, name)
