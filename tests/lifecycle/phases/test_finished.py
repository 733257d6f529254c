"""The ``finished`` and ``failed`` phases: shutdownAfterJobFinishes and its TTL, the gang
recomputed without the submitter, and what a finished job keeps."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from raygang.kube.snapshot import snapshot_from_objects
from raygang.kuberay.gang import Accounting
from raygang.lifecycle.decide import decide
from raygang.lifecycle.facts.clock import parse_now

from tests.lifecycle.conftest import (
    AFTER_TTL,
    BASE_SID,
    BEFORE_TTL,
    DONE,
    NAME,
    NO_SUBMITTER,
    NS,
    PG,
    assert_converges,
    assert_idempotent,
    converge,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    rec,
    res,
    roles,
    sid_of,
    snapshot,
)


def test_finished_before_ttl_keeps_the_cluster_and_shrinks_the_gang() -> None:
    plan = plan_of(rayjob())
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.phase == "finished" and decided.result == "succeeded"
    assert decided.finished_at == DONE
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    # KubeRay's CleanupOnCompletion recomputes without the submitter (vector S4).
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert res(decided, "raycluster")["spec"] == res(plan, "raycluster")["spec"]
    # Its readiness no longer matters: a later update must not wait for `ready`.
    annotations = res(decided, "raycluster")["metadata"]["annotations"]
    assert annotations["pulumi.com/skipAwait"] == "true" and "pulumi.com/waitFor" not in annotations
    data = rec(decided)
    assert (data["raygang.dev/finished-at"], data["raygang.dev/result"]) == (
        "2026-11-29T10:05:00Z",
        "succeeded",
    )
    assert decided.next_change_at == parse_now("2026-11-29T10:15:00Z")
    assert decided.actions[-1] == (
        f"later: delete RayCluster/{NAME} (shutdownAfterJobFinishes, "
        "ttlSecondsAfterFinished 600s) on the first `pulumi up` after 2026-11-29T10:15:00Z; "
        f"then zero PodGroup/{PG} on the next `pulumi up` once RayCluster/{NAME} and its pods "
        "are gone"
    )
    assert any(
        a.startswith(f"set PodGroup/{PG} to minMember 3, cpu 3, memory 4Gi (was ")
        for a in decided.actions
    )
    assert decided.cleanup is None
    # The finished submitter is kept for its logs, but never awaited or replaced again.
    job = res(decided, "submitter")
    assert job["metadata"]["annotations"]["pulumi.com/waitFor"] == "jsonpath={.metadata.uid}"
    assert "pulumi.com/skipAwait" not in job["metadata"]["annotations"]
    assert "pulumi.com/replaceUnready" not in job["metadata"]["annotations"]
    assert decided.ignore_changes == {"submitter": ("spec",)}
    assert_idempotent(plan, before, BEFORE_TTL)


def test_finished_gang_in_kuberay_accounting_matches_vector_s4() -> None:
    plan = plan_of(rayjob(), Accounting.KUBERAY)
    decided = decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    assert pg_gang(decided) == (3, NO_SUBMITTER)


@pytest.mark.parametrize("now", [AFTER_TTL, parse_now("2026-11-29T10:15:00Z")])
def test_finished_after_ttl_removes_the_cluster_then_zeroes_the_podgroup(now: datetime) -> None:
    plan = plan_of(rayjob())
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), now)  # the due time itself counts, as in KubeRay
    assert decided.phase == "finished" and decided.cleanup == "DeleteCluster"
    assert roles(decided) == ["record", "podgroup", "submitter"]
    assert decided.removed == (f"RayCluster/{NAME}",)
    # The `up` that deletes the cluster keeps its gang (without the submitter, as before the
    # TTL): its pods hold their nodes' resources until the deletion completes.
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    # The submitter depended on the removed RayCluster; it now follows the PodGroup.
    assert decided.resource("submitter").depends_on == (f"PodGroup/{PG}",)  # type: ignore[union-attr]
    assert (
        f"delete RayCluster/{NAME} (shutdownAfterJobFinishes, ttlSecondsAfterFinished 600s)"
        in decided.changes
    )
    assert decided.actions[-1] == (
        f"later: zero PodGroup/{PG} on the first `pulumi up` after RayCluster/{NAME} and its "
        "pods are gone"
    )
    assert decided.next_change_at == now  # any later `up` may find them gone
    # The next `up` (the cluster and its pods gone) zeroes it, and then nothing changes.
    first, second, after = assert_converges(plan, before, now, ups=2)
    assert first.resources == decided.resources
    assert pg_gang(second) == (0, {})
    assert any(
        a.startswith(f"set PodGroup/{PG} to minMember 0, minResources {{}} (was minMember 3")
        and a.endswith("the RayCluster is gone; nothing is left to reserve")
        for a in second.changes
    ), second.changes
    assert not any(a.startswith("later:") for a in second.actions)
    assert second.next_change_at is None
    # The converged state is the cleaned-up fixture: deciding from that changes nothing.
    from_fixture = decide(plan, facts(snapshot("cleaned-up.yaml")), now)
    assert from_fixture.resources == after.resources
    assert from_fixture.changes == ()


def test_a_cluster_being_deleted_keeps_its_podgroup_until_it_and_its_pods_are_gone() -> None:
    # The fault suite's case g: a finalizer holds the RayCluster's deletion; its pods may
    # still be bound. Neither the deleting cluster nor a pod left after it lets the PodGroup
    # go to zero; the first `up` whose facts show neither does.
    plan = plan_of(rayjob())
    deleted = converge(
        snapshot("succeeded.yaml"), decide(plan, facts(snapshot("succeeded.yaml")), AFTER_TTL)
    )
    kept = snapshot("succeeded.yaml").objects
    rc = dict(kept[("RayCluster", NS, NAME)])
    rc["metadata"] = {**rc["metadata"], "deletionTimestamp": "2026-11-29T10:20:00Z"}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{NAME}-head-x7k2p",
            "namespace": NS,
            "labels": {"ray.io/cluster": NAME, "ray.io/node-type": "head"},
            "deletionTimestamp": "2026-11-29T10:20:00Z",  # terminating still holds its node
        },
        "spec": {"nodeName": "node-1"},
    }
    deleting = snapshot_from_objects([*deleted.objects.values(), rc, pod], "deleting")
    pods_only = snapshot_from_objects([*deleted.objects.values(), pod], "pods left")
    for state in (deleting, pods_only):
        held = decide(plan, facts(state), AFTER_TTL)
        assert "raycluster" not in roles(held)
        assert pg_gang(held) == (3, NO_SUBMITTER), state.source
        assert held.actions[-1].startswith(f"later: zero PodGroup/{PG}"), held.actions
    gone = decide(plan, facts(deleted), AFTER_TTL)
    assert pg_gang(gone) == (0, {})
    # Its pods listed and none placed (a gang stuck unplaced): nothing holds a node, so the
    # `up` that deletes the cluster frees the queue at once.
    unplaced = {**pod, "metadata": {**pod["metadata"]}, "spec": {}, "status": {"phase": "Pending"}}
    del unplaced["metadata"]["deletionTimestamp"]
    now_free = decide(plan, facts(snapshot_from_objects([*kept.values(), unplaced])), AFTER_TTL)
    assert "raycluster" not in roles(now_free) and pg_gang(now_free) == (0, {})
    assert not any(a.startswith(f"later: zero PodGroup/{PG}") for a in now_free.actions)


def test_finished_without_shutdown_keeps_the_cluster_forever() -> None:
    plan = plan_of(rayjob(shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), DONE + timedelta(days=30))
    assert decided.phase == "finished"
    assert "raycluster" in roles(decided)
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any("the RayCluster is kept" in r for r in decided.reasons)
    assert decided.next_change_at is None
    assert_idempotent(plan, before, DONE + timedelta(days=30))


def test_finished_job_whose_objects_were_deleted_by_hand_releases_the_queue() -> None:
    # kuberay#4473: a PodGroup left Inqueue after the job stopped blocks the queue.
    plan = plan_of(rayjob())
    before = snapshot("finished-podgroup-inqueue.yaml")
    decided = decide(plan, facts(before), AFTER_TTL)
    assert decided.phase == "finished"
    assert roles(decided) == ["record", "podgroup"]  # nothing is started again
    assert pg_gang(decided) == (0, {})
    assert any("Inqueue" in r for r in decided.reasons)
    assert_idempotent(plan, before, AFTER_TTL)


def test_retries_exhausted_is_failed_and_behaves_as_finished() -> None:
    plan = plan_of(rayjob(backoffLimit=1))
    before = snapshot("failed-attempt-2.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    sid = f"{BASE_SID}-a2"
    assert decided.phase == "failed" and decided.result == "failed"
    assert (decided.attempt, decided.submission_id) == (2, sid)
    assert any("no retries left (attempt 2, spec.backoffLimit 1)" in r for r in decided.reasons)
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert res(decided, "raycluster")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    assert sid_of(res(decided, "submitter")) == sid
    assert rec(decided)["raygang.dev/result"] == "failed"
    assert_idempotent(plan, before, BEFORE_TTL)
    after = decide(plan, facts(before), AFTER_TTL)
    assert roles(after) == ["record", "podgroup", "submitter"]
    assert pg_gang(after) == (3, NO_SUBMITTER)  # held while the cluster is being deleted
    _, zeroed, _ = assert_converges(plan, before, AFTER_TTL, ups=2)
    assert pg_gang(zeroed) == (0, {})
