"""A RayCluster of its own on the local control plane: the real KubeRay operator v1.5.0,
started with ``--batch-scheduler=volcano`` (the session cluster's), and the real Volcano.

Two writers hold PodGroup ``ray-<cluster>-pg``: raygang declares it (before the
RayCluster), and the operator re-syncs its ``minMember``/``minResources`` on every
reconcile of a RayCluster not labelled as a RayJob's (``handleRayCluster``). raygang writes
KubeRay's numbers, so the two agree; these steps check it against the real operator:

a. created: the PodGroup first, then the RayCluster, whose pods Volcano binds (its
   scheduler, the group's annotation); one PodGroup for the cluster;
b. the operator is a writer: a third writer's minMember is put back to KubeRay's numbers,
   raygang's; and over several reconciles (annotation changes) the numbers never flip,
   under the effective accounting, whose own numbers differ here (an init container);
c. scaled: a worker group's replicas grow; the PodGroup is changed in the same ``up``
   (forced over the operator's Update of step b), the new pods placed, nothing flips;
d. the kuberay accounting: the same numbers, nothing flips;
e. suspended: the PodGroup is zeroed and stays zeroed (the operator leaves a suspended
   cluster's PodGroup alone, kuberay #5183), the pods go; the preview is then clean;
f. resumed, then destroyed: nothing is left.

The steps share one stack and run in file order.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import container, small_raycluster

pytestmark = pytest.mark.e2e

STACK = "rcgang"
NS = "default"
NAME = "rc-e2e"
PG = f"ray-{NAME}-pg"
QUEUE = "rc-queue"
PG_KIND = "podgroups.scheduling.volcano.sh"
RC_KIND = "rayclusters.ray.io"
# What raygang prints when the effective accounting would reserve more than KubeRay.
RESYNC_WARNING = "re-syncs a RayCluster's PodGroup"


def _raycluster(replicas: int = 1, **extra: Any) -> dict[str, Any]:
    """1 head (1 cpu, an init container of 2), ``replicas`` × 1 cpu, 1 replica × 2 hosts."""
    # The head pod requests 2 cpu; KubeRay counts only the 1 of its containers.
    doc = small_raycluster(
        NAME, QUEUE, namespace=NS, replicas=replicas, head_init=container("fetch", "2", "1Gi")
    )
    for key, value in extra.items():
        if key == "annotations":
            doc["metadata"]["annotations"] = value
        else:
            doc["spec"][key] = value
    return doc


def _write_stack(pulumi: LocalPulumi, cluster: dict[str, Any]) -> None:
    config = {
        "raygang:queues": [
            {"name": QUEUE, "spec": {"weight": 1, "capability": {"cpu": "8", "memory": "16Gi"}}}
        ],
        "raygang:clusterReadyTimeoutSeconds": 180,
        "raygang:jobs": [cluster],
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    kept = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
    kept["config"] = config
    path.write_text(yaml.safe_dump(kept, sort_keys=False))


@pytest.fixture(scope="module")
def stack(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    # The session cluster runs the operator with --batch-scheduler=volcano: the second writer.
    assert cluster.with_volcano and cluster.with_kuberay
    pulumi = make_pulumi(tools, cluster, tmp_path_factory.mktemp("rcgang"), ())
    _write_stack(pulumi, _raycluster())
    pulumi.run("stack", "init", STACK)
    return pulumi


def _up(pulumi: LocalPulumi) -> str:
    done = pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK)
    return done.stdout + done.stderr


def _gang(cluster: LocalCluster) -> tuple[int, dict[str, str]]:
    spec = cluster.get(PG_KIND, PG, "-n", NS)["spec"]
    return int(spec.get("minMember") or 0), dict(spec.get("minResources") or {})


def _pods(cluster: LocalCluster) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={NAME}")[
        "items"
    ]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def _bound(cluster: LocalCluster, count: int) -> bool:
    pods = _pods(cluster)
    return len(pods) == count and all(p["spec"].get("nodeName") for p in pods)


def _podgroups_of_the_cluster(cluster: LocalCluster) -> list[str]:
    items = cluster.get(PG_KIND, "-n", NS)["items"]
    return sorted(i["metadata"]["name"] for i in items if NAME in i["metadata"]["name"])


def _poke(cluster: LocalCluster, times: int) -> list[tuple[int, dict[str, str]]]:
    """Make the operator reconcile the RayCluster ``times`` times (its controller reconciles
    on an annotation change), sampling the PodGroup's gang all along."""
    seen = [_gang(cluster)]
    for index in range(times):
        cluster.kubectl(
            "annotate", RC_KIND, NAME, "-n", NS, f"raygang.dev/e2e-poke={time.time_ns()}",
            "--overwrite",
        )  # fmt: skip
        deadline = time.monotonic() + 3 + index % 2
        while time.monotonic() < deadline:
            seen.append(_gang(cluster))
            time.sleep(0.25)
    return seen


def _constant(
    samples: list[tuple[int, dict[str, str]]], expected: tuple[int, dict[str, str]]
) -> None:
    flips = [s for s in samples if s != expected]
    assert not flips, (
        f"the PodGroup's gang changed between writers: {flips[:3]} (expected {expected})"
    )


def test_a_created_and_placed_by_volcano(stack: LocalPulumi, cluster: LocalCluster) -> None:
    out = _up(stack)
    # Under the default effective accounting the head's init container makes raygang's own
    # numbers larger than KubeRay's: the PodGroup carries KubeRay's, and the run says so.
    assert RESYNC_WARNING in out
    assert _gang(cluster) == (4, {"cpu": "3", "memory": "3Gi"})
    rc = cluster.get(RC_KIND, NAME, "-n", NS)
    assert rc["status"]["state"] == "ready"
    wait_until(lambda: _bound(cluster, 4), 120, "4 pods bound")
    for pod in _pods(cluster):
        assert pod["spec"]["schedulerName"] == "volcano"
        assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == PG
    wait_until(
        lambda: cluster.get(PG_KIND, PG, "-n", NS).get("status", {}).get("phase") == "Running",
        60,
        "the PodGroup Running",
    )
    assert _podgroups_of_the_cluster(cluster) == [PG]  # never two for one cluster


def test_b_the_operator_writes_kuberays_numbers_which_are_raygangs(
    stack: LocalPulumi, cluster: LocalCluster
) -> None:
    # A third writer: the operator puts KubeRay's numbers back on its next reconcile.
    cluster.kubectl(
        "patch", PG_KIND, PG, "-n", NS, "--type=merge", "-p", '{"spec":{"minMember":1}}'
    )
    assert _gang(cluster)[0] == 1
    _poke(cluster, 1)
    wait_until(lambda: _gang(cluster)[0] == 4, 60, "the operator re-syncing minMember")
    shown = cluster.kubectl(
        "get", PG_KIND, PG, "-n", NS, "-o", "json", "--show-managed-fields"
    ).stdout
    managers = {
        m["manager"]
        for m in json.loads(shown)["metadata"]["managedFields"]
        if m["operation"] == "Update" and "f:minMember" in str(m.get("fieldsV1"))
    }
    # The operator's Update (after kubectl's patch) holds minMember now, beside raygang's apply.
    assert managers - {"kubectl-patch"}, managers
    # raygang and the operator now agree over many reconciles: nothing flips.
    _constant(_poke(cluster, 5), (4, {"cpu": "3", "memory": "3Gi"}))
    done = stack.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_c_scaled_in_the_same_up(stack: LocalPulumi, cluster: LocalCluster) -> None:
    _write_stack(stack, _raycluster(replicas=3))
    # `pulumi preview --diff` shows the gang's change beside the RayCluster's.
    diff = stack.run("preview", "--diff", "--stack", STACK).stdout
    assert "minMember" in diff and "replicas" in diff, diff
    _up(stack)
    # The PodGroup changed in this very `up` (before the RayCluster, forced over the
    # operator's Update of step b).
    assert _gang(cluster) == (6, {"cpu": "5", "memory": "5Gi"})
    wait_until(lambda: _bound(cluster, 6), 120, "6 pods bound")
    _constant(_poke(cluster, 5), (6, {"cpu": "5", "memory": "5Gi"}))


def test_d_the_kuberay_accounting_writes_the_same(
    stack: LocalPulumi, cluster: LocalCluster
) -> None:
    _write_stack(stack, _raycluster(replicas=3, annotations={"raygang.dev/accounting": "kuberay"}))
    out = _up(stack)
    assert RESYNC_WARNING not in out  # the accounting asked for is the PodGroup's
    _constant(_poke(cluster, 5), (6, {"cpu": "5", "memory": "5Gi"}))


def test_e_suspended_zeroes_the_podgroup(stack: LocalPulumi, cluster: LocalCluster) -> None:
    _write_stack(stack, _raycluster(replicas=3, suspend=True))
    _up(stack)
    assert _gang(cluster) == (0, {})
    wait_until(lambda: not _pods(cluster), 120, "the suspended cluster's pods deleted")
    # KubeRay leaves a suspended cluster's PodGroup alone: it stays zeroed.
    _constant(_poke(cluster, 4), (0, {}))
    done = stack.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def _state(cluster: LocalCluster) -> str:
    """What the cluster shows of the gang, for a failure's message."""
    pg = cluster.get(PG_KIND, PG, "-n", NS)
    rc = cluster.get(RC_KIND, NAME, "-n", NS)
    pods = [
        (p["metadata"]["name"], p["status"].get("phase"), p["spec"].get("nodeName"))
        for p in _pods(cluster)
    ]
    events = cluster.kubectl("get", "events", "-n", NS, "--sort-by=.lastTimestamp").stdout
    return (
        f"PodGroup spec {pg['spec']} status {pg.get('status')}\n"
        f"RayCluster status {rc.get('status')}\npods {pods}\n"
        f"events (last 30):\n" + "\n".join(events.splitlines()[-30:])
    )


def test_f_resumed_then_destroyed(stack: LocalPulumi, cluster: LocalCluster) -> None:
    _write_stack(stack, _raycluster(replicas=3))
    done = stack.run("up", "--yes", "--skip-preview", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + "\n" + _state(cluster)
    assert _gang(cluster) == (6, {"cpu": "5", "memory": "5Gi"})
    wait_until(lambda: _bound(cluster, 6), 120, "6 pods bound again")
    stack.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    gone = lambda: all(  # noqa: E731
        cluster.kubectl("get", kind, name, "-n", NS, check=False).returncode != 0
        for kind, name in ((RC_KIND, NAME), (PG_KIND, PG))
    )
    wait_until(gone, 60, "the RayCluster and its PodGroup gone")
    assert _podgroups_of_the_cluster(cluster) == []
