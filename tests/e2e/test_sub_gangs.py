"""Sub-gangs on the real Volcano v1.14.1 and KubeRay v1.5 (issue 27, item 3).

Two autoscaling RayJobs, each pinned to a node of its own with room for its head and 1.5
replicas of its worker group (``numOfHosts`` 2, ``replicas`` 2, ``minReplicas`` 1:
``minMember`` 3 of 5 pods). The first, with ``raygang.dev/sub-gangs``, gets a PodGroup
``subGroupPolicy``: the real Volcano binds its head and one whole replica and no pod of the
second (it places one and takes it back). The second, applied after, is KubeRay's plain
gang: Volcano binds the gang and then the extra pods one by one, half of the second
replica. Both as the preflight said before anything was applied, in the words Volcano then
writes on the pending pods (their PodScheduled conditions).

A third node neither job may use keeps the default queue's deserved share above what both
jobs ask, so the nodes alone refuse the last pods (with the share capped at the cluster,
proportion refused the sub-gang's second pod first, silently, and Volcano wrote the job's
``pod group is ready, ...`` summary on it instead of a fit error: seen in a first run).

The control plane is this module's own: its KubeRay operator runs with the
``RayMultiHostIndexing`` feature gate (alpha and off by default in v1.5, on by default in
v1.6), without which KubeRay gives a replica's pods no label of their own.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, NodeShape, PulumiError, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import small_rayjob

pytestmark = pytest.mark.e2e

STACK = "subgangs"
NS = "default"
WHOLE, PLAIN = "whole-job", "plain-job"
NODES = {WHOLE: "sg-node-whole", PLAIN: "sg-node-plain"}
SPARE = "sg-spare"
GATE = "RayMultiHostIndexing=true"
# The head (1 cpu and the 500m autoscaler KubeRay injects) and three 2-cpu workers.
ROOM = "7500m"


@pytest.fixture(scope="module")
def gated(
    tools: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    bin_dir, share_dir = tools
    nodes = [NodeShape(n, cpu=ROOM, labels={"raygang.dev/e2e-node": n}) for n in NODES.values()]
    # A node neither job may use, so the default queue's deserved share (capped by the
    # cluster) leaves room for both jobs' pods and the nodes alone refuse the last ones.
    nodes.append(NodeShape(SPARE, cpu="32", labels={"raygang.dev/e2e-node": SPARE}))
    c = LocalCluster(
        bin_dir,
        share_dir,
        tmp_path_factory.mktemp("subgangs-cluster"),
        nodes,
        kuberay_feature_gates=(GATE,),
    )
    c.start()
    try:
        yield c
    finally:
        c.stop()


def _job(name: str) -> dict[str, Any]:
    pin = {"nodeSelector": {"raygang.dev/e2e-node": NODES[name]}}
    job = small_rayjob(name, "default", namespace=NS, head_pod=pin, worker_pod=pin)
    job["metadata"].pop("labels")  # Volcano's default queue
    if name == WHOLE:
        job["metadata"]["annotations"] = {"raygang.dev/sub-gangs": "true"}
    cluster = job["spec"]["rayClusterSpec"]
    cluster["enableInTreeAutoscaling"] = True
    (group,) = cluster["workerGroupSpecs"]
    group.update(groupName="tpu", replicas=2, minReplicas=1, maxReplicas=2, numOfHosts=2)
    group["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "2", "memory": "1Gi"}
    }
    return job


def _write_stack(pulumi: LocalPulumi, jobs: list[dict[str, Any]]) -> None:
    config = {
        # The extra replica never fits, so no RayCluster gets ready: do not wait long.
        "raygang:clusterReadyTimeoutSeconds": 20,
        "raygang:preflight": "warn",
        "raygang:liveFacts": True,
        "raygang:jobs": jobs,
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    kept = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
    kept["config"] = config
    path.write_text(yaml.safe_dump(kept, sort_keys=False))


@pytest.fixture(scope="module")
def stack(
    tools: tuple[Path, Path], gated: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    pulumi = make_pulumi(tools, gated, tmp_path_factory.mktemp("subgangs"), ())
    _write_stack(pulumi, [_job(WHOLE)])
    pulumi.run("stack", "init", STACK)
    return pulumi


@pytest.fixture(scope="module")
def predicted(
    stack: LocalPulumi, gated: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[str]]:
    """Both jobs' preflight reasons on the cluster before anything is applied (each judged
    as the first on its node: its words are what Volcano says when it goes first)."""
    _write_stack(stack, [_job(WHOLE), _job(PLAIN)])
    reasons = _preflight(gated, stack.project, tmp_path_factory.mktemp("preflight"))
    _write_stack(stack, [_job(WHOLE)])
    return reasons


def _preflight(cluster: LocalCluster, project: Path, workdir: Path) -> dict[str, list[str]]:
    """Each job's preflight reasons, planned through the CLI on a snapshot of the cluster."""
    snapshot = workdir / "snapshot.yaml"
    listing = cluster.kubectl(
        "get", "nodes,pods,queues.scheduling.volcano.sh,podgroups.scheduling.volcano.sh", "-A",
        "-o", "yaml",
    ).stdout  # fmt: skip
    snapshot.write_text(listing)
    done = subprocess.run(
        [sys.executable, "-m", "raygang", "plan", "--stack", STACK, "--project-dir",
         str(project), "--cluster", str(snapshot), "--format", "json", "--preflight", "warn"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout, done.stderr
    jobs = json.loads(done.stdout)["jobs"]
    return {j["name"]: list(j["preflight"]["reasons"]) for j in jobs}


def _pods(cluster: LocalCluster, job: str) -> list[dict[str, Any]]:
    return list(cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={job}")["items"])


def _bound_workers(cluster: LocalCluster, job: str) -> int:
    return sum(
        1
        for p in _pods(cluster, job)
        if p["metadata"]["labels"].get("ray.io/node-type") == "worker" and p["spec"].get("nodeName")
    )


def _unscheduled(cluster: LocalCluster, job: str) -> list[tuple[str, str]]:
    """The (reason, message) of each pending pod's PodScheduled condition, as Volcano wrote it."""
    out = []
    for pod in _pods(cluster, job):
        if pod["spec"].get("nodeName"):
            continue
        for cond in pod.get("status", {}).get("conditions", []):
            if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
                out.append((cond.get("reason", ""), cond.get("message", "")))
    return out


def _words(reason: str) -> list[str]:
    """Volcano's words in a preflight reason (``<volcano> -- <ours>``), one per pod."""
    return reason.removeprefix("raygang (also): ").split(" -- ", 1)[0].split("; ")


def test_a_sub_gang_places_one_whole_replica_and_none_of_the_second(
    stack: LocalPulumi, gated: LocalCluster, predicted: dict[str, list[str]]
) -> None:
    reasons = predicted[WHOLE]
    preview = stack.run("preview", "--diff", "--stack", STACK)
    assert "subGroupPolicy" in preview.stdout
    assert "worker-group-replica-name" in preview.stdout

    with pytest.raises(PulumiError):
        stack.run("up", "--yes", "--skip-preview", "--stack", STACK)  # never ready
    spec = gated.get("podgroups.scheduling.volcano.sh", f"ray-{WHOLE}-pg", "-n", NS)["spec"]
    assert spec["minMember"] == 3 and spec["subGroupPolicy"][0]["subGroupSize"] == 2, spec
    # The gate's label: one replica name per two pods.
    names = [
        p["metadata"]["labels"].get("ray.io/worker-group-replica-name")
        for p in _pods(gated, WHOLE)
        if p["metadata"]["labels"].get("ray.io/node-type") == "worker"
    ]
    assert len(names) == 4 and len(set(names)) == 2 and None not in names, names

    wait_until(lambda: _bound_workers(gated, WHOLE) == 2, 90, "the sub-gang's first replica")
    wait_until(lambda: len(_unscheduled(gated, WHOLE)) == 2, 60, "Volcano's words on the rest")
    # Given time to do otherwise, Volcano binds no pod of the second replica.
    assert _bound_workers(gated, WHOLE) == 2
    heads = [
        p for p in _pods(gated, WHOLE) if p["metadata"]["labels"]["ray.io/node-type"] == "head"
    ]
    assert heads and heads[0]["spec"].get("nodeName") == NODES[WHOLE]

    said = _unscheduled(gated, WHOLE)
    print("volcano, sub-gangs:", said)
    print("preflight, sub-gangs:", reasons)
    # The preflight said it in Volcano's words: the fit error of the pod that found no
    # room, and the placement taken back of the replica's other pod (its name a pattern).
    (placement,) = [r for r in reasons if "taken back" in r]
    words = _words(placement)
    assert len(words) == 2, words
    kept_back = next(m for r, m in said if r == "Schedulable")
    assert sorted(said) == sorted(
        [("Unschedulable", words[0]), ("Schedulable", _named(words[1], kept_back))]
    ), (said, words)


def test_b_without_sub_gangs_half_a_replica_is_bound(
    stack: LocalPulumi, gated: LocalCluster, predicted: dict[str, list[str]]
) -> None:
    _write_stack(stack, [_job(WHOLE), _job(PLAIN)])
    reasons = predicted[PLAIN]
    with pytest.raises(PulumiError):
        stack.run("up", "--yes", "--skip-preview", "--stack", STACK)
    spec = gated.get("podgroups.scheduling.volcano.sh", f"ray-{PLAIN}-pg", "-n", NS)["spec"]
    assert spec["minMember"] == 3 and "subGroupPolicy" not in spec, spec
    # minMember 3 placed, then one more pod per turn until the node is full: half a replica.
    wait_until(lambda: _bound_workers(gated, PLAIN) == 3, 90, "the plain gang's 3 workers")
    wait_until(lambda: len(_unscheduled(gated, PLAIN)) == 1, 60, "Volcano's words on the rest")
    said = _unscheduled(gated, PLAIN)
    print("volcano, plain:", said)
    print("preflight, plain:", reasons)
    (placement,) = [r for r in reasons if "above minReplicas stay Pending" in r]
    assert said == [("Unschedulable", _words(placement)[0])], (said, placement)
    assert _bound_workers(gated, WHOLE) == 2  # still one whole replica


def _named(pattern: str, actual: str) -> str:
    """``actual`` when it is ``pattern`` with its pod name's ``*`` filled in."""
    regex = re.escape(pattern).replace(r"\*", "[a-z0-9]+")
    assert re.fullmatch(regex, actual), (pattern, actual)
    return actual


def test_destroy_leaves_nothing(stack: LocalPulumi, gated: LocalCluster) -> None:
    stack.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    for name in (WHOLE, PLAIN):
        gone = gated.kubectl("get", "rayclusters.ray.io", name, "-n", NS, check=False)
        assert gone.returncode != 0


def test_d_without_kuberay_s_gate_volcano_never_places_the_gang(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The session's shared control plane runs KubeRay v1.5 as it ships (the gate off): the
    pods get no replica label, no sub-group forms, and minSubGroups >= 1 leaves the gang
    invalid for Volcano (``CheckSubJobValid``), so no pod is ever bound."""
    name = "nogate-job"
    pulumi = make_pulumi(tools, cluster, tmp_path_factory.mktemp("nogate"), ())
    job = _job(WHOLE)
    job["metadata"]["name"] = name
    for spec in (
        job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"],
        job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"],
    ):
        spec.pop("nodeSelector")
    _write_stack(pulumi, [job])
    pulumi.run("stack", "init", STACK)
    try:
        with pytest.raises(PulumiError):
            pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK)
        pods = _pods(cluster, name)
        assert len(pods) == 5, [p["metadata"]["name"] for p in pods]
        assert not any("ray.io/worker-group-replica-name" in p["metadata"]["labels"] for p in pods)
        pg = f"ray-{name}-pg"
        wait_until(
            lambda: (
                cluster.get("podgroups.scheduling.volcano.sh", pg, "-n", NS)
                .get("status", {})
                .get("conditions")
            ),
            60,
            "a condition from Volcano",
        )
        status = cluster.get("podgroups.scheduling.volcano.sh", pg, "-n", NS)["status"]
        print("volcano, no gate:", status)
        # Inqueue, with room on the nodes, and a condition that blames resources (seen:
        # reason NotEnoughResources): the gang's pods are never bound.
        assert status["phase"] == "Inqueue"
        (condition,) = status["conditions"]
        assert condition["message"] == (
            "3/5 tasks in gang unschedulable: pod group is not ready, 3 minAvailable, "
            "5 Pending; Pending: 5 Unschedulable"
        )
        assert not [p for p in _pods(cluster, name) if p["spec"].get("nodeName")]
    finally:
        pulumi.run("destroy", "--yes", "--skip-preview", "--stack", STACK, check=False)
