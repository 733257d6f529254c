"""The dev stack through the real engine, start to finish, as a platform engineer runs it.

The steps share one cluster and one Pulumi state and run in file order: preview, up, a
no-change preview, a scale-up, convergence from live facts once the job is done, the job
record's garbage collection, destroy.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, wait_until

from tests.e2e.conftest import make_pulumi

pytestmark = pytest.mark.e2e

STACK = "dev"
NS = "default"
JOB = "demo-job"
PG = f"ray-{JOB}-pg"
TYPES = {
    "Queue": "kubernetes:scheduling.volcano.sh/v1beta1:Queue",
    "ConfigMap": "kubernetes:core/v1:ConfigMap",
    "PodGroup": "kubernetes:scheduling.volcano.sh/v1beta1:PodGroup",
    "RayCluster": "kubernetes:ray.io/v1:RayCluster",
    "Job": "kubernetes:batch/v1:Job",
}


class Watch:
    """``kubectl get KIND --watch``: every event the API server sends, with its
    resourceVersion (etcd's global revision, so events of different kinds are ordered)."""

    def __init__(self, cluster: LocalCluster, kind: str) -> None:
        self.events: list[dict[str, Any]] = []
        self._proc = subprocess.Popen(
            [str(cluster.bin_dir / "kubectl"), "--kubeconfig", str(cluster.kubeconfig),
             "get", kind, "-n", NS, "--watch", "--output-watch-events", "-o", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        decoder = json.JSONDecoder()
        buffer = ""
        for line in self._proc.stdout:
            buffer += line
            try:
                event, end = decoder.raw_decode(buffer.strip())
            except json.JSONDecodeError:
                continue
            self.events.append(event)
            buffer = buffer.strip()[end:]

    def stop(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)
        self._thread.join(timeout=10)


@pytest.fixture(scope="module")
def dev(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    return make_pulumi(tools, cluster, tmp_path_factory.mktemp("dev"), (STACK,))


@pytest.fixture(scope="module")
def watches(cluster: LocalCluster) -> Iterator[dict[str, Watch]]:
    w = {kind: Watch(cluster, kind) for kind in ("rayclusters.ray.io", "jobs.batch")}
    yield w
    for watch in w.values():
        watch.stop()


def _stack_config(pulumi: LocalPulumi) -> tuple[Path, dict[str, Any]]:
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    return path, yaml.safe_load(path.read_text())


def _edit_job(pulumi: LocalPulumi, edit: Any) -> None:
    path, doc = _stack_config(pulumi)
    edit(doc["config"]["raygang:jobs"][0])
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def test_a_preview_lists_every_object_and_the_gang(
    dev: LocalPulumi, watches: dict[str, Watch]
) -> None:
    out = dev.run("preview", "--diff", "--stack", STACK).stdout
    for kind, token in TYPES.items():
        assert token in out, f"{kind} ({token}) missing from the preview:\n{out}"
    assert re.search(r"minMember\s*:\s*3\b", out), out
    assert re.search(r"cpu\s*:\s*\"5500m\"", out), out
    assert re.search(r"memory\s*:\s*\"10752Mi\"", out), out


def test_b_up_volcano_admits_the_gang_before_the_submitter_exists(
    dev: LocalPulumi, cluster: LocalCluster, watches: dict[str, Watch]
) -> None:
    dev.run("up", "--yes", "--skip-preview", "--stack", STACK)

    queue = cluster.get("queues.scheduling.volcano.sh", "ray-batch")
    assert queue["status"]["state"] == "Open"

    pg = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
    assert pg["spec"]["minMember"] == 3
    assert pg["spec"]["minResources"] == {"cpu": "5500m", "memory": "10752Mi"}
    # The record owns the PodGroup (its UID, as the job record's ConfigMap has it).
    record = cluster.get("configmap", JOB, "-n", NS)
    owners = pg["metadata"].get("ownerReferences", [])
    assert [(o["kind"], o["name"], o["uid"]) for o in owners] == [
        ("ConfigMap", JOB, record["metadata"]["uid"])
    ]

    rc = cluster.get("rayclusters.ray.io", JOB, "-n", NS)
    assert rc["status"]["state"] == "ready"

    pods = cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={JOB}")["items"]
    assert len(pods) == 3, [p["metadata"]["name"] for p in pods]
    for pod in pods:
        assert pod["spec"]["schedulerName"] == "volcano"
        assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == PG
        assert pod["spec"].get("nodeName", "").startswith("kwok-node-"), pod["metadata"]["name"]

    # The real Volcano placed the whole gang: the PodGroup left Pending and Inqueue.
    wait_until(
        lambda: (
            cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
            .get("status", {})
            .get("phase")
            in ("Running", "Completed")
        ),
        60,
        "PodGroup Running",
    )
    # KubeRay made no PodGroup of its own for our RayCluster.
    groups = cluster.get("podgroups.scheduling.volcano.sh", "-n", NS)["items"]
    assert [g["metadata"]["name"] for g in groups] == [PG]

    # The submitter Job was created only after KubeRay reported the cluster ready: compare
    # etcd revisions of the RayCluster's first `ready` event and the Job's creation.
    ready_rv = min(
        int(e["object"]["metadata"]["resourceVersion"])
        for e in watches["rayclusters.ray.io"].events
        if e["object"].get("status", {}).get("state") == "ready"
    )
    job_rv = min(
        int(e["object"]["metadata"]["resourceVersion"])
        for e in watches["jobs.batch"].events
        if e["type"] == "ADDED" and e["object"]["metadata"]["name"] == JOB
    )
    assert job_rv > ready_rv, (ready_rv, job_rv)

    # Its pod joins the same PodGroup and Volcano schedules it.
    def submitter_pod() -> dict[str, Any] | None:
        items = cluster.get("pods", "-n", NS, "-l", f"job-name={JOB}")["items"]
        return items[0] if items and items[0]["spec"].get("nodeName") else None

    pod = wait_until(submitter_pod, 60, "submitter pod scheduled")
    assert pod["spec"]["schedulerName"] == "volcano"
    assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == PG


def test_c_a_second_preview_changes_nothing(dev: LocalPulumi) -> None:
    done = dev.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_d_more_workers_show_in_the_diff_and_apply(dev: LocalPulumi, cluster: LocalCluster) -> None:
    def three_workers(job: dict[str, Any]) -> None:
        group = job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
        group.update(replicas=3, minReplicas=3, maxReplicas=3)

    record_uid = cluster.get("configmap", JOB, "-n", NS)["metadata"]["uid"]
    cluster_uid = cluster.get("rayclusters.ray.io", JOB, "-n", NS)["metadata"]["uid"]
    _edit_job(dev, three_workers)
    out = dev.run("preview", "--diff", "--stack", STACK).stdout
    # Updated in place: a replaced record would take everything it owns with it.
    assert "(replace)" not in out.replace("kubernetes:batch/v1:Job: (replace)", ""), out
    # 1 head + 3 workers; 1 + 3 x 2 + 0.5 cpu; 2Gi + 3 x 4Gi + 512Mi.
    assert re.search(r"minMember\s*:\s*3\s*=>\s*4", out), out
    assert re.search(r"cpu\s*:\s*\"5500m\"\s*=>\s*\"7500m\"", out), out
    assert re.search(r"memory\s*:\s*\"10752Mi\"\s*=>\s*\"14848Mi\"", out), out
    dev.run("up", "--yes", "--skip-preview", "--stack", STACK)
    pg = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
    assert pg["spec"]["minMember"] == 4
    # The same record and the same RayCluster, scaled by KubeRay, not recreated.
    assert cluster.get("configmap", JOB, "-n", NS)["metadata"]["uid"] == record_uid
    assert cluster.get("rayclusters.ray.io", JOB, "-n", NS)["metadata"]["uid"] == cluster_uid
    assert pg["spec"]["minResources"] == {"cpu": "7500m", "memory": "14848Mi"}
    wait_until(
        lambda: len(cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={JOB}")["items"]) == 4,
        60,
        "KubeRay scaling to 3 workers",
    )


def test_e_live_facts_converge_once_the_job_is_done(
    dev: LocalPulumi, cluster: LocalCluster
) -> None:
    # kwok finishes Job pods at once: the submitter has Succeeded.
    wait_until(
        lambda: cluster.get("jobs.batch", JOB, "-n", NS).get("status", {}).get("succeeded"),
        60,
        "submitter Job succeeded",
    )
    _edit_job(dev, lambda job: job["spec"].update(ttlSecondsAfterFinished=0))
    dev.config_set("raygang:liveFacts", True, STACK)
    dev.run("up", "--yes", "--skip-preview", "--stack", STACK)
    # Finished, TTL passed: the cluster is gone and the gang released, as KubeRay does it.
    wait_until(
        lambda: (
            cluster.kubectl("get", "rayclusters.ray.io", JOB, "-n", NS, check=False).returncode != 0
        ),
        60,
        "RayCluster deleted",
    )
    # The `up` that deletes the cluster keeps its gang in the PodGroup (its facts were read
    # while the cluster's pods still held their nodes); the next one, whose facts show none,
    # releases it (lifecycle/release.py).
    pg = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
    assert pg["spec"].get("minMember") == 4, pg["spec"]
    dev.run("up", "--yes", "--skip-preview", "--stack", STACK)
    pg = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
    # Zero is Volcano's omitempty default: its mutating webhook drops the field.
    assert pg["spec"].get("minMember", 0) == 0, pg["spec"]
    assert not pg["spec"].get("minResources"), pg["spec"]
    done = dev.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_f_deleting_the_record_collects_what_it_owns(
    dev: LocalPulumi, cluster: LocalCluster
) -> None:
    cluster.kubectl("delete", "configmap", JOB, "-n", NS, "--wait=true")

    owned = {
        "podgroups.scheduling.volcano.sh": PG,
        "rayclusters.ray.io": JOB,
        "jobs.batch": JOB,
    }

    def gone() -> bool:
        left = [
            kind
            for kind, name in owned.items()
            if cluster.kubectl("get", kind, name, "-n", NS, check=False).returncode == 0
        ]
        return not left

    wait_until(gone, 60, "the garbage collector removing what the record owns")


def test_g_destroy_leaves_nothing_of_ours(dev: LocalPulumi, cluster: LocalCluster) -> None:
    dev.run("destroy", "--yes", "--skip-preview", "--refresh", "--stack", STACK)
    assert cluster.kubectl("get", "queues.scheduling.volcano.sh", "ray-batch",
                           check=False).returncode != 0  # fmt: skip
    for kind in ("configmaps", "podgroups.scheduling.volcano.sh", "rayclusters.ray.io",
                 "jobs.batch"):  # fmt: skip
        items = cluster.get(kind, "-n", NS)["items"]
        ours = [
            i["metadata"]["name"]
            for i in items
            if i["metadata"]["name"] in (JOB, PG)
            or i["metadata"].get("labels", {}).get("app.kubernetes.io/managed-by") == "raygang"
        ]
        assert not ours, (kind, ours)
