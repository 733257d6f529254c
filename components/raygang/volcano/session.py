"""One scheduling session over the snapshot: the cluster a job is judged against.

Follows Volcano's ``pkg/scheduler/framework/session.go`` (``OpenSession``: the cache's snapshot,
the queues, the other jobs placed first) with the declared queues and node shapes of the
stack added.

A :class:`Session` lives for one planning pass: it reads each snapshot once, builds the
cluster every job of the stack sees once per set of declared queues, and indexes the
stack's jobs by queue once. Nothing is kept between passes.
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
    DEFAULT_QUEUE,
    ParsedSnapshot,
    QueueView,
    Shared,
    SnapGroup,
    SnapPod,
    node_state,
    parse_snapshot,
    queue_priority,
    queue_weight,
    used_by,
)
from raygang.volcano.queue import QueueDecl
from raygang.volcano.ranking import Ranking
from raygang.volcano.result import NodeShape
from raygang.volcano.siblings import QueueJobs, by_queue

# Gang placements of other jobs kept per shared cluster, one per distinct set of Pending
# PodGroups admitted first (normally one).
BASES_KEPT = 8


class Session:
    """What one planning pass reads once and every job of it shares.

    Keyed by identity (snapshots and the stack's job tuple hold dicts, so they have no
    value hash); the session keeps what it keys on alive, so an id is never reused while
    it is held. Drop the session with the pass.
    """

    def __init__(self) -> None:
        self._parsed: dict[int, tuple[ClusterSnapshot, ParsedSnapshot]] = {}
        self._shared: dict[tuple[int, tuple[str, ...]], tuple[tuple[QueueDecl, ...], Shared]] = {}
        self._jobs: dict[int, tuple[Sequence[JobPlan], dict[str, QueueJobs]]] = {}

    def parsed(self, snapshot: ClusterSnapshot) -> ParsedSnapshot:
        """The snapshot read once (:func:`raygang.volcano.cache.parse_snapshot`)."""
        entry = self._parsed.get(id(snapshot))
        if entry is None:
            entry = self._parsed[id(snapshot)] = (snapshot, parse_snapshot(snapshot))
        return entry[1]

    def shared(self, snapshot: ClusterSnapshot, declared: Mapping[str, QueueDecl]) -> Shared:
        """The snapshot as every job of the stack sees it, once per declared-queue set."""
        names = tuple(sorted(declared))
        decls = tuple(declared[n] for n in names)
        key = (id(snapshot), names)
        entry = self._shared.get(key)
        if entry is not None and all(a is b for a, b in zip(entry[0], decls, strict=True)):
            return entry[1]
        shared = shared_cluster(snapshot, self.parsed(snapshot), declared)
        self._shared[key] = (decls, shared)
        return shared

    def close(self) -> None:
        """Let go of everything, at once: each ranking refers back to its orders, so the
        cycles are broken here rather than left to the garbage collector."""
        for _, shared in self._shared.values():
            shared.ranking.release()
            shared.bases.clear()
        self._shared.clear()
        self._parsed.clear()
        self._jobs.clear()

    def queue_jobs(self, others: Sequence[JobPlan]) -> dict[str, QueueJobs]:
        """The stack's jobs by queue (:func:`raygang.volcano.siblings.by_queue`), once."""
        entry = self._jobs.get(id(others))
        if entry is None or entry[0] is not others:
            entry = self._jobs[id(others)] = (others, by_queue(others))
        return entry[1]


def shared_cluster(
    snapshot: ClusterSnapshot, parsed: ParsedSnapshot, declared: Mapping[str, QueueDecl]
) -> Shared:
    """The snapshot as every job of the stack sees it.

    Declared queues replace observed ones of the same name (the stack applies its spec);
    their state stays the observed one.
    """
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
    return Shared(
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

    def queue_view(self, name: str) -> QueueView | None:
        """A queue of the session, ``default`` included (the scheduler always creates it)."""
        view = self.queues.get(name)
        return DEFAULT_QUEUE if view is None and name == "default" else view

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
    session: Session, snapshot: ClusterSnapshot, plan: JobPlan, declared: Mapping[str, QueueDecl]
) -> Cluster:
    """What the scheduler's cache would hold, minus this job's own PodGroup and pods.

    A job with no object in the snapshot shares the stack-wide view; one that has them
    (an earlier ``up``) gets the nodes that hold its pods anew, everything else shared.
    """
    shared = session.shared(snapshot, declared)
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
        priority=queue_priority(spec.get("priority") if isinstance(spec, Mapping) else None),
        created=seen.created if seen is not None else "~",
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
