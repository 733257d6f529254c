"""Sub-gangs: each replica of a multi-host worker group placed whole by Volcano.

KubeRay's Volcano adapter (v1.5, v1.6) declares one gang for the whole cluster: ``minMember``
pods, any of them. A worker group with ``numOfHosts`` > 1 (a TPU slice, an NVLink partition)
is useless unless all hosts of a replica run, so raygang can declare, beside ``minMember``,
one PodGroup ``spec.subGroupPolicy`` entry per such group (Volcano v1.14's API,
``volcano.sh/apis`` ``pkg/apis/scheduling/v1beta1/types.go``, ``SubGroupPolicySpec``):

* ``name``: the worker group's name; ``labelSelector``: its pods (``ray.io/group``);
* ``matchLabelKeys``: ``ray.io/worker-group-replica-name``, the label KubeRay gives every pod
  of one multi-host replica (``ray-operator/controllers/ray/common/pod.go``,
  ``DefaultWorkerPodTemplate``) when its ``RayMultiHostIndexing`` feature gate is on
  (alpha and off in v1.5, beta and on in v1.6): pods with equal values are one sub-group;
* ``subGroupSize``: ``numOfHosts``, the pods a sub-group needs before Volcano keeps any of
  them (``SubJobInfo.MinAvailable``, ``pkg/scheduler/api/sub_job_info.go``);
* ``minSubGroups``: the replicas ``minMember`` counts for the group (``minReplicas`` with the
  autoscaler, else the clamped ``replicas``), so the gang is ready only with that many whole
  replicas (``JobInfo.CheckSubJobReady``, ``pkg/scheduler/api/job_info.go``).

``minMember`` and ``minResources`` are unchanged. A group of ``numOfHosts`` 1 gets no entry (a
replica of one pod is already placed whole), nor does a suspended group (KubeRay deletes its
pods), as KubeRay PR #5249 (open) proposes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from raygang.kube.errors import SpecError
from raygang.kuberay.settings import SUB_GANGS_ANNOTATION, JobSettings
from raygang.rayjob.replicas import clamped_replicas, member_replicas
from raygang.rayjob.spec import RayClusterSpec, RayJobInput

__all__ = [
    "GROUP_LABEL",
    "REPLICA_NAME_LABEL",
    "SubGang",
    "job_sub_gangs",
    "multi_host_groups",
    "sub_gangs",
    "sub_group_policy",
]

#: The label KubeRay gives every pod of a worker group (``labelPod``).
GROUP_LABEL = "ray.io/group"

#: The label KubeRay gives the pods of one multi-host replica, with the gate on
#: (``utils.RayWorkerReplicaNameKey``: the group's name and a random suffix).
REPLICA_NAME_LABEL = "ray.io/worker-group-replica-name"


@dataclass(frozen=True, slots=True)
class SubGang:
    """One multi-host worker group as a sub-group policy.

    Attributes:
        group: the worker group's name (the policy's name and its ``ray.io/group``).
        hosts: ``numOfHosts``: the pods of one replica (``subGroupSize``).
        min_replicas: the replicas ``minMember`` counts (``minSubGroups``).
        replicas: the replicas KubeRay creates (clamped ``replicas``).
    """

    group: str
    hosts: int
    min_replicas: int
    replicas: int

    def policy(self) -> dict[str, Any]:
        """The ``spec.subGroupPolicy`` entry for this group."""
        return {
            "name": self.group,
            "subGroupSize": self.hosts,
            "minSubGroups": self.min_replicas,
            "labelSelector": {"matchLabels": {GROUP_LABEL: self.group}},
            "matchLabelKeys": [REPLICA_NAME_LABEL],
        }

    def summary(self) -> str:
        """``worker group tpu: 2 replicas of 2 hosts, each placed whole; minSubGroups 1``."""
        return (
            f"worker group {self.group}: {self.replicas} replica(s) of {self.hosts} hosts, "
            f"each placed whole; minSubGroups {self.min_replicas}"
        )


def multi_host_groups(cluster: RayClusterSpec) -> list[str]:
    """The worker groups with ``numOfHosts`` > 1, suspended ones included."""
    return [g.group_name for g in cluster.worker_group_specs if g.num_of_hosts > 1]


def sub_gangs(cluster: RayClusterSpec) -> tuple[SubGang, ...]:
    """One :class:`SubGang` per worker group with ``numOfHosts`` > 1 that is not suspended,
    in the order of ``workerGroupSpecs``."""
    out = []
    for group in cluster.worker_group_specs:
        if group.num_of_hosts <= 1 or group.suspend:
            continue
        counted = member_replicas(
            group.replicas, group.min_replicas, group.max_replicas, scaling=cluster.autoscaling
        )
        created = clamped_replicas(group.replicas, group.min_replicas, group.max_replicas)
        out.append(SubGang(group.group_name, group.num_of_hosts, counted, created))
    return tuple(out)


def sub_group_policy(gangs: tuple[SubGang, ...]) -> list[dict[str, Any]]:
    """The PodGroup's ``spec.subGroupPolicy``."""
    return [g.policy() for g in gangs]


def job_sub_gangs(item: RayJobInput, settings: JobSettings) -> tuple[SubGang, ...]:
    """The sub-gangs of a job whose settings ask for them (none otherwise).

    Asked by the stack (``raygang:subGangs``), a job without a multi-host group is left as
    it is, and the plan says so. Asked by the job itself (its ``raygang.dev/sub-gangs``
    annotation), the request would do nothing, which is refused rather than ignored.

    Raises:
        SpecError: the job's annotation asks for sub-gangs and no worker group has
            ``numOfHosts`` > 1.
    """
    cluster = item.job.spec.ray_cluster_spec
    if not settings.sub_gangs or cluster is None:
        return ()
    asked = item.job.metadata.annotations.get(SUB_GANGS_ANNOTATION, "").lower() == "true"
    if asked and not multi_host_groups(cluster):
        hosts = ", ".join(
            f"{g.group_name} numOfHosts {g.num_of_hosts}" for g in cluster.worker_group_specs
        )
        raise SpecError.one(
            item.source,
            f"metadata.annotations[{SUB_GANGS_ANNOTATION!r}]",
            "asks for sub-gangs, but no worker group has numOfHosts > 1 "
            f"({hosts or 'no worker groups'}): a replica of one pod is already placed whole, "
            "so there is no replica to keep together",
            "a worker group with numOfHosts > 1, or the annotation removed",
        )
    return sub_gangs(cluster)
