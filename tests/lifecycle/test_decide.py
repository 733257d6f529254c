"""The dispatcher: the checks before a decision, the plan without facts, and what every
phase declares alike (the queue, the job record, the PodGroup's replacement paths)."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest
from raygang.kuberay.settings import JobSettings
from raygang.lifecycle.decide import decide
from raygang.lifecycle.declared import PODGROUP_REPLACE_PATHS
from raygang.lifecycle.facts.gather import gather_facts
from raygang.plan import plan_job
from raygang.rayjob.spec import parse_rayjob
from raygang.volcano.queue import parse_queue

from tests.lifecycle.conftest import (
    BASE_SID,
    BEFORE_TTL,
    DONE,
    facts,
    plan_of,
    rayjob,
    rec,
    roles,
    rules_job,
    snapshot,
)


def test_without_facts_the_job_is_planned_as_new() -> None:
    plan = plan_of(rayjob())
    decided = decide(plan, None, DONE)
    assert decided.phase == "new"
    assert decided.actions == ()
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    for role in ("raycluster", "submitter"):
        assert decided.resource(role) == plan.resource(role)
    assert rec(decided)["raygang.dev/attempt"] == "1"
    assert rec(decided)["raygang.dev/base-submission-id"] == BASE_SID
    assert decided.resource("podgroup").replace_on_changes == PODGROUP_REPLACE_PATHS  # type: ignore[union-attr]
    assert decided.submission_id == BASE_SID


def test_podgroup_replacement_paths_are_declared_in_every_phase() -> None:
    # While running a change never reaches Pulumi (it is refused), so the option only acts
    # on jobs that are not running, and the declared objects stay the same across phases.
    for name, now in (("running.yaml", DONE), ("succeeded.yaml", BEFORE_TTL)):
        decided = decide(plan_of(rayjob()), facts(snapshot(name)), now)
        podgroup = decided.resource("podgroup")
        assert podgroup is not None and podgroup.replace_on_changes == PODGROUP_REPLACE_PATHS


def test_a_declared_queue_stays_declared_in_every_phase() -> None:
    queue = parse_queue(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": "kuberay-test-queue"},
            "spec": {"weight": 1, "capability": {"cpu": "4", "memory": "6Gi"}},
        },
        "queue.yaml",
    )
    raw = rules_job(("DeleteSelf", "SUCCEEDED", 0))
    plan = plan_job(parse_rayjob(raw, "rayjob.yaml"), JobSettings(), {queue.name: queue})
    for name in ("running.yaml", "succeeded.yaml"):
        decided = decide(plan, facts(snapshot(name)), BEFORE_TTL)
        assert roles(decided)[0] == "queue"
        record = decided.resource("record")
        assert record is not None and record.depends_on == ("Queue/kuberay-test-queue",)
    assert roles(decided) == ["queue", "record"]  # DeleteSelf: the shared queue stays


def test_cluster_selector_is_refused() -> None:
    plan = plan_of(rayjob())
    raw = rayjob(clusterSelector={"ray.io/cluster": "shared"})
    selector_plan = dataclasses.replace(plan, item=parse_rayjob(raw, "rayjob.yaml"))
    with pytest.raises(ValueError, match="existing RayCluster"):
        decide(selector_plan, None, DONE)


def test_naive_now_and_foreign_facts_are_refused() -> None:
    plan = plan_of(rayjob())
    with pytest.raises(ValueError, match="timezone-aware"):
        decide(plan, None, datetime(2026, 11, 29, 10, 0))
    other = gather_facts(snapshot("running.yaml"), "ml", "someone-else")
    with pytest.raises(ValueError, match="cannot decide"):
        decide(plan, other, DONE)
