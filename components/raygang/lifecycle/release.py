"""When a job's PodGroup gives its queue capacity back: once no pod of its RayCluster holds a node.

KubeRay's Volcano adapter zeroes the PodGroup as soon as the RayCluster has a
``deletionTimestamp`` (``CleanupOnCompletion``,
``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go`` v1.7.0), and
raygang used to zero it in the ``up`` that deletes the cluster. A deletion takes time, and a
finalizer can block it for good; until the cluster's pods are gone they still hold their
nodes, and a zeroed PodGroup lets Volcano admit another gang into room still in use (the
fault suite saw the PodGroup zeroed while two pods remained bound).

So the PodGroup keeps its numbers while the facts show a pod of the RayCluster bound to a node
(or the RayCluster itself, deleting or not, when the facts hold no Pods to tell), and the first
``up`` whose facts show none zeroes it. Pulumi deletes a RayCluster it no longer declares at
the end of an ``up`` and waits until it is gone, so the queue is freed by the ``up`` after the
one that deletes the cluster: one ``up`` later than before, unless the deletion itself is
blocked. A pod never placed holds nothing: a gang stuck unplaced (failed at its pre-running
deadline) still frees the queue in the ``up`` that deletes it, and must, since another job of
the stack waiting for that room would otherwise fail that ``up`` (its RayCluster never ready),
and Pulumi deletes nothing after a failed step.

DeleteWorkers follows the same rule for the workers' share: the ``up`` that suspends the
worker groups (or scales them to zero) leaves the PodGroup as it was while the facts show a
worker pod bound to a node, and the first ``up`` whose facts show none shrinks it to the head.
"""

from __future__ import annotations

from dataclasses import dataclass

from raygang.kuberay.jobplan import JobPlan
from raygang.lifecycle.facts.model import JobFacts
from raygang.lifecycle.model import LATER

__all__ = ["Held", "held_until_gone", "workers_held_until_gone"]


@dataclass(frozen=True)
class Held:
    """A PodGroup that keeps its numbers for now.

    Attributes:
        why: the reason, for the action line of the PodGroup.
        later: the action line of the ``up`` that will zero it.
    """

    why: str
    later: str


def held_until_gone(plan: JobPlan, facts: JobFacts) -> Held | None:
    """Why the PodGroup must not be zeroed yet; None once the cluster and its pods are gone."""
    if not facts.cluster_holds:
        return None
    left = (
        f"{len(facts.cluster_pods)} bound pod(s) of RayCluster/{plan.name} left"
        if facts.cluster_pods
        else f"RayCluster/{plan.name} left, its pods not in the facts"
    )
    return Held(
        why=f"kept while its pods may still hold resources ({left})",
        later=(
            f"{LATER}zero PodGroup/{plan.podgroup_name} on the first `pulumi up` after "
            f"RayCluster/{plan.name} and its pods are gone"
        ),
    )


def workers_held_until_gone(plan: JobPlan, facts: JobFacts) -> Held | None:
    """Why the PodGroup must keep the workers' share yet; None once no worker pod holds a node."""
    if not facts.workers_hold:
        return None
    left = (
        f"{len(facts.worker_pods)} bound worker pod(s) of RayCluster/{plan.name} left"
        if facts.worker_pods
        else f"the workers of RayCluster/{plan.name} not yet gone, its pods not in the facts"
    )
    return Held(
        why=f"the workers' share kept while their pods may still hold resources ({left})",
        later=(
            f"{LATER}shrink PodGroup/{plan.podgroup_name} to the head on the first `pulumi up` "
            f"after the worker pods of RayCluster/{plan.name} are gone"
        ),
    )
