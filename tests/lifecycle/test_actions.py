"""The action lines: what a run changes, and nothing when the cluster is as declared."""

from __future__ import annotations

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BASE_SID,
    DONE,
    NAME,
    assert_idempotent,
    facts,
    plan_of,
    rayjob,
    res,
    snapshot,
)


def test_running_job_changes_nothing() -> None:
    plan = plan_of(rayjob())
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    assert decided.phase == "running"
    assert decided.actions == ()
    assert decided.attempt == 1 and decided.submission_id == BASE_SID
    for role in ("raycluster", "submitter"):
        assert decided.resource(role) == plan.resource(role)  # exactly as planned
    assert res(decided, "podgroup") == res(plan, "podgroup")
    assert "Job rayjob-sample: active 1" in decided.reasons[0]
    assert_idempotent(plan, before, DONE)


def test_cluster_up_without_submitter_yet_creates_the_job() -> None:
    plan = plan_of(rayjob())
    objects = [o for o in snapshot("running.yaml").objects.values() if o["kind"] != "Job"]
    before = snapshot_from_objects(objects)
    decided = decide(plan, facts(before), DONE)
    assert decided.phase == "running"
    assert decided.changes == (f"create Job/{NAME} (submits {BASE_SID})",)
    assert_idempotent(plan, before, DONE)
