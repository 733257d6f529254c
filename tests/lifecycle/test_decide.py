"""Lifecycle: every `pulumi up` converges from what the cluster reports.

Each branch is decided from a kubectl snapshot (fixtures/lifecycle/*.yaml) and then checked
for idempotence: :func:`converge` applies the decision the way Pulumi would (declared
objects created or updated, replaced when a ``replaceOnChanges`` path changed, the rest
deleted; status kept on objects that were not replaced), and deciding again from that state
must declare the same objects and find nothing to change.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.kube.errors import SpecError
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.gang import Accounting
from raygang.kuberay.jobplan import JobPlan
from raygang.kuberay.manifests import RECORD_ANNOTATIONS_LIMIT, annotations_size
from raygang.kuberay.settings import JobSettings
from raygang.lifecycle.decide import (
    ATTEMPT_REPLACE_PATH,
    PODGROUP_REPLACE_PATHS,
    Lifecycle,
    attempt_submission_id,
    decide,
)
from raygang.lifecycle.facts import JobFacts, gather_facts, parse_now
from raygang.plan import plan_job
from raygang.rayjob.deletion import deletion_strategy_problems, parse_deletion_strategy
from raygang.rayjob.spec import parse_rayjob
from raygang.volcano.queue import parse_queue

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lifecycle"
NS, NAME, PG = "ml", "rayjob-sample", "ray-rayjob-sample-pg"
DONE = parse_now("2026-11-29T10:05:00Z")
BEFORE_TTL = parse_now("2026-11-29T10:10:00Z")
AFTER_TTL = parse_now("2026-11-29T10:20:00Z")
FULL = {"cpu": "3500m", "memory": "4296Mi"}
NO_SUBMITTER = {"cpu": "3", "memory": "4Gi"}  # kuberay.md §8.3 vector S4
HEAD_ONLY = {"cpu": "1", "memory": "2Gi"}  # vector S6


# --- helpers ---------------------------------------------------------------------------


def rayjob(labels: Mapping[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    """The fixture RayJob with spec fields replaced (None deletes a field)."""
    raw: dict[str, Any] = yaml.safe_load((FIXTURES / "rayjob.yaml").read_text())
    for key, value in spec.items():
        if value is None:
            raw["spec"].pop(key, None)
        else:
            raw["spec"][key] = value
    if labels is not None:
        raw["metadata"]["labels"] = dict(labels)
    return raw


def plan_of(raw: Mapping[str, Any], accounting: Accounting = Accounting.EFFECTIVE) -> JobPlan:
    return plan_job(parse_rayjob(raw, "rayjob.yaml"), JobSettings(accounting=accounting))


BASE_SID = plan_of(rayjob()).submission_id


def snapshot(name: str) -> ClusterSnapshot:
    text = (FIXTURES / name).read_text().replace("__SUBMISSION_ID__", BASE_SID)
    return snapshot_from_objects(list(yaml.safe_load_all(text)), name)


def facts(snap: ClusterSnapshot) -> JobFacts:
    return gather_facts(snap, NS, NAME)


def lc(plan: JobPlan) -> Lifecycle:
    assert isinstance(plan.lifecycle, Lifecycle)
    return plan.lifecycle


def roles(plan: JobPlan) -> list[str]:
    return [r.role for r in plan.resources]


def res(plan: JobPlan, role: str) -> Mapping[str, Any]:
    found = plan.resource(role)
    assert found is not None, f"{role} is not declared"
    return found.manifest


def rec(plan: JobPlan) -> Mapping[str, str]:
    """The job record's annotations: where it keeps everything (data changes replace it)."""
    return res(plan, "record")["metadata"]["annotations"]


def pg_gang(plan: JobPlan) -> tuple[int, dict[str, str]]:
    spec = res(plan, "podgroup")["spec"]
    return spec["minMember"], dict(spec["minResources"])


def _path(obj: Mapping[str, Any], path: str) -> Any:
    """Follow a Pulumi property path such as ``metadata.annotations["a.b/c"]``."""
    value: Any = obj
    for part in re.findall(r'\["([^"]+)"\]|([^.\[\]]+)', path):
        key = part[0] or part[1]
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _sid(obj: Mapping[str, Any]) -> str | None:
    for c in obj.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
        for env in c.get("env", []):
            if env["name"] == "RAY_JOB_SUBMISSION_ID":
                return str(env["value"])
    return None


def converge(before: ClusterSnapshot, decided: JobPlan) -> ClusterSnapshot:
    """Apply a decision the way `pulumi up` would, keeping what the cluster adds (status)."""
    objects = dict(before.objects)
    life = lc(decided)
    keys = {
        ("ConfigMap", NS, NAME),
        ("PodGroup", NS, PG),
        ("RayCluster", NS, NAME),
        ("Job", NS, NAME),
    }
    declared = {
        (r.kind, r.namespace or "", r.name): r for r in decided.resources if r.role != "queue"
    }

    def drop_pods() -> None:
        for key, obj in list(objects.items()):
            if key[0] == "Pod" and obj["metadata"].get("labels", {}).get("ray.io/cluster") == NAME:
                del objects[key]

    for key in keys - declared.keys():
        if objects.pop(key, None) is not None and key[0] == "RayCluster":
            drop_pods()
    for key, resource in declared.items():
        live = objects.get(key)
        manifest = copy.deepcopy(dict(resource.manifest))
        ignored = life.ignore_changes.get(resource.role, ())
        replaced = live is not None and (
            any(_path(live, p) != _path(manifest, p) for p in resource.replace_on_changes)
            # batch/v1 Job templates are immutable: the provider replaces the Job.
            or (key[0] == "Job" and "spec" not in ignored and _sid(live) != _sid(manifest))
        )
        if live is None or replaced:
            new = manifest  # a fresh object: no status yet
            if key[0] == "RayCluster":
                drop_pods()
        else:
            new = {**manifest, "metadata": {**live["metadata"], **manifest["metadata"]}}
            for top in ignored:
                new[top] = copy.deepcopy(live[top])
            if "status" in live:
                new["status"] = copy.deepcopy(live["status"])
        objects[key] = new
    return ClusterSnapshot("converged", objects)


def with_job_status(snap: ClusterSnapshot, donor: str) -> ClusterSnapshot:
    """``snap`` with the submitter Job's status taken from another fixture."""
    source = snapshot(donor).get("Job", NS, NAME)
    assert source is not None
    objects = [dict(copy.deepcopy(o)) for o in snap.objects.values()]
    for obj in objects:
        if obj["kind"] == "Job":
            obj["status"] = copy.deepcopy(source["status"])
    return snapshot_from_objects(objects)


def assert_idempotent(plan: JobPlan, before: ClusterSnapshot, now: datetime) -> JobPlan:
    """Decide, converge, decide again: same objects, nothing left to change."""
    first = decide(plan, facts(before), now)
    after = converge(before, first)
    again = decide(plan, facts(after), now)
    assert again.resources == first.resources
    assert again.submission_id == first.submission_id
    assert lc(again).changes == (), lc(again).changes
    assert set(lc(again).actions) <= set(lc(first).actions)
    # A third run from the same state changes nothing either.
    assert decide(plan, facts(converge(after, again)), now).resources == first.resources
    return again


def rules(*entries: tuple[str, str, int]) -> dict[str, Any]:
    return {
        "deletionRules": [
            {"policy": policy, "condition": {"jobStatus": status, "ttlSeconds": ttl}}
            for policy, status, ttl in entries
        ]
    }


def rules_job(*entries: tuple[str, str, int], **spec: Any) -> dict[str, Any]:
    # Rules mode excludes shutdownAfterJobFinishes and the global TTL (KubeRay validation).
    return rayjob(
        shutdownAfterJobFinishes=None,
        ttlSecondsAfterFinished=None,
        deletionStrategy=rules(*entries),
        **spec,
    )


# --- no facts, new, running ------------------------------------------------------------


def test_without_facts_the_job_is_planned_as_new() -> None:
    plan = plan_of(rayjob())
    decided = decide(plan, None, DONE)
    assert lc(decided).phase == "new"
    assert lc(decided).actions == ()
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    for role in ("raycluster", "submitter"):
        assert decided.resource(role) == plan.resource(role)
    assert rec(decided)["raygang.dev/attempt"] == "1"
    assert rec(decided)["raygang.dev/base-submission-id"] == BASE_SID
    assert decided.resource("podgroup").replace_on_changes == PODGROUP_REPLACE_PATHS  # type: ignore[union-attr]
    assert decided.submission_id == BASE_SID


def test_new_when_nothing_exists_yet() -> None:
    plan = plan_of(rayjob())
    empty = ClusterSnapshot("empty")
    decided = decide(plan, facts(empty), DONE)
    life = lc(decided)
    assert life.phase == "new"
    assert life.changes == (
        f"create ConfigMap/{NAME} (job record)",
        f"create PodGroup/{PG} (minMember 3, cpu 3500m, memory 4296Mi)",
        f"create RayCluster/{NAME}",
        f"create Job/{NAME} (submits {BASE_SID})",
    )
    again = assert_idempotent(plan, empty, DONE)
    assert lc(again).phase == "running"  # the objects exist now


def test_running_job_changes_nothing() -> None:
    plan = plan_of(rayjob())
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    life = lc(decided)
    assert life.phase == "running"
    assert life.actions == ()
    assert life.attempt == 1 and life.submission_id == BASE_SID
    for role in ("raycluster", "submitter"):
        assert decided.resource(role) == plan.resource(role)  # exactly as planned
    assert res(decided, "podgroup") == res(plan, "podgroup")
    assert "Job rayjob-sample: active 1" in life.reasons[0]
    assert_idempotent(plan, before, DONE)


def test_cluster_up_without_submitter_yet_creates_the_job() -> None:
    plan = plan_of(rayjob())
    objects = [o for o in snapshot("running.yaml").objects.values() if o["kind"] != "Job"]
    before = snapshot_from_objects(objects)
    decided = decide(plan, facts(before), DONE)
    assert lc(decided).phase == "running"
    assert lc(decided).changes == (f"create Job/{NAME} (submits {BASE_SID})",)
    assert_idempotent(plan, before, DONE)


# --- finished: shutdownAfterJobFinishes + TTL ------------------------------------------


def test_finished_before_ttl_keeps_the_cluster_and_shrinks_the_gang() -> None:
    plan = plan_of(rayjob())
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.phase == "finished" and life.result == "succeeded"
    assert life.finished_at == DONE
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
    assert life.next_change_at == parse_now("2026-11-29T10:15:00Z")
    assert life.actions[-1] == (
        f"later: delete RayCluster/{NAME} and zero PodGroup/{PG} (shutdownAfterJobFinishes, "
        "ttlSecondsAfterFinished 600s) on the first `pulumi up` after 2026-11-29T10:15:00Z"
    )
    assert any(
        a.startswith(f"set PodGroup/{PG} to minMember 3, cpu 3, memory 4Gi (was ")
        for a in life.actions
    )
    assert life.cleanup is None
    # The finished submitter is kept for its logs, but never awaited or replaced again.
    job = res(decided, "submitter")
    assert job["metadata"]["annotations"]["pulumi.com/waitFor"] == "jsonpath={.metadata.uid}"
    assert "pulumi.com/skipAwait" not in job["metadata"]["annotations"]
    assert "pulumi.com/replaceUnready" not in job["metadata"]["annotations"]
    assert life.ignore_changes == {"submitter": ("spec",)}
    assert_idempotent(plan, before, BEFORE_TTL)


def test_finished_gang_in_kuberay_accounting_matches_vector_s4() -> None:
    plan = plan_of(rayjob(), Accounting.KUBERAY)
    decided = decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    assert pg_gang(decided) == (3, NO_SUBMITTER)


@pytest.mark.parametrize("now", [AFTER_TTL, parse_now("2026-11-29T10:15:00Z")])
def test_finished_after_ttl_removes_the_cluster_and_zeroes_the_podgroup(now: datetime) -> None:
    plan = plan_of(rayjob())
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), now)  # the due time itself counts, as in KubeRay
    life = lc(decided)
    assert life.phase == "finished" and life.cleanup == "DeleteCluster"
    assert roles(decided) == ["record", "podgroup", "submitter"]
    assert life.removed == (f"RayCluster/{NAME}",)
    assert pg_gang(decided) == (0, {})
    assert decided.declared_min_member == 0 and decided.declared_min_resources == {}
    # The submitter depended on the removed RayCluster; it now follows the PodGroup.
    assert decided.resource("submitter").depends_on == (f"PodGroup/{PG}",)  # type: ignore[union-attr]
    assert (
        f"delete RayCluster/{NAME} (shutdownAfterJobFinishes, ttlSecondsAfterFinished 600s)"
        in life.changes
    )
    assert not any(a.startswith("later:") for a in life.actions)
    assert life.next_change_at is None
    after = assert_idempotent(plan, before, now)
    # The converged state is the cleaned-up fixture: deciding from that changes nothing.
    from_fixture = decide(plan, facts(snapshot("cleaned-up.yaml")), now)
    assert from_fixture.resources == after.resources
    assert lc(from_fixture).changes == ()


def test_finished_without_shutdown_keeps_the_cluster_forever() -> None:
    plan = plan_of(rayjob(shutdownAfterJobFinishes=None, ttlSecondsAfterFinished=None))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), DONE + timedelta(days=30))
    life = lc(decided)
    assert life.phase == "finished"
    assert "raycluster" in roles(decided)
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert any("the RayCluster is kept" in r for r in life.reasons)
    assert life.next_change_at is None
    assert_idempotent(plan, before, DONE + timedelta(days=30))


def test_finished_job_whose_objects_were_deleted_by_hand_releases_the_queue() -> None:
    # kuberay#4473: a PodGroup left Inqueue after the job stopped blocks the queue.
    plan = plan_of(rayjob())
    before = snapshot("finished-podgroup-inqueue.yaml")
    decided = decide(plan, facts(before), AFTER_TTL)
    life = lc(decided)
    assert life.phase == "finished"
    assert roles(decided) == ["record", "podgroup"]  # nothing is started again
    assert pg_gang(decided) == (0, {})
    assert any("Inqueue" in r for r in life.reasons)
    assert_idempotent(plan, before, AFTER_TTL)


def test_finished_job_is_not_started_again_when_its_submitter_is_gone() -> None:
    plan = plan_of(rayjob())
    objects = [o for o in snapshot("cleaned-up.yaml").objects.values() if o["kind"] != "Job"]
    decided = decide(plan, facts(snapshot_from_objects(objects)), AFTER_TTL)
    assert lc(decided).phase == "finished"
    assert roles(decided) == ["record", "podgroup"]
    assert lc(decided).changes == ()


def test_sidecar_mode_finishes_from_the_head_pod() -> None:
    raw = rayjob(submissionMode="SidecarMode")
    plan = plan_of(raw)
    assert plan.submission_id == BASE_SID  # the mode does not change the ID
    before = snapshot("sidecar-succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.phase == "finished" and life.finished_at == DONE
    assert "head pod rayjob-sample-head-7xk2p exited with code 0" in " ".join(life.reasons)
    # Vector S5: the sidecar is part of the live head spec, so the gang is unchanged.
    assert pg_gang(decided) == (3, FULL)
    assert not any(a.startswith("set PodGroup") for a in life.actions)
    assert_idempotent(plan, before, BEFORE_TTL)
    after = decide(plan, facts(before), AFTER_TTL)
    assert roles(after) == ["record", "podgroup"]
    assert_idempotent(plan, before, AFTER_TTL)


def test_sidecar_mode_retry_rebuilds_the_head_with_the_new_submission_id() -> None:
    plan = plan_of(rayjob(submissionMode="SidecarMode", backoffLimit=1))
    objects = [copy.deepcopy(o) for o in snapshot("sidecar-succeeded.yaml").objects.values()]
    pod = next(o for o in objects if o["kind"] == "Pod")
    pod["status"]["containerStatuses"][1]["state"]["terminated"].update(exitCode=1, reason="Error")
    before = snapshot_from_objects(objects)
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert lc(decided).phase == "retrying"
    head = res(decided, "raycluster")["spec"]["headGroupSpec"]["template"]["spec"]
    sidecar = next(c for c in head["containers"] if c["name"] == "ray-job-submitter")
    env = {e["name"]: e["value"] for e in sidecar["env"]}
    assert env["RAY_JOB_SUBMISSION_ID"] == f"{BASE_SID}-a2"
    assert "submitter" not in roles(decided)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert lc(again).phase == "running"


def test_sidecar_mode_without_pods_in_the_snapshot_says_so() -> None:
    plan = plan_of(rayjob(submissionMode="SidecarMode"))
    objects = [o for o in snapshot("sidecar-succeeded.yaml").objects.values() if o["kind"] != "Pod"]
    decided = decide(plan, facts(snapshot_from_objects(objects)), BEFORE_TTL)
    assert lc(decided).phase == "running"
    assert any("holds no Pods" in r for r in lc(decided).reasons)


# --- deletionStrategy ------------------------------------------------------------------


def test_delete_workers_suspends_every_group_and_shrinks_to_the_head() -> None:
    plan = plan_of(rules_job(("DeleteWorkers", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.phase == "finished" and life.cleanup == "DeleteWorkers"
    groups = res(decided, "raycluster")["spec"]["workerGroupSpecs"]
    assert [g["suspend"] for g in groups] == [True]
    assert pg_gang(decided) == (1, HEAD_ONLY)  # vector S6
    assert any(
        a.startswith(f"suspend every worker group of RayCluster/{NAME}") for a in life.actions
    )
    assert "submitter" in roles(decided)
    assert_idempotent(plan, before, BEFORE_TTL)


def test_delete_cluster_waits_for_its_ttl() -> None:
    plan = plan_of(rules_job(("DeleteCluster", "SUCCEEDED", 60)))
    before = snapshot("succeeded.yaml")
    early = decide(plan, facts(before), DONE + timedelta(seconds=30))
    assert "raycluster" in roles(early)
    assert lc(early).next_change_at == DONE + timedelta(seconds=60)
    assert lc(early).actions[-1].endswith("on the first `pulumi up` after 2026-11-29T10:06:00Z")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.cleanup == "DeleteCluster"
    assert roles(decided) == ["record", "podgroup", "submitter"]
    assert pg_gang(decided) == (0, {})
    assert any(
        a.startswith(
            f"delete RayCluster/{NAME} (spec.deletionStrategy.deletionRules[0]: DeleteCluster"
        )
        for a in life.actions
    )
    assert_idempotent(plan, before, BEFORE_TTL)


def test_delete_self_keeps_only_a_tombstone_record() -> None:
    plan = plan_of(rules_job(("DeleteSelf", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.cleanup == "DeleteSelf"
    assert roles(decided) == ["record"]
    assert set(life.removed) == {f"PodGroup/{PG}", f"RayCluster/{NAME}", f"Job/{NAME}"}
    assert decided.resource("podgroup") is None
    assert {
        a.split(" ")[0] + " " + a.split(" ")[1] for a in life.changes if a.startswith("delete")
    } == {
        f"delete PodGroup/{PG}",
        f"delete RayCluster/{NAME}",
        f"delete Job/{NAME}",
    }
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert lc(again).phase == "finished"  # the record remembers: the job does not run again


def test_delete_none_keeps_everything() -> None:
    plan = plan_of(rules_job(("DeleteNone", "SUCCEEDED", 0)))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), AFTER_TTL)
    assert lc(decided).cleanup == "DeleteNone"
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
        (40, "DeleteWorkers", ["record", "podgroup", "raycluster", "submitter"], 2),
        (70, "DeleteCluster", ["record", "podgroup", "submitter"], 1),
        (100, "DeleteSelf", ["record"], 0),
        # After a long outage, the most impactful overdue rule wins at once.
        (86400, "DeleteSelf", ["record"], 0),
    ]
    for seconds, policy, declared, later in expected:
        now = DONE + timedelta(seconds=seconds)
        decided = decide(plan, facts(before), now)
        assert lc(decided).cleanup == policy, seconds
        assert roles(decided) == declared, seconds
        assert sum(a.startswith("later:") for a in lc(decided).actions) == later, seconds
        assert_idempotent(plan, before, now)
    # From the DeleteWorkers state, the cluster rule removes what is left of the cluster.
    workers = converge(before, decide(plan, facts(before), DONE + timedelta(seconds=40)))
    decided = decide(plan, facts(workers), DONE + timedelta(seconds=70))
    assert roles(decided) == ["record", "podgroup", "submitter"]


def test_rules_match_the_result() -> None:
    plan = plan_of(rules_job(("DeleteCluster", "FAILED", 0)))
    succeeded = decide(plan, facts(snapshot("succeeded.yaml")), AFTER_TTL)
    assert "raycluster" in roles(succeeded)
    assert any("no deletion rule matches a succeeded job" in r for r in lc(succeeded).reasons)
    failed = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert lc(failed).phase == "failed" and "raycluster" not in roles(failed)
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
    assert (
        lc(early).actions[-1].startswith(f"later: suspend every worker group of RayCluster/{NAME}")
    )
    late = decide(plan, facts(before), AFTER_TTL)
    assert lc(late).cleanup == "DeleteWorkers"
    assert "raycluster" in roles(late)  # not deleted: the strategy replaces shutdown
    assert pg_gang(late) == (1, HEAD_ONLY)
    assert_idempotent(plan, before, AFTER_TTL)
    failed = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert lc(failed).cleanup == "DeleteCluster" and "raycluster" not in roles(failed)


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
    item = parse_rayjob(raw, "rayjob.yaml")
    problems = deletion_strategy_problems(item)
    assert any(path in p.path and message in p.message for p in problems), problems
    with pytest.raises(SpecError):
        parse_deletion_strategy(item)
    plan = plan_job(item, JobSettings())
    with pytest.raises(SpecError):
        decide(plan, None, DONE)


def test_well_formed_strategies_parse() -> None:
    item = parse_rayjob(
        rules_job(("DeleteWorkers", "SUCCEEDED", 30), ("DeleteCluster", "SUCCEEDED", 60)), "x"
    )
    strategy = parse_deletion_strategy(item)
    assert strategy is not None
    assert [(r.policy, r.ttl_seconds, r.where) for r in strategy.rules] == [
        ("DeleteWorkers", 30, "spec.deletionStrategy.deletionRules[0]"),
        ("DeleteCluster", 60, "spec.deletionStrategy.deletionRules[1]"),
    ]
    assert parse_deletion_strategy(parse_rayjob(rayjob(), "x")) is None


# --- suspend ---------------------------------------------------------------------------


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


def test_resume_plans_the_job_as_new() -> None:
    plan = plan_of(rayjob(suspend=False))
    before = snapshot("suspended.yaml")
    decided = decide(plan, facts(before), DONE)
    life = lc(decided)
    assert life.phase == "new"
    assert pg_gang(decided) == (3, FULL)
    assert f"create RayCluster/{NAME}" in life.changes
    assert f"create Job/{NAME} (submits {BASE_SID})" in life.changes
    assert any(a.startswith(f"set PodGroup/{PG} to minMember 3") for a in life.changes)
    assert_idempotent(plan, before, DONE)


def test_suspend_is_ignored_once_finished() -> None:
    plan = plan_of(rayjob(suspend=True))
    decided = decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    assert lc(decided).phase == "finished"
    assert "raycluster" in roles(decided)
    assert any("spec.suspend is ignored" in r for r in lc(decided).reasons)


# --- retries ---------------------------------------------------------------------------


def test_failed_with_retries_left_starts_a_fresh_attempt() -> None:
    plan = plan_of(rayjob(backoffLimit=2))
    before = snapshot("failed.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    sid = f"{BASE_SID}-a2"
    assert life.phase == "retrying"
    assert (life.attempt, life.submission_id, decided.submission_id) == (2, sid, sid)
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    for role in ("raycluster", "submitter"):
        resource = decided.resource(role)
        assert resource is not None
        assert resource.manifest["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
        assert ATTEMPT_REPLACE_PATH in resource.replace_on_changes
    assert ATTEMPT_REPLACE_PATH == 'metadata.annotations["raygang.dev/attempt"]'
    job = res(decided, "submitter")
    assert _sid(job) == sid and sid in job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert pg_gang(decided) == (3, FULL)  # the new attempt needs the whole gang again
    data = rec(decided)
    assert (
        data["raygang.dev/attempt"],
        data["raygang.dev/submission-id"],
        data["raygang.dev/first-attempt"],
    ) == ("2", sid, "1")
    assert "raygang.dev/finished-at" not in data
    assert life.changes == (
        f"update job record ConfigMap/{NAME}: submission-id {BASE_SID} -> {sid}, attempt 1 -> 2",
        f"replace RayCluster/{NAME} for attempt 2 (fresh pods)",
        f"replace Job/{NAME} (submits {sid}, attempt 2)",
    )
    assert any("spec.backoffLimit 2" in r for r in life.reasons)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert lc(again).phase == "running" and lc(again).attempt == 2


def test_interrupted_retry_carries_on() -> None:
    # The record was updated to attempt 2 but the RayCluster and Job are still attempt 1's.
    plan = plan_of(rayjob(backoffLimit=2))
    retry = decide(plan, facts(snapshot("failed.yaml")), BEFORE_TTL)
    objects = [copy.deepcopy(o) for o in snapshot("failed.yaml").objects.values()]
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    # failed.yaml's record is of an earlier raygang (values in data); the annotations win.
    cm["metadata"]["annotations"] = {
        "raygang.dev/attempt": "2",
        "raygang.dev/submission-id": f"{BASE_SID}-a2",
    }
    decided = decide(plan, facts(snapshot_from_objects(objects)), BEFORE_TTL)
    assert lc(decided).phase == "retrying"
    assert decided.resources == retry.resources
    assert any("belong to an earlier one" in r for r in lc(decided).reasons)


def test_retries_exhausted_is_failed_and_behaves_as_finished() -> None:
    plan = plan_of(rayjob(backoffLimit=1))
    before = snapshot("failed-attempt-2.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    sid = f"{BASE_SID}-a2"
    assert life.phase == "failed" and life.result == "failed"
    assert (life.attempt, life.submission_id) == (2, sid)
    assert any("no retries left (attempt 2, spec.backoffLimit 1)" in r for r in life.reasons)
    assert pg_gang(decided) == (3, NO_SUBMITTER)
    assert res(decided, "raycluster")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    assert _sid(res(decided, "submitter")) == sid
    assert rec(decided)["raygang.dev/result"] == "failed"
    assert_idempotent(plan, before, BEFORE_TTL)
    after = decide(plan, facts(before), AFTER_TTL)
    assert roles(after) == ["record", "podgroup", "submitter"]
    assert_idempotent(plan, before, AFTER_TTL)


def test_failed_without_backoff_limit_is_failed() -> None:
    plan = plan_of(rayjob())
    decided = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert lc(decided).phase == "failed"
    assert roles(decided) == ["record", "podgroup", "submitter"]


def test_a_user_set_job_id_is_kept_on_retry() -> None:
    raw = rayjob(backoffLimit=2, jobId="nightly-train")
    plan = plan_of(raw)
    assert plan.submission_id == "nightly-train"
    objects = yaml.safe_load(
        (FIXTURES / "failed.yaml").read_text().replace("__SUBMISSION_ID__", "nightly-train")
    )
    decided = decide(plan, facts(snapshot_from_objects([objects])), BEFORE_TTL)
    assert lc(decided).phase == "retrying"
    assert decided.submission_id == "nightly-train"
    assert res(decided, "submitter")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    assert attempt_submission_id("nightly-train", 3, user_set=True) == "nightly-train"
    assert attempt_submission_id("job-1a2b3c4d", 3) == "job-1a2b3c4d-a3"
    assert attempt_submission_id("job-1a2b3c4d", 1) == "job-1a2b3c4d"


# --- spec changes ----------------------------------------------------------------------


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
        "(Volcano reads it only at creation)" in lc(decided).changes
    )
    assert lc(decided).ignore_changes == {"submitter": ("spec",)}  # the Job is not re-run
    assert_idempotent(plan, before, BEFORE_TTL)


def test_queue_change_of_a_suspended_job_replaces_the_podgroup() -> None:
    plan = plan_of(rayjob(suspend=True, labels={"volcano.sh/queue-name": "other-queue"}))
    before = snapshot("suspended.yaml")
    decided = decide(plan, facts(before), DONE)
    assert any(a.startswith(f"replace PodGroup/{PG}: spec.queue") for a in lc(decided).changes)
    assert_idempotent(plan, before, DONE)


def test_podgroup_replacement_paths_are_declared_in_every_phase() -> None:
    # While running a change never reaches Pulumi (it is refused), so the option only acts
    # on jobs that are not running, and the declared objects stay the same across phases.
    for name, now in (("running.yaml", DONE), ("succeeded.yaml", BEFORE_TTL)):
        decided = decide(plan_of(rayjob()), facts(snapshot(name)), now)
        podgroup = decided.resource("podgroup")
        assert podgroup is not None and podgroup.replace_on_changes == PODGROUP_REPLACE_PATHS


def test_cluster_spec_change_while_running_updates_cluster_and_gang_not_the_submission() -> None:
    raw = rayjob()
    group = raw["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
    group.update(replicas=3, minReplicas=3, maxReplicas=3)
    plan = plan_of(raw)
    assert plan.submission_id != BASE_SID  # the derived ID covers the cluster spec
    before = snapshot("running.yaml")
    decided = decide(plan, facts(before), DONE)
    life = lc(decided)
    assert life.phase == "running"
    assert decided.submission_id == BASE_SID  # pinned to the running submission
    assert _sid(res(decided, "submitter")) == BASE_SID
    assert res(decided, "raycluster")["spec"]["workerGroupSpecs"][0]["replicas"] == 3
    assert pg_gang(decided) == (4, {"cpu": "4500m", "memory": "5320Mi"})
    assert rec(decided)["raygang.dev/base-submission-id"] == plan.submission_id
    assert any("the spec changed while submission" in r for r in life.reasons)
    assert f"update RayCluster/{NAME} (its spec changed)" in life.changes
    again = assert_idempotent(plan, before, DONE)
    # Once it finishes, the absorbed change does not start the job again.
    done = with_job_status(converge(before, again), "succeeded.yaml")
    finished = decide(plan, facts(done), BEFORE_TTL)
    assert lc(finished).phase == "finished"
    assert finished.submission_id == BASE_SID


def test_spec_change_after_the_finish_starts_a_new_run_on_fresh_objects() -> None:
    plan = plan_of(rayjob(entrypoint="python /home/ray/samples/sample_code.py --epochs 2"))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    life = lc(decided)
    assert life.phase == "new"
    assert decided.submission_id == plan.submission_id != BASE_SID
    assert res(decided, "raycluster")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    data = rec(decided)
    assert (data["raygang.dev/attempt"], data["raygang.dev/first-attempt"]) == ("2", "2")
    assert "raygang.dev/finished-at" not in data
    assert f"replace RayCluster/{NAME} for attempt 2 (fresh pods)" in life.changes
    assert pg_gang(decided) == (3, FULL)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert lc(again).phase == "running"
    assert again.submission_id == plan.submission_id
    # The new run has its own retry budget: its first failure is its attempt 1 of 2.
    retrying = plan_of(
        rayjob(entrypoint="python /home/ray/samples/sample_code.py --epochs 2", backoffLimit=1)
    )
    state = with_job_status(converge(before, decided), "failed.yaml")
    retry = decide(retrying, facts(state), BEFORE_TTL)
    assert lc(retry).phase == "retrying" and lc(retry).attempt == 3
    assert retry.submission_id == f"{plan.submission_id}-a2"
    assert rec(retry)["raygang.dev/first-attempt"] == "2"


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


# --- errors and rendering ----------------------------------------------------------------


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


def test_lifecycle_renders() -> None:
    decided = decide(plan_of(rayjob()), facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    out = lc(decided).to_dict()
    assert out["phase"] == "finished"
    assert out["actions"] == list(lc(decided).actions)
    assert out["finishedAt"] == "2026-11-29T10:05:00Z"
    assert out["nextChangeAt"] == "2026-11-29T10:15:00Z"
    assert out["result"] == "succeeded" and out["attempt"] == 1
    assert out["submissionId"] == BASE_SID
    lines = lc(decided).table_lines()
    assert lines[0] == (
        f"lifecycle: finished (succeeded at 2026-11-29T10:05:00Z, attempt 1, submission {BASE_SID})"
    )
    assert any(line.startswith("  why: ") for line in lines)
    assert lines[-1].startswith("  - later: delete RayCluster/")
    quiet = lc(decide(plan_of(rayjob()), facts(snapshot("running.yaml")), DONE))
    assert quiet.table_lines()[-1] == "  - nothing to change"
    assert "removed" not in quiet.to_dict()


def test_the_record_keeps_everything_in_annotations_and_an_old_record_its_data() -> None:
    # The provider replaces a ConfigMap whose data changes (a new UID: the garbage collector
    # would delete what the old record owned), so nothing the lifecycle writes is in data.
    plan = plan_of(rayjob(backoffLimit=2))
    new_style = decide(plan, facts(snapshot("running.yaml")), BEFORE_TTL)
    assert "data" not in res(new_style, "record")
    assert rec(new_style)["raygang.dev/attempt"] == "1"
    # failed.yaml's record was written by an earlier raygang: its data stays as observed,
    # so the upgrade is an in-place update, and the values move to the annotations.
    before = snapshot("failed.yaml")
    old_cm = before.get("ConfigMap", NS, NAME)
    assert old_cm is not None
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert res(decided, "record")["data"] == old_cm["data"]
    assert rec(decided)["raygang.dev/attempt"] == "2"
    assert rec(decided)["raygang.dev/submission-id"] == f"{BASE_SID}-a2"
    assert "raygang.dev/rayjob" in rec(decided) and "raygang.dev/gang" in rec(decided)


def test_a_record_past_the_annotation_limit_is_refused_at_plan_time() -> None:
    # The record keeps the RayJob in an annotation; the API server refuses an object whose
    # annotations exceed 256 KiB (apimachinery's ValidateAnnotationsSize).
    def with_env(entries: int) -> dict[str, Any]:
        raw = rayjob()
        head = raw["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
        head["containers"][0]["env"] = [{"name": f"V{i}", "value": "x"} for i in range(entries)]
        return raw

    record = plan_of(with_env(1500)).resource("record")
    assert record is not None
    size = annotations_size(record.manifest["metadata"]["annotations"])
    assert 150 * 1024 < size < RECORD_ANNOTATIONS_LIMIT
    with pytest.raises(SpecError) as caught:
        plan_of(with_env(2500))
    (problem,) = caught.value.problems
    assert problem.path == "<document>"
    assert f"ConfigMap {NS}/{NAME}" in problem.message
    assert "annotation raygang.dev/rayjob" in problem.message
    assert "over the 262144 bytes (256 KiB)" in problem.message
