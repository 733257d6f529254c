"""What was observed: a finish read from the head pod or the job record, and what cannot be
seen without Pods."""

from __future__ import annotations

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    AFTER_TTL,
    BASE_SID,
    BEFORE_TTL,
    DONE,
    FULL,
    assert_converges,
    assert_idempotent,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    roles,
    snapshot,
)


def test_finished_job_is_not_started_again_when_its_submitter_is_gone() -> None:
    plan = plan_of(rayjob())
    objects = [o for o in snapshot("cleaned-up.yaml").objects.values() if o["kind"] != "Job"]
    decided = decide(plan, facts(snapshot_from_objects(objects)), AFTER_TTL)
    assert decided.phase == "finished"
    assert roles(decided) == ["record", "podgroup"]
    assert decided.changes == ()


def test_sidecar_mode_finishes_from_the_head_pod() -> None:
    raw = rayjob(submissionMode="SidecarMode")
    plan = plan_of(raw)
    assert plan.submission_id == BASE_SID  # the mode does not change the ID
    before = snapshot("sidecar-succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.phase == "finished" and decided.finished_at == DONE
    assert "head pod rayjob-sample-head-7xk2p exited with code 0" in " ".join(decided.reasons)
    # Vector S5: the sidecar is part of the live head spec, so the gang is unchanged.
    assert pg_gang(decided) == (3, FULL)
    assert not any(a.startswith("set PodGroup") for a in decided.actions)
    assert_idempotent(plan, before, BEFORE_TTL)
    after = decide(plan, facts(before), AFTER_TTL)
    assert roles(after) == ["record", "podgroup"]
    assert pg_gang(after) == (3, FULL)  # held until the cluster and its pods are gone
    _, zeroed, _ = assert_converges(plan, before, AFTER_TTL, ups=2)
    assert pg_gang(zeroed) == (0, {})


def test_sidecar_mode_without_pods_in_the_snapshot_says_so() -> None:
    plan = plan_of(rayjob(submissionMode="SidecarMode"))
    objects = [o for o in snapshot("sidecar-succeeded.yaml").objects.values() if o["kind"] != "Pod"]
    decided = decide(plan, facts(snapshot_from_objects(objects)), BEFORE_TTL)
    assert decided.phase == "running"
    assert any("holds no Pods" in r for r in decided.reasons)
