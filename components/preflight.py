"""Preflight: will Volcano ever admit and place this job's gang, and if not, why?

``preflight_job`` replays, offline, what Volcano's scheduler does with the PodGroup
``ray-<job>-pg`` under its **default configuration** (actions ``enqueue, allocate,
backfill``; plugins priority, gang, conformance, overcommit, drf, predicates,
proportion, nodeorder; research ``volcano.md`` §2 and §13):

1. **Wiring**: the PodGroup webhook refuses a queue that does not exist or is not
   ``Open`` (the ``up`` would fail there, before any pod exists).
2. **Gang validity**: ``minMember`` must not exceed the pods KubeRay creates.
3. **Enqueue** (Pending -> Inqueue): the overcommit plugin (``1.2 x allocatable -
   used``, minus every reservation held by Inqueue and Running gangs), then the
   proportion plugin (queue ``realCapability`` = cluster minus other queues'
   guarantees, capped by ``capability``; minus what the queue's gangs hold).
4. **Fair share** (allocate): proportion's water-filled ``deserved`` per queue.
5. **Placement** (allocate): every pod of the gang on one node each, greedily, in
   order, without backtracking; node fit = resources, cordon, nodeSelector/affinity,
   taints -- in Volcano's order and with its messages. Pods beyond ``minMember``
   (autoscaling) and the submitter must fit too, because the stack waits for the
   RayCluster to be ready and the submitter is what runs the job.

Every quantity is compared in Volcano's internal units (milli-cpu, bytes, whole pods,
milli-units for extended resources; research §8) as exact integers or fractions.

Decisions worth knowing:

* **The submitter** (K8sJobMode) is reserved in ``minResources`` but is not a gang
  member and only exists once the RayCluster is ready. It is therefore placed *after*
  the gang, into what the gang left: Volcano handles it as an extra task of an already
  running gang. If it cannot be placed the cluster comes up but the Ray job is never
  submitted, which is reported as stuck.
* **Sibling jobs** (``others``: jobs of the same stack and queue, created by the same
  ``up``) are not counted in the verdict: once they finish, this job is admitted. They
  are reported by the advisory ``siblings`` check (status ``warn``), because the one
  Volcano admits last makes ``pulumi up`` wait for its RayCluster.
* **Order**: KubeRay creates the head and workers within the same second, so Volcano's
  task order (creation time, then pod UID) is not known in advance. Placement is
  simulated head first and head last; when the two disagree, or only a tighter packing
  succeeds, the check says so (``warn``) and the verdict is ``unknown``.
* **Other gangs of the snapshot**: this job's PodGroup does not exist yet and the
  scheduler runs every second, so Pending PodGroups that pass the enqueue gate now are
  counted as admitted before it, and the pending pods of admitted gangs are placed
  before its own. This job's own PodGroup and pods (from an earlier ``up``) are left
  out: the gang is judged as if created anew.
* **What a snapshot lacks** is unknown, not empty: no Node objects skips the resource
  checks, no Queue objects skips the queue check (``default`` always exists: the
  scheduler creates it). PodGroups and Pods absent are taken as none.
* ``never_admitted`` is True only when waiting cannot help: the queue is missing or not
  Open (the webhook refuses the PodGroup), ``minResources`` exceeds what the queue can
  ever hold (capability, cluster size, other queues' guarantees), a pod fits no node
  even when the node is empty (cordons and node lifecycle taints aside), or a worker
  group has more pods than the empty cluster can hold at all.
* Jobs of more than 5000 pods are not simulated pod by pod (placement is skipped).

Not modelled (the checks say ``warn`` where they would matter): network topology and
subGroupPolicy, inter-pod affinity, host ports, volumes and zones, topology spread, DRA,
scheduling gates, pod priority and preemption (not in the default actions anyway),
pending pods of other schedulers, the helm chart's ``binpack`` scores, non-zero default
requests in node scoring, and node choice among equal scores (Volcano picks at random;
we pick by name).
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Any, Literal

from pydantic import ValidationError

from components.errors import Problem, SpecError
from components.gang import Accounting, GangShare, compute_gang, desired_worker_replicas
from components.manifests import GROUP_NAME_ANNOTATION, SCHEDULER
from components.plan import JobPlan
from components.podrequests import effective_pod_requests
from components.quantity import Format, Quantity, QuantityError
from components.queues import QueueDecl
from components.snapshot import ClusterSnapshot
from components.spec import PodSpec

__all__ = [
    "DEFAULT_OVERCOMMIT_FACTOR",
    "Check",
    "CheckStatus",
    "NodeShape",
    "PreflightResult",
    "Verdict",
    "parse_node_shapes",
    "preflight_job",
]

Verdict = Literal["admitted", "stuck", "unknown"]
CheckStatus = Literal["pass", "fail", "skip", "warn"]

# The overcommit plugin's default ``overcommit-factor`` (1.2), exact.
DEFAULT_OVERCOMMIT_FACTOR = Fraction(6, 5)

# Checks that only advise: their status never changes the verdict.
ADVISORY_CHECKS = frozenset({"siblings"})

# kubelet's default maxPods, used for a declared node shape that does not say.
_DEFAULT_MAX_PODS = 110

# Above this many pods the greedy simulation is skipped rather than slowing a preview.
_MAX_SIMULATED_PODS = 5000
# Beyond this many same-queue jobs of the stack, the advisory ``siblings`` check compares
# summed resources instead of placing every other gang for every job (quadratic).
_MAX_SIMULATED_SIBLINGS = 8

_WEBHOOK = 'admission webhook "validatepodgroup.volcano.sh" denied the request: '
_UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


# --- Public types -------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One preflight check.

    Attributes:
        name: a stable identifier (``queue``, ``overcommit``, ``placement``...).
        status: ``pass``; ``fail`` (blocks the gang); ``skip`` (not enough facts to
            tell); ``warn`` (the outcome depends on something the model cannot know,
            or, for the advisory ``siblings`` check, on other jobs of the same stack).
        message: what was checked and what was found.
    """

    name: str
    status: CheckStatus
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"name", "status", "message"}``."""
        return {"name": self.name, "status": self.status, "message": self.message}


@dataclass(frozen=True)
class PreflightResult:
    """Whether Volcano will admit and place the gang.

    Attributes:
        verdict: ``admitted`` (every check passed against the snapshot); ``stuck``
            (some check failed: the PodGroup stays Pending or Inqueue, or the job
            never starts); ``unknown`` (some check was skipped or is uncertain, and
            none failed). Never a guess: without a snapshot it is ``unknown``.
        reasons: one line per failed or uncertain check: Volcano's own words where
            Volcano says something, our explanation, then the smallest fix.
        checks: every check, in evaluation order.
        never_admitted: True when waiting cannot help (see the module docstring); the
            Pulumi preview fails on it.
    """

    verdict: Verdict
    reasons: tuple[str, ...]
    checks: tuple[Check, ...]
    never_admitted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``verdict``, ``neverAdmitted``, ``reasons``, ``checks``."""
        return {
            "verdict": self.verdict,
            "neverAdmitted": self.never_admitted,
            "reasons": list(self.reasons),
            "checks": [c.to_dict() for c in self.checks],
        }

    def table_lines(self) -> list[str]:
        """A block for ``raygang plan``'s table, indented like the rest of a job."""
        headline = self.verdict + ("  (never admitted as declared)" if self.never_admitted else "")
        lines = [f"  preflight     {headline}"]
        lines += [f"                - {reason}" for reason in self.reasons]
        width = max((len(c.name) for c in self.checks), default=0)
        lines += [
            f"    {c.name.ljust(width)}  {c.status.ljust(4)}  {c.message}" for c in self.checks
        ]
        return lines

    def check(self, name: str) -> Check | None:
        """The check with that name, if it ran."""
        return next((c for c in self.checks if c.name == name), None)


@dataclass(frozen=True)
class NodeShape:
    """A node the cluster has (or may scale to), declared for previews without a snapshot.

    Attributes:
        name: a label for messages (``gpu-a100``).
        allocatable: what one such node offers; ``pods`` defaults to 110.
        labels: node labels, for nodeSelector and node affinity.
        taints: ``{key, value, effect}`` maps.
    """

    name: str
    allocatable: Mapping[str, Quantity]
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()


def parse_node_shapes(raw: object, source: str = "raygang:nodeShapes") -> tuple[NodeShape, ...]:
    """Read declared node shapes (stack config ``raygang:nodeShapes``).

    The expected form is a list of ``{name, allocatable: {cpu: "32", memory: "128Gi",
    nvidia.com/gpu: "8"}, labels: {...}, taints: [{key, value, effect}]}``.

    Raises:
        SpecError: every malformed entry.
    """
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError.one(
            source, "<value>", f"is a {type(raw).__name__}", "a list of node shapes"
        )
    problems: list[Problem] = []
    shapes: list[NodeShape] = []
    for index, entry in enumerate(raw):
        where = f"[{index}]"
        if not isinstance(entry, Mapping):
            problems.append(Problem(source, where, f"is a {type(entry).__name__}", "a map"))
            continue
        name = entry.get("name", f"shape-{index}")
        allocatable_raw = entry.get("allocatable")
        if not isinstance(allocatable_raw, Mapping) or not allocatable_raw:
            problems.append(
                Problem(source, f"{where}.allocatable", "is required", 'a map such as {cpu: "32"}')
            )
            continue
        allocatable: dict[str, Quantity] = {}
        for key, value in allocatable_raw.items():
            try:
                allocatable[str(key)] = Quantity.parse(value)
            except QuantityError as exc:
                problems.append(Problem(source, f"{where}.allocatable[{key!r}]", str(exc)))
        allocatable.setdefault("pods", Quantity(str(_DEFAULT_MAX_PODS)))
        labels = entry.get("labels") or {}
        taints = entry.get("taints") or []
        if not isinstance(labels, Mapping):
            problems.append(Problem(source, f"{where}.labels", "is not a map", "label: value"))
            labels = {}
        if not isinstance(taints, list) or not all(isinstance(t, Mapping) for t in taints):
            problems.append(
                Problem(
                    source, f"{where}.taints", "is not a list of maps", "[{key, value, effect}]"
                )
            )
            taints = []
        shapes.append(
            NodeShape(
                str(name),
                allocatable,
                {str(k): str(v) for k, v in labels.items()},
                tuple({str(k): str(v) for k, v in t.items()} for t in taints),
            )
        )
    if problems:
        raise SpecError(problems)
    return tuple(shapes)


# --- Resources in Volcano's units ---------------------------------------------------------

# Amounts are exact: integers straight from quantities (milli-cpu, bytes...), fractions
# only where Volcano multiplies (the overcommit factor, proportion's water-filling).
Num = int | Fraction
Res = dict[str, Num]
_ZERO: Num = 0
# Volcano's ``minResource``: values closer than this count as equal in LessEqual.
_EPSILON = Fraction(1, 10)


def _is_scalar_name(name: str) -> bool:
    """Kubernetes' ``IsScalarResourceName``: extended, hugepages, prefixed native, volumes."""
    prefixed_native = "kubernetes.io/" in name
    extended = "/" in name and not prefixed_native and not name.startswith("requests.")
    return (
        extended
        or prefixed_native
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )


def _unit(name: str, quantity: Quantity) -> int | None:
    """One quantity in Volcano's unit for that name (``NewResource``); None: ignored."""
    if name == "cpu":
        return quantity.milli_value()
    if name in ("memory", "pods"):
        return quantity.int_value_ceil()
    if name == "ephemeral-storage":
        return quantity.milli_value()
    if name.startswith("count/") or not _is_scalar_name(name):
        return None
    return quantity.milli_value()


def _res(resources: Mapping[str, Quantity]) -> Res:
    out: Res = {}
    for name, quantity in resources.items():
        value = _unit(name, quantity)
        if value is not None:
            out[name] = out.get(name, 0) + value
    return out


def _get(res: Mapping[str, Num], name: str) -> Num:
    return res.get(name, _ZERO)


def _add(*items: Mapping[str, Num]) -> Res:
    out: Res = {}
    for res in items:
        for name, value in res.items():
            out[name] = out.get(name, _ZERO) + value
    return out


def _sub(left: Mapping[str, Num], right: Mapping[str, Num]) -> Res:
    out = dict(left)
    for name, value in right.items():
        out[name] = out.get(name, _ZERO) - value
    return out


def _exceeded(left: Mapping[str, Num], right: Mapping[str, Num]) -> Res:
    """Volcano's ``ExceededPart``: per name ``max(0, left - right)``, missing = 0."""
    out: Res = {}
    for name in {*left, *right}:
        diff = _get(left, name) - _get(right, name)
        if diff > 0:
            out[name] = diff
    return out


def _scale(res: Mapping[str, Num], factor: Num) -> Res:
    return {name: value * factor for name, value in res.items()}


def _le(left: Num, right: Num) -> bool:
    """Volcano's ``l < r or |l - r| < 0.1``, i.e. ``l - r < 0.1``."""
    if type(left) is int and type(right) is int:
        return left <= right  # integers closer than 0.1 are equal
    return left - right < _EPSILON


def _short_on_node(request: Mapping[str, Num], free: Mapping[str, Num]) -> list[str]:
    """``LessEqualWithResourcesName(Zero)``: cpu, memory, then every scalar of the request.

    Go visits scalars in map order (random); they are sorted here so messages are stable.
    """
    short = [n for n in ("cpu", "memory") if not _le(_get(request, n), _get(free, n))]
    scalars = sorted(n for n in request if n not in ("cpu", "memory"))
    short += [n for n in scalars if not _le(request[n], _get(free, n))]
    return short


def _fits(request: Mapping[str, Num], free: Mapping[str, Num]) -> bool:
    """``LessEqual(Zero)`` with Volcano's 0.1 tolerance: ``not _short_on_node(...)``.

    The hottest test of a simulation, so it stops at the first short resource and
    compares integers (what ``_unit`` yields) without the tolerance, which cannot change
    an integer comparison.
    """
    for name in ("cpu", "memory"):
        if name not in request and not _le(_ZERO, free.get(name, _ZERO)):
            return False  # a node already over its allocatable
    for name, value in request.items():
        have = free.get(name, _ZERO)
        if type(value) is int and type(have) is int:
            if value > have:
                return False
        elif not _le(value, have):
            return False
    return True


def _insufficient(
    total: Mapping[str, Num], limit: Mapping[str, Num], request: Mapping[str, Num]
) -> list[str]:
    """``LessEqualWithDimensionAndResourcesName``: only names the request asks for, strict.

    ``pods`` is never compared (every pod asks for one).
    """
    names = [n for n in ("cpu", "memory") if _get(request, n) > 0]
    names += sorted(n for n, v in request.items() if n not in ("cpu", "memory", "pods") and v > 0)
    return [n for n in names if _get(total, n) > _get(limit, n)]


def _inqueue_resource(min_raw: Mapping[str, Quantity], allocated: Mapping[str, Num]) -> Res:
    """Volcano's ``GetInqueueResource``: what a gang still reserves beyond its allocation.

    Only names listed in ``minResources`` count; ``ephemeral-storage`` and other
    non-scalar names are skipped, as in Go.
    """
    out: Res = {}
    minimum = _res(min_raw)
    for name in min_raw:
        if name not in ("cpu", "memory", "pods") and (
            name.startswith("count/") or not _is_scalar_name(name)
        ):
            continue
        reserved = _get(minimum, name) - _get(allocated, name)
        if reserved > 0:
            out[name] = reserved
    return out


def _bytes(value: Num) -> str:
    whole = math.ceil(value)
    if whole < 0:
        return "-" + _bytes(-whole)
    binary = Quantity.from_value(whole, Format.BINARY_SI).canonical()
    decimal = Quantity.from_value(whole, Format.DECIMAL_SI).canonical()
    if not binary.isdigit() or not decimal.isdigit() or whole < 1024:
        # The shorter exact form: 2Gi, 1536Mi, 2G (not 1953125Ki).
        return min(binary, decimal, key=len)
    # Not a round number (usually a difference): about, in tenths of Mi or Gi.
    unit, suffix = (2**30, "Gi") if whole >= 2**30 else (2**20, "Mi")
    tenths = whole * 10 // unit
    return f"~{tenths // 10}.{tenths % 10}{suffix}"


def _ceil_div(numerator: Num, denominator: Num) -> int:
    """Exact ``ceil(numerator / denominator)``, without going through floats."""
    return math.ceil(Fraction(numerator) / denominator)


def _round_up(name: str, value: Num) -> int:
    """Round an amount to what a node can offer: milli-cpu, bytes, whole extended resources."""
    if name in ("cpu", "memory", "pods", "ephemeral-storage"):
        return math.ceil(value)
    return _ceil_div(value, 1000) * 1000


def _show(name: str, value: Num) -> str:
    """A Volcano-unit amount as the quantity a user writes (``500m``, ``12Gi``, ``8``)."""
    if name == "memory":
        return _bytes(value)
    if name == "ephemeral-storage":
        return _bytes(Fraction(value) / 1000)
    if name == "pods":
        return str(math.ceil(value))
    return str(Quantity.from_value(Fraction(math.ceil(value), 1000)))


def _show_res(res: Mapping[str, Num], names: Iterable[str] | None = None) -> str:
    keys = list(names) if names is not None else _ordered(res)
    return ", ".join(f"{n} {_show(n, _get(res, n))}" for n in keys) or "nothing"


def _asked(res: Mapping[str, Num]) -> list[str]:
    """The names a request asks for, in display order, ``pods`` left out."""
    return [n for n in _ordered(res) if n != "pods" and res[n] > 0]


def _ordered(res: Iterable[str]) -> list[str]:
    names = set(res)
    head = [n for n in ("cpu", "memory") if n in names]
    return head + sorted(names - {"cpu", "memory", "pods"}) + (["pods"] if "pods" in names else [])


# --- Pods, nodes and their predicates -----------------------------------------------------


@dataclass(frozen=True)
class _Placement:
    """The scheduling fields of a pod spec that the predicates read."""

    tolerations: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    # requiredDuringSchedulingIgnoredDuringExecution terms; None when unset.
    required_terms: tuple[Mapping[str, Any], ...] | None = None
    unmodelled: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: Mapping[str, Any] | None) -> _Placement:
        spec = spec or {}
        tolerations = tuple(t for t in spec.get("tolerations") or () if isinstance(t, Mapping))
        selector = spec.get("nodeSelector") or {}
        affinity = spec.get("affinity") or {}
        node_affinity = affinity.get("nodeAffinity") or {}
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        terms = None
        if isinstance(required, Mapping):
            terms = tuple(
                t for t in required.get("nodeSelectorTerms") or () if isinstance(t, Mapping)
            )
        unmodelled = []
        if affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
            unmodelled.append("inter-pod affinity")
        if spec.get("topologySpreadConstraints"):
            unmodelled.append("topology spread constraints")
        if any(
            p.get("hostPort") for c in spec.get("containers") or () for p in c.get("ports") or ()
        ):
            unmodelled.append("host ports")
        if spec.get("schedulingGates"):
            unmodelled.append("scheduling gates")
        return cls(
            tolerations,
            {str(k): str(v) for k, v in selector.items()} if isinstance(selector, Mapping) else {},
            terms,
            tuple(unmodelled),
        )

    @cached_property
    def key(self) -> str:
        """What the static predicates read, as one comparable value.

        ``repr`` is exact for the plain values of a manifest; two equal placements
        written in another key order only miss each other's cached results.
        """
        return repr((self.tolerations, self.node_selector, self.required_terms))


@dataclass(frozen=True)
class _Task:
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
    placement: _Placement

    @cached_property
    def best_effort(self) -> bool:
        """Volcano's ``IsEmpty`` ignores ``pods``: such a pod is left to backfill."""
        return all(v < _EPSILON for n, v in self.request.items() if n != "pods")

    @cached_property
    def shape(self) -> tuple[Any, ...]:
        """What a node's rank for this pod depends on: its request and its placement."""
        return (tuple(sorted(self.request.items())), self.placement.key)


# Node state stamps: unique across the process, so two nodes with the same ``version``
# are copies of one state and share every fit and score computed for it.
_STAMPS = itertools.count(1)


def _stamp() -> int:
    return next(_STAMPS)


@dataclass
class _Node:
    """A node during a simulation.

    ``idle`` and ``pipelined`` change as pods land; every change takes a new ``version``
    (a process-wide stamp, kept by copies), so fit and score results computed for one
    state stay valid for every node that still has that version.
    """

    name: str
    allocatable: Res
    idle: Res
    releasing: Res
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, Any], ...]
    unschedulable: bool
    pipelined: Res = field(default_factory=dict)
    version: int = field(default_factory=_stamp)
    # Names labels, taints and the cordon: copies keep it, ``empty()`` takes a new one.
    static_id: int = field(default_factory=_stamp)
    # (version, _empty_score) once computed for that version.
    scored: tuple[int, Num | None] | None = field(default=None, compare=False, repr=False)

    @cached_property
    def size(self) -> tuple[tuple[str, Num], ...]:
        """``allocatable`` as a comparable value."""
        return tuple(sorted(self.allocatable.items()))

    def copy(self) -> _Node:
        # dataclasses.replace re-runs __init__ with every field: a tenth of a simulation.
        new = object.__new__(_Node)
        new.__dict__.update(self.__dict__)
        new.idle = dict(self.idle)
        new.releasing = dict(self.releasing)
        new.pipelined = dict(self.pipelined)
        return new

    def future_idle(self) -> Res:
        """Volcano's ``FutureIdle``: idle, plus what terminating pods release, minus pipelined."""
        if not self.releasing and not self.pipelined:
            return self.idle
        return _sub(_add(self.idle, self.releasing), self.pipelined)

    def take(self, request: Res, *, pipeline: bool) -> None:
        """Place a pod on idle or, pipelined, on the room terminating pods release."""
        target = self.pipelined if pipeline else self.idle
        direction = 1 if pipeline else -1
        for name, value in request.items():
            target[name] = target.get(name, 0) + direction * value
        self.version = _stamp()

    def empty(self) -> _Node:
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
            version=_stamp(),
            static_id=_stamp(),
        )


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Kubernetes' ``Toleration.ToleratesTaint``."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    if (toleration.get("operator") or "Equal") == "Exists":
        return True
    return str(toleration.get("value") or "") == str(taint.get("value") or "")


def _untolerated(task: _Task, node: _Node) -> Mapping[str, Any] | None:
    """The first NoSchedule/NoExecute taint that no toleration matches.

    Kubernetes' ``FindMatchingUntoleratedTaint``, in the node's taint order.
    """
    for taint in node.taints:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(_tolerates(t, taint) for t in task.placement.tolerations):
            return taint
    return None


def _expression_matches(expr: Mapping[str, Any], value: str | None) -> bool:
    operator = expr.get("operator")
    values = [str(v) for v in expr.get("values") or ()]
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt") and value is not None and len(values) == 1:
        try:
            left, right = int(value), int(values[0])
        except ValueError:
            return False
        return left > right if operator == "Gt" else left < right
    return False


def _term_matches(term: Mapping[str, Any], node: _Node) -> bool:
    expressions = [e for e in term.get("matchExpressions") or () if isinstance(e, Mapping)]
    fields = [e for e in term.get("matchFields") or () if isinstance(e, Mapping)]
    if not expressions and not fields:
        # An empty term matches no node (Kubernetes' NodeSelectorTerm semantics).
        return False
    if not all(_expression_matches(e, node.labels.get(str(e.get("key")))) for e in expressions):
        return False
    return all(
        _expression_matches(e, node.name if e.get("key") == "metadata.name" else None)
        for e in fields
    )


def _selects(task: _Task, node: _Node) -> bool:
    """The NodeAffinity filter: nodeSelector and required node affinity."""
    if any(node.labels.get(k) != v for k, v in task.placement.node_selector.items()):
        return False
    terms = task.placement.required_terms
    return terms is None or any(_term_matches(t, node) for t in terms)


# _static_failure per (placement, node): labels, taints and cordons are the same in every
# copy of a node, and a stack's pods share a handful of placements.
_STATIC: dict[tuple[str, int], str | None] = {}
_STATIC_KEPT = 1 << 18


def _static_failure(task: _Task, node: _Node) -> str | None:
    """``_static_uncached``, remembered per kind of placement and node."""
    key = (task.placement.key, node.static_id)
    try:
        return _STATIC[key]
    except KeyError:
        pass
    if len(_STATIC) >= _STATIC_KEPT:
        _STATIC.clear()
    reason = _STATIC[key] = _static_uncached(task, node)
    return reason


def _static_uncached(task: _Task, node: _Node) -> str | None:
    """The predicates plugin's stable filters, each stopping at its first failure.

    NodeUnschedulable (a cordon, unless tolerated), NodeAffinity (nodeSelector and
    required node affinity), TaintToleration (NoSchedule and NoExecute taints).
    """
    if node.unschedulable and not any(
        _tolerates(t, {"key": _UNSCHEDULABLE_TAINT, "effect": "NoSchedule"})
        for t in task.placement.tolerations
    ):
        return "node(s) were unschedulable"
    if not _selects(task, node):
        return "node(s) didn't match Pod's node affinity/selector"
    taint = _untolerated(task, node)
    if taint is not None:
        key, value = taint.get("key", ""), taint.get("value") or ""
        return f"node(s) had untolerated taint {{{key}: {value}}}"
    return None


def _fit_failure(task: _Task, node: _Node, free: Mapping[str, Num] | None = None) -> str | None:
    """Why ``task`` cannot go on ``node``, in Volcano's order and words; None if it fits.

    Allocate's own resource check against FutureIdle comes first (``Insufficient``
    names the first short resource), then the predicates.
    """
    room = node.future_idle() if free is None else free
    if not _fits(task.request, room):
        return f"Insufficient {_short_on_node(task.request, room)[0]}"
    return _static_failure(task, node)


def _fit_error_message(reasons: Mapping[str, str], total_nodes: int) -> str:
    """``FitErrors.Error()``: ``0/N nodes are unavailable: <count> <reason>, ....``."""
    histogram: dict[str, int] = {}
    for reason in reasons.values():
        histogram[reason] = histogram.get(reason, 0) + 1
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    if not parts:
        return f"0/{total_nodes} nodes are unavailable"
    return f"0/{total_nodes} nodes are unavailable: {', '.join(parts)}."


def _score(task: _Task, node: _Node) -> Num:
    """nodeorder's default scores: leastrequested (weight 1) + balancedresource (weight 1).

    Kubernetes' formulas over cpu and memory with the node's requests after placing the
    task, in integer arithmetic: ``sum((alloc - req) * 100 // alloc) // 2`` and
    ``floor((1 - |cpu fraction - memory fraction| / 2) * 100)``.
    """
    allocatable, idle, request = node.allocatable, node.idle, task.request
    return _score_of(
        allocatable.get("cpu", _ZERO),
        idle.get("cpu", _ZERO),
        request.get("cpu", _ZERO),
        allocatable.get("memory", _ZERO),
        idle.get("memory", _ZERO),
        request.get("memory", _ZERO),
    )


def _score_of(
    cpu_of: Num, cpu_idle: Num, cpu_ask: Num, mem_of: Num, mem_idle: Num, mem_ask: Num
) -> Num:
    """``_score`` from the six numbers it reads (cpu, then memory: allocatable, idle, ask)."""
    cpu_least, cpu, cpu_of = _least_and_share(cpu_of, cpu_idle, cpu_ask)
    mem_least, memory, mem_of = _least_and_share(mem_of, mem_idle, mem_ask)
    gap = cpu * mem_of - memory * cpu_of
    gap = gap if gap >= 0 else -gap
    return (cpu_least + mem_least) // 2 + 100 + (-50 * gap // (cpu_of * mem_of))


def _least_and_share(of: Num, idle: Num, ask: Num) -> tuple[Num, Num, Num]:
    """One resource: its leastrequested points and its share ``requested / allocatable``
    (as a pair) once the pod is placed; a resource the node lacks scores nothing and
    counts as fully used (1/1)."""
    if of <= 0:
        return 0, 1, 1
    requested = of - idle + ask
    return max(0, (of - requested) * 100 // of), min(max(requested, 0), of), of


@dataclass
class _GangOutcome:
    """The result of placing one gang."""

    ready: bool
    pipelined: bool
    placed: list[tuple[_Task, str]]
    allocated: int = 0  # placed on idle room (not pipelined)
    failed: _Task | None = None
    fit_errors: dict[str, str] = field(default_factory=dict)
    queue_blocked: _Task | None = None
    tried: int = 0


def _roomy(gang: Sequence[_Task], base: Sequence[_Node], ranking: _Ranking) -> bool:
    """Whether ``gang`` places on idle room in any pod order, without simulating it.

    True when, for every kind of pod of the gang, at least as many nodes as the gang has
    pods can take one on idle room, counting only nodes of ``base`` still in the
    ranking's state: whichever pod comes k-th, at most k - 1 of them are taken, so one is
    left for it (the chooser may prefer a taken node, which then has room too). The
    fair-share gate passes in any order once one order passed every pod: each prefix
    asks less than the whole gang.
    """
    if len(ranking.versions) != len(base):
        return False
    need = len(gang)
    versions = ranking.versions
    kinds = {t.shape: t for t in gang if not t.best_effort}.values()
    if ranking.settled and all(ranking.countable(t) for t in kinds):
        # No room is pending anywhere: every node that can take the pod takes it on idle
        # room, so counting them does what walking the order does, without ranking.
        changed = ranking.changed(base)
        for task in kinds:
            count, mask = ranking.fitting(task)
            if count - sum(mask[i] for i in changed) < need:
                return False
        return True
    for task in kinds:
        order = ranking.order(task)
        count = position = 0
        while count < need and (entry := order.at(position)) is not None:
            (flag, _), index = entry
            if flag != 0:
                break  # the rest need room that terminating pods release
            position += 1
            count += base[index].version == versions[index]
        if count < need:
            return False
    return True


# proportion's per-task queue check: (task, what the job placed so far) -> allowed.
QueueGate = Callable[[_Task, Res], bool]


Rank = tuple[Num, ...]


# Below every rank: a node whose score has no bound is visited before any is final.
_UNBOUNDED: Rank = (0, -(1 << 62))


def _empty_score(node: _Node) -> Num | None:
    """``_score`` of a pod that asks nothing; None for a node without cpu or memory."""
    scored = node.scored
    if scored is not None and scored[0] == node.version:
        return scored[1]
    allocatable, idle = node.allocatable, node.idle
    cpu_of, mem_of = allocatable.get("cpu", _ZERO), allocatable.get("memory", _ZERO)
    value = (
        _score_of(cpu_of, idle.get("cpu", _ZERO), 0, mem_of, idle.get("memory", _ZERO), 0)
        if cpu_of > 0 and mem_of > 0
        else None
    )
    node.scored = (node.version, value)
    return value


class _Chooser:
    """The best node for one kind of pod, found lazily.

    Without a ``ranking`` every node is ranked up front, in a heap refreshed lazily:
    placing a pod changes one node, so only that node's entry is recomputed when it
    surfaces. During one gang attempt nodes only lose room, so a node that cannot take
    the pod never can again.

    With a ``ranking`` of the state the nodes were copied from (``_volcano_rank`` only),
    the nodes still in that state come in the ranking's order, and a changed node is
    ranked only once its bound (``_Order.bound``) could beat the best candidate: the
    choice is the one a full scan would make.

    Args:
        task: the pod (the pods of a group share one _Task object).
        nodes: the candidate nodes, in name order (ties go to the first).
        rank: a node's rank for the task, lower is better; None when it cannot take it.
        ranking: the ranks of ``_volcano_rank`` in the original state of ``nodes``.
        changed: the indexes of ``nodes`` that may differ from the ranking's state (all
            that do, maybe more); found by comparing versions when not given.
    """

    def __init__(
        self,
        task: _Task,
        nodes: Sequence[_Node],
        rank: Callable[[_Task, _Node], Rank | None],
        ranking: _Ranking | None = None,
        changed: Iterable[int] | None = None,
    ) -> None:
        self.task, self.nodes, self.rank = task, nodes, rank
        # Ranked: (rank, index, version). Not ranked yet (changed nodes): (bound, ...).
        self.ranked: list[tuple[Rank, int, int]] = []
        self.bounded: list[tuple[Rank, int, int]] = []
        self.order: _Order | _View | None = None
        self.versions: Sequence[int] = ()
        self.position = 0
        self.tracked: set[int] = set()  # indexes this chooser follows itself
        self.fast: _FastRank | None = None
        if ranking is not None and len(ranking.versions) == len(nodes):
            self.order = ranking.order(task)
            self.versions = ranking.versions
            if rank is _volcano_rank and ranking.countable(task):
                self.fast = _FastRank(ranking, task)
            for index in ranking.changed(nodes) if changed is None else changed:
                self.tracked.add(index)
                self._track(index)
            heapq.heapify(self.bounded)
            heapq.heapify(self.ranked)
        else:
            for index, node in enumerate(nodes):
                value = rank(task, node)
                if value is not None:
                    self.ranked.append((value, index, node.version))
            heapq.heapify(self.ranked)

    def _track(self, index: int) -> None:
        # A changed node of a ranking: ranked now when that is as cheap as bounding it,
        # else bounded (ranked once the bound could beat the best candidate).
        node = self.nodes[index]
        if self.fast is not None:
            if (value := self.fast.rank(index, node)) is not None:
                self.ranked.append((value, index, node.version))
        else:
            assert self.order is not None
            self.bounded.append((self.order.bound(node), index, node.version))

    def follow(self, index: int) -> None:
        """Track a node whose state left the ranking's (or changed since it was ranked)."""
        self.tracked.add(index)
        node = self.nodes[index]
        if self.fast is not None:
            if (value := self.fast.rank(index, node)) is not None:
                heapq.heappush(self.ranked, (value, index, node.version))
        elif self.order is not None:
            heapq.heappush(self.bounded, (self.order.bound(node), index, node.version))
        elif (value := self.rank(self.task, node)) is not None:
            heapq.heappush(self.ranked, (value, index, node.version))

    def best(self) -> int | None:
        """The index of the best node; None when no node can take the pod."""
        nodes, versions, order = self.nodes, self.versions, self.order
        while True:
            kept: tuple[Rank, int] | None = None
            if order is not None:
                # The first node of the ranking still in its ranked state.
                found = order.found
                while (
                    entry := found[self.position]
                    if self.position < len(found)
                    else order.at(self.position)
                ) is not None:
                    index = entry[1]
                    if nodes[index].version == versions[index]:
                        kept = entry
                        break
                    self.position += 1
                    if index not in self.tracked:
                        self.follow(index)
            while self.ranked:
                _, index, version = self.ranked[0]
                if version == nodes[index].version:
                    break
                heapq.heappop(self.ranked)
                self.follow(index)
            best = kept
            if self.ranked and (best is None or self.ranked[0][:2] < best):
                best = self.ranked[0][:2]
            if self.bounded and (best is None or self.bounded[0][:2] < best):
                # A changed node might beat the best so far: rank it, then look again.
                _, index, version = heapq.heappop(self.bounded)
                node = nodes[index]
                if version != node.version:
                    self.follow(index)
                elif (value := self.rank(self.task, node)) is not None:
                    heapq.heappush(self.ranked, (value, index, version))
                continue
            return best[1] if best is not None else None


# How far above a plain node's empty score a pod that fits its idle room can score.
_PLAIN_SLACK = 2
# More node sizes than this: one lane with the general slack (see _Order).
_MAX_SIZE_LANES = 64


def _plain_slack(cpu: Num, memory: Num, cpu_of: Num, mem_of: Num) -> int:
    """How far above a plain node's empty score a pod that fits its idle room can score.

    With ``d = 100 * ask / allocatable`` per resource: leastrequested (half the sum of the
    two floored terms) drops by more than ``(d_cpu + d_memory - 3) / 2``, and
    balancedresource (``100 - ceil(50 * gap)``) rises by less than ``|d_cpu - d_memory|
    / 2 + 1``, so the score rises by less than ``2.5 - min(d_cpu, d_memory)``: at most
    ``ceil(2.5 - d) - 1`` for the larger of the two bounds, in integers.
    """
    cpu_bound = -((200 * cpu - 5 * cpu_of) // (2 * cpu_of)) - 1
    memory_bound = -((200 * memory - 5 * mem_of) // (2 * mem_of)) - 1
    return int(max(cpu_bound, memory_bound))


def _plain_score(c_of: Num, m_of: Num, c_idle: Num, m_idle: Num, cpu: Num, memory: Num) -> Num:
    """``_score_of`` where no clamp can apply: allocatable cpu and memory above zero, and
    idle room within the allocatable and at least the pod's ask."""
    least = (c_idle - cpu) * 100 // c_of + (m_idle - memory) * 100 // m_of
    gap = (c_of - c_idle + cpu) * m_of - (m_of - m_idle + memory) * c_of
    gap = gap if gap >= 0 else -gap
    return least // 2 + 100 + (-50 * gap // (c_of * m_of))


class _FastRank:
    """``_volcano_rank`` of a changed copy of a ranking's node, from the ranking's columns.

    The static predicates and the allocatable are those of the ranking's node (copies keep
    them); the resource check and the score read the copy's idle room. Only for integer
    quantities (always, for what ``_unit`` yields) and nodes with no room pending.
    """

    def __init__(self, ranking: _Ranking, task: _Task) -> None:
        self.task = task
        self.cpu = task.request.get("cpu", 0)
        self.memory = task.request.get("memory", 0)
        self.others = [(n, v) for n, v in task.request.items() if n not in ("cpu", "memory")]
        self.allowed = ranking.allowed(task)
        self.rows = ranking.rows

    def rank(self, index: int, node: _Node) -> Rank | None:
        """The rank of ``node`` (a copy of the ranking's node ``index``); None: it cannot."""
        if not self.allowed[index]:
            return None
        if node.releasing or node.pipelined:
            return _volcano_rank(self.task, node)
        idle = node.idle
        c_idle, m_idle = idle.get("cpu", 0), idle.get("memory", 0)
        cpu, memory = self.cpu, self.memory
        # _fits(request, idle) for integers: an absent cpu or memory asks 0, which still
        # refuses a node over its allocatable (idle below 0).
        if c_idle < cpu or m_idle < memory:
            return None
        for name, value in self.others:
            if value > idle.get(name, 0):
                return None
        c_of, m_of = self.rows[index][0], self.rows[index][1]
        if c_of > 0 and m_of > 0 and c_idle <= c_of and m_idle <= m_of:
            return (0, -_plain_score(c_of, m_of, c_idle, m_idle, cpu, memory))
        return (0, -_score_of(c_of, c_idle, cpu, m_of, m_idle, memory))


class _Order:
    """The nodes of a ranking's state that can take one kind of pod, best first.

    Ranked only as far as someone looks: nodes are visited by a bound on the pod's score,
    best first, and an entry is final once no unvisited node can beat it. The bound is
    the node's score for an empty pod plus a ``slack``. In general a pod asking ``cpu``
    and ``memory`` scores at most ``ceil(50 * (cpu / allocatable cpu + memory /
    allocatable memory))`` above that: its leastrequested part only drops, its
    balancedresource gap moves by at most those fractions. On a plain node (idle room
    within the allocatable, nothing pending) it does better: the pod costs more
    leastrequested points than it can win back, by a margin that depends on the node's
    size (``_plain_slack``), so nodes are visited per size, and a size where the pod
    takes a large share falls behind at once. A gang takes the first few nodes of each
    kind of pod, so most nodes are never ranked. When the bound does not separate the
    nodes the rest are ranked at once, column by column.
    """

    def __init__(self, ranking: _Ranking, task: _Task) -> None:
        self.ranking, self.task = ranking, task
        self.found: list[tuple[Rank, int]] = []
        self.pending: list[tuple[Rank, int]] = []
        self.visited = 0
        self.eager_after = ranking.eager_after
        request = task.request
        self.fast = ranking.countable(task)
        self.allowed = ranking.allowed(task) if self.fast else []
        cpu_of, mem_of = ranking.smallest
        self.slack = (
            math.ceil(
                Fraction(50 * request.get("cpu", 0), cpu_of)
                + Fraction(50 * request.get("memory", 0), mem_of)
            )
            if cpu_of > 0 and mem_of > 0
            else 0
        )
        if ranking.all_plain:
            self.slack = min(self.slack, _PLAIN_SLACK)
        # Lanes of nodes to visit, each in bound order, with their slack (None: no bound):
        # nodes without cpu or memory first, then one lane per node size when the pod's
        # drop in score on that size is known (plain nodes, integer requests), else one.
        lanes: list[tuple[Sequence[int], int | None]] = []
        if ranking.unsized:
            lanes.append((ranking.unsized, None))
        if ranking.all_plain and self.fast and ranking.size_lanes:
            cpu, memory = request.get("cpu", 0), request.get("memory", 0)
            for (cpu_of, mem_of), indexes in ranking.size_lanes:
                lanes.append((indexes, min(self.slack, _plain_slack(cpu, memory, cpu_of, mem_of))))
        elif ranking.sized_by_bound:
            lanes.append((ranking.sized_by_bound, self.slack))
        self.lanes = lanes
        # The next unvisited node of each lane: (bound, index, lane, position in lane).
        self.heads = [
            (self._bound(indexes[0], slack), indexes[0], lane, 0)
            for lane, (indexes, slack) in enumerate(lanes)
        ]
        heapq.heapify(self.heads)

    def _bound(self, index: int, slack: int | None) -> Rank:
        if slack is None:
            return _UNBOUNDED
        empty = self.ranking.empty_scores[index]
        assert empty is not None
        return (0, -(empty + slack))

    def at(self, position: int) -> tuple[Rank, int] | None:
        """The ``position``-th best ``(rank, index)``; None past the last."""
        found, pending, heads = self.found, self.pending, self.heads
        while len(found) <= position:
            if heads:
                bound, index, lane, at = heads[0]
                if pending and pending[0] < (bound, index):
                    found.append(heapq.heappop(pending))
                    continue
                if self.visited >= self.eager_after:
                    rest = [i for _, _, ln, p in heads for i in self.lanes[ln][0][p:]]
                    heads.clear()
                    pending.extend(self.rank_all(rest))
                    pending.sort()
                    found.extend(pending)
                    pending.clear()
                    continue
                self.visited += 1
                indexes, slack = self.lanes[lane]
                if at + 1 < len(indexes):
                    following = indexes[at + 1]
                    entry = (self._bound(following, slack), following, lane, at + 1)
                    heapq.heapreplace(heads, entry)
                else:
                    heapq.heappop(heads)
                value = self.rank(index)
                if value is not None:
                    heapq.heappush(pending, (value, index))
            elif pending:
                found.append(heapq.heappop(pending))
            else:
                return None
        return found[position]

    def bound(self, node: _Node) -> Rank:
        """A rank this kind of pod cannot beat on ``node``, in any state of it."""
        empty = _empty_score(node)
        return _UNBOUNDED if empty is None else (0, -(empty + self.slack))

    def rank(self, index: int) -> Rank | None:
        """``_volcano_rank`` of one node of the ranking's state."""
        node = self.ranking.nodes[index]
        if self.fast:
            if not self.allowed[index]:
                return None
            room = self.ranking.rooms[index]
            request = self.task.request
            if not _fits(request, room):
                return None
            flag = 0 if room is node.idle or _fits(request, node.idle) else 1
            return (flag, -_score(self.task, node))
        return _volcano_rank(self.task, node)

    def rank_all(self, indexes: Sequence[int]) -> list[tuple[Rank, int]]:
        """``(_volcano_rank, index)`` of the nodes that can take the pod.

        With integer quantities (always, for what ``_unit`` reads) the resource check
        runs column by column and ``_score`` inline, as this is the hot loop of a
        preflight against a large cluster.
        """
        ranking, task = self.ranking, self.task
        nodes = ranking.nodes
        if not self.fast:
            return [
                (value, i) for i in indexes if (value := _volcano_rank(task, nodes[i])) is not None
            ]
        request = task.request
        allowed = self.allowed
        candidates = [i for i in indexes if allowed[i]]
        # _fits(request, FutureIdle): cpu and memory always (a node over its allocatable
        # is short even for a pod that asks none), then each name the pod asks for.
        for name in ("cpu", "memory", *(n for n in request if n not in ("cpu", "memory"))):
            need = request.get(name, 0)
            room = ranking.column("room", name)
            candidates = [i for i in candidates if room[i] >= need]
        cpu, memory = request.get("cpu", 0), request.get("memory", 0)
        rows, plain = ranking.rows, ranking.plain
        out: list[tuple[Rank, int]] = []
        for i in candidates:
            c_of, m_of, c_idle, m_idle = rows[i]
            if plain[i]:
                # After the room check the pod fits idle room within the allocatable.
                out.append(((0, -_plain_score(c_of, m_of, c_idle, m_idle, cpu, memory)), i))
                continue
            node = nodes[i]
            flag = 0 if ranking.rooms[i] is node.idle or _fits(request, node.idle) else 1
            score = _score_of(c_of, c_idle, cpu, m_of, m_idle, memory)
            out.append(((flag, -score), i))
        return out


class _View:
    """An ``_Order`` of cpu, memory and placement, less the nodes where another resource
    the pod asks for does not fit (columns of FutureIdle, which is idle here)."""

    def __init__(self, order: _Order, needs: Sequence[tuple[Sequence[Num], Num]]) -> None:
        self.order = order
        self.needs = needs
        self.found: list[tuple[Rank, int]] = []
        self.scanned = 0  # entries of ``order`` looked at

    def at(self, position: int) -> tuple[Rank, int] | None:
        """The ``position``-th best ``(rank, index)``; None past the last."""
        found, needs, order = self.found, self.needs, self.order
        while len(found) <= position:
            entry = order.at(self.scanned)
            if entry is None:
                return None
            self.scanned += 1
            index = entry[1]
            if all(room[index] >= need for room, need in needs):
                found.append(entry)
        return found[position]

    def bound(self, node: _Node) -> Rank:
        """A rank this kind of pod cannot beat on ``node``, in any state of it."""
        return self.order.bound(node)


class _Ranking:
    """Node ranks per kind of pod, in one state of the cluster (see ``_Order``).

    Simulations start from copies of that state (a snapshot read once per stack); a node
    still in it (same ``version``) takes its rank and its fit error from here, so placing
    a gang costs the nodes it changes and the few best nodes of each kind of pod, not
    every node of the cluster. The last ``kept`` kinds of pods are remembered, which
    bounds the memory.
    """

    def __init__(
        self, nodes: Sequence[_Node], kept: int = 1024, eager_after: int | None = None
    ) -> None:
        self.nodes = list(nodes)  # never changed: simulations replace what they change
        self.versions = [n.version for n in self.nodes]
        self.kept = kept
        # Past this many visits of an order the bounds are not pruning: rank the rest.
        self.eager_after = max(32, len(self.nodes) // 8) if eager_after is None else eager_after
        self.rooms = [n.future_idle() for n in self.nodes]
        # Integer quantities (what ``_unit`` yields) allow the direct comparisons of
        # ``_Order.rank``; checked once.
        self.integral = all(
            type(v) is int
            for node, room in zip(self.nodes, self.rooms, strict=True)
            for res in (node.idle, node.allocatable, room)
            for v in res.values()
        )
        self.sized = [
            n.allocatable.get("cpu", _ZERO) > 0 and n.allocatable.get("memory", _ZERO) > 0
            for n in self.nodes
        ]
        # Each node's score for a pod that asks nothing (None: a node without cpu or
        # memory, visited first); _Order visits nodes by it, best first.
        self.empty_scores = [_empty_score(n) for n in self.nodes]
        sized_nodes = [n for n, sized in zip(self.nodes, self.sized, strict=True) if sized]
        self.smallest: tuple[Num, Num] = (
            (
                min(n.allocatable["cpu"] for n in sized_nodes),
                min(n.allocatable["memory"] for n in sized_nodes),
            )
            if sized_nodes
            else (_ZERO, _ZERO)
        )
        # cpu and memory, allocatable then idle, per node; and whether a node is plain:
        # both allocatable, idle room within them, nothing terminating or pipelined.
        self.rows = [
            (
                n.allocatable.get("cpu", _ZERO),
                n.allocatable.get("memory", _ZERO),
                n.idle.get("cpu", _ZERO),
                n.idle.get("memory", _ZERO),
            )
            for n in self.nodes
        ]
        self.plain = [
            sized and room is n.idle and 0 <= c_idle <= c_of and 0 <= m_idle <= m_of
            for n, room, sized, (c_of, m_of, c_idle, m_idle) in zip(
                self.nodes, self.rooms, self.sized, self.rows, strict=True
            )
        ]
        # Every node with cpu and memory is plain (see _Order's slack).
        self.all_plain = self.integral and all(
            plain or not sized for plain, sized in zip(self.plain, self.sized, strict=True)
        )
        # Visiting orders for _Order: nodes without cpu or memory, the others, and the
        # others per size (allocatable cpu and memory), each best empty score first.
        scores = self.empty_scores
        self.unsized = [i for i, e in enumerate(scores) if e is None]
        self.sized_by_bound = sorted(
            (i for i, e in enumerate(scores) if e is not None),
            key=lambda i: (-(scores[i] or 0), i),
        )
        lanes: dict[tuple[Num, Num], list[int]] = {}
        for i in self.sized_by_bound:
            lanes.setdefault(self.rows[i][:2], []).append(i)
        self.size_lanes = list(lanes.items()) if len(lanes) <= _MAX_SIZE_LANES else []
        self._columns: dict[tuple[str, str], list[Num]] = {}
        self._orders: dict[tuple[Any, ...], _Order] = {}
        self._views: dict[tuple[Any, ...], _View] = {}
        # No node has room pending: FutureIdle is idle everywhere (see ``order``).
        self.settled = self.integral and all(
            room is n.idle for n, room in zip(self.nodes, self.rooms, strict=True)
        )
        self._errors: dict[tuple[Any, ...], dict[str, str]] = {}
        self._allowed: dict[str, list[bool]] = {}
        self._fitting: dict[tuple[Any, ...], tuple[int, bytes]] = {}

    def column(self, source: str, name: str) -> list[Num]:
        """One quantity of every node: of its ``room`` (FutureIdle), ``idle`` or
        ``allocatable``."""
        column = self._columns.get((source, name))
        if column is None:
            if source == "room":
                column = [room.get(name, _ZERO) for room in self.rooms]
            elif source == "idle":
                column = [n.idle.get(name, _ZERO) for n in self.nodes]
            else:
                column = [n.allocatable.get(name, _ZERO) for n in self.nodes]
            self._columns[(source, name)] = column
        return column

    def release(self) -> None:
        """Drop what was ranked. Its orders refer back to it, so a ranking nobody uses
        would otherwise wait, with every order, for a full garbage collection (planning
        runs with the collector off, ``components.batch``); ranking again is still right."""
        for cache in (self._orders, self._views, self._errors, self._allowed, self._fitting):
            cache.clear()

    def changed(self, nodes: Sequence[_Node]) -> set[int]:
        """The indexes of ``nodes`` not in this ranking's state."""
        # Nodes still the ranking's own objects are unchanged: found at C speed, as most
        # nodes are (a simulation's list starts as a copy of the ranking's).
        versions = self.versions
        differ = itertools.compress(range(len(nodes)), map(operator.is_not, nodes, self.nodes))
        return {i for i in differ if nodes[i].version != versions[i]}

    def _remember(
        self, cache: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any
    ) -> None:
        cache[key] = value
        if len(cache) > self.kept:
            del cache[next(iter(cache))]

    def countable(self, task: _Task) -> bool:
        """Whether the nodes' quantities and the pod's request are all integers, so the
        column-wise paths apply (``fitting``, ``_FastRank``, ``_Order.rank_all``)."""
        return self.integral and all(type(v) is int for v in task.request.values())

    def fitting(self, task: _Task) -> tuple[int, bytes]:
        """The nodes whose room (FutureIdle) and static predicates take ``task``: how
        many, and a byte per node (1: it does); ``_fits`` column by column (see
        ``_Order.rank_all``). Bytes, since up to ``kept`` of these are remembered."""
        known = self._fitting.get(task.shape)
        if known is None:
            request = task.request
            candidates = [i for i, ok in enumerate(self.allowed(task)) if ok]
            for name in ("cpu", "memory", *(n for n in request if n not in ("cpu", "memory"))):
                need = request.get(name, 0)
                room = self.column("room", name)
                candidates = [i for i in candidates if room[i] >= need]
            mask = bytearray(len(self.nodes))
            for i in candidates:
                mask[i] = 1
            known = (len(candidates), bytes(mask))
            self._remember(self._fitting, task.shape, known)
        return known

    def allowed(self, task: _Task) -> list[bool]:
        """Per node, whether the static predicates let ``task`` on (per placement)."""
        key = task.placement.key
        allowed = self._allowed.get(key)
        if allowed is None:
            allowed = [_static_failure(task, n) is None for n in self.nodes]
            self._allowed[key] = allowed
        return allowed

    def order(self, task: _Task) -> _Order | _View:
        """The nodes that can take ``task``, best first (ranked on demand).

        When no node has room pending (terminating or pipelined pods), a rank depends on
        the pod's cpu and memory (the score) and on whether each other resource fits: pods
        alike in cpu, memory and placement share one order, each seeing the nodes its
        other resources fit.
        """
        request = task.request
        if self.settled and all(type(v) is int for v in request.values()):
            cpu, memory = request.get("cpu", 0), request.get("memory", 0)
            key = (task.placement.key, cpu, memory)
            base = self._orders.get(key)
            if base is None:
                scored = _Task(
                    task.label,
                    task.group,
                    task.pod_name,
                    {"cpu": cpu, "memory": memory},
                    task.placement,
                )
                base = _Order(self, scored)
                self._remember(self._orders, key, base)
            view = self._views.get(task.shape)
            if view is None or view.order is not base:
                extra = [(n, v) for n, v in request.items() if n not in ("cpu", "memory")]
                view = _View(base, [(self.column("room", n), v) for n, v in extra])
                self._remember(self._views, task.shape, view)
            return view
        found = self._orders.get(task.shape)
        if found is None:
            found = _Order(self, task)
            self._remember(self._orders, task.shape, found)
        return found

    def fit_errors(self, task: _Task, nodes: Sequence[_Node]) -> dict[str, str]:
        """Why each of ``nodes`` (copies of this state, some changed) cannot take ``task``."""
        if len(nodes) != len(self.nodes):
            return {n.name: r for n in nodes if (r := _fit_failure(task, n)) is not None}
        known = self._errors.get(task.shape)
        if known is None:
            known = {n.name: r for n in self.nodes if (r := _fit_failure(task, n)) is not None}
            self._remember(self._errors, task.shape, known)
        # The known reasons, redone for the changed nodes (callers only count reasons, so
        # the order of the keys does not matter).
        out = dict(known)
        for index in self.changed(nodes):
            node = nodes[index]
            reason = _fit_failure(task, node)
            if reason is None:
                out.pop(node.name, None)
            else:
                out[node.name] = reason
        return out


def _volcano_rank(task: _Task, node: _Node) -> tuple[Num, ...] | None:
    """Nodes with idle room before those where terminating pods make room, then the best
    score; Volcano breaks score ties at random, the first name wins here."""
    room = node.future_idle()
    if not _fits(task.request, room) or _static_failure(task, node) is not None:
        return None
    on_idle = room is node.idle or _fits(task.request, node.idle)
    return (0 if on_idle else 1, -_score(task, node))


def _place_gang(
    tasks: Sequence[_Task],
    nodes: list[_Node],
    min_member: int,
    *,
    already_ready: int = 0,
    whole_gang: bool,
    queue_ok: QueueGate | None = None,
    ranking: _Ranking | None = None,
) -> _GangOutcome:
    """Volcano's ``allocateResourcesForTasks`` for one job: greedy, in order, all or nothing.

    Args:
        tasks: the pending pods, in Volcano's task order.
        nodes: the cluster, in name order. A node that takes a pod is replaced in the
            list by a changed copy (the node objects are never changed, so callers can
            share them); when the gang is neither ready nor pipelined the statement is
            discarded and the list is restored.
        min_member: the PodGroup's ``minMember``.
        already_ready: pods of the job already allocated, bound, running or succeeded.
        whole_gang: ``minMember`` equals the job's pod count, so the first failure ends
            the attempt (``NeedContinueAllocating``).
        queue_ok: the proportion plugin's per-task queue check, given the task and what
            this job placed so far; failing tasks are skipped silently, as in Volcano.
        ranking: node ranks of the state ``nodes`` were copied from; the same outcome,
            faster.
    """
    outcome = _GangOutcome(False, False, [])
    originals: dict[int, _Node] = {}
    if ranking is not None and len(ranking.versions) != len(nodes):
        ranking = None
    changed = ranking.changed(nodes) if ranking is not None else None
    failed_groups: set[str] = set()
    chooser: _Chooser | None = None
    ready = already_ready
    pipelined = 0
    placed_total: Res = {}
    for task in tasks:
        if ready >= min_member:
            break
        outcome.tried += 1
        if task.best_effort:
            # Gang counts a pending BestEffort pod as ready; backfill binds it later.
            ready += 1
            continue
        if queue_ok is not None and not queue_ok(task, placed_total):
            if outcome.queue_blocked is None:
                outcome.queue_blocked = task
            continue
        if task.group in failed_groups:
            continue  # a role that failed predicates is not retried this session
        if chooser is None or chooser.task is not task:
            chooser = _Chooser(task, nodes, _volcano_rank, ranking, changed)
        index = chooser.best()
        if index is None:
            failed_groups.add(task.group)
            if outcome.failed is None:
                outcome.failed = task
                outcome.fit_errors = (
                    ranking.fit_errors(task, nodes)
                    if ranking is not None
                    else {n.name: r for n in nodes if (r := _fit_failure(task, n)) is not None}
                )
            if whole_gang:
                break
            continue
        if index not in originals:
            originals[index] = nodes[index]
            nodes[index] = nodes[index].copy()
            if changed is not None:
                changed.add(index)
        best = nodes[index]
        pipeline = not _fits(task.request, best.idle)
        best.take(task.request, pipeline=pipeline)
        if pipeline:
            pipelined += 1  # held for the pod, bound once the room is released
        else:
            ready += 1
            outcome.allocated += 1
        outcome.placed.append((task, best.name))
        if queue_ok is not None:
            for name, value in task.request.items():
                placed_total[name] = placed_total.get(name, _ZERO) + value
    outcome.ready = ready >= min_member
    outcome.pipelined = not outcome.ready and ready + pipelined >= min_member
    if not (outcome.ready or outcome.pipelined):
        for index, node in originals.items():
            nodes[index] = node
    return outcome


def _place_singly(
    tasks: Sequence[_Task], nodes: list[_Node], ranking: _Ranking | None = None
) -> tuple[list[str], _Task | None, dict[str, str]]:
    """Place pods one by one (extras of a ready gang); stop at the first that fits nowhere.

    Each pod is a gang of one (``_place_gang([task], nodes, 1, ...)``); consecutive pods
    of a group share one chooser, as nodes only lose room. BestEffort pods are left to
    backfill.
    """
    placed: list[str] = []
    chooser: _Chooser | None = None
    if ranking is not None and len(ranking.versions) != len(nodes):
        ranking = None
    changed = ranking.changed(nodes) if ranking is not None else None
    for task in tasks:
        if task.best_effort:
            continue
        if chooser is None or chooser.task is not task:
            chooser = _Chooser(task, nodes, _volcano_rank, ranking, changed)
        index = chooser.best()
        if index is None:
            errors = (
                ranking.fit_errors(task, nodes)
                if ranking is not None
                else {n.name: r for n in nodes if (r := _fit_failure(task, n)) is not None}
            )
            return placed, task, errors
        node = nodes[index] = nodes[index].copy()
        node.take(task.request, pipeline=not _fits(task.request, node.idle))
        placed.append(node.name)
        if changed is not None:
            changed.add(index)
    return placed, None, {}


def _best_fit_decreasing(tasks: Sequence[_Task], nodes: Sequence[_Node]) -> bool:
    """A careful packer: biggest pods first, each onto the node it leaves tightest.

    Used only to tell "Volcano's greedy order fails but a packing exists" apart from
    "nothing fits", never as Volcano's behaviour.
    """
    if any(
        not task.best_effort
        and not any(_fits(task.request, n.idle) and _static_failure(task, n) is None for n in nodes)
        for task in {t.shape: t for t in tasks}.values()
    ):
        return False  # a pod no node can take even now: no packing places it
    work = [n.copy() for n in nodes]

    def size(task: _Task) -> tuple[Num, ...]:
        scalars = sum(v for n, v in task.request.items() if n not in ("cpu", "memory", "pods"))
        return (scalars, task.request.get("cpu", 0), task.request.get("memory", 0))

    def tightest(task: _Task, node: _Node) -> tuple[Num, ...] | None:
        if not _fits(task.request, node.idle) or _static_failure(task, node) is not None:
            return None
        return tuple(node.idle.get(n, 0) - task.request[n] for n in _asked(task.request))

    chooser: _Chooser | None = None
    for task in sorted(tasks, key=size, reverse=True):
        if task.best_effort:
            continue
        if chooser is None or chooser.task is not task:
            chooser = _Chooser(task, work, tightest)
        index = chooser.best()
        if index is None:
            return False
        work[index].take(task.request, pipeline=False)
    return True


def _gang_condition(
    min_member: int, pods: int, placed: int, failed: _Task | None, fit_message: str
) -> str:
    """The PodGroup condition gang writes when a gang cannot be placed (research §5).

    ``<minMember - placed>/<pods> tasks in gang unschedulable: pod group is not ready,
    <status histogram>; Pending: <reasons>. Origin reason is <pod>: <fit errors>``; Go
    sorts both histograms as strings. After a discarded attempt every pod is Pending:
    the ones that were placed show ``Schedulable``, the others ``Unschedulable``.
    """
    statuses = sorted(([f"{pods} Pending"] if pods else []) + [f"{min_member} minAvailable"])
    reasons = sorted(
        ([f"{placed} Schedulable"] if placed else [])
        + ([f"{pods - placed} Unschedulable"] if pods > placed else [])
    )
    text = (
        f"{min_member - placed}/{pods} tasks in gang unschedulable: pod group is not ready, "
        + ", ".join(statuses)
    )
    if reasons:
        text += f"; Pending: {', '.join(reasons)}"
    if failed is not None:
        text += f". Origin reason is {failed.pod_name}: {fit_message}"
    return text


# --- The cluster as a snapshot shows it ---------------------------------------------------


@dataclass(frozen=True)
class _SnapPod:
    """A pod of the snapshot, with what Volcano reads from it."""

    namespace: str
    name: str
    node: str | None
    phase: str
    terminating: bool
    group: str | None
    volcano: bool
    request: Res
    placement: _Placement
    created: str

    @property
    def terminal(self) -> bool:
        return self.phase in _TERMINAL_PHASES

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

    def task(self) -> _Task:
        return _Task(
            f"pod {self.namespace}/{self.name}",
            self.group or "",
            self.name,
            self.request,
            self.placement,
        )


@dataclass
class _SnapGroup:
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
    pods: list[_SnapPod] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @cached_property
    def min_res(self) -> Res:
        return _res(self.min_raw) if self.min_raw is not None else {}

    @cached_property
    def allocated(self) -> Res:
        return _add(*(p.request for p in self.pods if p.allocated))

    @cached_property
    def allocated_tasks(self) -> int:
        return sum(1 for p in self.pods if p.allocated)

    @cached_property
    def ready_tasks(self) -> int:
        return sum(1 for p in self.pods if p.allocated or p.phase == "Succeeded")

    @cached_property
    def pending_pods(self) -> list[_SnapPod]:
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
class _QueueView:
    """A queue as the scheduler will see it once this stack is applied."""

    name: str
    state: str | None  # None: created by this stack, the controller opens it
    capability_raw: Mapping[str, Quantity]
    guarantee: Res
    weight: int
    declared: bool
    observed: bool

    @property
    def capability(self) -> Res:
        return _res(self.capability_raw)

    @property
    def open(self) -> bool:
        return self.state is None or self.state == "Open"


_DEFAULT_QUEUE = _QueueView("default", "Open", {}, {}, 1, False, False)


def _quantities(raw: object) -> dict[str, Quantity]:
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


def _pod_request(spec: Mapping[str, Any]) -> Res | None:
    """Volcano's ``GetPodResourceRequest``: the effective request plus ``pods: 1``."""
    try:
        model = PodSpec.model_validate(spec)
    except ValidationError:
        return None
    request = _res(effective_pod_requests(model, "pod").requests)
    request["pods"] = 1
    return request


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    status = obj.get("status")
    return status if isinstance(status, Mapping) else {}


@dataclass(frozen=True)
class _ParsedNode:
    """A Node of the snapshot, read once."""

    name: str
    allocatable: Res
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, Any], ...]
    unschedulable: bool


@dataclass(frozen=True)
class _ParsedSnapshot:
    """Everything of a snapshot that does not depend on the job judged.

    ``shared`` memoizes the cluster as every job of a stack sees it, per set of declared
    queues (see :func:`_shared_cluster`).
    """

    # (namespace, PodGroup annotation, the pod or None when unreadable, "ns/name")
    pods: tuple[tuple[str, str | None, _SnapPod | None, str], ...]
    nodes: tuple[_ParsedNode, ...]
    groups: tuple[_SnapGroup, ...]  # oldest first, their pods attached
    queues: Mapping[str, _QueueView]
    has_queues: bool
    # (namespace, PodGroup name) of every PodGroup and every pod's group annotation.
    owners: frozenset[tuple[str, str]]
    shared: dict[tuple[str, ...], tuple[tuple[QueueDecl, ...], _Shared]] = field(
        default_factory=dict, compare=False
    )


# Snapshots are read once per planning pass, not once per job: a few recent ones, by
# identity (a ClusterSnapshot holds a dict, so it has no value hash). The entries keep
# their snapshot alive, so an id is never reused while it is cached.
_PARSED_CACHE: list[tuple[ClusterSnapshot, _ParsedSnapshot]] = []
_PARSED_CACHE_SIZE = 4


def _parse_snapshot(snapshot: ClusterSnapshot) -> _ParsedSnapshot:
    for cached, parsed in _PARSED_CACHE:
        if cached is snapshot:
            return parsed
    parsed = _parse_snapshot_uncached(snapshot)
    _PARSED_CACHE.insert(0, (snapshot, parsed))
    for _, dropped in _PARSED_CACHE[_PARSED_CACHE_SIZE:]:
        # Each _Shared refers back to its snapshot, and each ranking to its orders: break
        # both cycles, so that what is dropped is freed at once (see _Ranking.release).
        for _, shared in dropped.shared.values():
            shared.ranking.release()
        dropped.shared.clear()
    del _PARSED_CACHE[_PARSED_CACHE_SIZE:]
    return parsed


def _parse_snapshot_uncached(snapshot: ClusterSnapshot) -> _ParsedSnapshot:
    pods: list[tuple[str, str | None, _SnapPod | None, str]] = []
    owners: set[tuple[str, str]] = set()
    for obj in snapshot.of_kind("Pod"):
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        namespace = str(meta.get("namespace") or "default")
        annotations = meta.get("annotations") or {}
        group = annotations.get(GROUP_NAME_ANNOTATION) if isinstance(annotations, Mapping) else None
        if group is not None:
            owners.add((namespace, group))
        label = f"{namespace}/{meta.get('name')}"
        request = _pod_request(spec)
        if request is None:
            pods.append((namespace, group, None, label))
            continue
        pod = _SnapPod(
            namespace=namespace,
            name=str(meta.get("name")),
            node=str(spec["nodeName"]) if spec.get("nodeName") else None,
            phase=str(status.get("phase") or "Pending"),
            terminating=bool(meta.get("deletionTimestamp")),
            group=str(group) if group else None,
            volcano=spec.get("schedulerName") == SCHEDULER,
            request=request,
            placement=_Placement.of(spec),
            created=str(meta.get("creationTimestamp") or ""),
        )
        pods.append((namespace, group, pod, label))

    nodes: list[_ParsedNode] = []
    for obj in snapshot.of_kind("Node"):
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        raw = status.get("allocatable") or status.get("capacity") or {}
        labels = meta.get("labels") or {}
        nodes.append(
            _ParsedNode(
                name=str(meta.get("name")),
                allocatable=_res(_quantities(raw)),
                labels={str(k): str(v) for k, v in labels.items()}
                if isinstance(labels, Mapping)
                else {},
                taints=tuple(t for t in spec.get("taints") or () if isinstance(t, Mapping)),
                unschedulable=bool(spec.get("unschedulable")),
            )
        )

    groups: list[_SnapGroup] = []
    for obj in snapshot.of_kind("PodGroup"):
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        min_raw = spec.get("minResources")
        group = _SnapGroup(
            obj=obj,
            namespace=str(meta.get("namespace") or "default"),
            name=str(meta.get("name")),
            queue=str(spec.get("queue") or "default"),
            phase=str(status.get("phase") or "Pending"),
            min_member=int(spec.get("minMember") or 0),
            min_raw=_quantities(min_raw) if isinstance(min_raw, Mapping) else None,
            created=str(meta.get("creationTimestamp") or ""),
        )
        groups.append(group)
        owners.add((group.namespace, group.name))

    queues: dict[str, _QueueView] = {}
    for obj in snapshot.of_kind("Queue"):
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        name = str(meta.get("name"))
        guarantee = spec.get("guarantee") or {}
        queues[name] = _QueueView(
            name=name,
            state=str(status.get("state") or ""),
            capability_raw=_quantities(spec.get("capability")),
            guarantee=_res(
                _quantities(guarantee.get("resource") if isinstance(guarantee, Mapping) else {})
            ),
            weight=_weight(spec.get("weight")),
            declared=False,
            observed=True,
        )
    by_key = {(g.namespace, g.name): g for g in groups}
    for _, _, snap_pod, _ in pods:
        if snap_pod is not None and snap_pod.group is not None:
            owner = by_key.get((snap_pod.namespace, snap_pod.group))
            if owner is not None:
                owner.pods.append(snap_pod)
    groups.sort(key=lambda g: (g.created, g.namespace, g.name))
    return _ParsedSnapshot(
        pods=tuple(pods),
        nodes=tuple(nodes),
        groups=tuple(groups),
        queues=queues,
        has_queues=snapshot.has_kind("Queue"),
        owners=frozenset(owners),
    )


def _holds(pods: Iterable[_SnapPod]) -> tuple[Res, Res]:
    """What bound pods use of a node and what the terminating ones among them release.

    Succeeded and Failed pods hold nothing; every other bound pod does, any scheduler.
    """
    live = [p for p in pods if not p.terminal]
    return _add(*(p.request for p in live)), _add(*(p.request for p in live if p.terminating))


def _node_state(node: _ParsedNode, pods: Sequence[_SnapPod]) -> _Node:
    used, releasing = _holds(pods)
    return _Node(
        name=node.name,
        allocatable=dict(node.allocatable),
        idle=_sub(node.allocatable, used),
        releasing=releasing,
        labels=dict(node.labels),
        taints=node.taints,
        unschedulable=node.unschedulable,
    )


@dataclass
class _Shared:
    """A snapshot with the stack's declared queues: what every job of the stack sees.

    Built once per planning pass. Jobs whose own PodGroup or pods are in the snapshot
    see it minus those (:func:`_read_cluster`); the others share it whole, with the
    gangs placed before theirs (``bases``) and the per-shape fit results (``fits``).

    Attributes:
        nodes: by name, each bound pod's request taken off ``idle``.
        by_node: the readable bound pods per node name.
        ranking: the nodes' ranks per kind of pod (every simulation starts from copies).
    """

    source: str
    parsed: _ParsedSnapshot
    nodes: list[_Node]
    by_node: dict[str, list[_SnapPod]]
    pods: list[_SnapPod]
    groups: list[_SnapGroup]
    queues: dict[str, _QueueView]
    unreadable: list[tuple[str, str | None, str]]
    ranking: _Ranking
    bases: dict[tuple[str, ...], tuple[list[_Node], list[str]]] = field(default_factory=dict)

    @cached_property
    def total(self) -> Res:
        return _add(*(n.allocatable for n in self.nodes))

    @cached_property
    def used(self) -> Res:
        return _used(self.pods)

    @cached_property
    def empty(self) -> _EmptyNodes:
        """The nodes with nothing on them (the "fits no node, even empty" check)."""
        return _EmptyNodes([n.empty() for n in self.nodes])


# Gang placements of other jobs kept per shared cluster, one per distinct set of Pending
# PodGroups admitted first (normally one).
_BASES_KEPT = 8


def _shared_cluster(snapshot: ClusterSnapshot, declared: Mapping[str, QueueDecl]) -> _Shared:
    """The snapshot as every job of the stack sees it, built once per declared-queue set.

    Declared queues replace observed ones of the same name (the stack applies its spec);
    their state stays the observed one.
    """
    parsed = _parse_snapshot(snapshot)
    names = tuple(sorted(declared))
    decls = tuple(declared[n] for n in names)
    entry = parsed.shared.get(names)
    if entry is not None and all(a is b for a, b in zip(entry[0], decls, strict=True)):
        return entry[1]
    if entry is not None:
        entry[1].ranking.release()  # an earlier pass's: replaced below
    pods: list[_SnapPod] = []
    unreadable: list[tuple[str, str | None, str]] = []
    for namespace, group_name, snap_pod, label in parsed.pods:
        if snap_pod is None:
            unreadable.append((namespace, group_name, label))
        else:
            pods.append(snap_pod)
    by_node: dict[str, list[_SnapPod]] = {}
    for pod in pods:
        if pod.node is not None:
            by_node.setdefault(pod.node, []).append(pod)
    nodes = sorted(
        (_node_state(node, by_node.get(node.name, [])) for node in parsed.nodes),
        key=lambda n: n.name,
    )
    groups = list(parsed.groups)
    queues: dict[str, _QueueView] = dict(parsed.queues)
    for name, decl in declared.items():
        queues[name] = _declared_view(decl, queues.get(name))
    shared = _Shared(
        source=snapshot.source,
        parsed=parsed,
        nodes=nodes,
        by_node=by_node,
        pods=pods,
        groups=groups,
        queues=queues,
        unreadable=unreadable,
        ranking=_Ranking(nodes),
    )
    parsed.shared[names] = (decls, shared)
    return shared


@dataclass
class _Cluster:
    """Nodes, pods, PodGroups and queues of a snapshot, minus this job's own objects.

    Nothing here is changed by an evaluation: simulations place pods on copies of
    ``nodes``. ``whole`` is true when the job has no object in the snapshot, so the
    stack-wide caches of ``shared`` apply to it.
    """

    shared: _Shared
    whole: bool
    nodes: list[_Node]
    groups: list[_SnapGroup]
    pods: list[_SnapPod]
    own_group: Mapping[str, Any] | None
    unreadable_pods: list[str]

    @property
    def source(self) -> str:
        return self.shared.source

    @property
    def queues(self) -> dict[str, _QueueView]:
        return self.shared.queues

    @property
    def has_nodes(self) -> bool:
        return bool(self.nodes)

    @property
    def has_queues(self) -> bool:
        return self.shared.parsed.has_queues

    @property
    def ranking(self) -> _Ranking:
        return self.shared.ranking

    @cached_property
    def total(self) -> Res:
        if self.whole:
            return self.shared.total
        return _add(*(n.allocatable for n in self.nodes))

    @cached_property
    def used(self) -> Res:
        if self.whole:
            return self.shared.used
        return _used(self.pods)


def _used(pods: Iterable[_SnapPod]) -> Res:
    """What bound pods hold, summed over the cluster."""
    return _add(*(p.request for p in pods if p.node is not None and not p.terminal))


def _read_cluster(
    snapshot: ClusterSnapshot, plan: JobPlan, declared: Mapping[str, QueueDecl]
) -> _Cluster:
    """What the scheduler's cache would hold, minus this job's own PodGroup and pods.

    A job with no object in the snapshot shares the stack-wide view; one that has them
    (an earlier ``up``) gets the nodes that hold its pods anew, everything else shared.
    """
    shared = _shared_cluster(snapshot, declared)
    own = (plan.namespace, plan.podgroup_name)
    if own not in shared.parsed.owners:
        return _Cluster(
            shared=shared,
            whole=True,
            nodes=shared.nodes,
            groups=shared.groups,
            pods=shared.pods,
            own_group=None,
            unreadable_pods=[label for _, _, label in shared.unreadable],
        )

    def mine(pod: _SnapPod) -> bool:
        # This job's own pods (from an earlier `up`): preflight judges the gang anew.
        return (pod.namespace, pod.group) == own

    touched = {p.node for p in shared.pods if p.node is not None and mine(p)}
    parsed_nodes = {n.name: n for n in shared.parsed.nodes}
    nodes = [
        _node_state(parsed_nodes[n.name], [p for p in shared.by_node[n.name] if not mine(p)])
        if n.name in touched
        else n
        for n in shared.nodes
    ]
    own_group = next(
        (g.obj for g in shared.groups if (g.namespace, g.name) == own),
        None,
    )
    return _Cluster(
        shared=shared,
        whole=False,
        nodes=nodes,
        groups=[g for g in shared.groups if (g.namespace, g.name) != own],
        pods=[p for p in shared.pods if not mine(p)],
        own_group=own_group,
        unreadable_pods=[label for ns, group, label in shared.unreadable if (ns, group) != own],
    )


def _weight(raw: object) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 1


def _declared_view(decl: QueueDecl, seen: _QueueView | None) -> _QueueView:
    spec = decl.raw.get("spec") if isinstance(decl.raw.get("spec"), Mapping) else {}
    return _QueueView(
        name=decl.name,
        # The stack applies the spec; the state stays what the cluster says. A queue the
        # controller has not reported on yet (no state) is opened by it, and the stack's
        # Queue waits for Open, as for a queue it creates.
        state=seen.state if seen is not None and seen.state else None,
        capability_raw=dict(decl.capability),
        guarantee=_res(decl.guarantee),
        weight=_weight(spec.get("weight") if isinstance(spec, Mapping) else None),
        declared=True,
        observed=seen is not None,
    )


def _shape_nodes(shapes: Sequence[NodeShape]) -> list[_Node]:
    nodes = []
    for shape in shapes:
        allocatable = _res(shape.allocatable)
        nodes.append(
            _Node(
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


# --- The job's own pods -------------------------------------------------------------------


@dataclass(frozen=True)
class _JobPods:
    """The pods KubeRay (and raygang) create for one plan, in creation order.

    Attributes:
        roles: ``(task, members, extras)`` for the head, then each worker group:
            ``members`` count in ``minMember``; ``extras`` are the replicas above
            ``minReplicas`` an autoscaling cluster starts with.
        submitter: the K8sJobMode submitter pod, created once the cluster is ready.
        unmodelled: constraints of the pod templates that preflight does not model.
    """

    roles: tuple[tuple[_Task, int, int], ...]
    submitter: _Task | None
    unmodelled: tuple[str, ...]

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
    # _MAX_SIMULATED_PODS first, so a job of a million replicas is never expanded.

    @property
    def gang(self) -> tuple[_Task, ...]:
        return tuple(t for t, m, _ in self.roles for _ in range(m))

    @property
    def extras(self) -> tuple[_Task, ...]:
        return tuple(t for t, _, e in self.roles for _ in range(e))

    def request(self, *, extras: bool = False) -> Res:
        """What the gang's pods (and optionally the extras) request together."""
        total: Res = {}
        for task, members, more in self.roles:
            count = members + (more if extras else 0)
            total = _add(total, _scale(task.request, count))
        return total


def _template_spec(manifest: Mapping[str, Any] | None, *path: str | int) -> Mapping[str, Any]:
    node: Any = manifest or {}
    for key in path:
        if isinstance(key, int):
            node = node[key] if isinstance(node, list) and len(node) > key else {}
        else:
            node = node.get(key) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else {}


def _placement_shares(plan: JobPlan) -> tuple[GangShare, ...]:
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


def _job_pods(plan: JobPlan) -> _JobPods:
    """The job's pods with their requests (as the scheduler sees them) and constraints.

    Tolerations, nodeSelector and affinity come from the objects raygang creates: the
    rendered RayCluster's pod templates and the submitter Job's.
    """
    cluster_resource = plan.resource("raycluster")
    manifest = (
        cluster_resource.manifest
        if cluster_resource
        else {"spec": plan.item.raw_spec().get("rayClusterSpec")}
    )
    cluster = plan.item.job.spec.ray_cluster_spec
    groups = cluster.worker_group_specs if cluster is not None else []
    job = plan.name
    roles: list[tuple[_Task, int, int]] = []
    unmodelled: list[str] = []
    submitter: _Task | None = None
    worker_index = 0
    for share in _placement_shares(plan):
        request = _res(share.per_pod)
        request["pods"] = 1
        if share.role == "head":
            spec = _template_spec(manifest, "spec", "headGroupSpec", "template", "spec")
            placement = _Placement.of(spec)
            head = _Task("head", share.group, f"{job}-head-*", request, placement)
            roles.append((head, 1, 0))
        elif share.role == "worker":
            index = worker_index
            worker_index += 1
            spec = _template_spec(manifest, "spec", "workerGroupSpecs", index, "template", "spec")
            placement = _Placement.of(spec)
            task = _Task(
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
            spec = _template_spec(
                resource.manifest if resource else None, "spec", "template", "spec"
            )
            placement = _Placement.of(spec)
            submitter = _Task("submitter", share.group, f"{job}-*", request, placement)
        else:
            continue
        unmodelled += [f"{u} ({share.role} {share.group})" for u in placement.unmodelled]
    return _JobPods(tuple(roles), submitter, tuple(unmodelled))


class _EmptyNodes:
    """Nodes with nothing on them, for "fits no node, even when empty".

    Nodes of one size give one answer to the resource check and one count, so both are
    computed once per size (a cluster has a few) and the labels and taints are counted
    per placement; answers are kept per kind of pod.
    """

    def __init__(self, nodes: list[_Node]) -> None:
        self.nodes = nodes
        self.sizes: dict[tuple[tuple[str, Num], ...], list[_Node]] = {}
        for node in nodes:
            self.sizes.setdefault(node.size, []).append(node)
        self._allowed: dict[tuple[str, tuple[tuple[str, Num], ...]], int] = {}
        self._fits: dict[tuple[Any, ...], tuple[bool, int]] = {}

    def fit(self, task: _Task) -> tuple[bool, int]:
        """Whether some empty node takes ``task``, and how many such pods they hold."""
        known = self._fits.get(task.shape)
        if known is not None:
            return known
        fits, holds = False, 0
        for size, group in self.sizes.items():
            short, per_node = _size_fit(task, group[0].allocatable)
            if short is not None:
                continue
            key = (task.placement.key, size)
            allowed = self._allowed.get(key)
            if allowed is None:
                allowed = self._allowed[key] = sum(
                    1 for n in group if _static_failure(task, n) is None
                )
            if allowed:
                fits = True
                holds += per_node * allowed
        self._fits[task.shape] = (fits, holds)
        return fits, holds

    def reasons(self, task: _Task) -> dict[str, str]:
        """Why each empty node refuses ``task`` (every node, when it fits none).

        ``_fit_failure`` on each empty node: the resource check once per size.
        """
        shorts = {
            size: _size_fit(task, group[0].allocatable)[0] for size, group in self.sizes.items()
        }
        return {
            n.name: r
            for n in self.nodes
            if (r := shorts[n.size] or _static_failure(task, n)) is not None
        }


def _size_fit(task: _Task, allocatable: Mapping[str, Num]) -> tuple[str | None, int]:
    """Whether an empty node of this size is short for ``task``, and how many it holds."""
    if not _fits(task.request, allocatable):
        return f"Insufficient {_short_on_node(task.request, allocatable)[0]}", 0
    if task.best_effort:
        return None, 0
    # ``min over resource names of allocatable // request``; floor division is exact for
    # integers and Fractions alike.
    return None, min(int(_get(allocatable, n) // v) for n, v in task.request.items() if v > 0)


# --- The stack's other jobs ---------------------------------------------------------------

# Sibling messages name this many jobs, then say how many more.
_SIBLINGS_NAMED = 5


@dataclass(frozen=True)
class _QueueJobs:
    """The jobs of a stack that use one queue, and their ``minResources`` summed."""

    jobs: tuple[JobPlan, ...]
    keys: tuple[tuple[str, str], ...]  # (namespace, name) of each job
    minimum: Res
    # (namespace, name) -> the job's own minResources in Volcano's units.
    own: Mapping[tuple[str, str], Res]
    # (namespace, name) -> the job's position in ``jobs``; None when a key repeats.
    position: Mapping[tuple[str, str], int] | None


# Per ``others`` tuple (the same one for every job of a planning pass), by identity: the
# entry keeps its tuple alive, so an id is never reused while it is cached. One entry:
# each kept stack holds every plan of its pass (600,000 objects for 1000 jobs).
_SIBLING_CACHE: list[tuple[tuple[JobPlan, ...], dict[str, _QueueJobs]]] = []
_SIBLING_CACHE_SIZE = 1


def _by_queue(others: Sequence[JobPlan]) -> dict[str, _QueueJobs]:
    if isinstance(others, tuple):
        for cached, index in _SIBLING_CACHE:
            if cached is others:
                return index
    grouped: dict[str, list[JobPlan]] = {}
    for job in others:
        grouped.setdefault(job.queue or "default", []).append(job)
    index = {}
    for queue, jobs in grouped.items():
        keys = tuple((j.namespace, j.name) for j in jobs)
        own = {key: _res(j.gang.min_resources) for key, j in zip(keys, jobs, strict=True)}
        position = {key: i for i, key in enumerate(keys)}
        unique = position if len(position) == len(keys) else None
        index[queue] = _QueueJobs(tuple(jobs), keys, _add(*own.values()), own, unique)
    if isinstance(others, tuple):
        _SIBLING_CACHE.insert(0, (others, index))
        del _SIBLING_CACHE[_SIBLING_CACHE_SIZE:]
    return index


def _siblings(others: Sequence[JobPlan], plan: JobPlan, queue: str) -> tuple[list[JobPlan], Res]:
    """The other jobs of ``others`` in ``queue`` (``plan`` itself left out) and their
    ``minResources`` summed; the sums are made once per stack, a copy of the list per job."""
    entry = _by_queue(others).get(queue)
    if entry is None:
        return [], {}
    key = (plan.namespace, plan.name)
    if entry.position is None:
        jobs = [j for j, k in zip(entry.jobs, entry.keys, strict=True) if k != key]
    else:
        at = entry.position.get(key)
        jobs = list(entry.jobs) if at is None else [*entry.jobs[:at], *entry.jobs[at + 1 :]]
    if key not in entry.own:
        return jobs, entry.minimum
    # Exact: the minimum of the others is the queue's sum less this job's own.
    return jobs, {n: v for n, v in _sub(entry.minimum, entry.own[key]).items() if v}


# --- The evaluation -----------------------------------------------------------------------


@dataclass
class _Admitted:
    """A gang that Volcano admits before this one (a Pending PodGroup that passes now)."""

    name: str
    queue: str
    minimum: Res


class _Preflight:
    """One evaluation; collects checks, reasons and the never-admitted flag."""

    def __init__(
        self,
        plan: JobPlan,
        queues: Mapping[str, QueueDecl],
        snapshot: ClusterSnapshot | None,
        others: Sequence[JobPlan],
        shapes: Sequence[NodeShape],
        factor: Fraction,
    ) -> None:
        self.plan = plan
        self.declared = queues
        self.snapshot = snapshot
        self.factor = factor if factor >= 1 else DEFAULT_OVERCOMMIT_FACTOR
        self.qname = plan.queue or "default"
        self.minimum = _res(plan.gang.min_resources)
        self.siblings, self.siblings_minimum = _siblings(others, plan, self.qname)
        self.shapes = list(shapes)
        self.checks: list[Check] = []
        self.reasons: list[str] = []
        self.never = False
        self.pods = _job_pods(plan)
        self.cluster = _read_cluster(snapshot, plan, queues) if snapshot is not None else None
        self.queue = self._resolve_queue()
        # Pending PodGroups Volcano admits before this one exists (set by run()).
        self.early: list[_Admitted] = []
        # Checks whose failure makes later ones fail for the same cause; their reasons
        # are not repeated.
        self.failed: set[str] = set()
        # The resource names each failed resource check was short of.
        self.short: dict[str, set[str]] = {}
        # place_others(), once computed (base_after_others).
        self._base: tuple[list[_Node], list[str]] | None = None

    # -- bookkeeping ---------------------------------------------------------------------

    def add(
        self,
        name: str,
        status: CheckStatus,
        message: str,
        reason: str = "",
        never: bool = False,
        same_cause: str = "",
    ) -> None:
        """Record a check; ``same_cause`` names an earlier check whose reason covers this one."""
        if same_cause and same_cause in self.failed and status == "fail":
            message = f"{message} (same cause as {same_cause})"
            reason = ""
        self.checks.append(Check(name, status, message))
        if status == "fail":
            self.failed.add(name)
        if reason and name not in ADVISORY_CHECKS:
            self.reasons.append(reason)
        if never:
            self.never = True

    def queue_view(self, name: str) -> _QueueView | None:
        """A queue of the session, ``default`` included (the scheduler always creates it)."""
        assert self.cluster is not None
        view = self.cluster.queues.get(name)
        return _DEFAULT_QUEUE if view is None and name == "default" else view

    def result(self) -> PreflightResult:
        gating = [c for c in self.checks if c.name not in ADVISORY_CHECKS]
        verdict: Verdict
        if any(c.status == "fail" for c in gating):
            verdict = "stuck"
        elif any(c.status in ("skip", "warn") for c in gating):
            verdict = "unknown"
        else:
            verdict = "admitted"
        return PreflightResult(verdict, tuple(self.reasons), tuple(self.checks), self.never)

    @property
    def nodes(self) -> list[_Node]:
        return self.cluster.nodes if self.cluster is not None else []

    def _resolve_queue(self) -> _QueueView | None:
        if self.cluster is not None and self.qname in self.cluster.queues:
            return self.cluster.queues[self.qname]
        decl = self.declared.get(self.qname)
        if decl is not None:
            return _declared_view(decl, None)
        if self.qname == "default":
            # The scheduler creates `default` (weight 1, no capability) at start-up.
            return _DEFAULT_QUEUE
        return None

    # -- 0. snapshot ---------------------------------------------------------------------

    def check_snapshot(self) -> None:
        cluster = self.cluster
        if cluster is None:
            shapes = f"; {len(self.shapes)} declared node shape(s)" if self.shapes else ""
            self.add(
                "snapshot",
                "skip",
                "no cluster snapshot: only the queue capability and per-pod fit can be checked"
                + shapes,
            )
            return
        parts = [
            f"{len(cluster.nodes)} node(s)",
            f"{len(cluster.pods)} pod(s)",
            f"{len(cluster.queues)} queue(s)",
            f"{len(cluster.groups)} other PodGroup(s)",
        ]
        message = f"{cluster.source}: {', '.join(parts)}"
        if cluster.own_group is not None:
            phase = _status(cluster.own_group).get("phase") or "Pending"
            message += (
                f"; {self.plan.podgroup_name} already exists (phase {phase}): it and its pods "
                "are left out, the gang is judged as if created anew"
            )
        if cluster.unreadable_pods:
            message += f"; {len(cluster.unreadable_pods)} pod(s) with unreadable specs ignored"
        self.add("snapshot", "pass", message)

    # -- 1. queue ------------------------------------------------------------------------

    def check_queue(self) -> None:
        q, name = self.queue, self.qname
        label = "" if self.plan.queue else " (no volcano.sh/queue-name label)"
        if q is None:
            if self.cluster is None or not self.cluster.has_queues:
                where = (
                    "no cluster snapshot"
                    if self.cluster is None
                    else "the snapshot holds no Queue objects"
                )
                self.add(
                    "queue", "skip", f"queue {name}{label} is not created by this stack and {where}"
                )
                return
            known = ", ".join(sorted(self.cluster.queues)) or "none"
            volcano = (
                f'{_WEBHOOK}unable to find queue: queue.scheduling.volcano.sh "{name}" not found'
            )
            self.add(
                "queue",
                "fail",
                f"queue {name} does not exist and this stack does not create it "
                f"(existing: {known})",
                f"{volcano} -- the PodGroup is refused, so no Ray pod is ever created. "
                f"Fix: declare queue {name} in this stack, or set label volcano.sh/queue-name "
                f"to an existing queue ({known}).",
                never=True,
            )
            return
        if not q.open:
            volcano = (
                f"{_WEBHOOK}can only submit PodGroup to queue with state `Open`, "
                f"queue `{name}` status is `{q.state}`."
            )
            self.add(
                "queue",
                "fail",
                f"queue {name} is {q.state or 'not opened yet'}",
                f"{volcano} -- the webhook refuses the PodGroup and the scheduler would reject "
                f"it too. Fix: open queue {name} (vcctl queue operate --name {name} --action open) "
                "or use an Open queue.",
                never=True,
            )
            return
        if q.observed:
            how = "exists and is Open" + ("; this stack updates its spec" if q.declared else "")
        elif q.declared:
            how = "is created by this stack (the queue controller opens it)"
        else:
            how = "is Volcano's default queue (the scheduler creates it)"
        self.add("queue", "pass", f"queue {name}{label} {how}")

    # -- 2. gang -------------------------------------------------------------------------

    def check_gang(self) -> None:
        gang = self.plan.gang
        pods = self.pods.created
        parts = ", ".join(f"{m} {t.label}" for t, m, _ in self.pods.roles)
        message = f"minMember {gang.min_member} <= {pods} pods created ({parts}"
        extra = self.pods.extra_count
        message += f", {extra} above minReplicas)" if extra else ")"
        if self.pods.submitter is not None:
            message += "; the submitter is reserved in minResources, not a member"
        real = self.pods.request(extras=False)
        if self.pods.submitter is not None:
            real = _add(real, self.pods.submitter.request)
        under = [n for n in _asked(real) if _get(real, n) > _get(self.minimum, n)]
        if under:
            # kuberay accounting leaves out init containers and overhead (peers.md pain 2):
            # Volcano then admits a gang on a reservation smaller than what it will use.
            message += (
                f"; minResources reserve less than the pods request "
                f"({_show_res(self.minimum, under)} < {_show_res(real, under)}; accounting "
                f"{self.plan.gang.accounting}), placement uses what the pods request"
            )
        if gang.min_member > pods:
            volcano = _gang_condition(gang.min_member, pods, 0, None, "")
            self.add(
                "gang",
                "fail",
                f"minMember {gang.min_member} > {pods} pods",
                f"{volcano} -- Volcano waits for {gang.min_member} pods but only {pods} will "
                "exist, so the gang is never valid. Fix: make minMember match the pods "
                "(check replicas, minReplicas and suspended groups).",
                never=True,
            )
            return
        unmodelled = list(self.pods.unmodelled)
        labels = self.plan.item.job.metadata.labels
        if "volcano.sh/network-topology-mode" in labels:
            unmodelled.append("network topology (volcano.sh/network-topology-mode)")
        if unmodelled:
            text = ", ".join(unmodelled)
            self.add(
                "gang",
                "warn",
                f"{message}; not modelled: {text}",
                f"the gang uses constraints preflight does not model ({text}); placement may "
                "differ from the prediction.",
            )
            return
        self.add("gang", "pass", message)

    # -- 3. capability (static) ----------------------------------------------------------

    def real_capability(self, queue: _QueueView, total: Res | None) -> Res | None:
        """proportion's ``realCapability``; None when neither cluster nor capability bounds it."""
        cap = queue.capability
        if total is None:
            if not queue.capability_raw:
                return None
            out = dict(cap)
            # Unset or non-positive cpu/memory means "no limit" in proportion.
            for name in ("cpu", "memory"):
                if _get(cap, name) <= 0:
                    out.pop(name, None)
            return out
        queues = self.cluster.queues.values() if self.cluster is not None else [queue]
        total_guarantee = _add(*(q.guarantee for q in queues))
        if queue.name not in {q.name for q in queues}:
            total_guarantee = _add(total_guarantee, queue.guarantee)
        real = _add(_exceeded(total, total_guarantee), queue.guarantee)
        if not queue.capability_raw:
            return real
        for name in ("cpu", "memory"):
            if _get(cap, name) > 0:
                real[name] = min(_get(real, name), cap[name])
        for name in list(real):
            if name not in ("cpu", "memory") and name in cap:
                real[name] = min(real[name], cap[name])
        return real

    def check_capability(self) -> None:
        q = self.queue
        if q is None:
            self.add("capability", "skip", f"queue {self.qname} unknown")
            return
        total = self.cluster.total if self.cluster is not None and self.cluster.has_nodes else None
        real = self.real_capability(q, total)
        if real is None:
            self.add(
                "capability",
                "skip" if total is None else "pass",
                f"queue {q.name} has no capability; the cluster size is unknown without a snapshot",
            )
            return
        if total is None:
            # Without nodes only names the capability bounds can be compared.
            bounded = {n: v for n, v in self.minimum.items() if n in real}
            short = _insufficient(bounded, real, bounded)
        else:
            short = _insufficient(self.minimum, real, self.minimum)
        need = _show_res(self.minimum, _ordered(n for n in self.minimum if n != "pods"))
        if not short:
            scope = (
                "capability"
                if total is None
                else "realCapability (capability, cluster size, other queues' guarantees)"
            )
            self.add("capability", "pass", f"minResources ({need}) fit queue {q.name}'s {scope}")
            return
        volcano = "queue resource quota insufficient: " + ", ".join(
            f"insufficient {n}" for n in short
        )
        limits: list[str] = []
        fixes: list[str] = []
        for name in short:
            limit, fix = self.capability_limit(q, name, real, total)
            limits.append(limit)
            fixes.append(fix)
        deficit = {n: _get(self.minimum, n) - _get(real, n) for n in short}
        shrink = self.replica_fix(deficit)
        fix = "; or ".join(([shrink] if shrink else []) + fixes)
        self.short["capability"] = set(short)
        self.add(
            "capability",
            "fail",
            f"{volcano}: minResources ({need}) exceed what queue {q.name} can ever hold: "
            f"{'; '.join(limits)}",
            f"{volcano} -- the gang needs {_show_res(self.minimum, short)} but "
            f"{'; '.join(limits)}, so the PodGroup stays Pending forever. Fix: {fix}.",
            never=True,
        )

    def capability_limit(
        self, q: _QueueView, name: str, real: Res, total: Res | None
    ) -> tuple[str, str]:
        """What bounds the queue in ``name``, and the change that lifts the bound."""
        need = _show(name, _get(self.minimum, name))
        capped = name in q.capability and (name not in ("cpu", "memory") or q.capability[name] > 0)
        if total is None or (capped and _get(real, name) >= q.capability[name]):
            value = _show(name, _get(real, name))
            return (
                f"queue {q.name} capability {name} is {value}",
                f"raise queue {q.name} capability {name} from {value} to {need}",
            )
        offered = _get(total, name)
        if offered <= 0:
            return (
                f"no node offers {name}",
                f"add nodes that offer {name}, or drop the {name} request",
            )
        guaranteed = offered + _get(q.guarantee, name) - _get(real, name)
        if guaranteed > 0:
            return (
                f"the cluster has {name} {_show(name, offered)} of which other queues are "
                f"guaranteed {_show(name, guaranteed)}",
                f"lower other queues' guarantee of {name}, or add nodes",
            )
        return (
            f"the whole cluster has {name} {_show(name, offered)}",
            f"add nodes with {_show_res(_sub(self.minimum, real), [name])} more",
        )

    # -- 4. per-pod fit (static) ---------------------------------------------------------

    def check_fit(self) -> None:
        if self.cluster is not None and self.cluster.has_nodes:
            empty = self.cluster.shared.empty
            what = "node"
        elif self.shapes:
            empty = _EmptyNodes(_shape_nodes(self.shapes))
            what = "declared node shape"
        else:
            where = (
                "no cluster snapshot"
                if self.cluster is None
                else "the snapshot holds no Node objects"
            )
            self.add("fit", "skip", f"{where} and no declared node shapes (raygang:nodeShapes)")
            return
        nodes = empty.nodes
        for task in self.distinct_tasks():
            if empty.fit(task)[0]:
                continue
            reasons = empty.reasons(task)
            message = _fit_error_message(reasons, len(nodes))
            self.add(
                "fit",
                "fail",
                f"the {task.label} pod fits no {what}, even empty: {message}",
                f"{message} -- the {task.label} pod "
                f"({_show_res(task.request, _asked(task.request))}) fits no {what} even when "
                f"the {what} is empty. Fix: {self.static_fix(task, nodes, reasons)}.",
                never=True,
            )
            return
        bound = self.capacity_bound(empty) if what == "node" else None
        if bound is not None:
            task, holds, want = bound
            members = self.pods.counts.get(task.group, 0)
            fix = (
                self.group_fix(task, holds)
                if holds < members
                else self.replica_cut(task, want - holds) or "add nodes"
            )
            self.add(
                "fit",
                "fail",
                f"even with every node empty only {holds} {task.label} pods fit; the job "
                f"starts {want}",
                f"{want - holds} of the {want} {task.label} pods can never be placed: all "
                f"nodes together, even empty, hold only {holds} of them "
                f"({_show_res(task.request, _asked(task.request))} each). Fix: {fix}.",
                never=True,
            )
            return
        self.add("fit", "pass", f"every pod of the job fits some {what} when it is empty")

    def distinct_tasks(self) -> list[_Task]:
        """One pod of each role: the head, each worker group, the submitter."""
        tasks = [t for t, _, _ in self.pods.roles]
        return tasks + ([self.pods.submitter] if self.pods.submitter else [])

    def capacity_bound(self, empty: _EmptyNodes) -> tuple[_Task, int, int] | None:
        """A proof that the job cannot fit even an empty cluster.

        A group whose pods outnumber what all nodes together can hold, each node holding
        ``min over resource names of allocatable // request`` of them.
        """
        for task, members, extras in self.pods.roles:
            want = members + extras
            if task.best_effort or want == 0:
                continue
            holds = empty.fit(task)[1]
            if holds < want:
                return task, holds, want
        return None

    # -- 5. enqueue: overcommit and proportion -------------------------------------------

    def admitted_before(self) -> list[_Admitted]:
        """Pending PodGroups that pass the enqueue gate now, oldest first.

        Our PodGroup does not exist yet; the scheduler runs every second, so by the time
        it does, these are Inqueue and hold their reservation.
        """
        assert self.cluster is not None
        admitted: list[_Admitted] = []
        for group in self.cluster.groups:
            if not group.is_pending:
                continue  # only Pending PodGroups are enqueued
            ok, _ = self.vote(group.queue, group.min_raw, admitted)
            if ok and group.min_raw is not None:
                admitted.append(_Admitted(group.key, group.queue, group.min_res))
        return admitted

    def vote(
        self,
        queue: str,
        min_raw: Mapping[str, Quantity] | None,
        admitted: Sequence[_Admitted] = (),
    ) -> tuple[bool, str | None]:
        """Volcano's enqueue decision for a Pending PodGroup of ``queue``.

        Returns:
            ``(admitted, event)``: the event is the PodGroup event Volcano records when it
            rejects (None when it admits, or rejects silently).
        """
        view = self.queue_view(queue)
        if view is None:
            return False, None  # the job is dropped from the session
        if min_raw is None:
            return True, None  # no vote at all, even in a closed queue
        minimum = _res(min_raw)
        short = self.overcommit_short(minimum, admitted)
        if short:
            return False, "resource in cluster is overused: " + ", ".join(
                f"overused {n}" for n in short
            )
        if not view.open:
            return False, None
        short = self.proportion_short(view, minimum, admitted)
        if short:
            return False, "queue resource quota insufficient: " + ", ".join(
                f"insufficient {n}" for n in short
            )
        return True, None

    def overcommit_idle(self) -> Res:
        assert self.cluster is not None
        return _sub(_scale(self.cluster.total, self.factor), self.cluster.used)

    def overcommit_held(self, admitted: Sequence[_Admitted]) -> Res:
        assert self.cluster is not None
        held: Res = {}
        for group in self.cluster.groups:
            if group.inqueue:
                held = _add(held, group.min_res)
            elif group.running_reserved and group.min_raw is not None:
                held = _add(held, _inqueue_resource(group.min_raw, group.allocated))
        return _add(held, *(a.minimum for a in admitted))

    def overcommit_short(self, minimum: Res, admitted: Sequence[_Admitted]) -> list[str]:
        return _insufficient(
            _add(self.overcommit_held(admitted), minimum), self.overcommit_idle(), minimum
        )

    def queue_committed(self, queue: str, admitted: Sequence[_Admitted]) -> Res:
        """``allocated + inqueue - elastic`` of a queue, plus gangs admitted before ours."""
        assert self.cluster is not None
        allocated: Res = {}
        inqueue: Res = {}
        elastic: Res = {}
        for group in self.cluster.groups:
            if group.queue != queue:
                continue
            group_allocated = group.allocated
            allocated = _add(allocated, group_allocated)
            if (group.inqueue or group.running_reserved) and group.min_raw is not None:
                inqueue = _add(inqueue, _inqueue_resource(group.min_raw, group_allocated))
            elastic = _add(elastic, _exceeded(group_allocated, group.min_res))
        early = _add(*(a.minimum for a in admitted if a.queue == queue))
        return _add(_sub(_add(allocated, inqueue), elastic), early)

    def proportion_short(
        self, queue: _QueueView, minimum: Res, admitted: Sequence[_Admitted]
    ) -> list[str]:
        assert self.cluster is not None
        real = self.real_capability(queue, self.cluster.total) or {}
        return _insufficient(
            _add(minimum, self.queue_committed(queue.name, admitted)), real, minimum
        )

    def blockers(self, names: Sequence[str], queue: str | None) -> list[str]:
        """Reservations that hold the short resources, stale ones first (research §14.3)."""
        assert self.cluster is not None
        out = []
        for group in self.cluster.groups:
            if queue is not None and group.queue != queue:
                continue
            if group.inqueue:
                held = group.min_res
            elif group.running_reserved and group.min_raw is not None:
                held = (
                    _inqueue_resource(group.min_raw, group.allocated)
                    if queue is None
                    else group.min_res
                )
            else:
                continue
            if not any(_get(held, n) > 0 for n in names):
                continue
            stale = group.live_pods == 0
            note = (
                "Inqueue with no live pods, likely stale: delete it if its job is gone"
                if stale
                else group.phase
            )
            holds = _show_res(held, [n for n in names if _get(held, n) > 0])
            out.append((not stale, f"{group.key} ({note}; holds {holds})"))
        return [text for _, text in sorted(out)]

    def check_enqueue(self, admitted: list[_Admitted]) -> None:
        if self.cluster is None or not self.cluster.has_nodes:
            where = "no cluster snapshot" if self.cluster is None else "no Node objects"
            self.add("overcommit", "skip", f"{where}: cluster usage unknown")
            self.add("proportion", "skip", f"{where}: queue usage unknown")
            return
        early = f"; {len(admitted)} Pending PodGroup(s) are admitted first" if admitted else ""
        self.check_overcommit(admitted, early)
        self.check_proportion(admitted, early)

    def check_overcommit(self, admitted: list[_Admitted], early: str) -> None:
        assert self.cluster is not None
        minimum = self.minimum
        idle = self.overcommit_idle()
        held = self.overcommit_held(admitted)
        short = _insufficient(_add(held, minimum), idle, minimum)
        names = _asked(minimum)
        factor = self.factor_text()
        if not short:
            left = _show_res(_sub(idle, held), names)
            self.add(
                "overcommit",
                "pass",
                f"needs {_show_res(minimum, names)}; {factor} x allocatable - used - reserved "
                f"leaves {left}{early}",
            )
            return
        volcano = "resource in cluster is overused: " + ", ".join(f"overused {n}" for n in short)
        deficit = {n: _get(held, n) + _get(minimum, n) - _get(idle, n) for n in short}
        fixes = []
        blockers = self.blockers(short, None)
        if blockers:
            fixes.append("finish or delete " + ", ".join(blockers))
        shrink = self.replica_fix(deficit)
        if shrink:
            fixes.append(shrink)
        total = self.cluster.total
        for name in short:
            if _get(total, name) <= 0:
                fixes.append(f"add nodes that offer {name}")
            else:
                more = _round_up(name, deficit[name] / self.factor)
                fixes.append(f"add nodes with {name} {_show(name, more)} allocatable")
        same = "capability" if short and set(short) <= self.short.get("capability", set()) else ""
        self.add(
            "overcommit",
            "fail",
            f"{volcano}: needs {_show_res(minimum, short)}; {factor} x allocatable "
            f"({_show_res(_scale(total, self.factor), short)}) - used "
            f"({_show_res(self.cluster.used, short)}) leaves {_show_res(idle, short)}, and "
            f"admitted gangs reserve {_show_res(held, short)}{early}",
            f"{volcano} -- enqueue admits a gang only while {factor} x the cluster's "
            f"allocatable, minus what pods use and what admitted gangs reserve "
            f"({_show_res(held, short)}), still covers it; the PodGroup stays Pending. "
            f"Fix: {'; or '.join(fixes)}.",
            same_cause=same,
        )

    def check_proportion(self, admitted: list[_Admitted], early: str) -> None:
        assert self.cluster is not None
        minimum = self.minimum
        names = _asked(minimum)
        q = self.queue
        if q is None:
            self.add("proportion", "skip", f"queue {self.qname} unknown")
            return
        if not q.open:
            self.add(
                "proportion",
                "fail",
                f"queue {q.name} is not Open: proportion rejects the gang (no event)",
                same_cause="queue",
            )
            return
        real = self.real_capability(q, self.cluster.total) or {}
        committed = self.queue_committed(q.name, admitted)
        short = _insufficient(_add(minimum, committed), real, minimum)
        if not short:
            self.add(
                "proportion",
                "pass",
                f"queue {q.name}: realCapability {_show_res(real, names)}, committed "
                f"{_show_res(committed, names)}, this gang {_show_res(minimum, names)}{early}",
            )
            return
        volcano = "queue resource quota insufficient: " + ", ".join(
            f"insufficient {n}" for n in short
        )
        deficit = {n: _get(committed, n) + _get(minimum, n) - _get(real, n) for n in short}
        fixes = []
        blockers = self.blockers(short, q.name)
        if blockers:
            fixes.append("finish or delete " + ", ".join(blockers))
        shrink = self.replica_fix(deficit)
        if shrink:
            fixes.append(shrink)
        if all(n in q.capability and _get(real, n) >= q.capability[n] for n in short):
            fixes.append(
                " and ".join(
                    f"raise queue {q.name} capability {n} from {_show(n, q.capability[n])} "
                    f"to {_show(n, _get(committed, n) + _get(minimum, n))}"
                    for n in short
                )
            )
        self.add(
            "proportion",
            "fail",
            f"{volcano}: queue {q.name} realCapability {_show_res(real, short)}, committed "
            f"{_show_res(committed, short)}, this gang {_show_res(minimum, short)}{early}",
            f"{volcano} -- queue {q.name} can hold {_show_res(real, short)}, its admitted "
            f"gangs already hold {_show_res(committed, short)} and this gang needs "
            f"{_show_res(minimum, short)} more, so the PodGroup stays Pending. "
            f"Fix: {'; or '.join(fixes)}.",
            same_cause="capability",
        )

    def factor_text(self) -> str:
        factor = self.factor
        return str(float(factor)) if factor.denominator in (1, 2, 4, 5, 10) else f"{factor}"

    # -- 6. fair share (allocate) --------------------------------------------------------

    def deserved(self) -> tuple[dict[str, Res], dict[str, Res]]:
        """proportion's water-filled ``deserved`` per queue with jobs, and their allocations."""
        assert self.cluster is not None
        queues: dict[str, _QueueView] = {}
        request: dict[str, Res] = {}
        allocated: dict[str, Res] = {}
        for group in self.cluster.groups:
            view = self.queue_view(group.queue)
            if view is None:
                continue  # dropped from the session
            queues[view.name] = view
            alloc = group.allocated
            allocated[view.name] = _add(allocated.get(view.name, {}), alloc)
            pending = _add(*(p.request for p in group.pods if p.pending))
            request[view.name] = _add(request.get(view.name, {}), alloc, pending)
        assert self.queue is not None
        ours = self.queue.name
        queues[ours] = self.queue
        own_request = self.pods.request(extras=True)
        request[ours] = _add(request.get(ours, {}), own_request)
        allocated.setdefault(ours, {})
        total = self.cluster.total
        real = {name: self.real_capability(q, total) or {} for name, q in queues.items()}
        deserved: dict[str, Res] = {name: {} for name in queues}
        met: set[str] = set()
        remaining = dict(total)
        while True:
            weight = sum(q.weight for n, q in queues.items() if n not in met)
            if weight == 0:
                break
            before = dict(remaining)
            increased: Res = {}
            decreased: Res = {}
            for name in sorted(queues):
                if name in met:
                    continue
                q = queues[name]
                old = deserved[name]
                new = _add(old, _scale(remaining, Fraction(q.weight, weight)))
                new = _min_dim(new, real[name], missing_is_zero=False)
                new = _min_dim(new, request.get(name, {}), missing_is_zero=True)
                new = {n: max(v, _get(q.guarantee, n)) for n, v in {**q.guarantee, **new}.items()}
                deserved[name] = new
                if _fits(request.get(name, {}), new) or new == old:
                    met.add(name)
                increased = _add(increased, _exceeded(new, old))
                decreased = _add(decreased, _exceeded(old, new))
            remaining = _exceeded(_add(remaining, decreased), increased)
            empty = all(v < _EPSILON for n, v in remaining.items() if n != "pods")
            if empty or remaining == before:
                break
        return deserved, allocated

    def check_fair_share(self) -> tuple[Res, Res] | None:
        if self.cluster is None:
            self.add("fair-share", "skip", "no cluster snapshot: other queues' demand unknown")
            return None
        if not self.cluster.has_nodes:
            self.add("fair-share", "skip", "the snapshot holds no Node objects")
            return None
        if self.queue is None:
            self.add("fair-share", "skip", f"queue {self.qname} unknown")
            return None
        deserved, allocated = self.deserved()
        q = self.queue
        mine = deserved[q.name]
        used = allocated[q.name]
        names = [n for n in _ordered(self.minimum) if n != "pods"]
        queues = len(deserved)
        among = f"among {queues} queues with jobs" if queues > 1 else "the only queue with jobs"
        gang = self.pods.request()
        short = _insufficient(_add(used, gang), mine, gang)
        if not short:
            self.add(
                "fair-share",
                "pass",
                f"queue {q.name} deserves {_show_res(mine, names)} ({among}); allocated "
                f"{_show_res(used, names)} + gang {_show_res(gang, names)} fit",
            )
            return mine, used
        over = _sub(_add(used, gang), mine)
        same = "capability" if set(short) <= self.short.get("capability", set()) else ""
        self.add(
            "fair-share",
            "fail",
            f"queue {q.name} deserves {_show_res(mine, short)} ({among}), has "
            f"{_show_res(used, short)} allocated; the gang needs {_show_res(gang, short)}",
            f"Queue <{q.name}> is overused when considering task <...>, ignore it (scheduler "
            f"log only, no event) -- allocate gives queue {q.name} at most its weighted fair "
            f"share {_show_res(mine, short)}; it already has {_show_res(used, short)} and "
            "the default actions never reclaim from other queues. Fix: raise queue "
            f"{q.name}'s weight or guarantee, or shrink the gang by {_show_res(over, short)}.",
            same_cause=same,
        )
        return mine, used

    # -- 7. placement --------------------------------------------------------------------

    @property
    def ranking(self) -> _Ranking | None:
        return self.cluster.ranking if self.cluster is not None else None

    def place_others(self) -> tuple[list[_Node], list[str]]:
        """The nodes once the pending pods Volcano places before ours are placed.

        Inqueue and Running gangs (and Pending ones admitted first) with pending pods
        are placed first, oldest first; a gang that cannot be placed takes nothing.
        """
        assert self.cluster is not None
        ranking = self.ranking
        nodes = list(self.cluster.nodes)
        notes: list[str] = []
        admitted = {a.name for a in self.early}
        for group in self.cluster.groups:
            pending = group.pending_pods
            if not pending or len(pending) > _MAX_SIMULATED_PODS:
                continue
            if group.phase not in ("Inqueue", "Running") and group.key not in admitted:
                continue  # still Pending: allocate skips it
            if self.queue_view(group.queue) is None:
                continue  # its queue is gone: the job is dropped from the session
            tasks = [p.task() for p in pending]
            if group.ready_tasks < group.min_member:
                live = sum(1 for p in group.pods if not p.terminal)
                outcome = _place_gang(
                    tasks,
                    nodes,
                    group.min_member,
                    already_ready=group.ready_tasks,
                    whole_gang=group.min_member >= live,
                    ranking=ranking,
                )
                if not outcome.ready:
                    continue  # discarded: it takes nothing, but keeps its reservation
                tasks = tasks[outcome.tried :]
                notes.append(f"{group.key} places its gang first")
            # A ready gang places its remaining pods one by one.
            placed, _, _ = _place_singly(tasks, nodes, ranking)
            if placed and group.ready_tasks >= group.min_member:
                notes.append(f"{group.key} places {len(placed)} pending pod(s) first")
        return nodes, notes

    def base_after_others(self) -> tuple[list[_Node], list[str]]:
        """``place_others()``, computed once per stack when the job has no object in the
        snapshot (it depends only on which Pending gangs are admitted first): fresh copies.
        """
        if self._base is None:
            cluster = self.cluster
            assert cluster is not None
            key = tuple(a.name for a in self.early)
            cached = cluster.shared.bases.get(key) if cluster.whole else None
            if cached is None:
                cached = self.place_others()
                if cluster.whole:
                    bases = cluster.shared.bases
                    bases[key] = cached
                    if len(bases) > _BASES_KEPT:
                        del bases[next(iter(bases))]
            self._base = cached
        nodes, notes = self._base
        return list(nodes), list(notes)

    def after_siblings(self, gangs: Sequence[tuple[Sequence[_Task], int]]) -> list[_Node]:
        """``base_after_others()`` with the stack's other gangs placed first, in order."""
        nodes, _ = self.base_after_others()
        for tasks, min_member in gangs:
            _place_gang(tasks, nodes, min_member, whole_gang=True, ranking=self.ranking)
        return nodes

    def roomy(self, base: Sequence[_Node]) -> bool:
        return self.ranking is not None and _roomy(self.pods.gang, base, self.ranking)

    def simulate(
        self, nodes: list[_Node], gang: Sequence[_Task], queue_ok: QueueGate | None
    ) -> _GangOutcome:
        """Place this job's gang in the given pod order."""
        return _place_gang(
            gang,
            nodes,
            self.plan.gang.min_member,
            # The submitter does not exist yet, so the job's pods are the gang and extras.
            whole_gang=self.plan.gang.min_member >= self.pods.created,
            queue_ok=queue_ok,
            ranking=self.ranking,
        )

    def check_placement(self, fair: tuple[Res, Res] | None) -> None:
        if self.cluster is None or not self.cluster.has_nodes:
            why = "no cluster snapshot" if self.cluster is None else "no Node objects"
            self.add("placement", "skip", f"{why}: where the pods land is unknown")
            self.add_submitter_skip(why)
            return
        if self.pods.created > _MAX_SIMULATED_PODS:
            self.add("placement", "skip", f"{self.pods.created} pods: too many to simulate")
            self.add_submitter_skip("placement not simulated")
            return
        # When the fair-share check already failed, place without it so this check tells
        # whether the nodes themselves could take the gang.
        queue_ok = self.queue_gate(fair) if "fair-share" not in self.failed else None
        base, notes = self.base_after_others()
        prefix = ("; ".join(notes) + "; ") if notes else ""
        gang = self.pods.gang
        nodes = list(base)
        first = self.simulate(nodes, gang, queue_ok)
        # KubeRay creates the head first, but pods of the same second are ordered by UID.
        # Any order succeeds when the first placed every pod on idle room and every kind of
        # pod has as many untouched nodes as the gang has pods (see roomy).
        any_order = (
            first.ready
            and first.allocated == len(first.placed) == sum(1 for t in gang if not t.best_effort)
            and first.queue_blocked is None
            and self.roomy(base)
        )
        second = (
            self.simulate(list(base), gang[1:] + gang[:1], queue_ok)
            if len(gang) > 1 and not any_order
            else first
        )
        ok_first = first.ready or first.pipelined
        ok_second = second.ready or second.pipelined
        if not (ok_first and ok_second):
            order = "head first (KubeRay's creation order)" if not ok_first else "head last"
            failing = first if not ok_first else second
            self.add_placement_failure(
                base, failing, ok_first or ok_second, prefix, queue_ok, order
            )
            self.add("submitter", "skip", "not reached: the gang is not placed")
            return
        extras = self.pods.extras
        placed, failed, errors = _place_singly(extras, nodes, self.ranking)
        if failed is not None:
            message = _fit_error_message(errors, len(nodes))
            left = len(extras) - len(placed)
            fix = self.replica_cut(failed, left) or f"free room for {left} {failed.label} pod(s)"
            self.add(
                "placement",
                "fail",
                f"{prefix}the gang fits but {left} {failed.label} pod(s) above minReplicas do "
                f"not: {message}",
                f"{message} -- the gang ({self.plan.gang.min_member} pods) is placed, but {left} "
                f"{failed.label} pod(s) above minReplicas stay Pending, so the RayCluster never "
                f"reports ready and the stack waits for it. Fix: {fix}.",
            )
            self.add("submitter", "skip", "not reached: the RayCluster never becomes ready")
            return
        where = ", ".join(sorted({node for _, node in first.placed} | set(placed)))
        waiting = " (some wait for terminating pods to release room)" if first.pipelined else ""
        count = self.pods.created
        pods = f"all {count} pods fit" if count > 1 else "the pod fits"
        order = " in either pod order" if count > 1 else ""
        self.add("placement", "pass", f"{prefix}{pods} on {where}{order}{waiting}")
        self.check_submitter(nodes)

    def add_submitter_skip(self, why: str) -> None:
        if self.pods.submitter is None:
            self.add("submitter", "pass", self.no_submitter())
        else:
            self.add("submitter", "skip", why)

    def no_submitter(self) -> str:
        mode = self.plan.mode
        return f"{mode}: " + (
            "it runs in the head pod" if mode == "SidecarMode" else "no submitter pod"
        )

    def queue_gate(self, fair: tuple[Res, Res] | None) -> QueueGate | None:
        if fair is None:
            return None
        deserved, allocated = fair

        def ok(task: _Task, placed: Res) -> bool:
            # not _insufficient(_add(allocated, placed, request), deserved, request): only
            # the names the pod asks for (pods never), per name, without the sums' dicts.
            for name, value in task.request.items():
                if value > 0 and name != "pods":
                    total = allocated.get(name, _ZERO) + placed.get(name, _ZERO) + value
                    if total > deserved.get(name, _ZERO):
                        return False
            return True

        return ok

    def add_placement_failure(
        self,
        base: list[_Node],
        outcome: _GangOutcome,
        order_dependent: bool,
        prefix: str,
        queue_ok: QueueGate | None,
        order: str,
    ) -> None:
        gang = self.plan.gang
        pods = len(self.pods.gang) + len(self.pods.extras)
        if outcome.failed is None:
            blocked = outcome.queue_blocked
            label = blocked.label if blocked else "a pod"
            self.add(
                "placement",
                "fail",
                f"{prefix}the {label} pod is refused by queue {self.qname}'s fair share",
                f"{_gang_condition(gang.min_member, pods, outcome.allocated, None, '')} -- "
                f"queue {self.qname}'s fair share runs out before the gang is complete. "
                "Fix: raise the queue's weight or guarantee, or shrink the gang.",
                same_cause="fit",
            )
            return
        failed = outcome.failed
        placed = sum(1 for task, _ in outcome.placed if task.group == failed.group)

        def fix() -> str:
            return self.group_fix(failed, None, base, queue_ok, placed)

        message = _fit_error_message(outcome.fit_errors, len(base))
        volcano = _gang_condition(gang.min_member, pods, outcome.allocated, failed, message)
        packable = _best_fit_decreasing(self.pods.gang, base)
        free = _add(*(n.idle for n in base if _selects(failed, n)))
        need = self.pods.request()
        asked = _asked(failed.request)
        lacking = {
            r.removeprefix("Insufficient ")
            for r in outcome.fit_errors.values()
            if r.startswith("Insufficient ")
        }
        short_names = _ordered(lacking) or asked
        resources_only = all(r.startswith("Insufficient ") for r in outcome.fit_errors.values())
        aggregate = resources_only and not _short_on_node(
            {n: _get(need, n) for n in short_names}, free
        )
        explanation = f"the {failed.label} pod ({_show_res(failed.request, asked)}) fits no node"
        if outcome.placed:
            explanation += f" once {len(outcome.placed)} pod(s) of the gang are placed"
        most = self.most_free(base, failed, short_names)
        if most:
            explanation += f"; {most}"
        if aggregate:
            explanation += (
                f" although the nodes together have {_show_res(free, short_names)} free: "
                "fragmentation, Volcano places pods one at a time and never moves placed ones"
            )
        if order_dependent or packable:
            detail = "the other order fits" if order_dependent else "a tighter packing fits"
            self.add(
                "placement",
                "warn",
                f"{prefix}{order}: {message} but {detail}: the outcome depends on Volcano's pod "
                "order (creation second, then pod UID) and node scores",
                f"{volcano} -- {explanation}; whether Volcano finds a placement depends on pod "
                f"order and node scoring. Fix: {fix()}.",
            )
            return
        self.add(
            "placement",
            "fail",
            f"{prefix}{message} (the {failed.label} pod)",
            f"{volcano} -- {explanation}. {self.waiting_text()} Fix: {fix()}.",
            same_cause="fit",
        )

    def waiting_text(self) -> str:
        if self.failed & {"overcommit", "proportion", "capability", "queue"}:
            return "Even once admitted it would wait here."
        return (
            "The PodGroup is admitted (Inqueue) and keeps its reservation, blocking other "
            "gangs, while it waits."
        )

    def most_free(self, nodes: Sequence[_Node], task: _Task, names: Sequence[str]) -> str:
        parts = []
        for name in names:
            candidates = [n for n in nodes if _selects(task, n) and _untolerated(task, n) is None]
            if not candidates:
                continue
            best = max(candidates, key=lambda n: (_get(n.future_idle(), name), n.name))
            value = _get(best.future_idle(), name)
            if value < _get(task.request, name):
                most = _show(name, max(value, _ZERO))
                parts.append(f"the most free {name} on a node it may use is {most} ({best.name})")
        return "; ".join(parts)

    def check_submitter(self, nodes: list[_Node]) -> None:
        task = self.pods.submitter
        if task is None:
            self.add("submitter", "pass", self.no_submitter())
            return
        placed, failed, errors = _place_singly([task], nodes, self.ranking)
        if failed is None:
            self.add(
                "submitter",
                "pass",
                f"the submitter pod fits on {placed[0]} after the gang (it is created once the "
                "RayCluster is ready)",
            )
            return
        message = _fit_error_message(errors, len(nodes))
        self.add(
            "submitter",
            "fail",
            f"the submitter pod fits no node once the gang is placed: {message}",
            f"{message} -- the RayCluster comes up but the submitter Job's pod "
            f"({_show_res(task.request, _asked(task.request))}) cannot be "
            "placed, so the Ray job is never submitted. Fix: lower submitterPodTemplate requests, "
            "or free that much on a node the submitter may use.",
        )

    # -- fixes ---------------------------------------------------------------------------

    def worker_groups(self) -> Iterator[tuple[int, GangShare]]:
        index = 0
        for share in self.plan.gang.shares:
            if share.role == "worker":
                yield index, share
                index += 1

    def replica_fix(self, deficit: Mapping[str, Num]) -> str | None:
        """The smallest replica cut of one worker group that frees ``deficit``."""
        cluster = self.plan.item.job.spec.ray_cluster_spec
        if cluster is None or not deficit:
            return None
        scaling = cluster.enable_in_tree_autoscaling is True
        best: tuple[int, str] | None = None
        for index, share in self.worker_groups():
            per = _res(share.per_pod)
            if share.reserved <= 0 or any(_get(per, n) <= 0 for n in deficit):
                continue
            group = cluster.worker_group_specs[index]
            hosts = max(group.num_of_hosts, 1)
            pods = max(_ceil_div(v, _get(per, n)) for n, v in deficit.items())
            drop = _ceil_div(pods, hosts)
            current = share.reserved // hosts
            if drop > current:
                continue
            text = self.replica_text(
                share.group, current, current - drop, scaling, group.min_replicas
            )
            if best is None or drop < best[0]:
                best = (drop, text)
        return best[1] if best else None

    def replica_cut(self, task: _Task, pods: int) -> str | None:
        """Fewer started replicas of ``task``'s worker group, ``pods`` pods fewer."""
        cluster = self.plan.item.job.spec.ray_cluster_spec
        if cluster is None:
            return None
        for group in cluster.worker_group_specs:
            if group.group_name == task.group:
                hosts = max(group.num_of_hosts, 1)
                current = desired_worker_replicas(group) // hosts
                drop = _ceil_div(pods, hosts)
                return (
                    f"reduce worker group {task.group} replicas from {current} to {current - drop}"
                )
        return None

    @staticmethod
    def replica_text(
        group: str, current: int, new: int, scaling: bool, min_replicas: int | None
    ) -> str:
        field_name = "minReplicas" if scaling else "replicas"
        text = f"reduce worker group {group} {field_name} from {current} to {new}"
        if not scaling and min_replicas and new < min_replicas:
            text += f" (and minReplicas to {new})"
        return text

    def group_fix(
        self,
        task: _Task,
        fit_count: int | None,
        base: list[_Node] | None = None,
        queue_ok: QueueGate | None = None,
        hint: int | None = None,
    ) -> str:
        """Fewer pods of the failing worker group, or a smaller pod, or more nodes.

        ``hint``: how many pods of the group a failed attempt placed (see ``max_members``).
        """
        cluster = self.plan.item.job.spec.ray_cluster_spec
        options = []
        if task.label.startswith("worker group") and cluster is not None:
            index, share = next(
                ((i, s) for i, s in self.worker_groups() if s.group == task.group), (None, None)
            )
            if index is not None and share is not None:
                group = cluster.worker_group_specs[index]
                hosts = max(group.num_of_hosts, 1)
                scaling = cluster.enable_in_tree_autoscaling is True
                current_pods = share.members
                fits = (
                    fit_count
                    if fit_count is not None
                    else self.max_members(task, base or [], queue_ok, hint)
                )
                if fits is not None and fits < current_pods:
                    new = fits // hosts
                    options.append(
                        self.replica_text(
                            task.group, current_pods // hosts, new, scaling, group.min_replicas
                        )
                    )
        options.append(
            f"add a node that can take a {task.label} pod "
            f"({_show_res(task.request, _asked(task.request))})"
        )
        return ", or ".join(options)

    def max_members(
        self,
        task: _Task,
        base: list[_Node],
        queue_ok: QueueGate | None,
        hint: int | None = None,
    ) -> int | None:
        """The most pods of ``task``'s group with which the whole gang still places.

        A binary search over the group's size, the rest of the gang unchanged, that tries
        ``hint`` (a likely answer) first.
        """
        if not base:
            return None
        members = self.pods.counts.get(task.group, 0)

        def places(size: int) -> bool:
            gang = [
                t
                for role, count, _ in self.pods.roles
                for t in [role] * (size if role.group == task.group else count)
            ]
            outcome = _place_gang(
                gang,
                list(base),
                len(gang),
                whole_gang=True,
                queue_ok=queue_ok,
                ranking=self.ranking,
            )
            return outcome.ready or outcome.pipelined

        # The failed attempt placed ``hint`` pods of the group before one fit nowhere; the
        # answer is usually that many, so the search starts there: hint places and hint + 1
        # does not settle it with two attempts (the search assumes, as before, that fewer
        # pods never place worse).
        if hint is not None and 0 <= hint < members:
            if places(hint):
                if hint + 1 >= members or not places(hint + 1):
                    return hint
                low, high, found = hint + 2, members - 1, hint + 1
            else:
                low, high, found = 0, hint - 1, None
        else:
            low, high, found = 0, members - 1, None
        while low <= high:
            mid = (low + high) // 2
            if places(mid):
                found, low = mid, mid + 1
            else:
                high = mid - 1
        return found

    def static_fix(self, task: _Task, nodes: Sequence[_Node], reasons: Mapping[str, str]) -> str:
        """The smallest change that lets ``task`` onto some empty node, per kind of refusal."""
        fixes = []
        tainted = [
            n for n in nodes if reasons.get(n.name, "").startswith("node(s) had untolerated")
        ]
        if tainted:
            taint = _untolerated(task, tainted[0])
            assert taint is not None
            fixes.append(
                f"add toleration {{key: {taint.get('key')}, operator: Exists, effect: "
                f"{taint.get('effect')}}} to the {task.label} pod template"
            )
        if "node(s) didn't match Pod's node affinity/selector" in reasons.values():
            fixes.append(f"change the {task.label} nodeSelector/affinity to match a node's labels")
        short = {r.removeprefix("Insufficient ") for r in reasons.values() if r.startswith("Insuf")}
        for name in _ordered(short):
            offered = [_get(n.allocatable, name) for n in nodes if _get(n.allocatable, name) > 0]
            if not offered:
                fixes.append(f"add nodes that offer {name}, or drop the {name} request")
                continue
            asked = _show(name, _get(task.request, name))
            fixes.append(
                f"lower the {task.label} {name} request from {asked} to at most "
                f"{_show(name, max(offered))} (the largest node), or add a larger node"
            )
        return "; or ".join(fixes) or "change the pod's scheduling constraints"

    # -- 8. siblings (advisory) ----------------------------------------------------------

    def check_siblings(self) -> None:
        if not self.siblings:
            self.add("siblings", "pass", f"no other job of this stack uses queue {self.qname}")
            return
        shown = [f"{s.namespace}/{s.name}" for s in self.siblings[:_SIBLINGS_NAMED]]
        more = len(self.siblings) - len(shown)
        names = ", ".join(shown) + (f" and {more} more" if more else "")
        combined = _add(self.minimum, self.siblings_minimum)
        problems: list[str] = []
        q = self.queue
        if self.cluster is not None and self.cluster.has_nodes and q is not None:
            # The gates only sum what is admitted ahead: the siblings as one.
            ahead = [_Admitted("the stack's other jobs", self.qname, self.siblings_minimum)]
            alone_oc = self.overcommit_short(self.minimum, self.early)
            together_oc = self.overcommit_short(self.minimum, [*self.early, *ahead])
            if together_oc and not alone_oc:
                problems.append(
                    "resource in cluster is overused: "
                    + ", ".join(f"overused {n}" for n in together_oc)
                )
            if q.open:
                alone_q = self.proportion_short(q, self.minimum, self.early)
                together_q = self.proportion_short(q, self.minimum, [*self.early, *ahead])
                if together_q and not alone_q:
                    problems.append(
                        "queue resource quota insufficient: "
                        + ", ".join(f"insufficient {n}" for n in together_q)
                    )
            many = len(self.siblings) > _MAX_SIMULATED_SIBLINGS
            sibling_pods = [] if many else [_job_pods(s) for s in self.siblings]
            small = all(p.created <= _MAX_SIMULATED_PODS for p in [self.pods, *sibling_pods])
            if not problems and many:
                problems += self.siblings_by_sum(combined)
            elif not problems and small:
                gangs = [
                    (list(p.gang), s.gang.min_member)
                    for p, s in zip(sibling_pods, self.siblings, strict=True)
                ]
                alone_nodes, _ = self.base_after_others()
                together_nodes = self.after_siblings(gangs)
                alone = _place_gang(
                    self.pods.gang,
                    alone_nodes,
                    self.plan.gang.min_member,
                    whole_gang=True,
                    ranking=self.ranking,
                )
                together = _place_gang(
                    self.pods.gang,
                    together_nodes,
                    self.plan.gang.min_member,
                    whole_gang=True,
                    ranking=self.ranking,
                )
                if (alone.ready or alone.pipelined) and not (together.ready or together.pipelined):
                    problems.append(
                        "the nodes cannot hold all these gangs at once: "
                        + _fit_error_message(together.fit_errors, len(together_nodes))
                    )
        elif q is not None and q.capability_raw:
            real = self.real_capability(q, None) or {}
            bounded = {n: v for n, v in combined.items() if n in real}
            short = _insufficient(bounded, real, bounded)
            if short and not _insufficient(
                {n: v for n, v in self.minimum.items() if n in real}, real, self.minimum
            ):
                problems.append(
                    f"together they need {_show_res(combined, short)}, queue {q.name} "
                    f"capability is {_show_res(real, short)}"
                )
        if problems:
            timeout = self.plan.settings.cluster_ready_timeout_seconds
            self.add(
                "siblings",
                "warn",
                f"with {names} (same stack, same queue {self.qname}): {'; '.join(problems)} -- "
                "Volcano admits them one after another (by priority, then age), so this job may "
                "wait for another to finish, while pulumi up waits at most "
                f"clusterReadyTimeoutSeconds ({timeout}s) for its RayCluster",
            )
        else:
            self.add(
                "siblings",
                "pass",
                f"fits together with {names} (same stack, same queue {self.qname})"
                + (
                    f" by summed resources (more than {_MAX_SIMULATED_SIBLINGS} jobs in the "
                    "queue: the gangs are not placed one by one)"
                    if len(self.siblings) > _MAX_SIMULATED_SIBLINGS
                    and self.cluster is not None
                    and self.cluster.has_nodes
                    and self.queue is not None
                    else ""
                ),
            )

    def siblings_by_sum(self, combined: Res) -> list[str]:
        """Too many siblings to place one gang after another for every job of the stack
        (that is quadratic in the stack's size): compare the gangs' summed minimum with
        the room the nodes have left once the pods placed before ours are placed.

        A shortfall here is certain (no placement can beat the sum); room in total does
        not prove that every gang finds nodes, which the message says.
        """
        nodes, _ = self.base_after_others()
        alone = (
            _place_gang(
                self.pods.gang,
                nodes,
                self.plan.gang.min_member,
                whole_gang=True,
                ranking=self.ranking,
            )
            if self.pods.created <= _MAX_SIMULATED_PODS and not self.roomy(nodes)
            else None
        )
        if alone is not None and not (alone.ready or alone.pipelined):
            return []  # it does not fit alone: the placement check already says so
        nodes, _ = self.base_after_others()
        room = _add(*(n.future_idle() for n in nodes if not n.unschedulable))
        short = _insufficient(combined, room, combined)
        if not short:
            return []
        return [
            f"the nodes cannot hold all these gangs at once: together they need "
            f"{_show_res(combined, short)}, the nodes have {_show_res(room, short)} left "
            f"(summed over the nodes: with more than {_MAX_SIMULATED_SIBLINGS} jobs in the "
            "queue the gangs are not placed one by one)"
        ]

    # -- driver --------------------------------------------------------------------------

    def run(self) -> PreflightResult:
        self.check_snapshot()
        self.check_queue()
        self.check_gang()
        self.check_capability()
        self.check_fit()
        self.early = (
            self.admitted_before() if self.cluster is not None and self.cluster.has_nodes else []
        )
        self.check_enqueue(self.early)
        fair = self.check_fair_share()
        self.check_placement(fair)
        self.check_siblings()
        return self.result()


def _min_dim(left: Mapping[str, Num], right: Mapping[str, Num], *, missing_is_zero: bool) -> Res:
    """``MinDimensionResource``: cpu and memory always; scalars of ``left`` only.

    A scalar ``right`` lacks is kept (Infinity) or zeroed (Zero).
    """
    out: Res = {}
    for name, value in left.items():
        if name in ("cpu", "memory") or name in right:
            out[name] = min(value, _get(right, name))
        elif missing_is_zero:
            out[name] = _ZERO
        else:
            out[name] = value
    for name in ("cpu", "memory"):
        if name not in left and name in right:
            out[name] = min(_ZERO, right[name])
    return out


def preflight_job(
    plan: JobPlan,
    *,
    queues: Mapping[str, QueueDecl],
    snapshot: ClusterSnapshot | None,
    others: Sequence[JobPlan] = (),
    node_shapes: Sequence[NodeShape] = (),
    overcommit_factor: Fraction = DEFAULT_OVERCOMMIT_FACTOR,
) -> PreflightResult:
    """Predict whether Volcano (default configuration) admits and places the job's gang.

    Args:
        plan: the job's plan.
        queues: the queues this stack declares (created by it), by name.
        snapshot: what the cluster holds (Nodes, Pods, Queues, PodGroups), or None.
        others: the stack's jobs (this one is left out by namespace and name); those in
            the same queue are the advisory ``siblings`` check and never change the
            verdict. Pass the same tuple for every job of a stack: it is indexed once.
        node_shapes: declared node shapes (``raygang:nodeShapes``); used for the
            per-pod fit only when the snapshot has no Node objects.
        overcommit_factor: the overcommit plugin's factor (Volcano replaces values below
            1 with its default 1.2).

    Returns:
        The verdict, the reasons and every check.
    """
    return _Preflight(
        plan, queues, snapshot, others, node_shapes, Fraction(overcommit_factor)
    ).run()
