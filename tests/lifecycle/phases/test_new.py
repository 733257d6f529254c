"""The ``new`` phase: every object of the attempt, for a job not started or resumed."""

from __future__ import annotations

from raygang.kube.snapshot import ClusterSnapshot
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BASE_SID,
    DONE,
    FULL,
    NAME,
    PG,
    assert_idempotent,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    snapshot,
)


def test_new_when_nothing_exists_yet() -> None:
    plan = plan_of(rayjob())
    empty = ClusterSnapshot("empty")
    decided = decide(plan, facts(empty), DONE)
    assert decided.phase == "new"
    assert decided.changes == (
        f"create ConfigMap/{NAME} (job record)",
        f"create PodGroup/{PG} (minMember 3, cpu 3500m, memory 4296Mi)",
        f"create RayCluster/{NAME}",
        f"create Job/{NAME} (submits {BASE_SID})",
    )
    again = assert_idempotent(plan, empty, DONE)
    assert again.phase == "running"  # the objects exist now


def test_resume_plans_the_job_as_new() -> None:
    plan = plan_of(rayjob(suspend=False))
    before = snapshot("suspended.yaml")
    decided = decide(plan, facts(before), DONE)
    assert decided.phase == "new"
    assert pg_gang(decided) == (3, FULL)
    assert f"create RayCluster/{NAME}" in decided.changes
    assert f"create Job/{NAME} (submits {BASE_SID})" in decided.changes
    assert any(a.startswith(f"set PodGroup/{PG} to minMember 3") for a in decided.changes)
    assert_idempotent(plan, before, DONE)
