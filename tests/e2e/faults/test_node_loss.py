"""A gang member lost: the kwok node holding a running job's worker is deleted.

The job runs in SidecarMode (on kwok its head never finishes, so it stays running). Its head
and its worker are held on two nodes of their own; the worker's node is deleted. What
follows is the control plane's: the pod garbage collector deletes the pod bound to a node that
is gone, KubeRay makes a new worker, Volcano cannot place it until a node fits. The case
records what each did and what the next `up` declares, in the lifecycle's words
(``raygang plan --cluster`` on a snapshot taken then), and that once a node is back the job
is whole again with the same record, PodGroup and RayCluster.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.faults.conftest import record
from tests.e2e.faults.harness import (
    PG_KIND,
    RC_KIND,
    Case,
    case_node,
    job,
    lost,
    open_case,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAME = "fault-e"
SNAPSHOT_KINDS = "nodes,pods,queues,podgroups,rayclusters,jobs,configmaps"


@pytest.fixture(scope="module", autouse=True)
def node_back(cluster: LocalCluster) -> Iterator[None]:
    yield
    # The worker's node comes back even when the case fails, for the cases after it.
    if cluster.kubectl("get", "node", "fault-e-w", check=False).returncode != 0:
        cluster.add_nodes([case_node("e-w")])


def _lifecycle(pulumi: LocalPulumi, cluster: LocalCluster, stack: str) -> dict[str, Any]:
    """What the next `up` declares for the job, from a snapshot of the cluster now."""
    snap = pulumi.project / "node-loss-snapshot.yaml"
    snap.write_text(cluster.kubectl("get", SNAPSHOT_KINDS, "-A", "-o", "yaml").stdout)
    done = subprocess.run(
        [sys.executable, "-m", "raygang", "plan", "--stack", stack, "--project-dir",
         str(pulumi.project), "--cluster", str(snap), "--format", "json", "--preflight", "off"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    jobs = json.loads(done.stdout)["jobs"]
    found: dict[str, Any] = next(j["lifecycle"] for j in jobs if j["name"] == NAME)
    return found


def _worker(case: Case) -> dict[str, Any] | None:
    return next((p for p in case.pods(NAME) if "worker" in p["metadata"]["name"]), None)


def test_e_the_node_of_a_running_worker_is_deleted(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    case = open_case(
        project, cluster, NAME, [job(NAME, NAME, "e", "e-w", submissionMode="SidecarMode")],
        nodes=[case_node("e"), case_node("e-w")], up=True,
    )  # fmt: skip
    assert case.ready(NAME)
    case.converge()
    early = case.snapshot(NAME)
    lost_pod = _worker(case)
    assert lost_pod and lost_pod["spec"]["nodeName"] == "fault-e-w"
    ups_before = case.ups

    cluster.delete_node("fault-e-w")
    assert cluster.kubectl("get", "node", "fault-e-w", check=False).returncode != 0
    # The pod garbage collector deletes a pod whose node is gone (after its quarantine).
    until(
        lambda: all(p["metadata"]["uid"] != lost_pod["metadata"]["uid"] for p in case.pods(NAME)),
        300,
        "the lost worker's pod deleted",
    )
    new_pod = until(lambda: _worker(case), 300, "KubeRay's new worker pod")
    assert not new_pod["spec"].get("nodeName")  # nowhere to go: no node fits
    pg = case.get(PG_KIND, f"ray-{NAME}-pg") or {}
    rc = case.get(RC_KIND, NAME) or {}
    words = _lifecycle(project, cluster, case.stack)
    quiet = case.no_changes()  # what the `up` then would change, with live facts
    assert case.up().returncode == 0, case.outputs[-1]

    cluster.add_nodes([case_node("e-w")])
    until(lambda: (_worker(case) or {}).get("spec", {}).get("nodeName"), 300,
          "the new worker placed")  # fmt: skip
    until(lambda: case.ready(NAME), 300, "the RayCluster ready")
    ups = case.converge() - ups_before
    before = case.snapshot(NAME)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(NAME)
    assert after["ray pods"] == 2
    gone = lost(early, before, after)
    record(
        "the kwok node of a running job's worker deleted",
        f"the pod GC deleted the worker's pod; KubeRay made a new one, Pending; the PodGroup "
        f"{pg.get('status', {}).get('phase')} ({pg.get('status', {}).get('running')} running, "
        f"minMember {pg.get('spec', {}).get('minMember')}); RayCluster state "
        f"{rc.get('status', {}).get('state')!r}; the lifecycle then: phase {words['phase']}, "
        f"actions {words.get('actions')}, reasons {words.get('reasons')}; the `up` then "
        f"{'changed nothing' if quiet else 'changed something'}; "
        "with a node back the new worker was placed",
        ups,
        gone,
    )
    case.clean()
    assert gone == "nothing", gone
