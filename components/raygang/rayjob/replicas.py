"""A worker group's pod count as KubeRay computes it, and the int32 bounds it must keep.

KubeRay's ``GetWorkerGroupDesiredReplicas`` (``ray-operator/controllers/ray/utils/util.go``)
clamps ``replicas`` into ``[minReplicas, maxReplicas]`` and multiplies by ``numOfHosts``;
its Volcano adapter
(``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``) sums the
groups into the PodGroup's int32 ``minMember``. Go wraps an int32 overflow silently; raygang
refuses such a count before computing it, in the words below. The validation
(:mod:`raygang.rayjob.validate.groups`) reports these refusals among a document's problems;
the gang (:mod:`raygang.kuberay.gang`), which may be handed a spec no validation saw (a live
RayCluster's), raises them. The rule and its words are written once, here.
"""

from __future__ import annotations

from dataclasses import dataclass

from raygang.kube.core import INT32_MAX
from raygang.rayjob.problems import Finding

__all__ = ["GroupPods", "add_members", "clamped_replicas", "group_pods", "member_replicas"]


def clamped_replicas(replicas: int | None, low: int | None, high: int | None) -> int:
    """KubeRay's clamp: ``replicas`` within ``[minReplicas, maxReplicas]`` (unset: 0, int32 max).

    An unset ``replicas``, or one below ``minReplicas``, gives ``minReplicas``; one above
    ``maxReplicas`` gives ``maxReplicas``.
    """
    low_n = 0 if low is None else low
    high_n = INT32_MAX if high is None else high
    if replicas is None or replicas < low_n:
        return low_n
    return min(replicas, high_n)


@dataclass(frozen=True, slots=True)
class GroupPods:
    """A worker group's pods in the gang.

    Attributes:
        members: pods counted in ``minMember``: the clamped ``replicas`` (KubeRay's
            GetWorkerGroupDesiredReplicas), or ``minReplicas`` with the autoscaler
            (CalculateMinReplicas), × ``numOfHosts``.
        reserved: pods KubeRay's adapter multiplies the group's resources by: the raw
            count of the same field (unset: 0), × ``numOfHosts``.
    """

    members: int
    reserved: int


def member_replicas(
    replicas: int | None, low: int | None, high: int | None, *, scaling: bool
) -> int:
    """The replicas of a group that ``minMember`` counts: ``minReplicas`` with the autoscaler
    (KubeRay's CalculateMinReplicas), else the clamped ``replicas``
    (GetWorkerGroupDesiredReplicas)."""
    return (low or 0) if scaling else clamped_replicas(replicas, low, high)


def _fits(replicas: int, hosts: int) -> bool:
    """Whether ``replicas × hosts`` fits an int32, checked without multiplying."""
    return hosts <= 0 or replicas <= INT32_MAX // hosts


def _product_refusal(path: str, what: str, replicas: int, hosts: int, name: str) -> Finding:
    return (
        path,
        f"{what} {replicas} × numOfHosts {hosts} = {replicas * hosts} pods in worker group "
        f"{name}, more than {INT32_MAX}, the largest int32 (the type of the PodGroup's "
        "minMember and of KubeRay's replica counts)",
        f"{what} × numOfHosts at most {INT32_MAX}: with numOfHosts {hosts}, {what} at most "
        f"{INT32_MAX // hosts}",
    )


def group_pods(
    path: str,
    name: str,
    replicas: int | None,
    low: int | None,
    high: int | None,
    hosts: int,
    *,
    suspend: bool,
    scaling: bool,
) -> GroupPods | Finding:
    """One worker group's pods (a suspended group has none), or why a product is refused.

    Both products must fit an int32, checked without multiplying; the raw count's first.

    Args:
        path: the group's field path, e.g. ``spec.rayClusterSpec.workerGroupSpecs[0]``.
        name: the group's name, for messages.
        replicas: ``replicas`` (None when unset).
        low: ``minReplicas`` (None when unset).
        high: ``maxReplicas`` (None when unset).
        hosts: ``numOfHosts`` of the group.
        suspend: ``suspend: true``.
        scaling: the cluster's in-tree autoscaling is on.
    """
    if suspend:
        return GroupPods(0, 0)
    counted = member_replicas(replicas, low, high, scaling=scaling)
    raw_what, raw = ("minReplicas", low or 0) if scaling else ("replicas", replicas or 0)
    if not _fits(raw, hosts):
        return _product_refusal(f"{path}.{raw_what}", raw_what, raw, hosts, name)
    if counted != raw and not _fits(counted, hosts):
        what = "replicas within [minReplicas, maxReplicas]"
        return _product_refusal(f"{path}.replicas", what, counted, hosts, name)
    return GroupPods(counted * hosts, raw * hosts)


def add_members(path: str, name: str, members: int, count: int) -> int | Finding:
    """The running ``minMember`` sum with one group's ``count`` pods, or why it is refused."""
    if count <= INT32_MAX - members:
        return members + count
    return (
        path,
        f"minMember would be {members} + {count} pods of worker group {name} = "
        f"{members + count}, more than {INT32_MAX}, the largest int32 (the type of the "
        "PodGroup's minMember)",
        f"at most {INT32_MAX} pods in the gang, the head included: at most "
        f"{INT32_MAX - members} from this group",
    )
