"""The facts about one job: what the cluster reports of its objects, as frozen data.

A job's objects are the submitter ``batch/v1`` Job, the RayCluster (with, in SidecarMode,
the submitter container of its head pod), the Volcano PodGroup and the job record
(:mod:`raygang.kuberay.manifests`). Each is None when the cluster does not hold it. The
derived properties read a finish the way KubeRay's RayJob controller does
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0: ``getJobFinishedCondition``,
``checkSidecarContainerStatus``, ``isDeletionActionCompleted``). Reading them from a
snapshot is :mod:`raygang.lifecycle.facts.gather`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from raygang.rayjob.spec import RayClusterSpec

__all__ = [
    "ATTEMPT_ANNOTATION",
    "ClusterFacts",
    "Condition",
    "JobFacts",
    "PodGroupFacts",
    "RecordFacts",
    "SidecarFacts",
    "SubmitterFacts",
]

#: Set on the RayCluster and the submitter Job from the second attempt on; a change of it
#: makes Pulumi replace both (``replaceOnChanges``), so a retry starts from fresh pods.
ATTEMPT_ANNOTATION = "raygang.dev/attempt"

# The job record's annotations (RECORD_*, from raygang.kuberay.manifests) are what the
# lifecycle writes and reads back on the next run. The record is the job's memory: it
# outlives the RayCluster and the submitter Job.


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
        created_at: its ``metadata.creationTimestamp``: when its attempt started (KubeRay
            sets ``status.startTime`` as it creates the RayCluster); None when unread.
        attempt: its ``raygang.dev/attempt`` annotation; None on the first attempt.
        submission_id: SidecarMode: ``RAY_JOB_SUBMISSION_ID`` of the head's submitter
            container; None in other modes.
        head_submitter: SidecarMode: the submitter container's status in the head pod,
            when the snapshot holds the head pod.
        scaled_to_zero_groups: the names of the groups declaring ``replicas: 0`` (and no
            ``minReplicas`` above it): no workers.
        suspend_refused: the KubeRay operator's event refusing suspended worker groups
            (before v1.7 they need its ``RayJobDeletionPolicy`` feature gate, off by
            default); None when the snapshot holds no such event for this RayCluster.
    """

    name: str
    state: str | None = None
    deleting: bool = False
    spec: RayClusterSpec | None = None
    spec_problem: str | None = None
    worker_groups: tuple[str, ...] = ()
    suspended_groups: tuple[str, ...] = ()
    created_at: datetime | None = None
    attempt: int | None = None
    submission_id: str | None = None
    head_submitter: SidecarFacts | None = None
    scaled_to_zero_groups: tuple[str, ...] = ()
    suspend_refused: str | None = None

    @property
    def workers_suspended(self) -> bool:
        """True when every worker group is suspended (KubeRay's DeleteWorkers is complete).

        A cluster without worker groups counts as suspended, as in KubeRay's
        ``isDeletionActionCompleted``: there is nothing left to delete.
        """
        return len(self.suspended_groups) == len(self.worker_groups)

    @property
    def workers_scaled_to_zero(self) -> bool:
        """True when every worker group declares zero workers (DeleteWorkers on an operator
        that refuses ``suspend``: :data:`suspend_refused`)."""
        return len(self.scaled_to_zero_groups) == len(self.worker_groups)


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
        values: its ``raygang.dev/*`` values
            (:data:`~raygang.kuberay.manifests.RECORD_RAYJOB` and the other ``RECORD_*``
            keys), read from its annotations or, for a record written by an earlier
            raygang, from the ``data`` key that held each
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
        reason: why raygang failed the job itself (``DeadlineExceeded``,
            ``PreRunningDeadlineExceeded``), written with ``result``.
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
    reason: str | None = None


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
        cluster_pods: the names of the pods of the job's RayCluster (label
            ``ray.io/cluster``) that hold their nodes' resources: bound to a node and not
            finished (phase neither ``Succeeded`` nor ``Failed``), terminating ones included,
            since a pod holds its node until it is gone. A pod never placed holds nothing.
        worker_pods: those of :attr:`cluster_pods` that are workers (label
            ``ray.io/node-type: worker``): what DeleteWorkers waits for.
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
    cluster_pods: tuple[str, ...] = ()
    worker_pods: tuple[str, ...] = ()
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
    def cluster_holds(self) -> bool:
        """Pods of the RayCluster may still hold their nodes' resources.

        True when a bound pod of it is in the facts (:attr:`cluster_pods`: a deletion still
        running, or blocked by a finalizer, leaves them bound), or when the RayCluster
        exists (deleting or not) and the snapshot holds no Pods to tell.
        """
        return bool(self.cluster_pods) or (self.cluster is not None and not self.pods_observed)

    @property
    def workers_hold(self) -> bool:
        """Worker pods of the RayCluster may still hold their nodes' resources.

        True when a bound worker pod of it is in the facts (:attr:`worker_pods`: suspended or
        scaled to zero, they still terminate), or when the snapshot holds no Pods to tell and
        the live RayCluster does not yet show its workers gone (every group suspended and
        the operator not refusing it, or every group scaled to zero).
        """
        if self.worker_pods:
            return True
        cluster = self.cluster
        if cluster is None or self.pods_observed:
            return False
        suspended = cluster.workers_suspended and cluster.suspend_refused is None
        return not (suspended or cluster.workers_scaled_to_zero)

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
