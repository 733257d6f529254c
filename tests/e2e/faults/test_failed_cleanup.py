"""A cleanup that fails: the finished job's RayCluster cannot be deleted (a finalizer of the
test's holds it), so the `up` that should delete it cannot finish.

The job shuts its cluster down when it finishes (DeleteCluster); kwok finishes the submitter
at once. While the deletion is blocked the case checks that the PodGroup is not zeroed as long
as the cluster's pods still hold resources; it interrupts that `up` as a user would, runs the
next one (which must retry the deletion), then lifts the finalizer and checks that the job
ends cleaned up, with the submitter run once and the record of its one attempt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.conftest import make_pulumi
from tests.e2e.faults.conftest import record
from tests.e2e.faults.harness import (
    PG_KIND,
    RC_KIND,
    Case,
    case_node,
    job,
    queue,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAME = "fault-g"
FINALIZER = "raygang.dev/fault-suite-block"


@pytest.fixture(scope="module")
def project(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalPulumi]:
    yield make_pulumi(tools, cluster, tmp_path_factory.mktemp("faults-cleanup"), ())
    _unblock(cluster)  # pass or fail, nothing of ours stays stuck


def _unblock(cluster: LocalCluster) -> None:
    rc = cluster.kubectl("get", RC_KIND, NAME, "-o", "json", check=False)
    if rc.returncode == 0:
        kept = [
            f for f in json.loads(rc.stdout)["metadata"].get("finalizers", []) if f != FINALIZER
        ]
        patch = json.dumps({"metadata": {"finalizers": kept or None}})
        cluster.kubectl("patch", RC_KIND, NAME, "--type", "merge", "-p", patch)


def _pg(case: Case) -> tuple[Any, Any]:
    spec = (case.get(PG_KIND, f"ray-{NAME}-pg") or {}).get("spec", {})
    return spec.get("minMember", 0), spec.get("minResources") or {}


def test_g_a_cleanup_blocked_by_a_finalizer(project: LocalPulumi, cluster: LocalCluster) -> None:
    cluster.add_nodes([case_node("g")])
    case = Case(project, cluster, "fault-g")
    case.write([job(NAME, "fault-g", "g", shutdownAfterJobFinishes=True)], [queue("fault-g")])
    case.init()
    assert case.up().returncode == 0, case.outputs[-1]
    until(lambda: (case.get("jobs.batch", NAME) or {}).get("status", {}).get("succeeded"), 300,
          "the submitter Job succeeded")  # fmt: skip
    early = case.snapshot(NAME)
    rc = case.get(RC_KIND, NAME) or {}
    patch = {"metadata": {"finalizers": [*rc["metadata"].get("finalizers", []), FINALIZER]}}
    cluster.kubectl("patch", RC_KIND, NAME, "--type", "merge", "-p", json.dumps(patch))

    # The `up` that deletes the finished job's cluster: the deletion hangs on the finalizer.
    run = case.start_up()
    until(lambda: (case.get(RC_KIND, NAME) or {}).get("metadata", {}).get("deletionTimestamp"),
          600, "the RayCluster's deletion requested")  # fmt: skip
    samples: list[tuple[int, tuple[Any, Any]]] = []
    for _ in range(15):  # the PodGroup while the deletion is blocked and pods may remain
        samples.append((len(case.pods(NAME)), _pg(case)))
        time.sleep(1.0)  # a sampling interval, not a wait for anything
        if not run.alive():
            break
    blocked = case.get(RC_KIND, NAME) is not None and run.alive()
    zeroed_with_pods = [s for s in samples if s[0] and not s[1][0]]
    run.interrupt()
    run.popen.wait(timeout=180)
    first = run.text()

    # The next `up` must try the deletion again (it is still wanted).
    again = case.start_up()
    until(lambda: f"RayCluster default/{NAME}-raycluster deleting" in again.text(), 600,
          "the next `up` deleting the RayCluster again")  # fmt: skip
    _unblock(cluster)
    code = again.wait(900)
    until(lambda: case.get(RC_KIND, NAME) is None, 300, "the RayCluster gone")
    ups = case.converge()
    after = case.snapshot(NAME)
    changed = [
        k for k in ("record", "record uid", "podgroup uid", "submitter uid") if early[k] != after[k]
    ]
    gone = "; ".join(f"{k}: {early[k]!r} -> {after[k]!r}" for k in changed) or "nothing"
    record(
        "the finished job's RayCluster deletion blocked by a finalizer",
        f"the `up` {'hung on the deletion' if blocked else 'did not hang'} "
        f"(pods, PodGroup) while blocked: {samples[0]} .. {samples[-1]}; interrupted: "
        f"{'cancelled' if 'error' in first else 'ended'}; the next `up` retried the deletion and "
        f"{'succeeded' if code == 0 else 'failed'} once the finalizer was lifted; "
        f"the PodGroup at the end: {_pg(case)}",
        ups,
        gone + ("" if not zeroed_with_pods else f"; ZEROED WHILE PODS HELD: {zeroed_with_pods}"),
    )
    assert blocked, first
    # Not asserted: whether the PodGroup was sampled zeroed while pods remained depends on
    # when the pods went (raygang zeroes it in the `up` that deletes the cluster, as KubeRay's
    # CleanupOnCompletion does on a deletionTimestamp); the table shows what was seen.
    case.clean()
    assert after["submitter pods"] == 1 and after["record"]["raygang.dev/attempt"] == "1"
    assert gone == "nothing", gone
