"""Cleanup of a finished job: deletionStrategy rules and legacy policies, at their due times."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kube.snapshot import snapshot_from_objects
from raygang.kuberay.submitter import SUBMITTER_RULES
from raygang.lifecycle.decide import decide
from raygang.rayjob.spec import load_rayjob, parse_rayjob

from tests.lifecycle.conftest import (
    AFTER_TTL,
    BEFORE_TTL,
    DONE,
    HEAD_ONLY,
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
    res,
    roles,
    rules,
    rules_job,
    snapshot,
)

SHRINK = f"later: shrink PodGroup/{PG} to the head on the first `pulumi up` after the worker"


def _with_pods(snap: Any, *pods: tuple[str, str, str | None, str]) -> Any:
    """The snapshot plus pods of the RayCluster: (name, node type, node, phase)."""
    objects = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": NS,
                "labels": {"ray.io/cluster": NAME, "ray.io/node-type": node_type},
            },
            "spec": {"nodeName": node} if node else {},
            "status": {"phase": phase},
        }
        for name, node_type, node, phase in pods
    ]
    return snapshot_from_objects([*snap.objects.values(), *objects], "with pods")


def test_delete_workers_suspends_every_group_and_shrinks_to_the_head() -> None:
    plan = plan_of(rules_job(("DeleteWorkers", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.phase == "finished" and decided.cleanup == "DeleteWorkers"
    groups = res(decided, "raycluster")["spec"]["workerGroupSpecs"]
    assert [g["suspend"] for g in groups] == [True]
    # No Pods in the facts: the workers' share is kept by the `up` that suspends them...
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any(a.startswith(SHRINK) for a in decided.actions), decided.actions
    assert decided.next_change_at == BEFORE_TTL
    assert any(
        a.startswith(f"suspend every worker group of RayCluster/{NAME}") for a in decided.actions
    )
    assert "submitter" in roles(decided)
    # ... and the next one (the live groups suspended) shrinks the PodGroup to the head.
    _, shrunk, _ = assert_converges(plan, before, BEFORE_TTL, ups=2)
    assert pg_gang(shrunk) == (1, HEAD_ONLY)  # vector S6
    assert not any(a.startswith(SHRINK) for a in shrunk.actions)


def test_delete_workers_keeps_the_workers_share_while_a_worker_pod_holds_a_node() -> None:
    plan = plan_of(rules_job(("DeleteWorkers", "SUCCEEDED", 0)))
    head = (f"{NAME}-head-x", "head", "node-1", "Running")
    worker = (f"{NAME}-small-group-worker-x", "worker", "node-2", "Running")
    running = _with_pods(snapshot("succeeded.yaml"), head, worker)
    decided = decide(plan, facts(running), BEFORE_TTL)
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any("1 bound worker pod(s)" in a for a in decided.actions), decided.actions
    # Suspended, the worker pod still terminating on its node: the share is still kept.
    suspended = converge(running, decided)
    assert facts(suspended).cluster.suspended_groups == ("small-group",)  # type: ignore[union-attr]
    terminating = decide(plan, facts(suspended), BEFORE_TTL)
    assert pg_gang(terminating) == (3, NO_SUBMITTER)
    assert any(a.startswith(SHRINK) for a in terminating.actions)
    # The worker pod gone (or finished, or never placed), the head's left: shrunk to the head.
    for left in (
        (),
        (worker[0], "worker", "node-2", "Succeeded"),
        (worker[0], "worker", None, "Pending"),
    ):
        gone = _with_pods(
            snapshot_from_objects(
                [o for o in suspended.objects.values() if o["kind"] != "Pod"], "gone"
            ),
            head,
            *([left] if left else []),
        )
        shrunk = decide(plan, facts(gone), BEFORE_TTL)
        assert pg_gang(shrunk) == (1, HEAD_ONLY), left
        assert not any(a.startswith(SHRINK) for a in shrunk.actions), left
        assert_idempotent(plan, gone, BEFORE_TTL)


def _refused(snap: Any, uid: str | None) -> Any:
    """The snapshot plus KubeRay v1.5's refusal of the RayCluster's suspended worker groups."""
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{NAME}.refused", "namespace": NS},
        "involvedObject": {"kind": "RayCluster", "name": NAME, "namespace": NS, "uid": uid},
        "reason": "InvalidRayClusterSpec",
        "type": "Warning",
        # ValidateRayClusterSpec's words (utils/validation.go, v1.5.0) in the operator's event.
        "message": f"The RayCluster spec is invalid {NS}/{NAME}: worker group small-group can "
        "be suspended only when the RayJobDeletionPolicy feature gate is enabled",
    }
    return snapshot_from_objects([*snap.objects.values(), event], "refused")


def test_delete_workers_scales_to_zero_where_the_operator_refuses_suspend() -> None:
    plan = plan_of(rules_job(("DeleteWorkers", "SUCCEEDED", 0)))
    suspended = converge(
        snapshot("succeeded.yaml"), decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    )
    uid = suspended.get("RayCluster", NS, NAME)["metadata"].get("uid")  # type: ignore[index]
    refused = _refused(suspended, uid)
    decided = decide(plan, facts(refused), BEFORE_TTL)
    life = decided
    groups = res(decided, "raycluster")["spec"]["workerGroupSpecs"]
    assert [(g.get("suspend"), g["replicas"], g["minReplicas"]) for g in groups] == [(None, 0, 0)]
    # The refused workers still run: their share is kept (from the declared groups, the
    # live ones read suspended) until the groups are scaled to zero...
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any(a.startswith(SHRINK) for a in decided.actions), decided.actions
    assert any("RayJobDeletionPolicy feature gate" in r for r in life.reasons), life.reasons
    assert any(
        a.startswith(f"scale every worker group of RayCluster/{NAME} to zero") for a in life.actions
    ), life.actions
    # ... and the next `up` shrinks it to the head: the same gang as suspended groups give.
    _, shrunk, _ = assert_converges(plan, refused, BEFORE_TTL, ups=2)
    assert pg_gang(shrunk) == (1, HEAD_ONLY)


def test_a_refusal_of_an_earlier_raycluster_changes_nothing() -> None:
    plan = plan_of(rules_job(("DeleteWorkers", "SUCCEEDED", 0)))
    suspended = converge(
        snapshot("succeeded.yaml"), decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    )
    cluster = dict(suspended.get("RayCluster", NS, NAME) or {})
    cluster["metadata"] = {**cluster["metadata"], "uid": "uid-of-today"}
    objects = {**suspended.objects, ("RayCluster", NS, NAME): cluster}
    stale = _refused(snapshot_from_objects(list(objects.values()), "stale"), "uid-of-yesterday")
    groups = res(decide(plan, facts(stale), BEFORE_TTL), "raycluster")["spec"]["workerGroupSpecs"]
    assert [g.get("suspend") for g in groups] == [True]


def test_delete_cluster_waits_for_its_ttl() -> None:
    plan = plan_of(rules_job(("DeleteCluster", "SUCCEEDED", 60)))
    before = snapshot("succeeded.yaml")
    early = decide(plan, facts(before), DONE + timedelta(seconds=30))
    assert "raycluster" in roles(early)
    assert early.next_change_at == DONE + timedelta(seconds=60)
    assert (
        "on the first `pulumi up` after 2026-11-29T10:06:00Z; then zero PodGroup/"
        in (early.actions[-1])
    )
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.cleanup == "DeleteCluster"
    assert roles(decided) == ["record", "podgroup", "submitter"]
    # Held while the cluster is being deleted; zeroed by the next `up`, once it is gone.
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any(
        a.startswith(
            f"delete RayCluster/{NAME} (spec.deletionStrategy.deletionRules[0]: DeleteCluster"
        )
        for a in decided.actions
    )
    _, zeroed, _ = assert_converges(plan, before, BEFORE_TTL, ups=2)
    assert pg_gang(zeroed) == (0, {})


def test_delete_self_keeps_only_a_tombstone_record() -> None:
    plan = plan_of(rules_job(("DeleteSelf", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.cleanup == "DeleteSelf"
    assert roles(decided) == ["record"]
    assert set(decided.removed) == {f"PodGroup/{PG}", f"RayCluster/{NAME}", f"Job/{NAME}"}
    assert decided.resource("podgroup") is None
    assert {
        a.split(" ")[0] + " " + a.split(" ")[1] for a in decided.changes if a.startswith("delete")
    } == {
        f"delete PodGroup/{PG}",
        f"delete RayCluster/{NAME}",
        f"delete Job/{NAME}",
    }
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert again.phase == "finished"  # the record remembers: the job does not run again


def test_delete_none_keeps_everything() -> None:
    plan = plan_of(rules_job(("DeleteNone", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), AFTER_TTL)
    assert decided.cleanup == "DeleteNone"
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert_idempotent(plan, before, AFTER_TTL)


def test_staged_rules_apply_the_most_impactful_overdue_one() -> None:
    # KubeRay's ray-job.deletion-rules.yaml sample: workers at 30 s, cluster at 60 s, self at 90 s.
    stages = [
        ("DeleteWorkers", "SUCCEEDED", 30),
        ("DeleteCluster", "SUCCEEDED", 60),
        ("DeleteSelf", "SUCCEEDED", 90),
    ]
    failed = [(p, "FAILED", t) for p, _, t in stages]
    plan = plan_of(rules_job(*stages, *failed))
    before = snapshot("succeeded.yaml")
    expected = [
        (10, None, ["record", "podgroup", "raycluster", "submitter"], 3),
        # The later rules', and the shrinking of the PodGroup once the workers are gone.
        (40, "DeleteWorkers", ["record", "podgroup", "raycluster", "submitter"], 3),
        # DeleteSelf's, and the zeroing of the PodGroup once the cluster is gone.
        (70, "DeleteCluster", ["record", "podgroup", "submitter"], 2),
        (100, "DeleteSelf", ["record"], 0),
        # After a long outage, the most impactful overdue rule wins at once.
        (86400, "DeleteSelf", ["record"], 0),
    ]
    for seconds, policy, declared, later in expected:
        now = DONE + timedelta(seconds=seconds)
        decided = decide(plan, facts(before), now)
        assert decided.cleanup == policy, seconds
        assert roles(decided) == declared, seconds
        assert sum(a.startswith("later:") for a in decided.actions) == later, seconds
        if policy == "DeleteCluster":  # the PodGroup is zeroed by the next `up`
            assert pg_gang(assert_converges(plan, before, now, ups=2)[1]) == (0, {})
        elif policy == "DeleteWorkers":  # and shrunk to the head by the next `up`
            assert pg_gang(decided) == (3, NO_SUBMITTER)
            assert pg_gang(assert_converges(plan, before, now, ups=2)[1]) == (1, HEAD_ONLY)
        else:
            assert_idempotent(plan, before, now)
    # From the DeleteWorkers state, the cluster rule removes what is left of the cluster.
    workers = converge(before, decide(plan, facts(before), DONE + timedelta(seconds=40)))
    decided = decide(plan, facts(workers), DONE + timedelta(seconds=70))
    assert roles(decided) == ["record", "podgroup", "submitter"]


def test_rules_match_the_result() -> None:
    plan = plan_of(rules_job(("DeleteCluster", "FAILED", 0)))
    succeeded = decide(plan, facts(snapshot("succeeded.yaml")), AFTER_TTL)
    assert "raycluster" in roles(succeeded)
    assert any("no deletion rule matches a succeeded job" in r for r in succeeded.reasons)
    failed = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert failed.phase == "failed" and "raycluster" not in roles(failed)
    deployment = rayjob(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy={
            "deletionRules": [
                {"policy": "DeleteCluster", "condition": {"jobDeploymentStatus": "Failed"}}
            ]
        },
    )
    failed = decide(plan_of(deployment), facts(snapshot("failed.yaml")), AFTER_TTL)
    assert "raycluster" not in roles(failed)


def test_legacy_policies_win_over_shutdown() -> None:
    strategy = {"onSuccess": {"policy": "DeleteWorkers"}, "onFailure": {"policy": "DeleteCluster"}}
    plan = plan_of(rayjob(deletionStrategy=strategy))  # shutdown true, TTL 600 s
    before = snapshot("succeeded.yaml")
    early = decide(plan, facts(before), BEFORE_TTL)
    assert pg_gang(early) == (3, NO_SUBMITTER)
    assert early.actions[-1].startswith(f"later: suspend every worker group of RayCluster/{NAME}")
    late = decide(plan, facts(before), AFTER_TTL)
    assert late.cleanup == "DeleteWorkers"
    assert "raycluster" in roles(late)  # not deleted: the strategy replaces shutdown
    assert pg_gang(late) == (3, NO_SUBMITTER)  # kept while the workers go
    assert pg_gang(assert_converges(plan, before, AFTER_TTL, ups=2)[1]) == (1, HEAD_ONLY)
    failed = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert failed.cleanup == "DeleteCluster" and "raycluster" not in roles(failed)


@pytest.mark.parametrize(
    ("strategy", "spec", "path", "message"),
    [
        ({"onSuccess": {"policy": "DeleteCluster"}}, {}, "onFailure.policy", "is required"),
        (
            {"onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "Nope"}},
            {},
            "onFailure.policy",
            "'Nope' is not a deletion policy",
        ),
        (
            {"onSuccess": {"policy": "DeleteNone"}, "onFailure": {"policy": "DeleteCluster"}},
            {"shutdownAfterJobFinishes": True},
            "spec.deletionStrategy",
            "DeleteNone",
        ),
        (
            {
                "onSuccess": {"policy": "DeleteCluster"},
                "onFailure": {"policy": "DeleteCluster"},
                "deletionRules": [],
            },
            {},
            "spec.deletionStrategy",
            "cannot be used together",
        ),
        ({"deletionRules": []}, {}, "spec.deletionStrategy", "non-empty deletionRules"),
        (
            rules(("DeleteCluster", "SUCCEEDED", 0)),
            {"shutdownAfterJobFinishes": True},
            "spec.shutdownAfterJobFinishes",
            "cannot be combined",
        ),
        (
            rules(("DeleteCluster", "RUNNING", 0)),
            {},
            "condition.jobStatus",
            "'RUNNING' is not supported",
        ),
        (rules(("DeleteCluster", "SUCCEEDED", -1)), {}, "condition.ttlSeconds", "non-negative"),
        (
            rules(("DeleteCluster", "SUCCEEDED", 0), ("DeleteCluster", "SUCCEEDED", 5)),
            {},
            "deletionRules[1]",
            "duplicates deletionRules[0]",
        ),
        (
            rules(("DeleteWorkers", "SUCCEEDED", 60), ("DeleteCluster", "SUCCEEDED", 30)),
            {},
            "deletionRules[1].condition.ttlSeconds",
            "DeleteCluster TTL (30) must be >= DeleteWorkers TTL (60)",
        ),
        (
            {
                "deletionRules": [
                    {
                        "policy": "DeleteCluster",
                        "condition": {"jobStatus": "FAILED", "jobDeploymentStatus": "Failed"},
                    }
                ]
            },
            {},
            "deletionRules[0].condition",
            "exactly one",
        ),
        (
            rules(("DeleteWorkers", "SUCCEEDED", 0)),
            {"autoscaling": True},
            "deletionRules[0].policy",
            "enableInTreeAutoscaling",
        ),
    ],
)
def test_malformed_deletion_strategies_are_refused(
    strategy: dict[str, Any], spec: dict[str, Any], path: str, message: str
) -> None:
    raw = rayjob(
        shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None, deletionStrategy=strategy
    )
    if spec.pop("autoscaling", False):
        raw["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    raw["spec"].update(spec)
    # The typed model checks the strategy: a job with a malformed one is never built, so
    # no plan (and no lifecycle decision) can use it.
    with pytest.raises(SpecError) as parsed:
        parse_rayjob(raw, "rayjob.yaml")
    problems = parsed.value.problems
    assert any(path in p.path and message in p.message for p in problems), problems
    with pytest.raises(SpecError) as loaded:
        load_rayjob(raw, "rayjob.yaml", SUBMITTER_RULES)
    assert loaded.value.problems[-len(problems) :] == problems


def test_well_formed_strategies_parse() -> None:
    item = parse_rayjob(
        rules_job(("DeleteWorkers", "SUCCEEDED", 30), ("DeleteCluster", "SUCCEEDED", 60)), "x"
    )
    strategy = item.job.deletion
    assert strategy is not None
    assert [(r.policy, r.ttl_seconds, r.where) for r in strategy.rules] == [
        ("DeleteWorkers", 30, "spec.deletionStrategy.deletionRules[0]"),
        ("DeleteCluster", 60, "spec.deletionStrategy.deletionRules[1]"),
    ]
    assert parse_rayjob(rayjob(), "x").job.deletion is None
