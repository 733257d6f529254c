"""Resources in Volcano's units and the task and node records the plugins read.

Follows Volcano's ``pkg/scheduler/api/resource_info.go`` (milli-cpu, bytes, milli-units for
scalar resources; ``LessEqual`` with its ``minResource`` tolerance), ``job_info.go`` (TaskInfo)
and ``node_info.go`` (NodeInfo: idle, used, releasing, pipelined). Amounts are exact:
integers, and fractions only where Volcano multiplies.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from raygang.kube.core import NodeSelectorTerm, PodSpec, Toleration
from raygang.kube.quantity import Format, Quantity

# kubelet's default maxPods, used for a declared node shape that does not say.
DEFAULT_MAX_PODS = 110

# --- Resources in Volcano's units ---------------------------------------------------------
# Amounts are exact: integers straight from quantities (milli-cpu, bytes...), fractions
# only where Volcano multiplies (the overcommit factor, proportion's water-filling).
Num = int | Fraction

Res = dict[str, Num]

ZERO: Num = 0

# Volcano's ``minResource``: values closer than this count as equal in LessEqual.
EPSILON = Fraction(1, 10)


def is_scalar_name(name: str) -> bool:
    """Kubernetes' ``IsScalarResourceName``: extended, hugepages, prefixed native, volumes."""
    prefixed_native = "kubernetes.io/" in name
    extended = "/" in name and not prefixed_native and not name.startswith("requests.")
    return (
        extended
        or prefixed_native
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )


def unit_of(name: str, quantity: Quantity) -> int | None:
    """One quantity in Volcano's unit for that name (``NewResource``); None: ignored."""
    if name == "cpu":
        return quantity.milli_value()
    if name in ("memory", "pods"):
        return quantity.int_value_ceil()
    if name == "ephemeral-storage":
        return quantity.milli_value()
    if name.startswith("count/") or not is_scalar_name(name):
        return None
    return quantity.milli_value()


def to_res(resources: Mapping[str, Quantity]) -> Res:
    out: Res = {}
    for name, quantity in resources.items():
        value = unit_of(name, quantity)
        if value is not None:
            out[name] = out.get(name, 0) + value
    return out


def get(res: Mapping[str, Num], name: str) -> Num:
    return res.get(name, ZERO)


def add_res(*items: Mapping[str, Num]) -> Res:
    out: Res = {}
    for res in items:
        for name, value in res.items():
            out[name] = out.get(name, ZERO) + value
    return out


def sub(left: Mapping[str, Num], right: Mapping[str, Num]) -> Res:
    out = dict(left)
    for name, value in right.items():
        out[name] = out.get(name, ZERO) - value
    return out


def exceeded(left: Mapping[str, Num], right: Mapping[str, Num]) -> Res:
    """Volcano's ``ExceededPart``: per name ``max(0, left - right)``, missing = 0."""
    out: Res = {}
    for name in {*left, *right}:
        diff = get(left, name) - get(right, name)
        if diff > 0:
            out[name] = diff
    return out


def scale(res: Mapping[str, Num], factor: Num) -> Res:
    return {name: value * factor for name, value in res.items()}


def le(left: Num, right: Num) -> bool:
    """Volcano's ``l < r or |l - r| < 0.1``, i.e. ``l - r < 0.1``."""
    if type(left) is int and type(right) is int:
        return left <= right  # integers closer than 0.1 are equal
    return left - right < EPSILON


def short_on_node(request: Mapping[str, Num], free: Mapping[str, Num]) -> list[str]:
    """``LessEqualWithResourcesName(Zero)``: cpu, memory, then every scalar of the request.

    Go visits scalars in map order (random); they are sorted here so messages are stable.
    """
    short = [n for n in ("cpu", "memory") if not le(get(request, n), get(free, n))]
    scalars = sorted(n for n in request if n not in ("cpu", "memory"))
    short += [n for n in scalars if not le(request[n], get(free, n))]
    return short


def fits_in(request: Mapping[str, Num], free: Mapping[str, Num]) -> bool:
    """``LessEqual(Zero)`` with Volcano's 0.1 tolerance: ``not short_on_node(...)``.

    cpu and memory are always compared (a node already over its allocatable takes nothing
    asking none of them), then every name of the request.
    """
    for name in ("cpu", "memory"):
        if name not in request and not le(ZERO, free.get(name, ZERO)):
            return False
    # A loop rather than all() over a generator: this runs for every node of every ranking.
    for name, value in request.items():  # noqa: SIM110
        if not le(value, free.get(name, ZERO)):
            return False
    return True


def insufficient(
    total: Mapping[str, Num], limit: Mapping[str, Num], request: Mapping[str, Num]
) -> list[str]:
    """``LessEqualWithDimensionAndResourcesName``: only names the request asks for, strict.

    ``pods`` is never compared (every pod asks for one).
    """
    names = [n for n in ("cpu", "memory") if get(request, n) > 0]
    names += sorted(n for n, v in request.items() if n not in ("cpu", "memory", "pods") and v > 0)
    return [n for n in names if get(total, n) > get(limit, n)]


def inqueue_resource(min_raw: Mapping[str, Quantity], allocated: Mapping[str, Num]) -> Res:
    """Volcano's ``GetInqueueResource``: what a gang still reserves beyond its allocation.

    Only names listed in ``minResources`` count; ``ephemeral-storage`` and other
    non-scalar names are skipped, as in Go.
    """
    out: Res = {}
    minimum = to_res(min_raw)
    for name in min_raw:
        if name not in ("cpu", "memory", "pods") and (
            name.startswith("count/") or not is_scalar_name(name)
        ):
            continue
        reserved = get(minimum, name) - get(allocated, name)
        if reserved > 0:
            out[name] = reserved
    return out


def show_bytes(value: Num) -> str:
    whole = math.ceil(value)
    if whole < 0:
        return "-" + show_bytes(-whole)
    binary = Quantity.from_value(whole, Format.BINARY_SI).canonical()
    decimal = Quantity.from_value(whole, Format.DECIMAL_SI).canonical()
    if not binary.isdigit() or not decimal.isdigit() or whole < 1024:
        # The shorter exact form: 2Gi, 1536Mi, 2G (not 1953125Ki).
        return min(binary, decimal, key=len)
    # Not a round number (usually a difference): about, in tenths of Mi or Gi.
    unit, suffix = (2**30, "Gi") if whole >= 2**30 else (2**20, "Mi")
    tenths = whole * 10 // unit
    return f"~{tenths // 10}.{tenths % 10}{suffix}"


def ceil_div(numerator: Num, denominator: Num) -> int:
    """Exact ``ceil(numerator / denominator)``, without going through floats."""
    return math.ceil(Fraction(numerator) / denominator)


def round_up(name: str, value: Num) -> int:
    """Round an amount to what a node can offer: milli-cpu, bytes, whole extended resources."""
    if name in ("cpu", "memory", "pods", "ephemeral-storage"):
        return math.ceil(value)
    return ceil_div(value, 1000) * 1000


def show(name: str, value: Num) -> str:
    """A Volcano-unit amount as the quantity a user writes (``500m``, ``12Gi``, ``8``)."""
    if name == "memory":
        return show_bytes(value)
    if name == "ephemeral-storage":
        return show_bytes(Fraction(value) / 1000)
    if name == "pods":
        return str(math.ceil(value))
    return str(Quantity.from_value(Fraction(math.ceil(value), 1000)))


def show_res(res: Mapping[str, Num], names: Iterable[str] | None = None) -> str:
    keys = list(names) if names is not None else ordered(res)
    return ", ".join(f"{n} {show(n, get(res, n))}" for n in keys) or "nothing"


def asked_names(res: Mapping[str, Num]) -> list[str]:
    """The names a request asks for, in display order, ``pods`` left out."""
    return [n for n in ordered(res) if n != "pods" and res[n] > 0]


def ordered(res: Iterable[str]) -> list[str]:
    names = set(res)
    head = [n for n in ("cpu", "memory") if n in names]
    return head + sorted(names - {"cpu", "memory", "pods"}) + (["pods"] if "pods" in names else [])


def fit_error_message(reasons: Mapping[str, str], total_nodes: int) -> str:
    """``FitErrors.Error()`` (``pkg/scheduler/api/unschedule_info.go``): ``0/N nodes are
    unavailable: <count> <reason>, ....``, the counts sorted as strings."""
    histogram: dict[str, int] = {}
    for reason in reasons.values():
        histogram[reason] = histogram.get(reason, 0) + 1
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    if not parts:
        return f"0/{total_nodes} nodes are unavailable"
    return f"0/{total_nodes} nodes are unavailable: {', '.join(parts)}."


# --- Pods, nodes and their predicates -----------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """The scheduling fields of a pod spec that the predicates read, as the typed models."""

    tolerations: tuple[Toleration, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    # requiredDuringSchedulingIgnoredDuringExecution terms; None when unset.
    required_terms: tuple[NodeSelectorTerm, ...] | None = None
    unmodelled: tuple[str, ...] = ()

    @classmethod
    def of(cls, pod: PodSpec | None) -> Placement:
        if pod is None:
            return cls()
        affinity = pod.affinity
        node_affinity = affinity.node_affinity if affinity is not None else None
        required = (
            node_affinity.required_during_scheduling_ignored_during_execution
            if node_affinity is not None
            else None
        )
        unmodelled = []
        if affinity is not None and (affinity.pod_affinity or affinity.pod_anti_affinity):
            unmodelled.append("inter-pod affinity")
        if pod.topology_spread_constraints:
            unmodelled.append("topology spread constraints")
        if any(p.host_port for c in pod.containers for p in c.ports or ()):
            unmodelled.append("host ports")
        if pod.scheduling_gates:
            unmodelled.append("scheduling gates")
        return cls(
            tuple(pod.tolerations or ()),
            dict(pod.node_selector or {}),
            tuple(required.node_selector_terms) if required is not None else None,
            tuple(unmodelled),
        )

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any] | None) -> Placement:
        """The placement of a pod spec mapping; an empty or missing spec places anywhere.

        Raises:
            pydantic.ValidationError: the spec is not a pod spec ``PodSpec`` reads.
        """
        return cls.of(PodSpec.model_validate(spec)) if spec else cls()


@dataclass(frozen=True)
class Task:
    """One pod as Volcano sees it.

    Attributes:
        label: how messages name it (``head``, ``worker group gpu``, ``submitter``).
        group: the ``volcano.sh/task-spec`` role; a role that failed is not retried.
        pod_name: the name pattern of the pod, for Volcano's "Origin reason is" text.
        request: the pod's request in Volcano's units, ``pods: 1`` included.
        placement: its tolerations, nodeSelector and node affinity.
    """

    label: str
    group: str
    pod_name: str
    request: Res
    placement: Placement

    @property
    def best_effort(self) -> bool:
        """Volcano's ``IsEmpty`` ignores ``pods``: such a pod is left to backfill."""
        return all(v < EPSILON for n, v in self.request.items() if n != "pods")


@dataclass(frozen=True)
class SubJob:
    """One sub-group of a job's pods (Volcano's ``SubJobInfo``,
    ``pkg/scheduler/api/sub_job_info.go``): the pods a ``subGroupPolicy`` entry selects
    whose ``matchLabelKeys`` labels are equal, here one replica of a multi-host worker
    group. Volcano keeps none of its pods placed until ``min_available`` of them are
    (``subGroupSize``; ``SubJobInfo.IsReady``).

    Attributes:
        policy: the policy's name (the worker group's).
        index: the replica's place in Volcano's sub-job order (``MatchIndex``, then UID:
            creation order here).
        min_available: ``subGroupSize``.
        tasks: its pods.
    """

    policy: str
    index: int
    min_available: int
    tasks: tuple[Task, ...]


def kept_back_message(pod: str, node: str) -> str:
    """What Volcano writes on a pod it placed and then took back because its group was not
    complete (``JobInfo.TaskSchedulingReason``, ``pkg/scheduler/api/job_info.go``: the last
    transaction was Allocated; reason ``Schedulable``)."""
    return f"Pod {pod} can possibly be assigned to {node}, once minAvailable is satisfied"


@dataclass
class Node:
    """A node during a simulation (Volcano's ``NodeInfo``).

    ``idle`` and ``pipelined`` change as pods land. Simulations never change a node they
    were given: they place on a copy (:meth:`copy`) that replaces it in their own list.
    """

    name: str
    allocatable: Res
    idle: Res
    releasing: Res
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, Any], ...]
    unschedulable: bool
    pipelined: Res = field(default_factory=dict)

    def copy(self) -> Node:
        """The node with its own ``idle``, ``releasing`` and ``pipelined``, to place on."""
        return replace(
            self,
            idle=dict(self.idle),
            releasing=dict(self.releasing),
            pipelined=dict(self.pipelined),
        )

    def future_idle(self) -> Res:
        """Volcano's ``FutureIdle``: idle, plus what terminating pods release, minus pipelined."""
        if not self.releasing and not self.pipelined:
            return self.idle
        return sub(add_res(self.idle, self.releasing), self.pipelined)

    def take(self, request: Res, *, pipeline: bool) -> None:
        """Place a pod on idle or, pipelined, on the room terminating pods release."""
        target = self.pipelined if pipeline else self.idle
        direction = 1 if pipeline else -1
        for name, value in request.items():
            target[name] = target.get(name, 0) + direction * value

    def empty(self) -> Node:
        """The node with nothing on it and without transient conditions.

        Cordons and the node lifecycle taints (``node.kubernetes.io/not-ready`` ...) come
        and go, so "fits no node even when empty" ignores them.
        """
        taints = tuple(
            t for t in self.taints if not str(t.get("key", "")).startswith("node.kubernetes.io/")
        )
        return replace(
            self,
            idle=dict(self.allocatable),
            releasing={},
            pipelined={},
            taints=taints,
            unschedulable=False,
        )


def min_dim(left: Mapping[str, Num], right: Mapping[str, Num], *, missing_is_zero: bool) -> Res:
    """``MinDimensionResource``: cpu and memory always; scalars of ``left`` only.

    A scalar ``right`` lacks is kept (Infinity) or zeroed (Zero).
    """
    out: Res = {}
    for name, value in left.items():
        if name in ("cpu", "memory") or name in right:
            out[name] = min(value, get(right, name))
        elif missing_is_zero:
            out[name] = ZERO
        else:
            out[name] = value
    for name in ("cpu", "memory"):
        if name not in left and name in right:
            out[name] = min(ZERO, right[name])
    return out
