"""The ``running`` phase: a spec edit updates the cluster and the gang, never the submission."""

from __future__ import annotations

from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BASE_SID,
    BEFORE_TTL,
    DONE,
    NAME,
    assert_idempotent,
    converge,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    rec,
    res,
    sid_of,
    snapshot,
    with_job_status,
)


def test_cluster_spec_change_while_running_updates_cluster_and_gang_not_the_submission() -> None:
    raw = rayjob()
    group = raw["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
    group.update(replicas=3, minReplicas=3, maxReplicas=3)
    plan = plan_of(raw)
    assert plan.submission_id != BASE_SID  # the derived ID covers the cluster spec
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    assert decided.phase == "running"
    assert decided.submission_id == BASE_SID  # pinned to the running submission
    assert sid_of(res(decided, "submitter")) == BASE_SID
    assert res(decided, "raycluster")["spec"]["workerGroupSpecs"][0]["replicas"] == 3
    assert pg_gang(decided) == (4, {"cpu": "4500m", "memory": "5320Mi"})
    assert rec(decided)["raygang.dev/base-submission-id"] == plan.submission_id
    assert any("the spec changed while submission" in r for r in decided.reasons)
    assert f"update RayCluster/{NAME} (its spec changed)" in decided.changes
    again = assert_idempotent(plan, before, DONE)
    # Once it finishes, the absorbed change does not start the job again.
    done = with_job_status(converge(before, again), "succeeded.yaml")
    finished = decide(plan, facts(done), BEFORE_TTL)
    assert finished.phase == "finished"
    assert finished.submission_id == BASE_SID
