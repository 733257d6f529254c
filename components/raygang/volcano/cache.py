"""The cluster as a snapshot shows it, read the way Volcano's scheduler cache reads it.

Follows Volcano's ``pkg/scheduler/cache/cache.go`` and ``event_handlers.go``: nodes with their
allocatable, pods of the volcano scheduler counted against their nodes, PodGroups with their
phase and minResources, Queues with their state, weight, capability and guarantee.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

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
    Task,
    add_res,
    sub,
    to_res,
)
from raygang.volcano.emptynodes import EmptyNodes
from raygang.volcano.ranking import Ranking

if TYPE_CHECKING:
    from raygang.volcano.actions.others import Before

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


@dataclass
class SnapGroup:
    """A PodGroup of another job."""

    namespace: str
    name: str
    queue: str
    phase: str
    min_member: int
    min_raw: Mapping[str, Quantity] | None
    created: str
    obj: Mapping[str, Any] | None = None
    # Attached while the snapshot is read, never changed after: the figures below are
    # computed once.
    pods: list[SnapPod] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @cached_property
    def min_res(self) -> Res:
        return to_res(self.min_raw) if self.min_raw is not None else {}

    @cached_property
    def allocated(self) -> Res:
        return add_res(*(p.request for p in self.pods if p.allocated))

    @cached_property
    def allocated_tasks(self) -> int:
        return sum(1 for p in self.pods if p.allocated)

    @cached_property
    def ready_tasks(self) -> int:
        return sum(1 for p in self.pods if p.allocated or p.phase == "Succeeded")

    @cached_property
    def pending_pods(self) -> list[SnapPod]:
        return sorted((p for p in self.pods if p.pending), key=lambda p: (p.created, p.name))

    @cached_property
    def live_pods(self) -> int:
        return sum(1 for p in self.pods if not p.terminal)

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

    groups: list[SnapGroup] = []
    for obj in snapshot.of_kind("PodGroup"):
        meta, spec, status = meta_of(obj), spec_of(obj), status_of(obj)
        min_raw = spec.get("minResources")
        group = SnapGroup(
            obj=obj,
            namespace=str(meta.get("namespace") or "default"),
            name=str(meta.get("name")),
            queue=str(spec.get("queue") or "default"),
            phase=str(status.get("phase") or "Pending"),
            min_member=int(spec.get("minMember") or 0),
            min_raw=quantities_of(min_raw) if isinstance(min_raw, Mapping) else None,
            created=str(meta.get("creationTimestamp") or ""),
        )
        groups.append(group)
        owners.add((group.namespace, group.name))

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
    by_key = {(g.namespace, g.name): g for g in groups}
    for _, _, snap_pod, _ in pods:
        if snap_pod is not None and snap_pod.group is not None:
            owner = by_key.get((snap_pod.namespace, snap_pod.group))
            if owner is not None:
                owner.pods.append(snap_pod)
    groups.sort(key=lambda g: (g.created, g.namespace, g.name))
    return ParsedSnapshot(
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


@dataclass
class Shared:
    """A snapshot with the stack's declared queues: what every job of the stack sees.

    Built once per planning pass. Jobs whose own PodGroup or pods are in the snapshot
    see it minus those (:func:`read_cluster`); the others share it whole, with the
    gangs placed before theirs (``bases``) and the per-shape fit results (``fits``).

    Attributes:
        nodes: by name, each bound pod's request taken off ``idle``.
        by_node: the readable bound pods per node name.
        ranking: the nodes' ranks per kind of pod (every simulation starts from copies).
    """

    source: str
    parsed: ParsedSnapshot
    nodes: list[Node]
    by_node: dict[str, list[SnapPod]]
    pods: list[SnapPod]
    groups: list[SnapGroup]
    queues: dict[str, QueueView]
    unreadable: list[tuple[str, str | None, str]]
    ranking: Ranking
    # The session up to a job's turn, per admitted set, queue and request (Evaluation.before).
    bases: dict[tuple[object, ...], Before] = field(default_factory=dict)

    @cached_property
    def total(self) -> Res:
        return add_res(*(n.allocatable for n in self.nodes))

    @cached_property
    def used(self) -> Res:
        return used_by(self.pods)

    @cached_property
    def empty(self) -> EmptyNodes:
        """The nodes with nothing on them (the "fits no node, even empty" check)."""
        return EmptyNodes([n.empty() for n in self.nodes])


def used_by(pods: Iterable[SnapPod]) -> Res:
    """What bound pods hold, summed over the cluster."""
    return add_res(*(p.request for p in pods if p.node is not None and not p.terminal))


def queue_priority(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0


def queue_weight(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 1
