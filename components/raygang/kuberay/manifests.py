"""Builders for the objects raygang creates, as plain Kubernetes dicts.

Each builder starts from a deep copy of what the user wrote and adds only the metadata
raygang owns (scheduler name, PodGroup annotations, queue and priority labels, Pulumi's
await annotations). ownerReferences are added by the Pulumi layer, because the record's
UID exists only once it has been created.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from raygang.kube._indentjson import dumps_indented
from raygang.kuberay import submitter
from raygang.kuberay.gang import HEAD_GROUP, SUBMITTER_GROUP, Gang
from raygang.kuberay.redact import redact_rayjob
from raygang.kuberay.settings import JobSettings
from raygang.kuberay.subgangs import SubGang, sub_group_policy
from raygang.rayjob.spec import RayJobInput

__all__ = [
    "CODE_PACKAGE_ANNOTATION",
    "GROUP_NAME_ANNOTATION",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "RECORD_ANNOTATIONS_LIMIT",
    "RECORD_ATTEMPT",
    "RECORD_BASE_SUBMISSION_ID",
    "RECORD_FINISHED_AT",
    "RECORD_FIRST_ATTEMPT",
    "RECORD_GANG",
    "RECORD_HISTORY",
    "RECORD_LEGACY_DATA_KEYS",
    "RECORD_RAYJOB",
    "RECORD_REASON",
    "RECORD_RESULT",
    "RECORD_SUBMISSION_ID",
    "TASK_SPEC_ANNOTATION",
    "add_pod_metadata",
    "annotations_size",
    "own_map",
    "owner_podgroup",
    "owner_reference",
    "podgroup_manifest",
    "podgroup_name",
    "raycluster_manifest",
    "record_manifest",
    "submitter_job_manifest",
]

GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
TASK_SPEC_ANNOTATION = "volcano.sh/task-spec"
QUEUE_LABEL = "volcano.sh/queue-name"
PRIORITY_LABEL = "ray.io/priority-class-name"
TOPOLOGY_MODE_LABEL = "volcano.sh/network-topology-mode"
TOPOLOGY_TIER_LABEL = "volcano.sh/network-topology-highest-tier-allowed"
ORIGIN_NAME_LABEL = "ray.io/originated-from-cr-name"
ORIGIN_CRD_LABEL = "ray.io/originated-from-crd"
MODE_LABEL = "ray.io/job-submission-mode"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
SCHEDULER = "volcano"

WAIT_FOR = "pulumi.com/waitFor"
TIMEOUT = "pulumi.com/timeoutSeconds"
SKIP_AWAIT = "pulumi.com/skipAwait"
# The provider forces its server-side apply over fields another manager holds.
PATCH_FORCE = "pulumi.com/patchForce"
# "Ready" for a submitter Job that `pulumi up` does not wait on: it exists. Unlike skipAwait,
# a custom waitFor leaves the provider's delete await in place, so a replaced Job (new
# submission ID) is gone before its successor of the same name is created; with skipAwait
# the create raced the old Job's deletion and failed with a server-side apply conflict
# (seen against the real API server).
WAIT_FOR_EXISTS = "jsonpath={.metadata.uid}"
REPLACE_UNREADY = "pulumi.com/replaceUnready"

#: The code package's SHA-256 on the submitter Job and the record (issue 28); the same key
#: as :data:`raygang.kuberay.codepackage.CODE_PACKAGE_ANNOTATION`.
CODE_PACKAGE_ANNOTATION = "raygang.dev/code-package"

# The job record keeps everything in annotations, none of it in ``data``: the
# pulumi-kubernetes provider replaces a ConfigMap whose ``data`` or ``binaryData`` changes
# (unless the user's provider sets ``enableConfigMapMutable``), and a replaced record has a
# new UID, so the garbage collector would take the PodGroup, RayCluster and Job it owns with
# it. Metadata is updated in place, so the record keeps one UID for the job's life.
RECORD_RAYJOB = "raygang.dev/rayjob"
RECORD_GANG = "raygang.dev/gang"
RECORD_SUBMISSION_ID = "raygang.dev/submission-id"
RECORD_BASE_SUBMISSION_ID = "raygang.dev/base-submission-id"
RECORD_ATTEMPT = "raygang.dev/attempt"
RECORD_FIRST_ATTEMPT = "raygang.dev/first-attempt"
RECORD_FINISHED_AT = "raygang.dev/finished-at"
RECORD_RESULT = "raygang.dev/result"
# Why a job failed, when raygang itself failed it (a deadline): the submitter's own finish,
# seen later, must not overturn it, as KubeRay never leaves Failed.
RECORD_REASON = "raygang.dev/reason"
# Every submission of a job with a code package or a resubmit counter (issue 28):
# raygang.lifecycle.history writes and reads it.
RECORD_HISTORY = "raygang.dev/history"

#: Where records written by earlier raygang versions kept each value: keys of their
#: ``data``. Still read, so records in existing clusters keep their history.
RECORD_LEGACY_DATA_KEYS = {
    RECORD_RAYJOB: "rayjob.json",
    RECORD_GANG: "gang.json",
    RECORD_SUBMISSION_ID: "submissionId",
    RECORD_BASE_SUBMISSION_ID: "baseSubmissionId",
    RECORD_ATTEMPT: "attempt",
    RECORD_FIRST_ATTEMPT: "firstAttempt",
    RECORD_FINISHED_AT: "finishedAt",
    RECORD_RESULT: "result",
}

#: apimachinery's TotalAnnotationSizeLimitB: an object's annotations, keys and values, hold
#: at most 256 KiB (ValidateAnnotationsSize counts the bytes of every key and value).
RECORD_ANNOTATIONS_LIMIT = 256 * 1024


def annotations_size(annotations: Mapping[str, str]) -> int:
    """The size ValidateAnnotationsSize counts: the UTF-8 bytes of every key and value."""
    return sum(len(k.encode("utf-8")) + len(v.encode("utf-8")) for k, v in annotations.items())


def podgroup_name(job_name: str) -> str:
    """KubeRay's getAppPodGroupName for a RayJob: ``ray-<job>-pg``."""
    return f"ray-{job_name}-pg"


def owner_reference(name: str, uid: object) -> dict[str, object]:
    """An ownerReference to the job record (a ConfigMap), as a RayJob owns its children."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _scheduling_labels(item: RayJobInput) -> dict[str, str]:
    # KubeRay copies these only when the value is non-empty.
    labels = item.job.metadata.labels
    return {k: labels[k] for k in (QUEUE_LABEL, PRIORITY_LABEL) if labels.get(k)}


def own_map(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a map of ``parent``'s own: a shallow copy of what is there (a new
    map when it is missing, null or not a map), so what is added to it does not reach the
    user's manifest, while everything below it stays shared with that manifest."""
    value = parent.get(key)
    owned = dict(value) if isinstance(value, Mapping) else {}
    parent[key] = owned
    return owned


def add_pod_metadata(
    template: dict[str, Any], labels: Mapping[str, str], group: str, task: str
) -> None:
    """KubeRay's AddMetadataToChildResource on a pod template, done once at plan time:
    the job's scheduling ``labels`` and the PodGroup name ``group`` (one object for all
    of a job's templates)."""
    meta = own_map(template, "metadata")
    if labels or not isinstance(meta.get("labels"), Mapping):
        own_map(meta, "labels").update(labels)
    annotations = own_map(meta, "annotations")
    annotations[GROUP_NAME_ANNOTATION] = group
    annotations[TASK_SPEC_ANNOTATION] = task
    own_map(template, "spec")["schedulerName"] = SCHEDULER


def record_manifest(
    item: RayJobInput, gang: Gang, submission_id: str, extra: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The job record: a ConfigMap that owns the job's objects, as a RayJob does.

    It keeps the input and the computed gang, so ``kubectl get cm <job> -o yaml`` answers
    "what was submitted and what was reserved" without Pulumi. Everything is in annotations
    (``raygang.dev/rayjob``, ``raygang.dev/gang``, ``raygang.dev/submission-id``; the
    lifecycle adds the rest) and nothing in ``data``, so every change is an in-place update
    (see :data:`RECORD_RAYJOB`). The input is indented JSON with sorted keys: line-per-field,
    so ``pulumi preview --diff`` shows what changed, and about 15 times cheaper to produce
    than YAML, which dominated planning time. It is the input without secret values
    (:func:`raygang.kuberay.redact.redact_rayjob`): a ConfigMap is readable by roles that
    cannot read Secrets, and the lifecycle needs none of them.
    """
    gang_doc = {
        "accounting": str(gang.accounting),
        "minMember": gang.min_member,
        "minResources": gang.min_resources_strings(),
    }
    annotations = {
        RECORD_RAYJOB: dumps_indented(redact_rayjob(item.raw), sort_keys=True, ensure_ascii=False)
        + "\n",
        RECORD_GANG: json.dumps(gang_doc, sort_keys=True),
        RECORD_SUBMISSION_ID: submission_id,
    }
    annotations.update(extra or {})
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": item.name,
            "namespace": item.namespace,
            "labels": {
                MANAGED_BY_LABEL: "raygang",
                ORIGIN_NAME_LABEL: item.name,
                ORIGIN_CRD_LABEL: "RayJob",
            },
            "annotations": annotations,
        },
    }


def podgroup_manifest(
    item: RayJobInput, gang: Gang, sub_gangs: tuple[SubGang, ...] = ()
) -> dict[str, Any]:
    """The Volcano PodGroup KubeRay's createPodGroup would build for this RayJob (v1.6 and
    later copy the RayJob's annotations onto it; v1.5.0 does not), with the
    ``subGroupPolicy`` of ``sub_gangs`` (raygang's, beyond KubeRay) when there are any."""
    meta = item.job.metadata
    return owner_podgroup(item.name, item.namespace, meta.labels, meta.annotations, gang, sub_gangs)


def owner_podgroup(
    owner: str,
    namespace: str,
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    gang: Gang,
    sub_gangs: tuple[SubGang, ...] = (),
) -> dict[str, Any]:
    """KubeRay's createPodGroup for an owner (a RayJob, or a RayCluster of its own) named
    ``owner``: the PodGroup ``ray-<owner>-pg``, its spec from the owner's labels, and the
    ``subGroupPolicy`` of ``sub_gangs`` (raygang's, beyond KubeRay) when there are any."""
    spec: dict[str, Any] = {
        "minMember": gang.min_member,
        "minResources": gang.min_resources_strings(),
    }
    # KubeRay sets the queue whenever the label key exists, even with an empty value.
    if QUEUE_LABEL in labels:
        spec["queue"] = labels[QUEUE_LABEL]
    if PRIORITY_LABEL in labels:
        spec["priorityClassName"] = labels[PRIORITY_LABEL]
    if TOPOLOGY_MODE_LABEL in labels:
        topology: dict[str, Any] = {"mode": labels[TOPOLOGY_MODE_LABEL]}
        if TOPOLOGY_TIER_LABEL in labels:
            topology["highestTierAllowed"] = int(labels[TOPOLOGY_TIER_LABEL])
        spec["networkTopology"] = topology
    if sub_gangs:
        spec["subGroupPolicy"] = sub_group_policy(sub_gangs)
    metadata: dict[str, Any] = {"name": podgroup_name(owner), "namespace": namespace}
    # The API server drops an empty map, so declaring one would show as a change in every
    # `pulumi preview` after the first `up` (seen against the real API server).
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
    }


def raycluster_manifest(
    item: RayJobInput, settings: JobSettings, submission_id: str
) -> dict[str, Any]:
    """The RayCluster KubeRay's constructRayClusterForRayJob would build, Volcano metadata included.

    The labels ``ray.io/originated-from-crd: RayJob`` and ``ray.io/originated-from-cr-name``
    make a KubeRay operator running with ``--batch-scheduler=volcano`` skip creating a
    PodGroup of its own and point its pods at ``ray-<job>-pg``, the one raygang creates.
    """
    mode = item.job.spec.submission_mode
    # Only the maps on the way to what KubeRay adds are copied (own_map); the rest of the
    # user's cluster spec (containers, volumes, ...) is shared with the manifest, which
    # nothing writes to after planning (the lifecycle edits copies).
    spec = dict(item.spec_view().get("rayClusterSpec") or {})
    head = own_map(own_map(spec, "headGroupSpec"), "template")
    labels, group = _scheduling_labels(item), podgroup_name(item.name)
    add_pod_metadata(head, labels, group, HEAD_GROUP)
    groups = spec.get("workerGroupSpecs")
    if isinstance(groups, list):
        spec["workerGroupSpecs"] = [dict(g) if isinstance(g, Mapping) else g for g in groups]
        for worker in spec["workerGroupSpecs"]:
            if isinstance(worker, dict):
                name = str(worker.get("groupName", ""))
                add_pod_metadata(own_map(worker, "template"), labels, group, name)
    annotations = dict(item.job.metadata.annotations)
    if mode == "SidecarMode":
        head_spec = head["spec"]
        containers = head_spec.get("containers")
        if isinstance(containers, list):
            head_spec["containers"] = [
                *containers,
                submitter.sidecar_container(job=item, submission_id=submission_id),
            ]
        head_spec["restartPolicy"] = "Never"
        # Read from KubeRay v1.6; v1.5.0 never recreates the head of a cluster a RayJob made.
        annotations["ray.io/disable-provisioned-head-restart"] = "true"
    if mode == "K8sJobMode":
        # KubeRay annotates the RayCluster object itself only in K8sJobMode.
        annotations[GROUP_NAME_ANNOTATION] = group
        annotations[TASK_SPEC_ANNOTATION] = ""
    annotations[WAIT_FOR] = "jsonpath={.status.state}=ready"
    annotations[TIMEOUT] = str(settings.cluster_ready_timeout_seconds)
    labels = {
        **item.job.metadata.labels,
        ORIGIN_NAME_LABEL: item.name,
        ORIGIN_CRD_LABEL: "RayJob",
        MODE_LABEL: mode,
    }
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {
            "name": item.name,
            "namespace": item.namespace,
            "labels": labels,
            "annotations": annotations,
        },
        "spec": spec,
    }


def submitter_job_manifest(
    item: RayJobInput,
    settings: JobSettings,
    submission_id: str,
    dashboard_address: str,
    code: submitter.CodeMount | None = None,
) -> dict[str, Any]:
    """The submitter Job (K8sJobMode), with the Volcano metadata KubeRay adds to its pods.

    With a code package (``code``, issue 28) its pod mounts the package and the Job carries
    the package's hash in annotation ``raygang.dev/code-package``, so ``pulumi preview
    --diff`` names the version a change submits.
    """
    labels = {**_scheduling_labels(item)}
    job = submitter.submitter_job(
        # Reads the typed job; the user's submitterPodTemplate is copied as written.
        job=item,
        submission_id=submission_id,
        dashboard_address=dashboard_address,
        labels=labels,
        fail_on_job_failure=settings.fail_on_job_failure,
        code=code,
    )
    template = own_map(own_map(job, "spec"), "template")
    add_pod_metadata(template, _scheduling_labels(item), podgroup_name(item.name), SUBMITTER_GROUP)
    annotations = own_map(own_map(job, "metadata"), "annotations")
    if code is not None:
        annotations[CODE_PACKAGE_ANNOTATION] = code.sha256
    if settings.wait_for_completion:
        annotations[TIMEOUT] = str(settings.completion_timeout_seconds)
        # A failed submitter is replaced on the next `up`; the same submission ID makes
        # the new pod follow the existing Ray job instead of submitting it again.
        annotations[REPLACE_UNREADY] = "true"
    else:
        # `pulumi up` returns once the Job exists instead of blocking for the Ray job's runtime.
        annotations[WAIT_FOR] = WAIT_FOR_EXISTS
    return job
