"""The declared objects of a run: the plan's objects, edited for the attempt and the phase.

Every edit is of a copy (:func:`~raygang.kube.tree.copy_tree`): the plan stays as planned.
What KubeRay's RayJob controller does to live objects
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0: ``createNewK8sJob`` and
``getOrCreateRayClusterInstance`` for a fresh attempt, ``suspendWorkerGroups`` for
DeleteWorkers) raygang does to the declared ones, and Pulumi converges the cluster to them:
a fresh attempt's RayCluster and Job are replaced through ``replaceOnChanges`` on the
attempt annotation, a finished job's kept objects are no longer awaited, and the job
record carries this run's lifecycle values in its annotations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from raygang.kube.errors import Problem, SpecError
from raygang.kube.tree import copy_tree
from raygang.kuberay import codepackage, manifests, submitter
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.manifests import (
    RECORD_ATTEMPT,
    RECORD_BASE_SUBMISSION_ID,
    RECORD_FINISHED_AT,
    RECORD_FIRST_ATTEMPT,
    RECORD_REASON,
    RECORD_RESULT,
    RECORD_SUBMISSION_ID,
)
from raygang.lifecycle.facts.model import ATTEMPT_ANNOTATION, JobFacts

__all__ = [
    "ATTEMPT_REPLACE_PATH",
    "PODGROUP_REPLACE_PATHS",
    "annotations_of",
    "attempt_objects",
    "finished_cluster",
    "finished_job",
    "podgroup_with",
    "record_data",
    "run_resources",
    "scale_workers_to_zero",
    "suspend_workers",
    "with_code",
    "with_fields",
    "with_manifest",
    "with_record",
]

#: Pulumi property path of the attempt annotation (bracketed: the key has dots and a slash).
ATTEMPT_REPLACE_PATH = f'metadata.annotations["{ATTEMPT_ANNOTATION}"]'

#: PodGroup fields Volcano and KubeRay read only at creation: a change must replace it.
PODGROUP_REPLACE_PATHS = ("spec.queue", "spec.priorityClassName", "spec.networkTopology")


def with_fields(resource: PlannedResource, **changes: Any) -> PlannedResource:
    """A copy of the planned object with those fields changed."""
    return dataclasses.replace(resource, **changes)


def with_manifest(
    resource: PlannedResource, edit: Callable[[dict[str, Any]], None]
) -> PlannedResource:
    """A copy of the planned object whose manifest ``edit`` changed (on a copy)."""
    manifest = copy_tree(dict(resource.manifest))
    edit(manifest)
    return with_fields(resource, manifest=manifest)


def annotations_of(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest's ``metadata.annotations``, created when missing, for editing."""
    meta = manifest.setdefault("metadata", {})
    if not isinstance(meta.get("annotations"), dict):
        meta["annotations"] = {}
    annotations: dict[str, Any] = meta["annotations"]
    return annotations


def run_resources(plan: JobPlan, sid: str, attempt: int) -> dict[str, PlannedResource]:
    """The planned objects for one attempt: rebuilt when its submission ID differs."""
    item, settings = plan.item, plan.settings
    out = {r.role: r for r in plan.resources}
    if sid != plan.submission_id:
        try:
            if "raycluster" in out:
                out["raycluster"] = with_fields(
                    out["raycluster"], manifest=manifests.raycluster_manifest(item, settings, sid)
                )
            if "submitter" in out:
                out["submitter"] = with_fields(
                    out["submitter"],
                    manifest=manifests.submitter_job_manifest(
                        item,
                        settings,
                        sid,
                        plan.dashboard_address,
                        codepackage.code_mount(item.name, plan.code) if plan.code else None,
                    ),
                )
        except submitter.SubmitterError as exc:
            raise SpecError([Problem(item.source, "spec", str(exc))]) from None
    if attempt >= 2:
        # Attempt 1 carries no annotation, so objects created before the lifecycle existed
        # are not replaced by adopting it.
        for role in ("raycluster", "submitter"):
            if role in out:
                resource = out[role]
                out[role] = with_manifest(
                    with_fields(
                        resource,
                        replace_on_changes=tuple(
                            dict.fromkeys((*resource.replace_on_changes, ATTEMPT_REPLACE_PATH))
                        ),
                    ),
                    lambda m: annotations_of(m).__setitem__(ATTEMPT_ANNOTATION, str(attempt)),
                )
    return out


def with_code(
    declared: Mapping[str, PlannedResource], resources: Mapping[str, PlannedResource]
) -> dict[str, PlannedResource]:
    """``declared`` plus the code package's ConfigMaps while the submitter Job is declared.

    The submitter is the package's only reader: the package stays while an attempt's Job
    exists and goes with it (issue 28). The phases name the attempt's objects only.
    """
    out = dict(declared)
    if "submitter" in out:
        out.update({role: r for role, r in resources.items() if role.startswith("code-")})
    return out


def podgroup_with(
    resource: PlannedResource, min_member: int, min_resources: Mapping[str, str]
) -> PlannedResource:
    """The PodGroup with this gang: ``minMember`` and ``minResources``.

    A ``minMember`` of 0 is left out, as Go's ``omitempty`` leaves it out of the PodGroup
    KubeRay writes: the API server stores none, so a declared 0 would be a diff in every
    preview after ``pulumi refresh`` (the fault suite found it). Absent reads as 0.
    """

    def edit(manifest: dict[str, Any]) -> None:
        spec = manifest.setdefault("spec", {})
        if min_member:
            spec["minMember"] = min_member
        else:
            spec.pop("minMember", None)
        spec["minResources"] = dict(min_resources)

    return with_manifest(resource, edit)


def suspend_workers(manifest: dict[str, Any]) -> None:
    """Set ``suspend: true`` on every worker group of a RayCluster manifest (DeleteWorkers)."""
    for group in manifest.get("spec", {}).get("workerGroupSpecs") or []:
        if isinstance(group, dict):
            group["suspend"] = True


def scale_workers_to_zero(manifest: dict[str, Any]) -> None:
    """Set every worker group of a RayCluster manifest to zero workers (DeleteWorkers, old KubeRay).

    KubeRay before v1.7 refuses ``suspend: true`` on a worker group unless its
    ``RayJobDeletionPolicy`` feature gate is on (``ValidateRayClusterSpec``, v1.5.0); zero
    replicas is valid on every version and deletes the same pods (DeleteWorkers is refused
    with the autoscaler, so ``replicas`` is what the operator follows).
    """
    for group in manifest.get("spec", {}).get("workerGroupSpecs") or []:
        if isinstance(group, dict):
            group.pop("suspend", None)
            group["replicas"] = 0
            group["minReplicas"] = 0


def attempt_objects(resources: Mapping[str, PlannedResource]) -> dict[str, PlannedResource]:
    """The PodGroup, RayCluster and submitter Job of the attempt, as planned for it."""
    declared = {"podgroup": resources["podgroup"]}
    for role in ("raycluster", "submitter"):
        if role in resources:
            declared[role] = resources[role]
    return declared


def finished_job(resource: PlannedResource) -> PlannedResource:
    """The kept submitter Job of a finished job: never awaited, never replaced.

    ``pulumi.com/replaceUnready`` would make the provider replace a Failed Job on every
    run (it is never "ready"), running the submitter again; a wait for completion would
    time out on it. Both go, and waiting only for the Job to exist makes the metadata update
    instant (while its deletion, later, is still awaited).
    """

    def edit(manifest: dict[str, Any]) -> None:
        annotations = annotations_of(manifest)
        annotations.pop(manifests.REPLACE_UNREADY, None)
        annotations.pop(manifests.TIMEOUT, None)
        annotations.pop(manifests.SKIP_AWAIT, None)
        annotations[manifests.WAIT_FOR] = manifests.WAIT_FOR_EXISTS

    return with_manifest(resource, edit)


def finished_cluster(resource: PlannedResource) -> PlannedResource:
    """The kept RayCluster of a finished job: its readiness no longer matters.

    Without this, any later update of it (DeleteWorkers, a label) would block ``pulumi up``
    until ``status.state`` is ``ready`` again, which a cluster whose head has gone after the
    job ended never reaches.
    """

    def edit(manifest: dict[str, Any]) -> None:
        annotations = annotations_of(manifest)
        annotations.pop(manifests.WAIT_FOR, None)
        annotations.pop(manifests.TIMEOUT, None)
        annotations[manifests.SKIP_AWAIT] = "true"

    return with_manifest(resource, edit)


def record_data(
    sid: str,
    base: str,
    attempt: int,
    first: int,
    finished_at: str | None,
    result: str | None,
    reason: str | None = None,
) -> dict[str, str]:
    """The job record's lifecycle values; the finish only once the job has finished.

    ``reason`` is kept only for a failure raygang decided itself (a deadline), which no
    later fact may overturn.
    """
    data = {
        RECORD_SUBMISSION_ID: sid,
        RECORD_BASE_SUBMISSION_ID: base,
        RECORD_ATTEMPT: str(attempt),
        RECORD_FIRST_ATTEMPT: str(first),
    }
    if finished_at is not None and result is not None:
        data[RECORD_FINISHED_AT] = finished_at
        data[RECORD_RESULT] = result
        if reason is not None:
            data[RECORD_REASON] = reason
    return data


def with_record(
    resource: PlannedResource, values: Mapping[str, str], facts: JobFacts | None = None
) -> PlannedResource:
    """The record with this run's lifecycle values in its annotations.

    A record written by an earlier raygang kept its values in ``data``, and the
    pulumi-kubernetes provider replaces a ConfigMap whose ``data`` changes: a new UID, and
    the garbage collector deletes what the old one owned (the PodGroup, the RayCluster, the
    Job). So such a record keeps its old ``data`` as observed, unchanged from then on, and
    the upgrade is an in-place update; its values are read from the annotations first.
    """
    legacy = facts.own_record.legacy_data if facts and facts.own_record else {}

    def edit(manifest: dict[str, Any]) -> None:
        annotations_of(manifest).update(values)
        if legacy:
            manifest["data"] = dict(legacy)

    return with_manifest(resource, edit)
