"""Two lifecycle edges the real engine found, through `pulumi up` on the local control plane.

* A RayJob applied with ``spec.suspend: true`` (a Kueue-managed job waiting for admission)
  must start nothing: KubeRay never creates a RayCluster for it. Clearing ``suspend`` starts
  it.
* A queue change of a job that is not running replaces its PodGroup in one ``up``: the old
  one is deleted first (its name is fixed; a replacement created first met a server-side
  apply conflict on ``.spec.queue``). While the job runs the change is refused, from live
  facts and from a snapshot alike.

The steps share one stack and run in file order.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, PulumiError, wait_until

from tests.e2e.conftest import make_pulumi
from tests.e2e.jobs import small_rayjob

pytestmark = pytest.mark.e2e

STACK = "edges"
NS = "default"
HELD = "held-job"  # applied suspended, K8sJobMode
BUSY = "busy-job"  # SidecarMode: on kwok its head never finishes, so it stays running
PG_KIND = "podgroups.scheduling.volcano.sh"


def _job(name: str, queue: str, **spec: Any) -> dict[str, Any]:
    return small_rayjob(name, queue, namespace=NS, **spec)


def _held(queue: str, **spec: Any) -> dict[str, Any]:
    # KubeRay suspends only a job that shuts its cluster down when it finishes; the TTL keeps
    # the finished job's cluster for the steps after it.
    return _job(HELD, queue, shutdownAfterJobFinishes=True, ttlSecondsAfterFinished=3600, **spec)


def _queue(name: str) -> dict[str, Any]:
    return {"name": name, "spec": {"weight": 1, "capability": {"cpu": "8", "memory": "16Gi"}}}


def _write_stack(pulumi: LocalPulumi, jobs: list[dict[str, Any]], **extra: Any) -> None:
    config: dict[str, Any] = {
        "raygang:queues": [_queue("edge-a"), _queue("edge-b")],
        "raygang:clusterReadyTimeoutSeconds": 180,
        "raygang:jobs": jobs,
        **extra,
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    kept = yaml.safe_load(path.read_text()) if path.exists() else {}
    kept = kept or {}
    kept["config"] = config  # the encryption salt `stack init` wrote stays
    path.write_text(yaml.safe_dump(kept, sort_keys=False))


@pytest.fixture(scope="module")
def edges(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    workdir = tmp_path_factory.mktemp("edges")
    pulumi = make_pulumi(tools, cluster, workdir, ())
    _write_stack(pulumi, [_held("edge-a", suspend=True)])
    pulumi.run("stack", "init", STACK)
    return pulumi


def _exists(cluster: LocalCluster, kind: str, name: str) -> bool:
    return cluster.kubectl("get", kind, name, "-n", NS, check=False).returncode == 0


def _up(pulumi: LocalPulumi) -> None:
    pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK)


def _no_changes(pulumi: LocalPulumi) -> None:
    done = pulumi.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_a_job_applied_suspended_starts_nothing(
    edges: LocalPulumi, cluster: LocalCluster
) -> None:
    _up(edges)
    assert cluster.get("configmap", HELD, "-n", NS)["metadata"]["name"] == HELD
    pg = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)
    # Zeroed, so it holds none of the queue; Volcano's webhook drops a zero minMember.
    assert pg["spec"].get("minMember", 0) == 0, pg["spec"]
    assert not pg["spec"].get("minResources"), pg["spec"]
    assert not _exists(cluster, "rayclusters.ray.io", HELD)
    assert not _exists(cluster, "jobs.batch", HELD)
    assert cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={HELD}")["items"] == []
    _no_changes(edges)


def _pg_line(out: str) -> str:
    lines = [line for line in out.splitlines() if "PodGroup" in line and "replace" in line]
    return "\n".join(lines)


def test_b_a_queue_change_of_a_suspended_job_applies_in_one_up(
    edges: LocalPulumi, cluster: LocalCluster
) -> None:
    # Not running: the PodGroup is replaced, the old one deleted first (its name is fixed).
    before = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)["metadata"]["uid"]
    _write_stack(edges, [_held("edge-b", suspend=True)])
    out = edges.run("preview", "--diff", "--stack", STACK).stdout
    assert _pg_line(out), out
    _up(edges)
    pg = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)
    assert pg["spec"]["queue"] == "edge-b"
    assert pg["metadata"]["uid"] != before
    _no_changes(edges)


def test_c_clearing_suspend_starts_it(edges: LocalPulumi, cluster: LocalCluster) -> None:
    _write_stack(edges, [_held("edge-b", suspend=False)])
    _up(edges)
    assert cluster.get("rayclusters.ray.io", HELD, "-n", NS)["status"]["state"] == "ready"
    pg = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)
    # 1 head + 1 worker; the submitter's 500m/200Mi are reserved, it is not a member.
    assert pg["spec"]["minMember"] == 2
    assert pg["spec"]["minResources"] == {"cpu": "2500m", "memory": "2248Mi"}
    assert _exists(cluster, "jobs.batch", HELD)
    _no_changes(edges)


def test_d_with_live_facts_a_finished_job_moves_in_one_up(
    edges: LocalPulumi, cluster: LocalCluster
) -> None:
    # kwok finishes the submitter's pod at once: the job is done, nothing runs.
    wait_until(
        lambda: cluster.get("jobs.batch", HELD, "-n", NS).get("status", {}).get("succeeded"),
        60,
        "submitter Job succeeded",
    )
    before = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)["metadata"]["uid"]
    _write_stack(edges, [_held("edge-a")], **{"raygang:liveFacts": True})
    _up(edges)
    pg = cluster.get(PG_KIND, f"ray-{HELD}-pg", "-n", NS)
    assert pg["spec"]["queue"] == "edge-a"
    assert pg["metadata"]["uid"] != before
    # Finished, the cluster kept: KubeRay's cleanup recomputes the gang without the submitter.
    assert pg["spec"]["minResources"] == {"cpu": "2", "memory": "2Gi"}
    _no_changes(edges)


def _refusal(done_out: str) -> bool:
    return bool(
        re.search(
            rf"changes PodGroup {NS}/ray-{BUSY}-pg spec\.queue from 'edge-a' to 'edge-b' "
            r"while the job is running",
            done_out,
        )
    )


def test_e_a_queue_change_of_a_running_job_is_refused(
    edges: LocalPulumi, cluster: LocalCluster
) -> None:
    held = _held("edge-a")
    busy = _job(BUSY, "edge-a", submissionMode="SidecarMode")
    _write_stack(edges, [held, busy], **{"raygang:liveFacts": True})
    _up(edges)
    assert cluster.get("rayclusters.ray.io", BUSY, "-n", NS)["status"]["state"] == "ready"
    moved = copy.deepcopy(busy)
    moved["metadata"]["labels"]["volcano.sh/queue-name"] = "edge-b"

    # From live facts.
    _write_stack(edges, [held, moved], **{"raygang:liveFacts": True})
    with pytest.raises(PulumiError) as caught:
        edges.run("preview", "--diff", "--stack", STACK)
    assert _refusal(caught.value.stdout + caught.value.stderr), caught.value

    # From a snapshot, as `kubectl get ... -o yaml` writes it.
    snap = cluster.kubectl(
        "get",
        "configmaps,jobs.batch,rayclusters.ray.io,podgroups.scheduling.volcano.sh,pods",
        "-n",
        NS,
        "-o",
        "yaml",
    ).stdout
    (edges.project / "cluster.yaml").write_text(snap)
    _write_stack(edges, [held, moved], **{"raygang:clusterSnapshot": "cluster.yaml"})
    with pytest.raises(PulumiError) as caught:
        edges.run("preview", "--diff", "--stack", STACK)
    assert _refusal(caught.value.stdout + caught.value.stderr), caught.value

    # Nothing was changed: the running job is still in its queue.
    assert cluster.get(PG_KIND, f"ray-{BUSY}-pg", "-n", NS)["spec"]["queue"] == "edge-a"
    _write_stack(edges, [held, busy], **{"raygang:liveFacts": True})
    _no_changes(edges)


def test_f_destroy_leaves_nothing(edges: LocalPulumi, cluster: LocalCluster) -> None:
    edges.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    for name in (HELD, BUSY):
        for kind in ("configmap", PG_KIND, "rayclusters.ray.io", "jobs.batch"):
            target = f"ray-{name}-pg" if kind == PG_KIND else name
            assert not _exists(cluster, kind, target), (kind, target)
    for queue in ("edge-a", "edge-b"):
        assert cluster.kubectl("get", "queues.scheduling.volcano.sh", queue,
                               check=False).returncode != 0  # fmt: skip
