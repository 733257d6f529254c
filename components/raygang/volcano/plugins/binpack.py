"""The binpack plugin: a node scores higher the fuller it is once the pod is on it.

Follows Volcano's ``pkg/scheduler/plugins/binpack/binpack.go`` (``BinPackingScore``,
``ResourceBinPackingScore``): per resource the pod asks for and binpack weighs,
``(used + request) x weight / allocatable``; the sum over the weights, scaled to
``MaxNodeScore (100) x binpack.weight``. A resource that would overflow the node scores
the node 0.

Volcano's built-in default configuration (``pkg/scheduler/util.go``) does not enable
binpack, and the preflight models that default; the helm chart and the installer add it
to tier 2. So this score is not used by :mod:`raygang.volcano.actions.allocate`: it is
here to say exactly what such a cluster adds to node choice (and to let a test show where
it would pick another node than nodeorder alone).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from raygang.volcano.api import Node, Num, Task, get

__all__ = ["BinpackWeights", "binpack_score", "resource_score"]

MAX_NODE_SCORE = 100


@dataclass(frozen=True)
class BinpackWeights:
    """The plugin's arguments: ``binpack.weight``, ``binpack.cpu``, ``binpack.memory`` and
    ``binpack.resources`` (other resources, weight 1 unless given); all 1 by default."""

    weight: int = 1
    cpu: int = 1
    memory: int = 1
    resources: Mapping[str, int] = field(default_factory=dict)

    def of(self, name: str) -> int | None:
        if name == "cpu":
            return self.cpu
        if name == "memory":
            return self.memory
        return self.resources.get(name)


def resource_score(request: Num, capacity: Num, used: Num, weight: int) -> Fraction | None:
    """``ResourceBinPackingScore``; None when the resource would overflow the node."""
    if capacity == 0 or weight == 0:
        return Fraction(0)
    finally_used = request + used
    if finally_used > capacity:
        return None
    return Fraction(finally_used) * weight / Fraction(capacity)


def binpack_score(task: Task, node: Node, weights: BinpackWeights | None = None) -> Fraction:
    """``BinPackingScore`` of ``task`` on ``node`` (``used`` = allocatable - idle)."""
    weights = weights or BinpackWeights()
    score = Fraction(0)
    weight_sum = 0
    for name, request in task.request.items():
        if request == 0:
            continue
        weight = weights.of(name)
        if weight is None:
            continue
        allocatable = get(node.allocatable, name)
        used = allocatable - get(node.idle, name)
        part = resource_score(request, allocatable, used, weight)
        if part is None:
            return Fraction(0)
        score += part
        weight_sum += weight
    if weight_sum > 0:
        score /= weight_sum
    return score * MAX_NODE_SCORE * weights.weight
