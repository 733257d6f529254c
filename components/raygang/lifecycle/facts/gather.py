"""Gather one job's facts from a snapshot: the observed state every ``pulumi up`` decides from.

raygang has no operator watching the cluster. Instead, each run first gathers the observed
state of a job's objects (the submitter Job, the RayCluster, the PodGroup and the job
record) and then declares the state that should hold (:mod:`raygang.lifecycle.decide`),
like an Ansible play: gather facts, then converge. KubeRay's RayJob controller reads the
same objects on every reconcile (``ray-operator/controllers/ray/rayjob_controller.go``
v1.7.0: ``checkSubmitterAndUpdateStatusIfNeeded``, the head pod for SidecarMode).

Facts come from a :class:`~raygang.kube.snapshot.ClusterSnapshot`: a file written by
``kubectl get ... -o yaml`` (offline, reproducible, reviewable) or, when the optional
``kubernetes`` client is installed, :func:`raygang.lifecycle.facts.live.live_snapshot`.
Everything here is pure and tolerant: an object the snapshot does not hold is simply
absent, and a field that cannot be read becomes None plus a note, never an exception,
because a half-written status must not stop a deployment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.manifests import (
    MANAGED_BY_LABEL,
    RECORD_ATTEMPT,
    RECORD_BASE_SUBMISSION_ID,
    RECORD_FINISHED_AT,
    RECORD_FIRST_ATTEMPT,
    RECORD_HISTORY,
    RECORD_LEGACY_DATA_KEYS,
    RECORD_REASON,
    RECORD_RESULT,
    RECORD_SUBMISSION_ID,
    podgroup_name,
)
from raygang.lifecycle.facts.fields import (
    as_int,
    as_list,
    as_mapping,
    as_str,
    env_value,
    read_attempt,
    read_time,
)
from raygang.lifecycle.facts.model import (
    ClusterFacts,
    Condition,
    JobFacts,
    PodGroupFacts,
    RecordFacts,
    SidecarFacts,
    SubmitterFacts,
)
from raygang.rayjob.spec import RayClusterSpec

__all__ = ["SUBMISSION_ID_ENV", "SUBMITTER_CONTAINER", "gather_facts", "record_values"]

SUBMISSION_ID_ENV = "RAY_JOB_SUBMISSION_ID"
SUBMITTER_CONTAINER = "ray-job-submitter"


def _submitter_facts(obj: Mapping[str, Any], notes: list[str]) -> SubmitterFacts:
    meta = as_mapping(obj.get("metadata"))
    status = as_mapping(obj.get("status"))
    name = str(meta.get("name"))
    conditions = tuple(
        Condition(
            type=str(c.get("type", "")),
            status=str(c.get("status", "")),
            reason=str(c.get("reason") or ""),
            message=str(c.get("message") or ""),
            last_transition_time=read_time(
                c.get("lastTransitionTime"), f"Job {name} condition {c.get('type')}", notes
            ),
        )
        for c in map(as_mapping, as_list(status.get("conditions")))
    )
    pod_spec = as_mapping(as_mapping(as_mapping(obj.get("spec")).get("template")).get("spec"))
    return SubmitterFacts(
        name=name,
        conditions=conditions,
        start_time=read_time(status.get("startTime"), f"Job {name} startTime", notes),
        completion_time=read_time(
            status.get("completionTime"), f"Job {name} completionTime", notes
        ),
        active=as_int(status.get("active")),
        succeeded=as_int(status.get("succeeded")),
        failed=as_int(status.get("failed")),
        submission_id=env_value(as_list(pod_spec.get("containers")), SUBMISSION_ID_ENV),
        attempt=read_attempt(meta, f"Job {name}", notes),
        deleting=bool(meta.get("deletionTimestamp")),
    )


def _head_pod(snapshot: ClusterSnapshot, namespace: str, cluster: str) -> Mapping[str, Any] | None:
    # KubeRay labels every pod with its cluster and node type; the head pod's name has a
    # random suffix, so it is found by label rather than by name.
    for pod in snapshot.of_kind("Pod"):
        meta = as_mapping(pod.get("metadata"))
        labels = as_mapping(meta.get("labels"))
        if (
            (meta.get("namespace") or "") == namespace
            and labels.get("ray.io/cluster") == cluster
            and labels.get("ray.io/node-type") == "head"
            and not meta.get("deletionTimestamp")
        ):
            return pod
    return None


def _cluster_pods(
    snapshot: ClusterSnapshot, namespace: str, cluster: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The cluster's pods that hold their nodes' resources, bound and not finished, and
    those of them that are workers; one pass over the snapshot's pods for both.

    Terminating pods count (a pod holds its node until it is gone, as the scheduler's cache
    keeps it); a pod never placed holds nothing, nor does one whose containers have all
    ended (the kubelet has released it).
    """
    names = []
    workers = []
    for pod in snapshot.of_kind("Pod"):
        meta = as_mapping(pod.get("metadata"))
        labels = as_mapping(meta.get("labels"))
        if (
            (meta.get("namespace") or "") == namespace
            and labels.get("ray.io/cluster") == cluster
            and as_mapping(pod.get("spec")).get("nodeName")
            and as_mapping(pod.get("status")).get("phase") not in ("Succeeded", "Failed")
        ):
            names.append(str(meta.get("name")))
            if labels.get("ray.io/node-type") == "worker":
                workers.append(names[-1])
    return tuple(sorted(names)), tuple(sorted(workers))


def _sidecar_facts(pod: Mapping[str, Any], notes: list[str]) -> SidecarFacts | None:
    meta = as_mapping(pod.get("metadata"))
    name = str(meta.get("name"))
    for status in map(as_mapping, as_list(as_mapping(pod.get("status")).get("containerStatuses"))):
        if status.get("name") != SUBMITTER_CONTAINER:
            continue
        terminated = as_mapping(as_mapping(status.get("state")).get("terminated"))
        if not terminated:
            return SidecarFacts(pod=name)
        return SidecarFacts(
            pod=name,
            terminated=True,
            exit_code=as_int(terminated.get("exitCode"), -1),
            reason=str(terminated.get("reason") or ""),
            finished_at=read_time(
                terminated.get("finishedAt"), f"Pod {name} submitter finishedAt", notes
            ),
        )
    return None


def _cluster_facts(
    obj: Mapping[str, Any], snapshot: ClusterSnapshot, namespace: str, notes: list[str]
) -> ClusterFacts:
    meta = as_mapping(obj.get("metadata"))
    name = str(meta.get("name"))
    raw_spec = as_mapping(obj.get("spec"))
    spec: RayClusterSpec | None = None
    problem: str | None = None
    try:
        spec = RayClusterSpec.model_validate(dict(raw_spec))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        problem = f"spec.{where}: {first['msg']}"
        notes.append(f"RayCluster {name}: the live spec cannot be read ({problem})")
    groups = [as_mapping(g) for g in as_list(raw_spec.get("workerGroupSpecs"))]
    head_spec = as_mapping(
        as_mapping(as_mapping(raw_spec.get("headGroupSpec")).get("template")).get("spec")
    )
    head_pod = _head_pod(snapshot, namespace, name)
    return ClusterFacts(
        name=name,
        state=as_str(as_mapping(obj.get("status")).get("state")),
        deleting=bool(meta.get("deletionTimestamp")),
        spec=spec,
        spec_problem=problem,
        worker_groups=tuple(str(g.get("groupName", "")) for g in groups),
        suspended_groups=tuple(
            str(g.get("groupName", "")) for g in groups if g.get("suspend") is True
        ),
        created_at=read_time(meta.get("creationTimestamp"), f"RayCluster {name}", notes)
        if meta.get("creationTimestamp")
        else None,
        attempt=read_attempt(meta, f"RayCluster {name}", notes),
        submission_id=env_value(
            as_list(head_spec.get("containers")), SUBMISSION_ID_ENV, only=SUBMITTER_CONTAINER
        ),
        head_submitter=_sidecar_facts(head_pod, notes) if head_pod is not None else None,
        scaled_to_zero_groups=tuple(str(g.get("groupName", "")) for g in groups if _no_workers(g)),
        suspend_refused=_suspend_refused(snapshot, namespace, name, meta.get("uid")),
    )


# KubeRay v1.5 ``ValidateRayClusterSpec`` (``utils/validation.go``): a suspended worker group
# needs the RayJobDeletionPolicy feature gate; the operator records the refusal as a Warning
# event and leaves the cluster as it was.
REFUSED_REASON = "InvalidRayClusterSpec"
REFUSED_SUSPEND = "can be suspended only when the RayJobDeletionPolicy feature gate is enabled"


def _suspend_refused(
    snapshot: ClusterSnapshot, namespace: str, name: str, uid: object
) -> str | None:
    """The operator's latest refusal of this RayCluster's suspended worker groups, if any."""
    for event in snapshot.of_kind("Event"):
        meta = as_mapping(event.get("metadata"))
        about = as_mapping(event.get("involvedObject"))
        if (
            str(meta.get("namespace") or "") == namespace
            and about.get("kind") == "RayCluster"
            and about.get("name") == name
            # An event of an earlier RayCluster of the same name says nothing of this one.
            and (uid is None or about.get("uid") in (None, uid))
            and event.get("reason") == REFUSED_REASON
            and REFUSED_SUSPEND in str(event.get("message") or "")
        ):
            return str(event.get("message"))
    return None


def _no_workers(group: Mapping[str, Any]) -> bool:
    return group.get("replicas") == 0 and group.get("minReplicas") in (None, 0)


def _podgroup_facts(obj: Mapping[str, Any]) -> PodGroupFacts:
    meta = as_mapping(obj.get("metadata"))
    spec = as_mapping(obj.get("spec"))
    resources = spec.get("minResources")
    topology = spec.get("networkTopology")
    return PodGroupFacts(
        name=str(meta.get("name")),
        phase=as_str(as_mapping(obj.get("status")).get("phase")),
        min_member=as_int(spec.get("minMember")),
        min_resources=(
            {str(k): str(v) for k, v in resources.items()}
            if isinstance(resources, Mapping)
            else None
        ),
        queue=as_str(spec.get("queue")),
        priority_class=as_str(spec.get("priorityClassName")),
        network_topology=dict(topology) if isinstance(topology, Mapping) else None,
        deleting=bool(meta.get("deletionTimestamp")),
    )


def _positive(values: Mapping[str, str], key: str, where: str, notes: list[str]) -> int | None:
    if key not in values:
        return None
    value = as_int(values[key], -1)
    if value < 1:
        notes.append(f"{where} {values[key]!r} is not a positive number; ignored")
        return None
    return value


def record_values(annotations: Mapping[str, str], data: Mapping[str, str]) -> dict[str, str]:
    """A record's ``raygang.dev/*`` values: its annotations, else its old data keys."""
    values: dict[str, str] = {}
    for key, old in RECORD_LEGACY_DATA_KEYS.items():
        if key in annotations:
            values[key] = annotations[key]
        elif old in data:
            values[key] = data[old]
    if RECORD_REASON in annotations:  # newer than the data keys: only ever an annotation
        values[RECORD_REASON] = annotations[RECORD_REASON]
    if RECORD_HISTORY in annotations:  # issue 28: only ever an annotation
        values[RECORD_HISTORY] = annotations[RECORD_HISTORY]
    return values


def _record_facts(obj: Mapping[str, Any], notes: list[str]) -> RecordFacts:
    meta = as_mapping(obj.get("metadata"))
    name = str(meta.get("name"))
    data = {str(k): str(v) for k, v in as_mapping(obj.get("data")).items()}
    annotations = {str(k): str(v) for k, v in as_mapping(meta.get("annotations")).items()}
    values = record_values(annotations, data)
    managed = as_mapping(meta.get("labels")).get(MANAGED_BY_LABEL) == "raygang"
    if not managed:
        notes.append(
            f"ConfigMap {name} exists but is not a raygang job record "
            f"(no {MANAGED_BY_LABEL}: raygang label); its contents are ignored"
        )
        return RecordFacts(name=name, values=values, legacy_data=data, managed=False)

    def where(key: str) -> str:
        held = f"annotation {key}" if key in annotations else f"data.{RECORD_LEGACY_DATA_KEYS[key]}"
        return f"ConfigMap {name} {held}"

    attempt = _positive(values, RECORD_ATTEMPT, where(RECORD_ATTEMPT), notes)
    first = _positive(values, RECORD_FIRST_ATTEMPT, where(RECORD_FIRST_ATTEMPT), notes)
    result = values.get(RECORD_RESULT)
    if result is not None and result not in ("succeeded", "failed"):
        notes.append(f"{where(RECORD_RESULT)} {result!r} is neither succeeded nor failed; ignored")
        result = None
    return RecordFacts(
        name=name,
        values=values,
        legacy_data=data,
        managed=True,
        attempt=attempt,
        first_attempt=first,
        submission_id=values.get(RECORD_SUBMISSION_ID) or None,
        base_submission_id=values.get(RECORD_BASE_SUBMISSION_ID) or None,
        finished_at=read_time(values.get(RECORD_FINISHED_AT), where(RECORD_FINISHED_AT), notes),
        result=result,
        reason=(values.get(RECORD_REASON) or None) if result == "failed" else None,
    )


def _of_api(
    snapshot: ClusterSnapshot,
    kind: str,
    namespace: str,
    name: str,
    api_prefix: str,
    notes: list[str],
) -> Mapping[str, Any] | None:
    obj = snapshot.get(kind, namespace, name)
    if obj is None:
        return None
    api = str(obj.get("apiVersion", ""))
    # The snapshot is keyed by kind only: a Volcano batch Job named like the job must not
    # be read as the submitter.
    if api and not api.startswith(api_prefix):
        notes.append(f"{kind} {namespace}/{name} has apiVersion {api}, not {api_prefix}*; ignored")
        return None
    return obj


def gather_facts(snapshot: ClusterSnapshot, namespace: str, name: str) -> JobFacts:
    """Read one job's objects from a snapshot.

    Args:
        snapshot: what the cluster reported (``kubectl get ... -o yaml``, or
            :func:`live_snapshot`).
        namespace: the RayJob's namespace.
        name: the RayJob's name; the RayCluster, the submitter Job and the record share
            it, the PodGroup is ``ray-<name>-pg``.

    Returns:
        The facts; objects the snapshot does not hold are None.
    """
    notes: list[str] = []
    cluster_pods, worker_pods = _cluster_pods(snapshot, namespace, name)
    job = _of_api(snapshot, "Job", namespace, name, "batch/", notes)
    cluster = _of_api(snapshot, "RayCluster", namespace, name, "ray.io/", notes)
    podgroup = _of_api(
        snapshot, "PodGroup", namespace, podgroup_name(name), "scheduling.volcano.sh/", notes
    )
    record = _of_api(snapshot, "ConfigMap", namespace, name, "v1", notes)
    return JobFacts(
        namespace=namespace,
        name=name,
        source=snapshot.source,
        submitter=_submitter_facts(job, notes) if job is not None else None,
        cluster=_cluster_facts(cluster, snapshot, namespace, notes)
        if cluster is not None
        else None,
        podgroup=_podgroup_facts(podgroup) if podgroup is not None else None,
        record=_record_facts(record, notes) if record is not None else None,
        pods_observed=snapshot.has_kind("Pod"),
        cluster_pods=cluster_pods,
        worker_pods=worker_pods,
        notes=tuple(notes),
    )
