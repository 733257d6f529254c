"""The binpack plugin (``plugins/binpack/binpack.go``): the score a helm-installed Volcano adds."""

from __future__ import annotations

from fractions import Fraction

from raygang.kube.quantity import Quantity
from raygang.volcano.api import Node, Placement, Task, to_res
from raygang.volcano.plugins.binpack import BinpackWeights, binpack_score, resource_score


def _node(cpu: str, memory: str, used_cpu: str = "0", used_memory: str = "0") -> Node:
    allocatable = to_res(
        {"cpu": Quantity(cpu), "memory": Quantity(memory), "pods": Quantity("110")}
    )
    used = to_res({"cpu": Quantity(used_cpu), "memory": Quantity(used_memory)})
    idle = {n: v - used.get(n, 0) for n, v in allocatable.items()}
    return Node("n", allocatable, idle, {}, {}, (), False)


def _task(cpu: str, memory: str) -> Task:
    request = to_res({"cpu": Quantity(cpu), "memory": Quantity(memory), "pods": Quantity("1")})
    return Task("head", "headgroup", "job-head", request, Placement())


class TestBinpack:
    def test_resource_score_is_the_used_fraction_times_the_weight(self) -> None:
        assert resource_score(2000, 8000, 2000, 1) == Fraction(1, 2)
        assert resource_score(2000, 8000, 2000, 3) == Fraction(3, 2)
        assert resource_score(1, 0, 0, 1) == 0  # no such resource on the node
        assert resource_score(7000, 8000, 2000, 1) is None  # would overflow

    def test_fuller_nodes_score_higher(self) -> None:
        task = _task("2", "4Gi")
        empty = binpack_score(task, _node("8", "16Gi"))
        half = binpack_score(task, _node("8", "16Gi", "4", "8Gi"))
        # (2/8 + 4/16) / 2 x 100 = 25; (6/8 + 12/16) / 2 x 100 = 75
        assert (empty, half) == (25, 75)

    def test_overflow_scores_zero_and_weights_scale(self) -> None:
        task = _task("6", "1Gi")
        assert binpack_score(task, _node("8", "16Gi", "4", "0")) == 0
        weights = BinpackWeights(weight=2, cpu=3, memory=1)
        # (3 x 2/8 + 1 x 4/16) / 4 x 100 x 2 = 50
        assert binpack_score(_task("2", "4Gi"), _node("8", "16Gi"), weights) == 50
