"""What the cluster reports about one job: the facts every ``pulumi up`` decides from.

raygang has no operator watching the cluster. Instead, each run first gathers the observed
state of a job's objects (the submitter Job, the RayCluster, the PodGroup and the job
record) and then declares the state that should hold (:mod:`raygang.lifecycle`), like an
Ansible play: gather facts, then converge.

Facts come from a :class:`~raygang.kube.snapshot.ClusterSnapshot`: a file written by
``kubectl get ... -o yaml`` (offline, reproducible, reviewable) or, when the optional
``kubernetes`` client is installed, :func:`live_snapshot`. Everything here is pure and
tolerant: an object the snapshot does not hold is simply absent, and a field that cannot be
read becomes None plus a note, never an exception, because a half-written status must not
stop a deployment.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import (
    RECORD_ATTEMPT,
    RECORD_BASE_SUBMISSION_ID,
    RECORD_FINISHED_AT,
    RECORD_FIRST_ATTEMPT,
    RECORD_GANG,
    RECORD_LEGACY_DATA_KEYS,
    RECORD_RAYJOB,
    RECORD_RESULT,
    RECORD_SUBMISSION_ID,
    podgroup_name,
)
from raygang.rayjob.spec import RayClusterSpec

__all__ = [
    "ATTEMPT_ANNOTATION",
    "LIVE_KINDS",
    "RECORD_ATTEMPT",
    "RECORD_BASE_SUBMISSION_ID",
    "RECORD_FINISHED_AT",
    "RECORD_FIRST_ATTEMPT",
    "RECORD_GANG",
    "RECORD_RAYJOB",
    "RECORD_RESULT",
    "RECORD_SUBMISSION_ID",
    "ClusterFacts",
    "Condition",
    "JobFacts",
    "PodGroupFacts",
    "RecordFacts",
    "SidecarFacts",
    "SubmitterFacts",
    "format_time",
    "gather_facts",
    "live_snapshot",
    "parse_now",
    "record_values",
]

#: Set on the RayCluster and the submitter Job from the second attempt on; a change of it
#: makes Pulumi replace both (``replaceOnChanges``), so a retry starts from fresh pods.
ATTEMPT_ANNOTATION = "raygang.dev/attempt"

# The job record's annotations (RECORD_*, from raygang.kuberay.manifests) are what the
# lifecycle writes and reads back on the next run. The record is the job's memory: it
# outlives the RayCluster and the submitter Job.

SUBMISSION_ID_ENV = "RAY_JOB_SUBMISSION_ID"
SUBMITTER_CONTAINER = "ray-job-submitter"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"

# RFC 3339 date-time (section 5.6): a full date, "T" (any case, or a space as RFC 3339
# allows), a full time with optional fraction, and a mandatory offset. A timestamp without
# an offset is ambiguous, and a TTL computed from it would be off by hours.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


def parse_now(text: str) -> datetime:
    """Parse an RFC 3339 timestamp, such as the value of ``--now`` or ``raygang:now``.

    Args:
        text: e.g. ``2026-11-29T10:15:00Z`` or ``2026-11-29T11:15:00.5+01:00``.

    Returns:
        A timezone-aware datetime in UTC.

    Raises:
        ValueError: the text is not an RFC 3339 date-time with an offset.
    """
    stripped = text.strip() if isinstance(text, str) else ""
    match = _RFC3339.fullmatch(stripped)
    if match is None:
        raise ValueError(
            f"{text!r} is not an RFC 3339 timestamp with a time zone; "
            "expected e.g. 2026-11-29T10:15:00Z or 2026-11-29T11:15:00+01:00"
        )
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    # datetime keeps microseconds; Kubernetes writes whole seconds, and finer digits
    # cannot move a TTL decision, so they are truncated rather than rejected.
    micro = int((fraction or ".0")[1:7].ljust(6, "0"))
    zone = "+00:00" if offset in ("Z", "z") else offset
    try:
        parsed = datetime.fromisoformat(
            f"{year}-{month}-{day}T{hour}:{minute}:{second}.{micro:06d}{zone}"
        )
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a valid RFC 3339 timestamp: {exc}") from None
    return parsed.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """Render a time as Kubernetes does: UTC, whole seconds, ``Z`` suffix."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Condition:
    """One entry of a Job's ``status.conditions``.

    Attributes:
        type: ``Complete``, ``Failed``, ``SuccessCriteriaMet``, ``FailureTarget`` ...
        status: ``True``, ``False`` or ``Unknown``.
        reason: e.g. ``BackoffLimitExceeded``.
        message: the human-readable message.
        last_transition_time: when the condition last changed; None when unreadable.
    """

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None


@dataclass(frozen=True)
class SubmitterFacts:
    """The observed submitter batch/v1 Job ``<job>`` (K8sJobMode).

    Attributes:
        name: the Job's name.
        conditions: its status conditions, in the order the API server reported them.
        start_time: ``status.startTime``.
        completion_time: ``status.completionTime`` (only set on success).
        active: pods running now.
        succeeded: pods that succeeded.
        failed: pods that failed (each is one try of the Job's own ``backoffLimit``).
        submission_id: ``RAY_JOB_SUBMISSION_ID`` of its container: the Ray job it runs.
        attempt: its ``raygang.dev/attempt`` annotation; None on the first attempt.
        deleting: it has a ``deletionTimestamp``.
    """

    name: str
    conditions: tuple[Condition, ...] = ()
    start_time: datetime | None = None
    completion_time: datetime | None = None
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    submission_id: str | None = None
    attempt: int | None = None
    deleting: bool = False

    def condition(self, kind: str) -> Condition | None:
        """The condition of that type when its status is ``True``, else None."""
        return next((c for c in self.conditions if c.type == kind and c.status == "True"), None)

    @property
    def finished_condition(self) -> Condition | None:
        """``Complete`` or ``Failed`` with status ``True`` (KubeRay's getJobFinishedCondition)."""
        return next(
            (c for c in self.conditions if c.type in ("Complete", "Failed") and c.status == "True"),
            None,
        )

    @property
    def outcome(self) -> str | None:
        """``succeeded``, ``failed``, or None while the Job has not finished."""
        cond = self.finished_condition
        if cond is None:
            return None
        return "succeeded" if cond.type == "Complete" else "failed"

    @property
    def finished_at(self) -> datetime | None:
        """When the Job finished: the condition's transition time, else ``completionTime``.

        KubeRay takes the same condition time as the "submitter finished" time.
        """
        cond = self.finished_condition
        if cond is None:
            return None
        return cond.last_transition_time or self.completion_time


@dataclass(frozen=True)
class SidecarFacts:
    """The SidecarMode submitter container in the head pod.

    Attributes:
        pod: the head pod's name.
        terminated: the container has terminated (it does not restart in SidecarMode).
        exit_code: its exit code once terminated.
        reason: the termination reason (``Completed``, ``Error`` ...).
        finished_at: when it terminated.
    """

    pod: str
    terminated: bool = False
    exit_code: int | None = None
    reason: str = ""
    finished_at: datetime | None = None

    @property
    def outcome(self) -> str | None:
        """``succeeded`` (exit 0), ``failed`` (other codes), or None while it runs."""
        if not self.terminated:
            return None
        return "succeeded" if self.exit_code == 0 else "failed"


@dataclass(frozen=True)
class ClusterFacts:
    """The observed RayCluster ``<job>``.

    Attributes:
        name: the RayCluster's name.
        state: ``status.state`` (``ready``, ``suspended``, ``failed``...); None before
            KubeRay has reported one.
        deleting: it has a ``deletionTimestamp``: it is going away.
        spec: the live spec, parsed for recomputing the gang; None when it cannot be read.
        spec_problem: why the live spec could not be parsed.
        worker_groups: the names of its worker groups, in order.
        suspended_groups: the names of the groups with ``suspend: true``.
        attempt: its ``raygang.dev/attempt`` annotation; None on the first attempt.
        submission_id: SidecarMode: ``RAY_JOB_SUBMISSION_ID`` of the head's submitter
            container; None in other modes.
        head_submitter: SidecarMode: the submitter container's status in the head pod,
            when the snapshot holds the head pod.
    """

    name: str
    state: str | None = None
    deleting: bool = False
    spec: RayClusterSpec | None = None
    spec_problem: str | None = None
    worker_groups: tuple[str, ...] = ()
    suspended_groups: tuple[str, ...] = ()
    attempt: int | None = None
    submission_id: str | None = None
    head_submitter: SidecarFacts | None = None

    @property
    def workers_suspended(self) -> bool:
        """True when every worker group is suspended (KubeRay's DeleteWorkers is complete).

        A cluster without worker groups counts as suspended, as in KubeRay's
        ``isDeletionActionCompleted``: there is nothing left to delete.
        """
        return len(self.suspended_groups) == len(self.worker_groups)


@dataclass(frozen=True)
class PodGroupFacts:
    """The observed Volcano PodGroup ``ray-<job>-pg``.

    Attributes:
        name: the PodGroup's name.
        phase: ``status.phase`` (``Pending``, ``Inqueue``, ``Running``, ``Unknown``...).
        min_member: ``spec.minMember`` (absent on the wire means 0).
        min_resources: ``spec.minResources`` as the API server stores it; None when unset.
        queue: ``spec.queue``; None when unset.
        priority_class: ``spec.priorityClassName``; None when unset.
        network_topology: ``spec.networkTopology``; None when unset.
        deleting: it has a ``deletionTimestamp``.
    """

    name: str
    phase: str | None = None
    min_member: int = 0
    min_resources: Mapping[str, str] | None = None
    queue: str | None = None
    priority_class: str | None = None
    network_topology: Mapping[str, Any] | None = None
    deleting: bool = False


@dataclass(frozen=True)
class RecordFacts:
    """The observed job record, the ConfigMap ``<job>`` that owns the other objects.

    Attributes:
        name: the ConfigMap's name.
        values: its ``raygang.dev/*`` values (:data:`RECORD_RAYJOB` and the other
            ``RECORD_*`` keys), read from its annotations or, for a record written by an
            earlier raygang, from the ``data`` key that held each
            (:data:`~raygang.kuberay.manifests.RECORD_LEGACY_DATA_KEYS`); an annotation
            wins over its old data key.
        legacy_data: its ``data``, as stored: empty for a record of this version.
        managed: it carries ``app.kubernetes.io/managed-by: raygang``; a ConfigMap of the
            same name that raygang did not create is not a record, and its values are
            ignored.
        attempt: the attempt the last run declared (``raygang.dev/attempt``). Attempts
            count every fresh RayCluster + submitter pair: retries, and new runs after a
            spec change.
        first_attempt: the first attempt of the current run
            (``raygang.dev/first-attempt``); retries are counted from it.
        submission_id: the submission ID of that attempt (``raygang.dev/submission-id``).
        base_submission_id: the ID derived from the spec the last run applied
            (``raygang.dev/base-submission-id``); a different one now means the spec
            changed.
        finished_at: when the job finished, once a run has seen it finish.
        result: ``succeeded`` or ``failed``, written with ``finished_at``.
    """

    name: str
    values: Mapping[str, str]
    legacy_data: Mapping[str, str] = dataclasses.field(default_factory=dict)
    managed: bool = True
    attempt: int | None = None
    first_attempt: int | None = None
    submission_id: str | None = None
    base_submission_id: str | None = None
    finished_at: datetime | None = None
    result: str | None = None


@dataclass(frozen=True)
class JobFacts:
    """Observed state of one job's objects.

    Attributes:
        namespace: the job's namespace.
        name: the job's name.
        source: where the facts came from (the snapshot's source).
        submitter: the submitter Job, when it exists.
        cluster: the RayCluster, when it exists.
        podgroup: the PodGroup, when it exists.
        record: the ConfigMap ``<job>``, when it exists (see :attr:`RecordFacts.managed`).
        pods_observed: the snapshot holds Pods at all (SidecarMode completion is only
            visible in the head pod's container status).
        notes: what could not be read, one line each.
    """

    namespace: str
    name: str
    source: str = "snapshot"
    submitter: SubmitterFacts | None = None
    cluster: ClusterFacts | None = None
    podgroup: PodGroupFacts | None = None
    record: RecordFacts | None = None
    pods_observed: bool = False
    notes: tuple[str, ...] = ()

    @property
    def own_record(self) -> RecordFacts | None:
        """The job record when raygang wrote it; None for a missing or foreign ConfigMap."""
        return self.record if self.record is not None and self.record.managed else None

    @property
    def anything_exists(self) -> bool:
        """At least one of the job's objects exists."""
        return any((self.submitter, self.cluster, self.podgroup, self.own_record))

    @property
    def attempt(self) -> int:
        """The latest attempt any object reports (1 when none does).

        The record is written first in a run, the RayCluster and the Job later; taking the
        highest keeps an interrupted retry going instead of counting it twice.
        """
        record = self.own_record
        seen = [
            a
            for a in (
                record.attempt if record else None,
                self.submitter.attempt if self.submitter else None,
                self.cluster.attempt if self.cluster else None,
            )
            if a is not None
        ]
        return max(seen, default=1)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: object, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    return default


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _time(value: object, what: str, notes: list[str]) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        # The kubernetes client returns datetimes; YAML may too (PyYAML's timestamp type).
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_now(str(value))
    except ValueError:
        notes.append(f"{what} {value!r} is not an RFC 3339 time; ignored")
        return None


def _attempt(meta: Mapping[str, Any], what: str, notes: list[str]) -> int | None:
    raw = _mapping(meta.get("annotations")).get(ATTEMPT_ANNOTATION)
    if raw is None:
        return None
    value = _int(raw, -1)
    if value < 1:
        notes.append(
            f"{what} annotation {ATTEMPT_ANNOTATION}={raw!r} is not a positive number; ignored"
        )
        return None
    return value


def _env_value(containers: Iterable[Any], name: str, only: str | None = None) -> str | None:
    for container in containers:
        c = _mapping(container)
        if only is not None and c.get("name") != only:
            continue
        for env in _list(c.get("env")):
            e = _mapping(env)
            if e.get("name") == name and isinstance(e.get("value"), str):
                return str(e["value"])
    return None


def _submitter_facts(obj: Mapping[str, Any], notes: list[str]) -> SubmitterFacts:
    meta = _mapping(obj.get("metadata"))
    status = _mapping(obj.get("status"))
    name = str(meta.get("name"))
    conditions = tuple(
        Condition(
            type=str(c.get("type", "")),
            status=str(c.get("status", "")),
            reason=str(c.get("reason") or ""),
            message=str(c.get("message") or ""),
            last_transition_time=_time(
                c.get("lastTransitionTime"), f"Job {name} condition {c.get('type')}", notes
            ),
        )
        for c in map(_mapping, _list(status.get("conditions")))
    )
    pod_spec = _mapping(_mapping(_mapping(obj.get("spec")).get("template")).get("spec"))
    return SubmitterFacts(
        name=name,
        conditions=conditions,
        start_time=_time(status.get("startTime"), f"Job {name} startTime", notes),
        completion_time=_time(status.get("completionTime"), f"Job {name} completionTime", notes),
        active=_int(status.get("active")),
        succeeded=_int(status.get("succeeded")),
        failed=_int(status.get("failed")),
        submission_id=_env_value(_list(pod_spec.get("containers")), SUBMISSION_ID_ENV),
        attempt=_attempt(meta, f"Job {name}", notes),
        deleting=bool(meta.get("deletionTimestamp")),
    )


def _head_pod(snapshot: ClusterSnapshot, namespace: str, cluster: str) -> Mapping[str, Any] | None:
    # KubeRay labels every pod with its cluster and node type; the head pod's name has a
    # random suffix, so it is found by label rather than by name.
    for pod in snapshot.of_kind("Pod"):
        meta = _mapping(pod.get("metadata"))
        labels = _mapping(meta.get("labels"))
        if (
            (meta.get("namespace") or "") == namespace
            and labels.get("ray.io/cluster") == cluster
            and labels.get("ray.io/node-type") == "head"
            and not meta.get("deletionTimestamp")
        ):
            return pod
    return None


def _sidecar_facts(pod: Mapping[str, Any], notes: list[str]) -> SidecarFacts | None:
    meta = _mapping(pod.get("metadata"))
    name = str(meta.get("name"))
    for status in map(_mapping, _list(_mapping(pod.get("status")).get("containerStatuses"))):
        if status.get("name") != SUBMITTER_CONTAINER:
            continue
        terminated = _mapping(_mapping(status.get("state")).get("terminated"))
        if not terminated:
            return SidecarFacts(pod=name)
        return SidecarFacts(
            pod=name,
            terminated=True,
            exit_code=_int(terminated.get("exitCode"), -1),
            reason=str(terminated.get("reason") or ""),
            finished_at=_time(
                terminated.get("finishedAt"), f"Pod {name} submitter finishedAt", notes
            ),
        )
    return None


def _cluster_facts(
    obj: Mapping[str, Any], snapshot: ClusterSnapshot, namespace: str, notes: list[str]
) -> ClusterFacts:
    meta = _mapping(obj.get("metadata"))
    name = str(meta.get("name"))
    raw_spec = _mapping(obj.get("spec"))
    spec: RayClusterSpec | None = None
    problem: str | None = None
    try:
        spec = RayClusterSpec.model_validate(dict(raw_spec))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        problem = f"spec.{where}: {first['msg']}"
        notes.append(f"RayCluster {name}: the live spec cannot be read ({problem})")
    groups = [_mapping(g) for g in _list(raw_spec.get("workerGroupSpecs"))]
    head_spec = _mapping(
        _mapping(_mapping(raw_spec.get("headGroupSpec")).get("template")).get("spec")
    )
    head_pod = _head_pod(snapshot, namespace, name)
    return ClusterFacts(
        name=name,
        state=_str(_mapping(obj.get("status")).get("state")),
        deleting=bool(meta.get("deletionTimestamp")),
        spec=spec,
        spec_problem=problem,
        worker_groups=tuple(str(g.get("groupName", "")) for g in groups),
        suspended_groups=tuple(
            str(g.get("groupName", "")) for g in groups if g.get("suspend") is True
        ),
        attempt=_attempt(meta, f"RayCluster {name}", notes),
        submission_id=_env_value(
            _list(head_spec.get("containers")), SUBMISSION_ID_ENV, only=SUBMITTER_CONTAINER
        ),
        head_submitter=_sidecar_facts(head_pod, notes) if head_pod is not None else None,
    )


def _podgroup_facts(obj: Mapping[str, Any]) -> PodGroupFacts:
    meta = _mapping(obj.get("metadata"))
    spec = _mapping(obj.get("spec"))
    resources = spec.get("minResources")
    topology = spec.get("networkTopology")
    return PodGroupFacts(
        name=str(meta.get("name")),
        phase=_str(_mapping(obj.get("status")).get("phase")),
        min_member=_int(spec.get("minMember")),
        min_resources=(
            {str(k): str(v) for k, v in resources.items()}
            if isinstance(resources, Mapping)
            else None
        ),
        queue=_str(spec.get("queue")),
        priority_class=_str(spec.get("priorityClassName")),
        network_topology=dict(topology) if isinstance(topology, Mapping) else None,
        deleting=bool(meta.get("deletionTimestamp")),
    )


def _positive(values: Mapping[str, str], key: str, where: str, notes: list[str]) -> int | None:
    if key not in values:
        return None
    value = _int(values[key], -1)
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
    return values


def _record_facts(obj: Mapping[str, Any], notes: list[str]) -> RecordFacts:
    meta = _mapping(obj.get("metadata"))
    name = str(meta.get("name"))
    data = {str(k): str(v) for k, v in _mapping(obj.get("data")).items()}
    annotations = {str(k): str(v) for k, v in _mapping(meta.get("annotations")).items()}
    values = record_values(annotations, data)
    managed = _mapping(meta.get("labels")).get(MANAGED_BY_LABEL) == "raygang"
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
        finished_at=_time(values.get(RECORD_FINISHED_AT), where(RECORD_FINISHED_AT), notes),
        result=result,
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
        notes=tuple(notes),
    )


#: The kinds lifecycle facts need, as (apiVersion, kind, label selector). ConfigMaps and
#: Pods are listed by label (records, head pods), so a busy namespace stays a small read.
LIVE_KINDS: tuple[tuple[str, str, str], ...] = (
    ("batch/v1", "Job", ""),
    ("ray.io/v1", "RayCluster", ""),
    ("scheduling.volcano.sh/v1beta1", "PodGroup", ""),
    ("v1", "ConfigMap", f"{MANAGED_BY_LABEL}=raygang"),
    ("v1", "Pod", "ray.io/node-type=head"),
)


def live_snapshot(
    namespaces: Sequence[str], *, context: str | None = None, kubernetes: Any = None
) -> ClusterSnapshot:
    """Read the lifecycle kinds from the current cluster with the ``kubernetes`` client.

    The client is optional (it is not a dependency of raygang): without it, write a
    snapshot with ``kubectl get jobs.batch,rayclusters.ray.io,podgroups.scheduling.volcano.sh,
    configmaps,pods -n NS -o yaml`` and pass the file instead.

    Args:
        namespaces: the namespaces of the stack's jobs.
        context: the kubeconfig context; None for the current one.
        kubernetes: the ``kubernetes`` module to use (tests pass a stand-in); imported
            when None.

    Returns:
        A snapshot whose source is ``live``. A kind whose CRD is not installed is skipped.

    Raises:
        RuntimeError: the ``kubernetes`` package is not installed.
    """
    if kubernetes is None:
        try:
            kubernetes = importlib.import_module("kubernetes")
            importlib.import_module("kubernetes.dynamic")
        except ImportError:
            raise RuntimeError(
                "reading the cluster needs the kubernetes package (pip install kubernetes); "
                "or pass a snapshot file written by kubectl get ... -o yaml"
            ) from None
    api_client = kubernetes.config.new_client_from_config(context=context)
    dynamic = kubernetes.dynamic.DynamicClient(api_client)
    objects: list[Mapping[str, Any]] = []
    for api_version, kind, selector in LIVE_KINDS:
        try:
            resource = dynamic.resources.get(api_version=api_version, kind=kind)
        except Exception as exc:
            if type(exc).__name__ == "ResourceNotFoundError":
                continue  # Volcano or KubeRay not installed: nothing of that kind exists
            raise
        for namespace in sorted(set(namespaces)):
            listing = resource.get(namespace=namespace, label_selector=selector)
            data = listing.to_dict() if hasattr(listing, "to_dict") else dict(listing)
            for item in _list(data.get("items")):
                # List items carry no kind or apiVersion; the snapshot index needs both.
                objects.append({**_mapping(item), "apiVersion": api_version, "kind": kind})
    return snapshot_from_objects(objects, "live")
