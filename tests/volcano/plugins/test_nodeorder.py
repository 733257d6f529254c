"""The nodeorder plugin (``plugins/nodeorder/nodeorder.go``): score bounds and worked numbers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.plugins.nodeorder import (
    PLAIN_SLACK,
    empty_score,
    node_score,
    plain_slack,
)

from tests.volcano.conftest import (
    GI,
)


class TestScoreBounds:
    """The slack ``Order`` adds to a node's empty score never undershoots the score."""

    @settings(max_examples=2000, deadline=None)
    @given(
        cpu_of=st.integers(1, 10**6),
        mem_of=st.integers(1, 10**13),
        data=st.data(),
    )
    def test_a_plain_node_never_scores_above_its_bound(
        self, cpu_of: int, mem_of: int, data: st.DataObject
    ) -> None:
        cpu_idle = data.draw(st.integers(0, cpu_of))
        mem_idle = data.draw(st.integers(0, mem_of))
        cpu = data.draw(st.integers(0, cpu_idle))
        memory = data.draw(st.integers(0, mem_idle))
        node = Node(
            "n",
            {"cpu": cpu_of, "memory": mem_of, "pods": 110},
            {"cpu": cpu_idle, "memory": mem_idle, "pods": 110},
            {},
            {},
            (),
            False,
        )
        task = Task("t", "g", "p", {"cpu": cpu, "memory": memory, "pods": 1}, Placement())
        empty = empty_score(node)
        assert empty is not None
        slack = plain_slack(cpu, memory, cpu_of, mem_of)
        assert slack <= PLAIN_SLACK
        assert node_score(task, node) <= empty + slack

    def test_worked_numbers(self) -> None:
        # 4 of 32 cores and 16 of 128 GiB: both 12.5 %, so the score drops by more than
        # 12.5 - 2.5 = 10 points: at most 11 below the empty score.
        assert plain_slack(4000, 16 * GI, 32000, 128 * GI) == -11
        assert plain_slack(0, 0, 32000, 128 * GI) == 2  # a pod asking nothing
