"""A worker group's pod count as KubeRay computes it, and the int32 bounds it must keep.

KubeRay's ``GetWorkerGroupDesiredReplicas`` (``ray-operator/controllers/ray/utils/util.go``)
clamps ``replicas`` into ``[minReplicas, maxReplicas]`` and multiplies by ``numOfHosts``;
its Volcano adapter
(``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``) sums the
groups into the PodGroup's int32 ``minMember``. Go wraps an int32 overflow silently; raygang
refuses such a count before computing it. The validation (:mod:`raygang.rayjob.validate`)
and the gang (:mod:`raygang.kuberay.gang`) both ask these functions, so the rule is written
once; each words its refusal for the place it is reported.
"""

from __future__ import annotations

from raygang.kube.core import INT32_MAX

__all__ = [
    "clamped_replicas",
    "member_replicas",
    "members_fit",
    "pods_accepted",
    "pods_fit",
    "reserved_replicas",
]


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


def member_replicas(
    replicas: int | None, low: int | None, high: int | None, *, scaling: bool
) -> int:
    """The replicas of a group that ``minMember`` counts.

    ``minReplicas`` with the autoscaler (KubeRay's CalculateMinReplicas), else the clamped
    ``replicas`` (GetWorkerGroupDesiredReplicas).
    """
    return (low or 0) if scaling else clamped_replicas(replicas, low, high)


def reserved_replicas(replicas: int | None, low: int | None, *, scaling: bool) -> tuple[str, int]:
    """The field and count KubeRay's adapter multiplies a group's resources by.

    The raw count, not the clamped one: ``minReplicas`` with the autoscaler, else
    ``replicas`` (unset: 0).
    """
    return ("minReplicas", low or 0) if scaling else ("replicas", replicas or 0)


def pods_fit(replicas: int, hosts: int) -> bool:
    """Whether ``replicas × numOfHosts`` fits an int32 (checked without multiplying)."""
    return hosts <= 0 or replicas <= INT32_MAX // hosts


def pods_accepted(what: str, hosts: int) -> str:
    """What a refused ``replicas × numOfHosts`` should be instead, ``what`` naming the count."""
    return (
        f"{what} × numOfHosts at most {INT32_MAX}: with numOfHosts {hosts}, {what} at most "
        f"{INT32_MAX // hosts}"
    )


def members_fit(members: int, count: int) -> bool:
    """Whether adding ``count`` pods to a ``minMember`` of ``members`` stays within int32."""
    return count <= INT32_MAX - members
