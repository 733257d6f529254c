"""The pods KubeRay will create for a job, as tasks of one Volcano job.

The head, the workers (``replicas x numOfHosts``) and the submitter, with the requests
KubeRay's pod templates give them (``ray-operator/controllers/ray/common/pod.go``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from raygang.kuberay.gang import (
    Accounting,
    GangShare,
    compute_gang,
    desired_worker_replicas,
)
from raygang.kuberay.jobplan import JobPlan
from raygang.volcano.api import Placement, Res, SubJob, Task, add_res, scale, to_res


# --- The job's own pods -------------------------------------------------------------------
@dataclass(frozen=True)
class JobPods:
    """The pods KubeRay (and raygang) create for one plan, in creation order.

    Attributes:
        roles: ``(task, members, extras)`` for the head, then each worker group:
            ``members`` count in ``minMember``; ``extras`` are the replicas above
            ``minReplicas`` an autoscaling cluster starts with.
        submitter: the K8sJobMode submitter pod, created once the cluster is ready.
        unmodelled: constraints of the pod templates that preflight does not model.
    """

    roles: tuple[tuple[Task, int, int], ...]
    submitter: Task | None
    unmodelled: tuple[str, ...]
    # Worker groups whose replicas are sub-groups (the PodGroup's subGroupPolicy): numOfHosts
    # by group name.
    sub_gangs: Mapping[str, int] = field(default_factory=dict)

    @property
    def created(self) -> int:
        """Pods that exist before the RayCluster is ready (the submitter comes later)."""
        return sum(m + e for _, m, e in self.roles)

    @property
    def counts(self) -> dict[str, int]:
        """Gang members per group."""
        return {t.group: m for t, m, _ in self.roles}

    @property
    def extra_count(self) -> int:
        return sum(e for _, _, e in self.roles)

    # The lists below hold one entry per pod: callers check ``created`` against
    # MAX_SIMULATED_PODS first, so a job of a million replicas is never expanded.

    @property
    def gang(self) -> tuple[Task, ...]:
        return tuple(t for t, m, _ in self.roles for _ in range(m))

    @property
    def extras(self) -> tuple[Task, ...]:
        return tuple(t for t, _, e in self.roles for _ in range(e))

    @property
    def single_extras(self) -> tuple[Task, ...]:
        """The extras Volcano places one by one: those of groups without sub-groups."""
        return tuple(t for t, _, e in self.roles if t.group not in self.sub_gangs for _ in range(e))

    def extra_sub_jobs(self) -> tuple[SubJob, ...]:
        """The replicas above minReplicas of the sub-gang groups, each a sub-job Volcano
        places whole or not at all (the replicas the gang counts come first, so these are
        numbered after them)."""
        out: list[SubJob] = []
        for task, members, extra in self.roles:
            hosts = self.sub_gangs.get(task.group)
            if not hosts:
                continue
            first = members // hosts
            for index in range(first, first + extra // hosts):
                out.append(SubJob(task.group, index, hosts, (task,) * hosts))
        return tuple(out)

    def request(self, *, extras: bool = False) -> Res:
        """What the gang's pods (and optionally the extras) request together."""
        total: Res = {}
        for task, members, more in self.roles:
            count = members + (more if extras else 0)
            total = add_res(total, scale(task.request, count))
        return total


def template_spec(manifest: Mapping[str, Any] | None, *path: str | int) -> Mapping[str, Any]:
    node: Any = manifest or {}
    for key in path:
        if isinstance(key, int):
            node = node[key] if isinstance(node, list) and len(node) > key else {}
        else:
            node = node.get(key) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else {}


def placement_shares(plan: JobPlan) -> tuple[GangShare, ...]:
    """Per-pod requests as the scheduler sees them: the effective accounting's.

    Under ``kuberay`` accounting ``minResources`` may under-count (init containers,
    overhead); placement must use what the pods really request.
    """
    if plan.gang.accounting is Accounting.EFFECTIVE:
        return plan.gang.shares
    try:
        return compute_gang(plan.item.job, Accounting.EFFECTIVE).shares
    except (OverflowError, ValueError):
        return plan.gang.shares


def job_pods(plan: JobPlan) -> JobPods:
    """The job's pods with their requests (as the scheduler sees them) and constraints.

    Tolerations, nodeSelector and affinity: the head's and the workers' from the typed
    job (raygang renders the RayCluster's pod templates from them adding metadata and the
    scheduler's name, never a scheduling field), the submitter's from the Job raygang
    renders, read through the typed ``PodSpec``.
    """
    cluster = plan.item.job.spec.ray_cluster_spec
    groups = cluster.worker_group_specs if cluster is not None else []
    job = plan.name
    roles: list[tuple[Task, int, int]] = []
    unmodelled: list[str] = []
    submitter: Task | None = None
    worker_index = 0
    for share in placement_shares(plan):
        request = to_res(share.per_pod)
        request["pods"] = 1
        if share.role == "head":
            placement = Placement.of(
                cluster.head_group_spec.template.spec if cluster is not None else None
            )
            head = Task("head", share.group, f"{job}-head-*", request, placement)
            roles.append((head, 1, 0))
        elif share.role == "worker":
            index = worker_index
            worker_index += 1
            placement = Placement.of(groups[index].template.spec if index < len(groups) else None)
            task = Task(
                f"worker group {share.group}",
                share.group,
                f"{job}-{share.group}-worker-*",
                request,
                placement,
            )
            # KubeRay starts `replicas` (clamped) pods; minMember counts minReplicas
            # when autoscaling, so the rest are extras the gang does not wait for.
            created = (
                desired_worker_replicas(groups[index]) if index < len(groups) else share.members
            )
            roles.append((task, share.members, max(0, created - share.members)))
        elif share.role == "submitter":
            resource = plan.resource("submitter")
            spec = template_spec(
                resource.manifest if resource else None, "spec", "template", "spec"
            )
            placement = Placement.from_spec(spec)
            submitter = Task("submitter", share.group, f"{job}-*", request, placement)
        else:
            continue
        unmodelled += [f"{u} ({share.role} {share.group})" for u in placement.unmodelled]
    sub_gangs = {g.group: g.hosts for g in plan.sub_gangs}
    return JobPods(tuple(roles), submitter, tuple(unmodelled), sub_gangs)
