"""A cleanup that fails: the finished job's RayCluster cannot be deleted (a finalizer of the
test's holds it), so the `up` that should delete it cannot finish.

The job shuts its cluster down when it finishes (DeleteCluster); kwok finishes the submitter
at once. While the deletion is blocked the case checks that the PodGroup is not zeroed while
the cluster's pods still hold resources (the `up` that deletes the cluster keeps its numbers:
raygang.lifecycle.release); it interrupts that `up` as a user would, runs the next one (which
must retry the deletion), then lifts the finalizer and checks that the job ends cleaned up,
its PodGroup zeroed, with the submitter run once and the record of its one attempt.
"""

from __future__ import annotations

import json
import time
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
    open_case,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAME = "fault-g"
FINALIZER = "raygang.dev/fault-suite-block"


@pytest.fixture(scope="module", autouse=True)
def unblocked(cluster: LocalCluster) -> Iterator[None]:
    yield
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
    case = open_case(
        project, cluster, NAME, [job(NAME, NAME, "g", shutdownAfterJobFinishes=True)],
        nodes=[case_node("g")], up=True,
    )  # fmt: skip
    case.finished(NAME)
    early = case.snapshot(NAME)
    rc = case.get(RC_KIND, NAME) or {}
    patch = {"metadata": {"finalizers": [*rc["metadata"].get("finalizers", []), FINALIZER]}}
    cluster.kubectl("patch", RC_KIND, NAME, "--type", "merge", "-p", json.dumps(patch))
    bound_at_start = len(case.bound(NAME))

    # The `up` that deletes the finished job's cluster: the deletion hangs on the finalizer.
    run = case.start_up()
    until(lambda: (case.get(RC_KIND, NAME) or {}).get("metadata", {}).get("deletionTimestamp"),
          600, "the RayCluster's deletion requested")  # fmt: skip
    samples: list[tuple[int, tuple[Any, Any]]] = []
    for _ in range(15):  # the PodGroup while the deletion is blocked and pods may remain
        samples.append((len(case.bound(NAME)), _pg(case)))
        time.sleep(1.0)  # a sampling interval, not a wait for anything
        if not run.alive():
            break
    blocked = case.get(RC_KIND, NAME) is not None and run.alive()
    zeroed_while_bound = [s for s in samples if s[0] and not s[1][0]]
    run.interrupt()
    run.popen.wait(timeout=180)
    first = run.text()
    held = _pg(case)

    # The next `up` must try the deletion again (it is still wanted).
    again = case.start_up()
    until(lambda: f"RayCluster default/{NAME}-raycluster deleting" in again.text(), 600,
          "the next `up` deleting the RayCluster again")  # fmt: skip
    _unblock(cluster)
    code = again.wait(900)
    until(lambda: case.get(RC_KIND, NAME) is None, 300, "the RayCluster gone")
    ups = case.converge()
    after = case.snapshot(NAME)
    end = _pg(case)
    changed = [
        k for k in ("record", "record uid", "podgroup uid", "submitter uid") if early[k] != after[k]
    ]
    gone = "; ".join(f"{k}: {early[k]!r} -> {after[k]!r}" for k in changed) or "nothing"
    record(
        "the finished job's RayCluster deletion blocked by a finalizer",
        f"{bound_at_start} pod(s) bound when the `up` began; it "
        f"{'hung on the deletion' if blocked else 'did not hang'}; (bound pods, PodGroup) while "
        f"blocked: {samples[0]} .. {samples[-1]}, zeroed while pods were bound: "
        f"{len(zeroed_while_bound)} of {len(samples)} samples; interrupted: "
        f"{'cancelled' if 'error' in first else 'ended'}, the PodGroup then {held}; the next "
        f"`up` retried the deletion and {'succeeded' if code == 0 else 'failed'} once the "
        f"finalizer was lifted; the PodGroup at the end: {end}",
        ups,
        gone,
    )
    assert blocked, first
    assert bound_at_start, "the finished job's pods should be bound when its cleanup begins"
    # The rule: the PodGroup is not zeroed while pods still hold resources. The `up` that
    # deletes the cluster keeps its numbers (its facts showed the cluster's pods bound) ...
    assert all(pg[0] for _, pg in samples) and held[0], (samples, held)
    assert not zeroed_while_bound, zeroed_while_bound
    # ... and it is zeroed once none is left: nothing of the queue is held for good.
    assert end == (0, {}), end
    case.clean()
    assert after["submitter pods"] == 1 and after["record"]["raygang.dev/attempt"] == "1"
    assert gone == "nothing", gone
