"""What one RayCluster of its own becomes: its PodGroup and itself, in creation order.

KubeRay's Volcano adapter gangs a RayCluster that no RayJob made (``handleRayCluster`` in
``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``, v1.5.0): the
PodGroup ``ray-<cluster>-pg``, ``minMember`` the head plus every worker pod (autoscaling:
``minReplicas``; suspended groups skipped), ``minResources`` their requests, no submitter;
queue and priority from the RayCluster's ``volcano.sh/queue-name`` and
``ray.io/priority-class-name`` labels. raygang creates that PodGroup before the RayCluster,
so no pod of the cluster ever runs outside its gang, and points every pod template at it
(``schedulerName: volcano``, the group-name and task-spec annotations), as the adapter's
``AddMetadataToChildResource`` does to the pods.

Two writers. An operator started with ``--batch-scheduler=volcano`` re-syncs the PodGroup's
``minMember`` and ``minResources`` on every reconcile of a RayCluster not labelled
``ray.io/originated-from-crd: RayJob`` (``syncPodGroup``: it updates them when they differ
from its own numbers; it leaves a suspended cluster's PodGroup alone, and every other field
as it finds it). So raygang declares KubeRay's numbers (the ``kuberay`` accounting) in the
PodGroup, whatever the accounting: both writers then write equal values and never undo each
other. Under ``effective``, the effective gang is still computed and shown, and where it
differs from KubeRay's, the plan says so (:attr:`ClusterPlan.differences`): the operator
would put KubeRay's numbers back within seconds. Labelling the cluster as a RayJob's to keep
the operator away is not an option: KubeRay v1.5.0 then never recreates a lost head
(``reconcilePods``: "skipping head creation to let RayJob controller handle the failure").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from raygang.kube.errors import Problem, SpecError
from raygang.kuberay import submitter
from raygang.kuberay.gang import HEAD_GROUP, Accounting, Gang, compute_cluster_gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.manifests import (
    PATCH_FORCE,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    TIMEOUT,
    WAIT_FOR,
    WAIT_FOR_EXISTS,
    add_pod_metadata,
    own_map,
    owner_podgroup,
    podgroup_name,
)
from raygang.kuberay.settings import JobSettings, job_settings
from raygang.rayjob.raycluster import RayClusterInput
from raygang.rayjob.spec import RayJob, RayJobInput

__all__ = ["ClusterPlan", "plan_cluster", "raycluster_of_its_own"]

# Where the gang arithmetic names a RayJob's cluster spec, and where a RayCluster's is.
_JOB_BASE = "spec.rayClusterSpec"


@dataclass(frozen=True, slots=True)
class ClusterPlan:
    """Everything raygang creates for one RayCluster of its own, in creation order.

    Attributes:
        item: the input.
        settings: the effective settings (stack defaults plus the cluster's annotations).
        gang: the gang under the chosen accounting (shown; see the module's docstring).
        kuberay_gang: the gang KubeRay's adapter computes: what the PodGroup declares.
        dashboard_address: ``<svc>.<ns>.svc.<domain>:<port>`` of the head.
        queue: the PodGroup's queue (None: Volcano's ``default``).
        queue_declared: True when the stack creates that queue.
        resources: the objects to create, in creation order.
        gang_job: the cluster's gang as the preflight judges a RayJob's: an
            InteractiveMode RayJob of the same cluster spec, which KubeRay gangs number
            for number as the RayCluster (no submitter), with this plan's objects; its
            ``kind`` is ``RayCluster``, so the preflight's words name the RayCluster, not
            the stand-in job or its submission mode.
    """

    item: RayClusterInput
    settings: JobSettings
    gang: Gang
    kuberay_gang: Gang
    dashboard_address: str
    queue: str | None
    queue_declared: bool
    resources: tuple[PlannedResource, ...]
    gang_job: JobPlan

    @property
    def name(self) -> str:
        """The RayCluster's name."""
        return self.item.name

    @property
    def namespace(self) -> str:
        """The RayCluster's namespace."""
        return self.item.namespace

    @property
    def podgroup_name(self) -> str:
        """``ray-<cluster>-pg``."""
        return podgroup_name(self.name)

    @property
    def priority_class(self) -> str | None:
        """The PodGroup's priorityClassName, if the cluster sets one."""
        return self.item.labels.get(PRIORITY_LABEL)

    @property
    def dashboard_url(self) -> str:
        """The head's dashboard URL, with scheme."""
        return f"http://{self.dashboard_address}"

    @property
    def differences(self) -> tuple[str, ...]:
        """Why the chosen accounting's gang is not the one declared (empty when equal)."""
        ours, theirs = self.gang, self.kuberay_gang
        if ours is theirs or (
            ours.min_member == theirs.min_member
            and ours.min_resources_strings() == theirs.min_resources_strings()
        ):
            return ()
        return (
            f"the PodGroup declares KubeRay's numbers ({theirs.summary()}), not the "
            f"{ours.accounting} accounting's ({ours.summary()}): a KubeRay operator run with "
            "--batch-scheduler=volcano re-syncs a RayCluster's PodGroup to its own numbers on "
            "every reconcile",
            *ours.differences,
        )

    def resource(self, role: str) -> PlannedResource | None:
        """The planned object with that role, if the plan has one."""
        return next((r for r in self.resources if r.role == role), None)


def raycluster_of_its_own(item: RayClusterInput, settings: JobSettings) -> dict[str, Any]:
    """The RayCluster as written, with the Volcano metadata on every pod template and an
    explicit ``suspend: false`` when it has no ``suspend``.

    The queue and priority labels (when not empty) and the PodGroup's name go on the
    templates as KubeRay's adapter puts them on the pods, so an operator run without
    ``--batch-scheduler=volcano`` creates pods that Volcano gangs all the same. ``pulumi
    up`` waits for the cluster to be ready, as for a RayJob's cluster; a suspended one it
    waits for only to exist (it is never ready).
    """
    spec = dict(item.spec_view())
    # KubeRay v1.5.0 resumes a suspended RayCluster only on an explicit `suspend: false`
    # (calculateStatus clears the Suspended condition only when spec.suspend is set and
    # false); a field removed from the manifest would leave it suspended for good, no pod
    # ever created (seen with the real operator). So a running cluster says so.
    spec.setdefault("suspend", False)
    labels = {k: item.labels[k] for k in (QUEUE_LABEL, PRIORITY_LABEL) if item.labels.get(k)}
    group = podgroup_name(item.name)
    add_pod_metadata(own_map(own_map(spec, "headGroupSpec"), "template"), labels, group, HEAD_GROUP)
    groups = spec.get("workerGroupSpecs")
    if isinstance(groups, list):
        spec["workerGroupSpecs"] = [dict(g) if isinstance(g, Mapping) else g for g in groups]
        for worker in spec["workerGroupSpecs"]:
            if isinstance(worker, dict):
                name = str(worker.get("groupName", ""))
                add_pod_metadata(own_map(worker, "template"), labels, group, name)
    metadata = dict(item.raw.get("metadata") or {})
    metadata["namespace"] = item.namespace
    annotations = dict(item.annotations)
    if item.suspended:
        annotations[WAIT_FOR] = WAIT_FOR_EXISTS
    else:
        annotations[WAIT_FOR] = "jsonpath={.status.state}=ready"
        annotations[TIMEOUT] = str(settings.cluster_ready_timeout_seconds)
    metadata["annotations"] = annotations
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": metadata,
        "spec": spec,
    }


def _gang_job(item: RayClusterInput) -> RayJobInput:
    """The InteractiveMode RayJob KubeRay gangs exactly as this RayCluster (no submitter)."""
    meta = item.raw.get("metadata")
    raw = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": dict(meta) if isinstance(meta, Mapping) else {},
        "spec": {"submissionMode": "InteractiveMode", "rayClusterSpec": item.spec_view()},
    }
    return RayJobInput(item.source, raw, RayJob.model_validate(raw))


def _gangs(item: RayClusterInput, accounting: Accounting) -> tuple[Gang, Gang]:
    spec = item.cluster.spec
    try:
        kuberay = compute_cluster_gang(spec, Accounting.KUBERAY)
        gang = kuberay if accounting is Accounting.KUBERAY else compute_cluster_gang(spec)
    except OverflowError as exc:  # GangOverflow names the field and what is accepted
        path = str(getattr(exc, "path", f"{_JOB_BASE}.workerGroupSpecs"))
        raise SpecError.one(
            item.source,
            "spec" + path.removeprefix(_JOB_BASE),
            str(exc),
            getattr(exc, "accepted", "fewer replicas or hosts"),
        ) from None
    return gang, kuberay


def plan_cluster(
    item: RayClusterInput,
    settings: JobSettings,
    declared_queues: Mapping[str, Mapping[str, Any]] | None = None,
) -> ClusterPlan:
    """Plan one RayCluster of its own: its queue (when the stack declares it), its
    PodGroup, then itself.

    ``declared_queues``: the Queue manifests the stack creates, by name.

    Raises:
        SpecError: settings or fields the cluster cannot be planned with.
    """
    settings = job_settings(settings, item.annotations, item.source)
    declared = declared_queues or {}
    gang, kuberay = _gangs(item, settings.accounting)
    try:
        address = submitter.dashboard_url(
            item.name,
            item.namespace,
            item.cluster.spec.head_group_spec,
            # The model does not hold headService (dashboard_url says why): as written.
            item.spec_view()["headGroupSpec"].get("headService"),
            cluster_domain=settings.cluster_domain,
        )
    except submitter.SubmitterError as exc:
        raise SpecError([Problem(item.source, "spec", str(exc))]) from None
    queue = item.labels.get(QUEUE_LABEL) if QUEUE_LABEL in item.labels else None
    queue_declared = queue is not None and queue in declared
    resources: list[PlannedResource] = []
    podgroup_deps: tuple[str, ...] = ()
    if queue_declared and queue is not None:
        queue_resource = PlannedResource("queue", declared[queue])
        resources.append(queue_resource)
        podgroup_deps = (queue_resource.ref,)
    # Forced: in the moment between this PodGroup's apply and the RayCluster's, the operator
    # may re-sync the PodGroup from the cluster's old spec with an Update, which makes it a
    # manager of minMember and minResources; raygang's next change to them would then be a
    # server-side apply conflict. Forced, raygang's apply takes them back, and the operator,
    # reading the new spec, computes the same numbers.
    podgroup = PlannedResource(
        "podgroup",
        owner_podgroup(
            item.name,
            item.namespace,
            item.labels,
            {**item.annotations, PATCH_FORCE: "true"},
            kuberay,
        ),
        podgroup_deps,
    )
    cluster = PlannedResource("raycluster", raycluster_of_its_own(item, settings), (podgroup.ref,))
    resources += [podgroup, cluster]
    gang_job = JobPlan(
        item=_gang_job(item),
        settings=settings,
        gang=kuberay,
        kuberay_gang=kuberay,
        submission_id="",
        dashboard_address=address,
        queue=queue,
        queue_declared=queue_declared,
        resources=tuple(resources),
        kind="RayCluster",
    )
    return ClusterPlan(
        item=item,
        settings=settings,
        gang=gang,
        kuberay_gang=kuberay,
        dashboard_address=address,
        queue=queue,
        queue_declared=queue_declared,
        resources=tuple(resources),
        gang_job=gang_job,
    )
