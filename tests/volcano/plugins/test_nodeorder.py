"""The nodeorder plugin (``plugins/nodeorder/nodeorder.go``): worked numbers and bounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.plugins.nodeorder import node_score

from tests.volcano.conftest import GI


def _node(cpu_of: int, mem_of: int, cpu_idle: int, mem_idle: int) -> Node:
    return Node(
        "n",
        {"cpu": cpu_of, "memory": mem_of, "pods": 110},
        {"cpu": cpu_idle, "memory": mem_idle, "pods": 110},
        {},
        {},
        (),
        False,
    )


def _task(cpu: int, memory: int) -> Task:
    return Task("t", "g", "p", {"cpu": cpu, "memory": memory, "pods": 1}, Placement())


class TestNodeScore:
    def test_worked_numbers(self) -> None:
        # Empty 32-core, 128 GiB node, a pod of 4 cores and 16 GiB: 87.5 % left of each,
        # leastrequested (87 + 87) // 2 = 87; both fractions equal, balanced 100.
        assert node_score(_task(4000, 16 * GI), _node(32000, 128 * GI, 32000, 128 * GI)) == 187
        # The same pod on a half-used node: 37 % left of each: 37 + 100.
        assert node_score(_task(4000, 16 * GI), _node(32000, 128 * GI, 16000, 64 * GI)) == 137
        # Unbalanced: cpu 50 % used, memory 0 %: leastrequested (50 + 100) // 2 = 75,
        # balanced 100 - 50 * 0.5 = 75.
        assert node_score(_task(16000, 0), _node(32000, 128 * GI, 32000, 128 * GI)) == 150

    def test_a_node_without_memory_scores_it_as_full(self) -> None:
        # memory counts as fully used: leastrequested (100 + 0) // 2, balanced 100 - 50.
        assert node_score(_task(0, 0), _node(8000, 0, 8000, 0)) == 100

    @settings(max_examples=500, deadline=None)
    @given(
        cpu_of=st.integers(1, 10**6),
        mem_of=st.integers(1, 10**13),
        data=st.data(),
    )
    def test_scores_lie_between_0_and_200(
        self, cpu_of: int, mem_of: int, data: st.DataObject
    ) -> None:
        cpu_idle = data.draw(st.integers(0, cpu_of))
        mem_idle = data.draw(st.integers(0, mem_of))
        cpu = data.draw(st.integers(0, cpu_idle))
        memory = data.draw(st.integers(0, mem_idle))
        node = _node(cpu_of, mem_of, cpu_idle, mem_idle)
        score = node_score(_task(cpu, memory), node)
        assert 0 <= score <= 200
        # An empty pod on an empty node scores the most.
        assert node_score(_task(0, 0), _node(cpu_of, mem_of, cpu_of, mem_of)) == 200
