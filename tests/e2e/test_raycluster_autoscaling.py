"""An autoscaling RayCluster of its own on the local control plane: the autoscaler's edits
survive ``pulumi refresh`` and the next preview, which proposes no change.

With ``enableInTreeAutoscaling: true`` the Ray autoscaler sizes the worker groups by
patching the live RayCluster's ``spec.workerGroupSpecs[i].replicas`` and ``scaleStrategy``
(Ray's ``kuberay/node_provider.py``). The local control plane runs no Ray, so ``kubectl
patch`` stands in for it, with the JSON patch paths the autoscaler writes. raygang declares
those paths as ``ignoreChanges`` (:mod:`raygang.kuberay.autoscaling`): after a refresh the
state holds the autoscaler's numbers and ``pulumi preview --expect-no-changes`` passes. The
gang counts ``minReplicas`` under autoscaling, so the PodGroup does not move either.

The steps share one stack and run in file order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import small_raycluster

pytestmark = pytest.mark.e2e

STACK = "rcscale"
NS = "default"
NAME = "rc-scaled"
PG = f"ray-{NAME}-pg"
QUEUE = "rc-scale-queue"
PG_KIND = "podgroups.scheduling.volcano.sh"
RC_KIND = "rayclusters.ray.io"


def _raycluster() -> dict[str, Any]:
    """1 head, worker group ``cpu`` 1 replica (1..4), group ``pairs`` 1 × 2 hosts (0..3)."""
    return small_raycluster(NAME, QUEUE, namespace=NS, autoscaling=True)


@pytest.fixture(scope="module")
def stack(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    assert cluster.with_volcano and cluster.with_kuberay
    pulumi = make_pulumi(tools, cluster, tmp_path_factory.mktemp("rcscale"), ())
    config = {
        "raygang:queues": [
            {"name": QUEUE, "spec": {"weight": 1, "capability": {"cpu": "16", "memory": "32Gi"}}}
        ],
        "raygang:clusterReadyTimeoutSeconds": 180,
        "raygang:jobs": [_raycluster()],
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    path.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    pulumi.run("stack", "init", STACK)
    return pulumi


def _groups(cluster: LocalCluster) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = cluster.get(RC_KIND, NAME, "-n", NS)["spec"]["workerGroupSpecs"]
    return groups


def _min_member(cluster: LocalCluster) -> int:
    return int(cluster.get(PG_KIND, PG, "-n", NS)["spec"].get("minMember") or 0)


def test_a_created(stack: LocalPulumi, cluster: LocalCluster) -> None:
    stack.run("up", "--yes", "--skip-preview", "--stack", STACK)
    assert cluster.get(RC_KIND, NAME, "-n", NS)["status"]["state"] == "ready"
    # 1 head + minReplicas 1 + minReplicas 0 × 2 hosts: KubeRay's count under autoscaling.
    assert _min_member(cluster) == 2
    done = stack.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_b_the_autoscalers_edits_survive_refresh_and_preview(
    stack: LocalPulumi, cluster: LocalCluster
) -> None:
    # What the autoscaler patches: one group up to 3, the other down to 0 naming a worker.
    patch = [
        {"op": "replace", "path": "/spec/workerGroupSpecs/0/replicas", "value": 3},
        {"op": "replace", "path": "/spec/workerGroupSpecs/1/replicas", "value": 0},
        {
            "op": "add",
            "path": "/spec/workerGroupSpecs/1/scaleStrategy",
            "value": {"workersToDelete": ["rc-scaled-pairs-gone"]},
        },
    ]
    cluster.kubectl("patch", RC_KIND, NAME, "-n", NS, "--type=json", "-p", json.dumps(patch))
    assert [g.get("replicas") for g in _groups(cluster)] == [3, 0]
    stack.run("refresh", "--yes", "--skip-preview", "--stack", STACK)
    done = stack.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # An `up` leaves the autoscaler's numbers, and the gang (minReplicas) is as it was.
    stack.run("up", "--yes", "--skip-preview", "--stack", STACK)
    assert [g.get("replicas") for g in _groups(cluster)] == [3, 0]
    assert _min_member(cluster) == 2
    wait_until(
        lambda: cluster.get(RC_KIND, NAME, "-n", NS)["status"].get("desiredWorkerReplicas") == 3,
        60,
        "KubeRay sizing the cluster as the autoscaler asked",
    )


def test_c_destroyed(stack: LocalPulumi, cluster: LocalCluster) -> None:
    stack.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    gone = lambda: all(  # noqa: E731
        cluster.kubectl("get", kind, name, "-n", NS, check=False).returncode != 0
        for kind, name in ((RC_KIND, NAME), (PG_KIND, PG))
    )
    wait_until(gone, 60, "the RayCluster and its PodGroup gone")
