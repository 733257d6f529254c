"""activeDeadlineSeconds and preRunningDeadlineSeconds, as KubeRay v1.6's controller applies them.

The fixture cluster was created at 08:58:42 (the attempt's start); its submitter Job exists
from 09:00:10 (the job has reached Running).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import RECORD_REASON, RECORD_RESULT
from raygang.lifecycle.deadlines import next_deadline, passed_deadline
from raygang.lifecycle.decide import decide
from raygang.lifecycle.facts.clock import parse_now

from tests.lifecycle.conftest import (
    NAME,
    NO_SUBMITTER,
    NS,
    converge,
    facts,
    plan_of,
    rayjob,
    res,
    roles,
    snapshot,
)

START = parse_now("2026-11-29T08:58:42Z")


def test_the_active_deadline_is_checked_before_the_pre_running_one() -> None:
    # Both passed: KubeRay's Initializing case checks activeDeadlineSeconds first.
    passed = passed_deadline(START, 60, 30, False, START + timedelta(seconds=60))
    assert passed is not None and passed.reason == "DeadlineExceeded"
    assert passed.at == START + timedelta(seconds=60)  # due exactly at start + deadline
    passed = passed_deadline(START, 60, 30, False, START + timedelta(seconds=30))
    assert passed is not None and passed.reason == "PreRunningDeadlineExceeded"
    assert passed_deadline(START, 60, 30, False, START + timedelta(seconds=29)) is None


def test_the_pre_running_deadline_ends_once_the_job_runs() -> None:
    assert passed_deadline(START, None, 30, True, START + timedelta(hours=1)) is None
    assert next_deadline(START, None, 30, True) is None
    assert next_deadline(START, 600, 30, False) == START + timedelta(seconds=30)
    # Nothing of the attempt exists yet: nothing to count from.
    assert passed_deadline(None, 1, 1, False, START) is None


def test_a_running_job_is_failed_at_its_active_deadline_and_never_retried() -> None:
    plan = plan_of(rayjob(activeDeadlineSeconds=3600, backoffLimit=2))
    running = snapshot("running.yaml")
    before = decide(plan, facts(running), START + timedelta(seconds=3599))
    assert before.phase == "running"
    assert before.next_change_at == START + timedelta(seconds=3600)

    after = decide(plan, facts(running), START + timedelta(seconds=3600))
    life = after
    assert (life.phase, life.result) == ("failed", "failed")  # backoffLimit 2, not retried
    assert life.finished_at == START + timedelta(seconds=3600)
    assert any("spec.activeDeadlineSeconds 3600 passed" in r for r in life.reasons), life.reasons
    record = res(after, "record")["metadata"]["annotations"]
    assert (record[RECORD_RESULT], record[RECORD_REASON]) == ("failed", "DeadlineExceeded")


def _with_succeeded_submitter(snap: ClusterSnapshot) -> ClusterSnapshot:
    job = dict(snap.get("Job", NS, NAME) or {})
    job["status"] = {
        "succeeded": 1,
        "conditions": [
            {"type": "Complete", "status": "True", "lastTransitionTime": "2026-11-29T10:30:00Z"}
        ],
    }
    return snapshot_from_objects([*snap.objects.values(), job], "late")


def test_a_job_failed_on_its_deadline_stays_failed_when_its_submitter_finishes_later() -> None:
    plan = plan_of(rayjob(activeDeadlineSeconds=3600))
    now = START + timedelta(hours=2)
    failed = converge(snapshot("running.yaml"), decide(plan, facts(snapshot("running.yaml")), now))
    # The `up` after the one that deleted the cluster zeroes its PodGroup.
    failed = converge(failed, decide(plan, facts(failed), now))
    late = decide(plan, facts(_with_succeeded_submitter(failed)), now)
    assert (late.phase, late.result) == ("failed", "failed")
    assert late.finished_at == START + timedelta(seconds=3600)
    assert late.changes == (), late.changes


def _not_running(snap: ClusterSnapshot) -> ClusterSnapshot:
    """The attempt before its submitter: a RayCluster that never became ready."""
    cluster = dict(snap.get("RayCluster", NS, NAME) or {})
    cluster["status"] = {}
    objects = {k: v for k, v in snap.objects.items() if k != ("Job", NS, NAME)}
    objects[("RayCluster", NS, NAME)] = cluster
    return snapshot_from_objects(list(objects.values()), "stuck")


@pytest.mark.parametrize(("backoff", "phase"), [(0, "failed"), (1, "retrying")])
def test_a_cluster_never_ready_is_failed_at_its_pre_running_deadline(
    backoff: int, phase: str
) -> None:
    # PreRunningDeadlineExceeded is retried while backoffLimit allows (only DeadlineExceeded
    # is excluded in KubeRay's checkBackoffLimitAndUpdateStatusIfNeeded).
    plan = plan_of(
        rayjob(
            preRunningDeadlineSeconds=600,
            backoffLimit=backoff,
            shutdownAfterJobFinishes=True,
            ttlSecondsAfterFinished=0,
        )
    )
    stuck = _not_running(snapshot("running.yaml"))
    # raygang calls a job whose cluster exists "running"; KubeRay would say Initializing.
    assert decide(plan, facts(stuck), START + timedelta(seconds=599)).phase == "running"
    decided = decide(plan, facts(stuck), START + timedelta(seconds=600))
    life = decided
    assert life.phase == phase
    assert any("spec.preRunningDeadlineSeconds 600 passed before" in r for r in life.reasons)
    if phase == "failed":
        # shutdownAfterJobFinishes: the cluster goes and the PodGroup holds nothing of the
        # queue any more, so a gang waiting in the same queue can be admitted.
        assert "raycluster" not in roles(decided)
        # Held by the `up` that deletes the cluster (its pods may still be bound) ...
        pg = res(decided, "podgroup")["spec"]
        assert (pg.get("minMember"), pg.get("minResources")) == (3, NO_SUBMITTER)
        # ... and zeroed by the next one, the cluster gone.
        gone = converge(stuck, decided)
        pg = res(decide(plan, facts(gone), START + timedelta(seconds=600)), "podgroup")["spec"]
        assert (pg.get("minMember"), pg.get("minResources")) == (None, {})  # 0 is left out
