"""The ``suspended`` phase: the cluster and the submitter go, the PodGroup is zeroed."""

from __future__ import annotations

from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    DONE,
    NAME,
    assert_idempotent,
    facts,
    lc,
    pg_gang,
    plan_of,
    rayjob,
    roles,
    snapshot,
)


def test_suspend_removes_cluster_and_submitter_and_zeroes_the_podgroup() -> None:
    plan = plan_of(rayjob(suspend=True))
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    life = lc(decided)
    assert life.phase == "suspended"
    assert roles(decided) == ["record", "podgroup"]
    assert pg_gang(decided) == (0, {})
    assert set(life.removed) == {f"RayCluster/{NAME}", f"Job/{NAME}"}
    assert f"delete RayCluster/{NAME} (spec.suspend: true)" in life.changes
    assert f"delete Job/{NAME} (spec.suspend: true)" in life.changes
    assert_idempotent(plan, before, DONE)
    from_fixture = decide(plan, facts(snapshot("suspended.yaml")), DONE)
    assert from_fixture.resources == decided.resources
    assert lc(from_fixture).changes == ()
