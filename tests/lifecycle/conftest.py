"""Shared builders for the lifecycle's tests: the fixture RayJob and its plans, kubectl
snapshots (fixtures/lifecycle/*.yaml), and a stand-in for `pulumi up`.

Each branch is decided from a snapshot and then checked for idempotence: :func:`converge`
applies the decision the way Pulumi would (declared objects created or updated, replaced
when a ``replaceOnChanges`` path changed, the rest deleted; status kept on objects that
were not replaced), and deciding again from that state must declare the same objects and
find nothing to change (:func:`assert_idempotent`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.gang import Accounting
from raygang.kuberay.jobplan import JobPlan
from raygang.kuberay.settings import JobSettings
from raygang.lifecycle.decide import decide
from raygang.lifecycle.facts.clock import parse_now
from raygang.lifecycle.facts.gather import gather_facts
from raygang.lifecycle.facts.model import JobFacts
from raygang.lifecycle.model import Lifecycle
from raygang.plan import plan_job
from raygang.rayjob.spec import parse_rayjob

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lifecycle"
NS, NAME, PG = "ml", "rayjob-sample", "ray-rayjob-sample-pg"
DONE = parse_now("2026-11-29T10:05:00Z")
BEFORE_TTL = parse_now("2026-11-29T10:10:00Z")
AFTER_TTL = parse_now("2026-11-29T10:20:00Z")
FULL = {"cpu": "3500m", "memory": "4296Mi"}
NO_SUBMITTER = {"cpu": "3", "memory": "4Gi"}  # kuberay.md §8.3 vector S4
HEAD_ONLY = {"cpu": "1", "memory": "2Gi"}  # vector S6


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


def roles(decided: Lifecycle) -> list[str]:
    return [r.role for r in decided.resources]


def res(decided: Lifecycle, role: str) -> Mapping[str, Any]:
    found = decided.resource(role)
    assert found is not None, f"{role} is not declared"
    return found.manifest


def rec(decided: Lifecycle) -> Mapping[str, str]:
    """The job record's annotations: where it keeps everything (data changes replace it)."""
    return res(decided, "record")["metadata"]["annotations"]


def pg_gang(decided: Lifecycle) -> tuple[int, dict[str, str]]:
    spec = res(decided, "podgroup")["spec"]
    # A zero minMember is left out (Go's omitempty; the API server stores none, so a declared
    # 0 is a diff after `pulumi refresh`): absent means 0, a written 0 is a bug.
    assert spec.get("minMember", None) != 0, spec
    return spec.get("minMember", 0), dict(spec["minResources"])


def _path(obj: Mapping[str, Any], path: str) -> Any:
    """Follow a Pulumi property path such as ``metadata.annotations["a.b/c"]``."""
    value: Any = obj
    for part in re.findall(r'\["([^"]+)"\]|([^.\[\]]+)', path):
        key = part[0] or part[1]
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def sid_of(obj: Mapping[str, Any]) -> str | None:
    for c in obj.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
        for env in c.get("env", []):
            if env["name"] == "RAY_JOB_SUBMISSION_ID":
                return str(env["value"])
    return None


def converge(before: ClusterSnapshot, decided: Lifecycle) -> ClusterSnapshot:
    """Apply a decision the way `pulumi up` would, keeping what the cluster adds (status)."""
    objects = dict(before.objects)
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
        ignored = decided.ignore_changes.get(resource.role, ())
        replaced = live is not None and (
            any(_path(live, p) != _path(manifest, p) for p in resource.replace_on_changes)
            # batch/v1 Job templates are immutable: the provider replaces the Job.
            or (key[0] == "Job" and "spec" not in ignored and sid_of(live) != sid_of(manifest))
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


def assert_idempotent(plan: JobPlan, before: ClusterSnapshot, now: datetime) -> Lifecycle:
    """Decide, converge, decide again: same objects, nothing left to change."""
    first = decide(plan, facts(before), now)
    after = converge(before, first)
    again = decide(plan, facts(after), now)
    assert again.resources == first.resources
    assert again.submission_id == first.submission_id
    assert again.changes == (), again.changes
    assert set(again.actions) <= set(first.actions)
    # A third run from the same state changes nothing either.
    assert decide(plan, facts(converge(after, again)), now).resources == first.resources
    return again


def assert_converges(
    plan: JobPlan, before: ClusterSnapshot, now: datetime, ups: int
) -> list[Lifecycle]:
    """Decide and converge ``ups`` times, each run changing something, then nothing is left
    to change: the decisions of those runs and of the idempotent one after them.

    A cluster's deletion takes two: the `up` that deletes it keeps the PodGroup's numbers,
    the next one (the cluster and its pods gone) zeroes it.
    """
    runs: list[Lifecycle] = []
    state = before
    for _ in range(ups):
        runs.append(decide(plan, facts(state), now))
        assert runs[-1].changes, f"run {len(runs)} changed nothing"
        state = converge(state, runs[-1])
    final = assert_idempotent(plan, state, now)
    assert decide(plan, facts(state), now).resources == runs[-1].resources
    return [*runs, final]


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
