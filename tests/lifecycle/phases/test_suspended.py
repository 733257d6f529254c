"""The ``suspended`` phase: the cluster and the submitter go, the PodGroup is zeroed once
they are gone."""

from __future__ import annotations

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    DONE,
    FULL,
    NAME,
    PG,
    assert_converges,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    roles,
    snapshot,
)


def test_suspend_removes_cluster_and_submitter_then_zeroes_the_podgroup() -> None:
    plan = plan_of(rayjob(suspend=True))
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    assert decided.phase == "suspended"
    assert roles(decided) == ["record", "podgroup"]
    # The `up` that deletes the cluster keeps the attempt's gang: its pods may still be bound.
    assert pg_gang(decided) == (3, FULL)
    assert not any(a.startswith("set PodGroup") for a in decided.actions)
    assert decided.actions[-1] == (
        f"later: zero PodGroup/{PG} on the first `pulumi up` after RayCluster/{NAME} and its "
        "pods are gone"
    )
    assert decided.next_change_at == DONE
    assert set(decided.removed) == {f"RayCluster/{NAME}", f"Job/{NAME}"}
    assert f"delete RayCluster/{NAME} (spec.suspend: true)" in decided.changes
    assert f"delete Job/{NAME} (spec.suspend: true)" in decided.changes
    # The next `up`, the cluster gone, zeroes it; then nothing changes.
    _, zeroed, _ = assert_converges(plan, before, DONE, ups=2)
    assert pg_gang(zeroed) == (0, {})
    assert any(
        a.startswith(f"set PodGroup/{PG} to minMember 0, minResources {{}}")
        and a.endswith("spec.suspend: true releases the queue capacity")
        for a in zeroed.changes
    ), zeroed.changes
    from_fixture = decide(plan, facts(snapshot("suspended.yaml")), DONE)
    assert from_fixture.resources == zeroed.resources
    assert from_fixture.changes == ()


def test_a_job_applied_suspended_starts_nothing_with_or_without_facts() -> None:
    # Found on the real engine: without facts a suspended RayJob was planned as new and its
    # pods took 14 GPUs. KubeRay's New case goes straight to Suspended for such a job.
    plan = plan_of(rayjob(suspend=True))
    without = decide(plan, None, DONE)
    with_nothing = decide(plan, facts(snapshot_from_objects([], "empty.yaml")), DONE)
    for decided in (without, with_nothing):
        assert decided.phase == "suspended"
        assert roles(decided) == ["record", "podgroup"]
        assert pg_gang(decided) == (0, {})
        assert set(decided.removed) == {f"RayCluster/{NAME}", f"Job/{NAME}"}
    assert without.resources == with_nothing.resources
    assert without.reasons[-1] == (
        "spec.suspend: true: nothing is started until it is set back to false"
    )


def test_clearing_suspend_on_a_job_applied_suspended_starts_it() -> None:
    resumed = decide(plan_of(rayjob(suspend=False)), None, DONE)
    assert resumed.phase == "new"
    assert roles(resumed) == ["record", "podgroup", "raycluster", "submitter"]
    assert pg_gang(resumed) == (3, FULL)  # 1 head + 2 workers; the submitter is not a member
