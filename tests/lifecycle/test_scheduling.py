"""The PodGroup's scheduling fields: refused while the job runs, a replacement otherwise."""

from __future__ import annotations

import pytest
from raygang.kube.errors import SpecError
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BEFORE_TTL,
    DONE,
    PG,
    assert_idempotent,
    facts,
    plan_of,
    rayjob,
    snapshot,
)


def test_queue_change_while_running_is_refused() -> None:
    plan = plan_of(rayjob(labels={"volcano.sh/queue-name": "other-queue"}))
    with pytest.raises(SpecError) as caught:
        decide(plan, facts(snapshot("running.yaml")), DONE)
    problem = caught.value.problems[0]
    assert problem.path == "metadata.labels['volcano.sh/queue-name']"
    assert "'kuberay-test-queue' to 'other-queue'" in problem.message
    assert "finish or suspend the job first" in problem.accepted


def test_priority_change_while_running_is_refused() -> None:
    labels = {"volcano.sh/queue-name": "kuberay-test-queue", "ray.io/priority-class-name": "high"}
    with pytest.raises(SpecError) as caught:
        decide(plan_of(rayjob(labels=labels)), facts(snapshot("running.yaml")), DONE)
    assert [p.path for p in caught.value.problems] == [
        "metadata.labels['ray.io/priority-class-name']"
    ]


def test_queue_change_of_a_finished_job_replaces_the_podgroup() -> None:
    plan = plan_of(rayjob(labels={"volcano.sh/queue-name": "other-queue"}))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    podgroup = decided.resource("podgroup")
    assert podgroup is not None
    assert podgroup.manifest["spec"]["queue"] == "other-queue"
    assert podgroup.replace_on_changes == (
        "spec.queue",
        "spec.priorityClassName",
        "spec.networkTopology",
    )
    assert (
        f"replace PodGroup/{PG}: spec.queue 'kuberay-test-queue' -> 'other-queue' "
        "(Volcano reads it only at creation)" in decided.changes
    )
    assert decided.ignore_changes == {"submitter": ("spec",)}  # the Job is not re-run
    assert_idempotent(plan, before, BEFORE_TTL)


def test_queue_change_of_a_suspended_job_replaces_the_podgroup() -> None:
    plan = plan_of(rayjob(suspend=True, labels={"volcano.sh/queue-name": "other-queue"}))
    before = snapshot("suspended.yaml")
    decided = decide(plan, facts(before), DONE)
    assert any(a.startswith(f"replace PodGroup/{PG}: spec.queue") for a in decided.changes)
    assert_idempotent(plan, before, DONE)
