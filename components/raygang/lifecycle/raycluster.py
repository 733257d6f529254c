"""What a RayCluster of its own declares on this run: KubeRay's RayCluster loop has no job
phases, so the manifest alone decides.

* Running (``spec.suspend`` unset or false): the plan's PodGroup with the gang, then the
  RayCluster; ``pulumi up`` waits for it to be ready. Scaling a worker group changes the
  PodGroup in the same ``up``, before the RayCluster, as KubeRay's adapter would recompute
  it on the cluster's next reconcile.
* Suspended (``spec.suspend: true``): KubeRay deletes the pods and keeps the object, and
  its adapter leaves the PodGroup as it was (``reconcilePods`` returns before
  ``DoBatchSchedulingOnSubmission`` for a suspended cluster, v1.5.0), holding its queue's
  room for pods that no longer exist (kuberay #5183). raygang zeroes it: no ``minMember``
  (Go's ``omitempty`` leaves a 0 out) and empty ``minResources``, as a finished RayJob's.
  Resuming declares the gang again, before the RayCluster.
"""

from __future__ import annotations

from raygang.kuberay.clusterplan import ClusterPlan
from raygang.kuberay.jobplan import PlannedResource
from raygang.lifecycle.declared import podgroup_with

__all__ = ["cluster_actions", "declared_cluster_resources"]


def declared_cluster_resources(plan: ClusterPlan) -> tuple[PlannedResource, ...]:
    """The objects this run declares for the RayCluster, in creation order."""
    if not plan.item.suspended:
        return plan.resources
    return tuple(podgroup_with(r, 0, {}) if r.role == "podgroup" else r for r in plan.resources)


def cluster_actions(plan: ClusterPlan) -> tuple[str, ...]:
    """What this run does to the gang, in words, for the plan's report."""
    if plan.item.suspended:
        return (
            f"suspended (spec.suspend: true): PodGroup {plan.podgroup_name} zeroed (no "
            "minMember, empty minResources); KubeRay leaves it as it was (kuberay #5183)",
        )
    return ()
