"""One scheduling session over the snapshot: the cluster a job is judged against.

Follows Volcano's ``pkg/scheduler/framework/session.go`` (``OpenSession``: the cache's snapshot,
the queues, the other jobs placed first) with the declared queues and node shapes of the
stack added.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.jobplan import JobPlan
from raygang.volcano.api import Node, Res, add_res, to_res
from raygang.volcano.cache import (
    QueueView,
    Shared,
    SnapGroup,
    SnapPod,
    node_state,
    parse_snapshot,
    queue_weight,
    used_by,
)
from raygang.volcano.queue import QueueDecl
from raygang.volcano.ranking import Ranking
from raygang.volcano.result import NodeShape

# Gang placements of other jobs kept per shared cluster, one per distinct set of Pending
# PodGroups admitted first (normally one).
BASES_KEPT = 8


def shared_cluster(snapshot: ClusterSnapshot, declared: Mapping[str, QueueDecl]) -> Shared:
    """The snapshot as every job of the stack sees it, built once per declared-queue set.

    Declared queues replace observed ones of the same name (the stack applies its spec);
    their state stays the observed one.
    """
    parsed = parse_snapshot(snapshot)
    names = tuple(sorted(declared))
    decls = tuple(declared[n] for n in names)
    entry = parsed.shared.get(names)
    if entry is not None and all(a is b for a, b in zip(entry[0], decls, strict=True)):
        return entry[1]
    if entry is not None:
        entry[1].ranking.release()  # an earlier pass's: replaced below
    pods: list[SnapPod] = []
    unreadable: list[tuple[str, str | None, str]] = []
    for namespace, group_name, snap_pod, label in parsed.pods:
        if snap_pod is None:
            unreadable.append((namespace, group_name, label))
        else:
            pods.append(snap_pod)
    by_node: dict[str, list[SnapPod]] = {}
    for pod in pods:
        if pod.node is not None:
            by_node.setdefault(pod.node, []).append(pod)
    nodes = sorted(
        (node_state(node, by_node.get(node.name, [])) for node in parsed.nodes),
        key=lambda n: n.name,
    )
    groups = list(parsed.groups)
    queues: dict[str, QueueView] = dict(parsed.queues)
    for name, decl in declared.items():
        queues[name] = declared_view(decl, queues.get(name))
    shared = Shared(
        source=snapshot.source,
        parsed=parsed,
        nodes=nodes,
        by_node=by_node,
        pods=pods,
        groups=groups,
        queues=queues,
        unreadable=unreadable,
        ranking=Ranking(nodes),
    )
    parsed.shared[names] = (decls, shared)
    return shared


@dataclass
class Cluster:
    """Nodes, pods, PodGroups and queues of a snapshot, minus this job's own objects.

    Nothing here is changed by an evaluation: simulations place pods on copies of
    ``nodes``. ``whole`` is true when the job has no object in the snapshot, so the
    stack-wide caches of ``shared`` apply to it.
    """

    shared: Shared
    whole: bool
    nodes: list[Node]
    groups: list[SnapGroup]
    pods: list[SnapPod]
    own_group: Mapping[str, Any] | None
    unreadable_pods: list[str]

    @property
    def source(self) -> str:
        return self.shared.source

    @property
    def queues(self) -> dict[str, QueueView]:
        return self.shared.queues

    @property
    def has_nodes(self) -> bool:
        return bool(self.nodes)

    @property
    def has_queues(self) -> bool:
        return self.shared.parsed.has_queues

    @property
    def ranking(self) -> Ranking:
        return self.shared.ranking

    @cached_property
    def total(self) -> Res:
        if self.whole:
            return self.shared.total
        return add_res(*(n.allocatable for n in self.nodes))

    @cached_property
    def used(self) -> Res:
        if self.whole:
            return self.shared.used
        return used_by(self.pods)


def read_cluster(
    snapshot: ClusterSnapshot, plan: JobPlan, declared: Mapping[str, QueueDecl]
) -> Cluster:
    """What the scheduler's cache would hold, minus this job's own PodGroup and pods.

    A job with no object in the snapshot shares the stack-wide view; one that has them
    (an earlier ``up``) gets the nodes that hold its pods anew, everything else shared.
    """
    shared = shared_cluster(snapshot, declared)
    own = (plan.namespace, plan.podgroup_name)
    if own not in shared.parsed.owners:
        return Cluster(
            shared=shared,
            whole=True,
            nodes=shared.nodes,
            groups=shared.groups,
            pods=shared.pods,
            own_group=None,
            unreadable_pods=[label for _, _, label in shared.unreadable],
        )

    def mine(pod: SnapPod) -> bool:
        # This job's own pods (from an earlier `up`): preflight judges the gang anew.
        return (pod.namespace, pod.group) == own

    touched = {p.node for p in shared.pods if p.node is not None and mine(p)}
    parsed_nodes = {n.name: n for n in shared.parsed.nodes}
    nodes = [
        node_state(parsed_nodes[n.name], [p for p in shared.by_node[n.name] if not mine(p)])
        if n.name in touched
        else n
        for n in shared.nodes
    ]
    own_group = next(
        (g.obj for g in shared.groups if (g.namespace, g.name) == own),
        None,
    )
    return Cluster(
        shared=shared,
        whole=False,
        nodes=nodes,
        groups=[g for g in shared.groups if (g.namespace, g.name) != own],
        pods=[p for p in shared.pods if not mine(p)],
        own_group=own_group,
        unreadable_pods=[label for ns, group, label in shared.unreadable if (ns, group) != own],
    )


def declared_view(decl: QueueDecl, seen: QueueView | None) -> QueueView:
    spec = decl.raw.get("spec") if isinstance(decl.raw.get("spec"), Mapping) else {}
    return QueueView(
        name=decl.name,
        # The stack applies the spec; the state stays what the cluster says. A queue the
        # controller has not reported on yet (no state) is opened by it, and the stack's
        # Queue waits for Open, as for a queue it creates.
        state=seen.state if seen is not None and seen.state else None,
        capability_raw=dict(decl.capability),
        guarantee=to_res(decl.guarantee),
        weight=queue_weight(spec.get("weight") if isinstance(spec, Mapping) else None),
        declared=True,
        observed=seen is not None,
    )


def shape_nodes(shapes: Sequence[NodeShape]) -> list[Node]:
    nodes = []
    for shape in shapes:
        allocatable = to_res(shape.allocatable)
        nodes.append(
            Node(
                name=shape.name,
                allocatable=allocatable,
                idle=dict(allocatable),
                releasing={},
                labels=dict(shape.labels),
                taints=shape.taints,
                unschedulable=False,
            )
        )
    return nodes
