"""The gang a RayJob needs: PodGroup ``minMember`` and ``minResources``.

Two accountings share this module:

* ``kuberay`` reproduces KubeRay's Volcano adapter (v1.7.0) number for number and string
  for string, quirks included: ``minResources`` multiplies the *raw* ``replicas`` while
  ``minMember`` uses the clamped count; zero-valued keys are kept; only regular containers
  are summed.
* ``effective`` (the default) reserves what the pods will really request: Kubernetes'
  effective pod request, the containers KubeRay injects (autoscaler, SidecarMode
  submitter), and one replica count for both numbers.

In both, the K8sJobMode submitter's resources are reserved but the submitter is never
counted in ``minMember``: it is only created once the RayCluster is ready, so a gang that
waited for it would wait forever (the start-up deadlock KubeRay's code comment describes).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from raygang.kube.core import Container, PodSpec, ResourceRequirements
from raygang.kube.podrequests import effective_pod_requests, kuberay_pod_requests
from raygang.kube.quantity import Quantity, format_resource_list, scale_resource_list
from raygang.kube.quantity import sum_resource_lists as _sum
from raygang.rayjob.replicas import GroupPods, add_members, group_pods
from raygang.rayjob.spec import RayClusterSpec, RayJob, WorkerGroupSpec

__all__ = [
    "DEFAULT_AUTOSCALER_RESOURCES",
    "DEFAULT_SUBMITTER_RESOURCES",
    "QUANTITY_MAX",
    "Accounting",
    "Gang",
    "GangOverflow",
    "GangShare",
    "compute_cluster_gang",
    "compute_gang",
    "desired_worker_replicas",
    "kuberay_gang_for_cluster",
    "min_worker_replicas",
]

ResourceMap = dict[str, Quantity]

HEAD_GROUP = "headgroup"
SUBMITTER_GROUP = "submittergroup"

#: Kubernetes' limit for a quantity: "no quantity may represent a number greater than 2^63-1
#: in magnitude" (the Quantity type's documentation). Volcano reads minResources into int64s.
QUANTITY_MAX = 2**63 - 1

_GROUPS_PATH = "spec.rayClusterSpec.workerGroupSpecs"


class GangOverflow(OverflowError):
    """A gang number that does not fit its type: refused before it is computed.

    Attributes:
        path: the field the number comes from.
        accepted: what would be accepted instead.
    """

    def __init__(self, message: str, path: str, accepted: str) -> None:
        super().__init__(message)
        self.path = path
        self.accepted = accepted


def _resources(requests: Mapping[str, str], limits: Mapping[str, str]) -> ResourceRequirements:
    return ResourceRequirements.model_validate({"requests": requests, "limits": limits})


# KubeRay's GetDefaultSubmitterContainer: requests win, so 500m/200Mi is what it reserves.
DEFAULT_SUBMITTER_RESOURCES = _resources(
    {"cpu": "500m", "memory": "200Mi"}, {"cpu": "1", "memory": "1Gi"}
)
# KubeRay's BuildAutoscalerContainer default when autoscalerOptions.resources is unset.
DEFAULT_AUTOSCALER_RESOURCES = _resources(
    {"cpu": "500m", "memory": "512Mi"}, {"cpu": "500m", "memory": "512Mi"}
)


class Accounting(enum.StrEnum):
    """How ``minResources`` is computed."""

    KUBERAY = "kuberay"
    EFFECTIVE = "effective"


@dataclass(frozen=True, slots=True)
class GangShare:
    """One role's part of the gang.

    Attributes:
        role: ``head``, ``worker`` or ``submitter``.
        group: the ``volcano.sh/task-spec`` value (``headgroup``, the worker group name,
            ``submittergroup``).
        members: pods of this role counted in ``minMember``.
        reserved: pods of this role whose resources are in ``minResources``.
        per_pod: what one pod of this role reserves.
    """

    role: str
    group: str
    members: int
    reserved: int
    per_pod: Mapping[str, Quantity]


@dataclass(frozen=True, slots=True)
class Gang:
    """The PodGroup's gang parameters and how they were reached.

    Attributes:
        accounting: which accounting produced the numbers.
        min_member: ``spec.minMember``.
        min_resources: ``spec.minResources`` in KubeRay's summation order.
        shares: per-role breakdown, head first, then workers, then the submitter.
        differences: (effective only) one line per cause that makes the numbers differ
            from KubeRay's.
    """

    accounting: Accounting
    min_member: int
    min_resources: Mapping[str, Quantity]
    shares: tuple[GangShare, ...]
    differences: tuple[str, ...] = ()

    def min_resources_strings(self) -> dict[str, str]:
        """``minResources`` as canonical quantity strings, keys sorted."""
        return format_resource_list(self.min_resources)

    def summary(self) -> str:
        """A one-line description, e.g. ``minMember 3, cpu 5500m, memory 10752Mi``."""
        parts = [f"minMember {self.min_member}"]
        parts += [f"{k} {v}" for k, v in self.min_resources_strings().items()]
        return ", ".join(parts)


def _group_path(group: WorkerGroupSpec, index: int | None) -> str:
    return (
        f"{_GROUPS_PATH}[{index}]" if index is not None else f"{_GROUPS_PATH}[{group.group_name}]"
    )


def _group_pods(group: WorkerGroupSpec, scaling: bool, index: int | None) -> GroupPods:
    """The group's pods (:func:`raygang.rayjob.replicas.group_pods`), refused beyond int32."""
    pods = group_pods(
        _group_path(group, index),
        group.group_name,
        group.replicas,
        group.min_replicas,
        group.max_replicas,
        group.num_of_hosts,
        suspend=bool(group.suspend),
        scaling=scaling,
    )
    if isinstance(pods, GroupPods):
        return pods
    raise GangOverflow(pods[1], pods[0], pods[2])


def _add_members(members: int, count: int, group: WorkerGroupSpec, index: int | None) -> int:
    """The running ``minMember`` sum, refused before it passes the int32 maximum."""
    total = add_members(_group_path(group, index), group.group_name, members, count)
    if isinstance(total, int):
        return total
    raise GangOverflow(total[1], total[0], total[2])


def _scaled(
    per_pod: Mapping[str, Quantity], count: int, group: WorkerGroupSpec, index: int | None
) -> ResourceMap:
    """``per_pod × count``, refused before any product passes the quantity range."""
    for name, quantity in per_pod.items():
        if count and quantity.value * count > QUANTITY_MAX:
            most = int(QUANTITY_MAX // quantity.value)
            raise GangOverflow(
                f"worker group {group.group_name}: {count} pods × {name} {quantity} = "
                f"{quantity * count} is more than {QUANTITY_MAX} (2^63-1), the largest "
                "quantity Kubernetes accepts",
                _group_path(group, index),
                f"at most {most} pods of this group with {name} {quantity} each, or less "
                f"{name} per pod",
            )
    return scale_resource_list(per_pod, count)


def _checked_sum(lists: list[ResourceMap]) -> ResourceMap:
    """The summed ``minResources``, refused when a total passes the quantity range."""
    total = _sum(lists)
    for name, quantity in total.items():
        if quantity.value > QUANTITY_MAX:
            raise GangOverflow(
                f"minResources {name} would be {quantity}, more than {QUANTITY_MAX} (2^63-1), "
                "the largest quantity Kubernetes accepts",
                "spec.rayClusterSpec",
                f"pods whose {name} adds up to at most {QUANTITY_MAX}",
            )
    return total


def desired_worker_replicas(group: WorkerGroupSpec, index: int | None = None) -> int:
    """KubeRay's GetWorkerGroupDesiredReplicas: clamped replicas × numOfHosts (suspended: 0).

    Raises:
        GangOverflow: a product does not fit an int32 (Go would wrap it).
    """
    return _group_pods(group, False, index).members


def min_worker_replicas(group: WorkerGroupSpec, index: int | None = None) -> int:
    """minReplicas × numOfHosts for a non-suspended group (KubeRay's CalculateMinReplicas term).

    Raises:
        GangOverflow: a product does not fit an int32 (Go would wrap it).
    """
    return _group_pods(group, True, index).members


def _submitter_container(resources: ResourceRequirements) -> Container:
    return Container(name="ray-job-submitter", resources=resources)


def _autoscaler_container(cluster: RayClusterSpec) -> Container:
    options = cluster.autoscaler_options
    resources = options.resources if options and options.resources else None
    return Container(name="autoscaler", resources=resources or DEFAULT_AUTOSCALER_RESOURCES)


def kuberay_gang_for_cluster(
    cluster: RayClusterSpec, head_extra: tuple[Container, ...] = ()
) -> tuple[int, ResourceMap, list[GangShare]]:
    """KubeRay's calculatePodGroupParams on a cluster spec (no submitter).

    Args:
        cluster: the RayCluster spec.
        head_extra: containers present in the live head spec but not in the RayJob's
            (the SidecarMode submitter, when recomputing from a live cluster).

    Returns:
        ``(minMember, minResources, shares)``.

    Raises:
        GangOverflow: a count does not fit an int32 or a total the quantity range. KubeRay's
            Go code wraps such numbers silently (``minMember`` 2 for a 4.6e18-pod gang);
            they are refused here before they are computed.
    """
    scaling = cluster.autoscaling
    head = kuberay_pod_requests(cluster.head_group_spec.template.spec, head_extra)
    shares = [GangShare("head", HEAD_GROUP, 1, 1, head)]
    lists: list[ResourceMap] = [head]
    members = 1
    for index, group in enumerate(cluster.worker_group_specs):
        pods = _group_pods(group, scaling, index)
        count, reserved = pods.members, pods.reserved
        members = _add_members(members, count, group, index)
        if group.suspend:
            shares.append(GangShare("worker", group.group_name, 0, 0, {}))
            continue
        per_pod = kuberay_pod_requests(group.template.spec)
        lists.append(_scaled(per_pod, reserved, group, index))
        shares.append(GangShare("worker", group.group_name, count, reserved, per_pod))
    return members, _checked_sum(lists), shares


def _kuberay_submitter(job: RayJob) -> ResourceMap | None:
    mode = job.spec.submission_mode
    if mode == "K8sJobMode":
        template = job.spec.submitter_pod_template
        if template is not None:
            return kuberay_pod_requests(template.spec)
        return kuberay_pod_requests(
            PodSpec(containers=[_submitter_container(DEFAULT_SUBMITTER_RESOURCES)])
        )
    if mode == "SidecarMode":
        return kuberay_pod_requests(
            PodSpec(containers=[_submitter_container(DEFAULT_SUBMITTER_RESOURCES)])
        )
    return None


def _kuberay(job: RayJob, cluster: RayClusterSpec) -> Gang:
    members, resources, shares = kuberay_gang_for_cluster(cluster)
    submitter = _kuberay_submitter(job)
    lists = [resources]
    if submitter is not None:
        lists.append(submitter)
        shares.append(GangShare("submitter", SUBMITTER_GROUP, 0, 1, submitter))
    return Gang(Accounting.KUBERAY, members, _checked_sum(lists), tuple(shares))


def _effective_cluster(
    cluster: RayClusterSpec, sidecar: bool
) -> tuple[int, list[ResourceMap], list[GangShare], list[str]]:
    """The effective accounting of a cluster's pods: ``(minMember, lists, shares, causes)``.

    ``sidecar``: the head carries the SidecarMode submitter container (a RayJob's).
    """
    scaling = cluster.autoscaling
    causes: list[str] = []
    injected: list[tuple[str, Container]] = []
    if scaling:
        injected.append(
            ("autoscaler container (injected by KubeRay)", _autoscaler_container(cluster))
        )
    if sidecar:
        injected.append(
            (
                "SidecarMode submitter container",
                _submitter_container(DEFAULT_SUBMITTER_RESOURCES),
            )
        )
    head = effective_pod_requests(cluster.head_group_spec.template.spec, "head", injected)
    causes += [c for c in head.causes if not c.startswith("SidecarMode submitter")]
    shares = [GangShare("head", HEAD_GROUP, 1, 1, head.requests)]
    lists = [head.requests]
    members = 1
    for index, group in enumerate(cluster.worker_group_specs):
        pods = _group_pods(group, scaling, index)
        count, raw = pods.members, pods.reserved
        members = _add_members(members, count, group, index)
        if not group.suspend and raw != count:
            causes.append(
                f"worker group {group.group_name} reserves {count} pods (replicas within "
                f"[minReplicas, maxReplicas] × numOfHosts), where KubeRay reserves {raw}"
            )
        per_pod = effective_pod_requests(group.template.spec, f"worker group {group.group_name}")
        causes += per_pod.causes
        if count:
            lists.append(_scaled(per_pod.requests, count, group, index))
        shares.append(GangShare("worker", group.group_name, count, count, per_pod.requests))
    return members, lists, shares, causes


def _effective(job: RayJob, cluster: RayClusterSpec) -> Gang:
    mode = job.spec.submission_mode
    members, lists, shares, causes = _effective_cluster(cluster, mode == "SidecarMode")
    if mode == "K8sJobMode":
        template = job.spec.submitter_pod_template
        spec = (
            template.spec
            if template
            else PodSpec(containers=[_submitter_container(DEFAULT_SUBMITTER_RESOURCES)])
        )
        submitter = effective_pod_requests(spec, "submitter")
        causes += submitter.causes
        lists.append(submitter.requests)
        shares.append(GangShare("submitter", SUBMITTER_GROUP, 0, 1, submitter.requests))
    total = {k: v for k, v in _checked_sum(lists).items() if v}
    return Gang(Accounting.EFFECTIVE, members, total, tuple(shares), tuple(causes))


def compute_cluster_gang(
    cluster: RayClusterSpec, accounting: Accounting = Accounting.EFFECTIVE
) -> Gang:
    """The gang of a RayCluster created directly (not by a RayJob): no submitter.

    KubeRay's adapter computes it with the same calculatePodGroupParams as a RayJob's
    cluster (``handleRayCluster`` in ``batchscheduler/volcano/volcano_scheduler.go``); the
    effective accounting is the RayJob's without the submitter.

    Raises:
        GangOverflow: a count does not fit an int32 or a total the quantity range.
    """
    if accounting is Accounting.KUBERAY:
        members, resources, shares = kuberay_gang_for_cluster(cluster)
        return Gang(Accounting.KUBERAY, members, resources, tuple(shares))
    members, lists, shares, causes = _effective_cluster(cluster, sidecar=False)
    total = {k: v for k, v in _checked_sum(lists).items() if v}
    return Gang(Accounting.EFFECTIVE, members, total, tuple(shares), tuple(causes))


def compute_gang(job: RayJob, accounting: Accounting = Accounting.EFFECTIVE) -> Gang:
    """The gang for a RayJob at submission time.

    Args:
        job: a validated RayJob with a ``rayClusterSpec``.
        accounting: ``kuberay`` for bit-for-bit compatibility with KubeRay's adapter,
            ``effective`` for what the pods will really request.

    Raises:
        ValueError: the job has no ``rayClusterSpec`` (a ``clusterSelector`` job), which
            Volcano gang scheduling cannot serve; validation reports it earlier.
    """
    cluster = job.spec.ray_cluster_spec
    if cluster is None:
        raise ValueError(
            f"gang scheduling does not support RayJob {job.namespace}/{job.name} "
            "referencing an existing RayCluster"
        )
    if accounting is Accounting.KUBERAY:
        return _kuberay(job, cluster)
    return _effective(job, cluster)
