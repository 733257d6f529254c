"""The cluster as a snapshot shows it, read the way Volcano's scheduler cache reads it.

Follows Volcano's ``pkg/scheduler/cache/cache.go`` and ``event_handlers.go``: nodes with their
allocatable, pods of the volcano scheduler counted against their nodes, PodGroups with their
phase and minResources, Queues with their state, weight, capability and guarantee.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from raygang.kube.core import PodSpec
from raygang.kube.podrequests import effective_pod_requests
from raygang.kube.quantity import Quantity, QuantityError
from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.manifests import GROUP_NAME_ANNOTATION, SCHEDULER
from raygang.volcano.api import (
    Node,
    Placement,
    Res,
    SubJob,
    Task,
    add_res,
    sub,
    to_res,
)
from raygang.volcano.queue import QueueDecl

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


# --- The cluster as a snapshot shows it ---------------------------------------------------
@dataclass(frozen=True)
class SnapPod:
    """A pod of the snapshot, with what Volcano reads from it."""

    namespace: str
    name: str
    node: str | None
    phase: str
    terminating: bool
    group: str | None
    volcano: bool
    request: Res
    placement: Placement
    created: str
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES

    @property
    def allocated(self) -> bool:
        """Volcano's AllocatedStatus: bound (Pending with a node) or Running, not deleting."""
        return (
            self.node is not None and self.phase in ("Pending", "Running") and not self.terminating
        )

    @property
    def pending(self) -> bool:
        """An unbound pod Volcano would try to place."""
        return (
            self.node is None and self.phase == "Pending" and self.volcano and not self.terminating
        )

    def task(self) -> Task:
        return Task(
            f"pod {self.namespace}/{self.name}",
            self.group or "",
            self.name,
            self.request,
            self.placement,
        )


@dataclass(frozen=True)
class SnapGroup:
    """A PodGroup of another job, with its pods and the figures Volcano reads from them."""

    namespace: str
    name: str
    queue: str
    phase: str
    min_member: int
    min_raw: Mapping[str, Quantity] | None
    created: str
    obj: Mapping[str, Any] | None
    pods: tuple[SnapPod, ...]
    min_res: Res
    # What its allocated pods (bound or Running, not deleting) request, and how many.
    allocated: Res
    allocated_tasks: int
    # Allocated or Succeeded pods: what gang counts as ready.
    ready_tasks: int
    # The pods Volcano would place, in its task order (creation time, then name).
    pending_pods: tuple[SnapPod, ...]
    live_pods: int  # pods neither Succeeded nor Failed

    @classmethod
    def of(
        cls,
        obj: Mapping[str, Any],
        pods: Sequence[SnapPod],
    ) -> SnapGroup:
        """A PodGroup object of the snapshot with the pods that name it."""
        meta, spec, status = meta_of(obj), spec_of(obj), status_of(obj)
        min_raw = spec.get("minResources")
        parsed_min = quantities_of(min_raw) if isinstance(min_raw, Mapping) else None
        allocated = [p for p in pods if p.allocated]
        return cls(
            namespace=str(meta.get("namespace") or "default"),
            name=str(meta.get("name")),
            queue=str(spec.get("queue") or "default"),
            phase=str(status.get("phase") or "Pending"),
            min_member=int(spec.get("minMember") or 0),
            min_raw=parsed_min,
            created=str(meta.get("creationTimestamp") or ""),
            obj=obj,
            pods=tuple(pods),
            min_res=to_res(parsed_min) if parsed_min is not None else {},
            allocated=add_res(*(p.request for p in allocated)),
            allocated_tasks=len(allocated),
            ready_tasks=sum(1 for p in pods if p.allocated or p.phase == "Succeeded"),
            pending_pods=tuple(
                sorted((p for p in pods if p.pending), key=lambda p: (p.created, p.name))
            ),
            live_pods=sum(1 for p in pods if not p.terminal),
        )

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def pending_sub_jobs(self) -> tuple[tuple[SubJob, ...], tuple[SnapPod, ...]]:
        """The pending pods grouped as Volcano v1.14 groups them, and those left alone.

        Follows ``getOrCreateSubJob`` and ``getSubJobMatchValues``
        (``pkg/scheduler/api/job_info.go``, ``sub_job_info.go``): a pod belongs to the
        first ``spec.subGroupPolicy`` entry whose ``labelSelector`` it matches and whose
        ``matchLabelKeys`` it carries, all non-empty; pods with equal values are one
        sub-job of ``subGroupSize`` (default 1) pods, ordered by the first value as an
        integer (``MatchIndex``), then by ID. A sub-job that already has that many pods
        placed is complete: its pending pods are placed one by one, as the default
        sub-job's. Only ``matchLabels`` selectors are read: a policy with
        ``matchExpressions`` is left out (its pods stay single).
        """
        spec = spec_of(self.obj) if self.obj is not None else {}
        policies = [p for p in spec.get("subGroupPolicy") or () if isinstance(p, Mapping)]
        members: dict[tuple[str, tuple[str, ...]], list[SnapPod]] = {}
        sizes: dict[str, int] = {}
        for pod in self.pods:
            for policy in policies:
                values = _match_values(policy, pod.labels)
                if values is not None:
                    name = str(policy.get("name") or "")
                    sizes[name] = int(policy.get("subGroupSize") or 1)
                    members.setdefault((name, values), []).append(pod)
                    break
        grouped: set[int] = set()
        subs: list[tuple[tuple[int, str], SubJob]] = []
        for (name, values), pods in members.items():
            pending = [p for p in pods if p.pending]
            ready = sum(1 for p in pods if p.allocated or p.phase == "Succeeded")
            if not pending or ready >= sizes[name]:
                continue
            grouped.update(id(p) for p in pending)
            index = int(values[0]) if values[0].isdigit() else 0
            tasks = tuple(p.task() for p in pending)
            key = (index, f"{self.key}/{name}-{'-'.join(values)}")
            subs.append((key, SubJob(name, index, sizes[name] - ready, tasks)))
        singles = tuple(p for p in self.pending_pods if id(p) not in grouped)
        return tuple(sub for _, sub in sorted(subs, key=lambda e: e[0])), singles

    @property
    def inqueue(self) -> bool:
        return self.phase == "Inqueue" and self.min_raw is not None

    @property
    def running_reserved(self) -> bool:
        """Running and holding its reservation (``allocated tasks >= minMember``)."""
        return (
            self.phase == "Running"
            and self.min_raw is not None
            and self.allocated_tasks >= self.min_member
        )

    @property
    def is_pending(self) -> bool:
        return self.phase in ("", "Pending")


@dataclass(frozen=True)
class QueueView:
    """A queue as the scheduler will see it once this stack is applied."""

    name: str
    state: str | None  # None: created by this stack, the controller opens it
    capability_raw: Mapping[str, Quantity]
    guarantee: Res
    weight: int
    declared: bool
    observed: bool
    # ``spec.priority`` and ``metadata.creationTimestamp``: the queue order's keys. A queue
    # the stack creates is the newest ("~" sorts after every timestamp).
    priority: int = 0
    created: str = "~"

    @property
    def capability(self) -> Res:
        return to_res(self.capability_raw)

    @property
    def open(self) -> bool:
        return self.state is None or self.state == "Open"


DEFAULT_QUEUE = QueueView("default", "Open", {}, {}, 1, False, False, 0, "")


def quantities_of(raw: object) -> dict[str, Quantity]:
    """Parse a resource list of a snapshot object.

    The API server only stores valid quantities; anything else (a hand-edited snapshot)
    is skipped rather than failing the whole preflight.
    """
    out: dict[str, Quantity] = {}
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            try:
                out[str(key)] = Quantity.parse(value)
            except QuantityError:
                continue
    return out


def read_pod_spec(spec: Mapping[str, Any]) -> PodSpec | None:
    """The pod spec as the typed model; None when it is not one (the pod is unreadable)."""
    try:
        return PodSpec.model_validate(spec)
    except ValidationError:
        return None


def pod_request(pod: PodSpec) -> Res:
    """Volcano's ``GetPodResourceRequest``: the effective request plus ``pods: 1``."""
    request = to_res(effective_pod_requests(pod, "pod").requests)
    request["pods"] = 1
    return request


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def status_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, Mapping) else {}


@dataclass(frozen=True)
class ParsedNode:
    """A Node of the snapshot, read once."""

    name: str
    allocatable: Res
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, Any], ...]
    unschedulable: bool


@dataclass(frozen=True)
class ParsedSnapshot:
    """Everything of a snapshot that does not depend on the job judged."""

    source: str
    # (namespace, PodGroup annotation, the pod or None when unreadable, "ns/name")
    pods: tuple[tuple[str, str | None, SnapPod | None, str], ...]
    nodes: tuple[ParsedNode, ...]
    groups: tuple[SnapGroup, ...]  # oldest first, their pods attached
    queues: Mapping[str, QueueView]
    has_queues: bool
    # (namespace, PodGroup name) of every PodGroup and every pod's group annotation.
    owners: frozenset[tuple[str, str]]


def parse_snapshot(snapshot: ClusterSnapshot) -> ParsedSnapshot:
    """Read a snapshot once: what does not depend on the job judged or the stack's queues."""
    pods: list[tuple[str, str | None, SnapPod | None, str]] = []
    owners: set[tuple[str, str]] = set()
    for obj in snapshot.of_kind("Pod"):
        meta, spec, status = meta_of(obj), spec_of(obj), status_of(obj)
        namespace = str(meta.get("namespace") or "default")
        annotations = meta.get("annotations") or {}
        group = annotations.get(GROUP_NAME_ANNOTATION) if isinstance(annotations, Mapping) else None
        if group is not None:
            owners.add((namespace, group))
        label = f"{namespace}/{meta.get('name')}"
        model = read_pod_spec(spec)
        if model is None:
            pods.append((namespace, group, None, label))
            continue
        pod = SnapPod(
            namespace=namespace,
            name=str(meta.get("name")),
            node=str(spec["nodeName"]) if spec.get("nodeName") else None,
            phase=str(status.get("phase") or "Pending"),
            terminating=bool(meta.get("deletionTimestamp")),
            group=str(group) if group else None,
            volcano=spec.get("schedulerName") == SCHEDULER,
            request=pod_request(model),
            placement=Placement.of(model),
            created=str(meta.get("creationTimestamp") or ""),
            labels=_labels(meta.get("labels")),
        )
        pods.append((namespace, group, pod, label))

    nodes: list[ParsedNode] = []
    for obj in snapshot.of_kind("Node"):
        meta, spec, status = meta_of(obj), spec_of(obj), status_of(obj)
        raw = status.get("allocatable") or status.get("capacity") or {}
        labels = meta.get("labels") or {}
        nodes.append(
            ParsedNode(
                name=str(meta.get("name")),
                allocatable=to_res(quantities_of(raw)),
                labels={str(k): str(v) for k, v in labels.items()}
                if isinstance(labels, Mapping)
                else {},
                taints=tuple(t for t in spec.get("taints") or () if isinstance(t, Mapping)),
                unschedulable=bool(spec.get("unschedulable")),
            )
        )

    by_group: dict[tuple[str, str], list[SnapPod]] = {}
    for _, _, snap_pod, _ in pods:
        if snap_pod is not None and snap_pod.group is not None:
            by_group.setdefault((snap_pod.namespace, snap_pod.group), []).append(snap_pod)
    groups: list[SnapGroup] = []
    for obj in snapshot.of_kind("PodGroup"):
        meta = meta_of(obj)
        key = (str(meta.get("namespace") or "default"), str(meta.get("name")))
        groups.append(SnapGroup.of(obj, by_group.get(key, [])))
        owners.add(key)

    queues: dict[str, QueueView] = {}
    for obj in snapshot.of_kind("Queue"):
        meta, spec, status = meta_of(obj), spec_of(obj), status_of(obj)
        name = str(meta.get("name"))
        guarantee = spec.get("guarantee") or {}
        queues[name] = QueueView(
            name=name,
            state=str(status.get("state") or ""),
            capability_raw=quantities_of(spec.get("capability")),
            guarantee=to_res(
                quantities_of(guarantee.get("resource") if isinstance(guarantee, Mapping) else {})
            ),
            weight=queue_weight(spec.get("weight")),
            declared=False,
            observed=True,
            priority=queue_priority(spec.get("priority")),
            created=str(meta.get("creationTimestamp") or ""),
        )
    groups.sort(key=lambda g: (g.created, g.namespace, g.name))
    return ParsedSnapshot(
        source=snapshot.source,
        pods=tuple(pods),
        nodes=tuple(nodes),
        groups=tuple(groups),
        queues=queues,
        has_queues=snapshot.has_kind("Queue"),
        owners=frozenset(owners),
    )


def held_by(pods: Iterable[SnapPod]) -> tuple[Res, Res]:
    """What bound pods use of a node and what the terminating ones among them release.

    Succeeded and Failed pods hold nothing; every other bound pod does, any scheduler.
    """
    live = [p for p in pods if not p.terminal]
    return add_res(*(p.request for p in live)), add_res(*(p.request for p in live if p.terminating))


def node_state(node: ParsedNode, pods: Sequence[SnapPod]) -> Node:
    used, releasing = held_by(pods)
    return Node(
        name=node.name,
        allocatable=dict(node.allocatable),
        idle=sub(node.allocatable, used),
        releasing=releasing,
        labels=dict(node.labels),
        taints=node.taints,
        unschedulable=node.unschedulable,
    )


def used_by(pods: Iterable[SnapPod]) -> Res:
    """What bound pods hold, summed over the cluster."""
    return add_res(*(p.request for p in pods if p.node is not None and not p.terminal))


def queue_priority(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0


def queue_weight(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 1


@dataclass(frozen=True)
class Cluster:
    """What the scheduler's cache holds once the stack is applied, minus one job's objects.

    The snapshot's nodes (in name order, each bound pod's request taken off ``idle``),
    pods, PodGroups (oldest first) and queues, the stack's declared queues replacing the
    observed ones of the same name. A job's own PodGroup and pods (from an earlier ``up``)
    are left out, so its gang is judged as if created anew. Nothing here is changed by a
    preflight: simulations place pods on copies of ``nodes``.
    """

    source: str
    parsed: ParsedSnapshot
    nodes: list[Node]
    groups: list[SnapGroup]
    pods: list[SnapPod]
    queues: dict[str, QueueView]
    own_group: Mapping[str, Any] | None
    unreadable_pods: list[str]
    total: Res
    used: Res
    # The nodes with nothing on them (the "fits no node, even empty" check): made with the
    # cluster, once per pass, rather than for each job judged.
    empty_nodes: list[Node]

    def queue_view(self, name: str) -> QueueView | None:
        """A queue of the session, ``default`` included (the scheduler always creates it)."""
        view = self.queues.get(name)
        return DEFAULT_QUEUE if view is None and name == "default" else view

    @property
    def has_nodes(self) -> bool:
        return bool(self.nodes)

    @property
    def has_queues(self) -> bool:
        return self.parsed.has_queues


def read_cluster(
    parsed: ParsedSnapshot,
    declared: Mapping[str, QueueDecl],
    own: tuple[str, str] | None = None,
) -> Cluster:
    """The snapshot as the scheduler's cache reads it, with the stack's declared queues, less
    the PodGroup ``own`` (namespace, name) and its pods.

    Declared queues replace observed ones of the same name (the stack applies its spec);
    their state stays the observed one.
    """

    def mine(namespace: str, group: str | None) -> bool:
        return own is not None and (namespace, group) == own

    pods = [p for _, _, p, _ in parsed.pods if p is not None and not mine(p.namespace, p.group)]
    by_node: dict[str, list[SnapPod]] = {}
    for pod in pods:
        if pod.node is not None:
            by_node.setdefault(pod.node, []).append(pod)
    nodes = sorted(
        (node_state(node, by_node.get(node.name, [])) for node in parsed.nodes),
        key=lambda n: n.name,
    )
    queues: dict[str, QueueView] = dict(parsed.queues)
    for name, decl in declared.items():
        queues[name] = declared_view(decl, queues.get(name))
    groups = [g for g in parsed.groups if not mine(g.namespace, g.name)]
    return Cluster(
        source=parsed.source,
        parsed=parsed,
        nodes=nodes,
        groups=groups,
        pods=pods,
        queues=queues,
        own_group=next(
            (g.obj for g in parsed.groups if mine(g.namespace, g.name)),
            None,
        ),
        unreadable_pods=[
            label for ns, group, p, label in parsed.pods if p is None and not mine(ns, group)
        ],
        total=add_res(*(n.allocatable for n in nodes)),
        used=used_by(pods),
        empty_nodes=[n.empty() for n in nodes],
    )


def declared_view(decl: QueueDecl, seen: QueueView | None) -> QueueView:
    """A queue the stack declares, as the scheduler sees it once the stack is applied."""
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


def _labels(raw: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}


def _match_values(policy: Mapping[str, Any], labels: Mapping[str, str]) -> tuple[str, ...] | None:
    """``getSubJobMatchValues``: the pod's values of the policy's ``matchLabelKeys`` when it
    matches the policy's selector; None otherwise (no keys: the default sub-job)."""
    selector = policy.get("labelSelector")
    if isinstance(selector, Mapping):
        if selector.get("matchExpressions"):
            return None
        wanted = selector.get("matchLabels") or {}
        if not isinstance(wanted, Mapping):
            return None
        if any(labels.get(str(k)) != str(v) for k, v in wanted.items()):
            return None
    keys = [str(k) for k in policy.get("matchLabelKeys") or ()]
    values = tuple(labels.get(k, "") for k in keys)
    if not keys or not all(values):
        return None
    return values
