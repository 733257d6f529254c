"""What every job of a planning pass sees alike: the cluster and the stack's jobs by queue.

Follows Volcano's ``pkg/scheduler/cache`` snapshot taken at ``OpenSession``: the snapshot is
read once per pass (with the stack's declared queues applied), and every job's preflight
is handed the same :class:`StackView`. Plain data, built by :func:`stack_view` and dropped
with the pass, with one exception: the allocate action's node ranks, which every job's node
choice reads and adds to (a job ranks anew only the kinds of pod no earlier job had).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.jobplan import JobPlan
from raygang.preflight.siblings import QueueJobs, by_queue
from raygang.volcano.actions.allocate import SharedRanks
from raygang.volcano.cache import Cluster, parse_snapshot, read_cluster
from raygang.volcano.queue import QueueDecl

__all__ = ["StackView", "cluster_for", "stack_view"]


@dataclass(frozen=True)
class StackView:
    """The cluster as every job of a stack sees it (None without a snapshot), the
    stack's jobs by queue (:func:`raygang.preflight.siblings.by_queue`), and the node ranks
    the jobs' node choices share (:func:`raygang.volcano.actions.allocate.node_choice`)."""

    cluster: Cluster | None
    queue_jobs: Mapping[str, QueueJobs]
    ranks: SharedRanks = field(default_factory=SharedRanks, compare=False)


def stack_view(
    snapshot: ClusterSnapshot | None,
    declared: Mapping[str, QueueDecl],
    jobs: Sequence[JobPlan],
) -> StackView:
    """Read the snapshot once, with the stack's ``declared`` queues, and index ``jobs``."""
    cluster = read_cluster(parse_snapshot(snapshot), declared) if snapshot is not None else None
    return StackView(cluster, by_queue(jobs))


def cluster_for(
    stack: StackView, plan: JobPlan, declared: Mapping[str, QueueDecl]
) -> Cluster | None:
    """The stack's cluster as ``plan``'s job sees it: without its own PodGroup and pods
    (from an earlier ``up``), which are read anew; the stack's own view otherwise."""
    cluster = stack.cluster
    own = (plan.namespace, plan.podgroup_name)
    if cluster is None or own not in cluster.parsed.owners:
        return cluster
    return read_cluster(cluster.parsed, declared, own)
