"""Empty nodes (``preflight/emptynodes.py``): "fits no node, even empty" and what they hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from raygang.preflight.emptynodes import empty_fit, empty_reasons
from raygang.volcano.actions.allocate import fit_failure
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.conf import open_session

from tests.volcano.conftest import ENGINE, GI, GPU_TAINT, TOLERATE_GPU, kinds, nodes

SESSION = open_session()


class TestEmptyNodes:
    @ENGINE
    @given(data=st.data())
    def test_empty_nodes_as_a_node_by_node_check(self, data: st.DataObject) -> None:
        empty = [n.empty() for n in data.draw(nodes())]
        for task in data.draw(kinds()):
            naive = {
                n.name: r
                for n in empty
                if (r := fit_failure(task, n, SESSION, n.allocatable)) is not None
            }
            holds = sum(
                min(n.allocatable.get(k, 0) // v for k, v in task.request.items() if v > 0)
                for n in empty
                if n.name not in naive
            )
            assert empty_reasons(task, empty, SESSION) == naive
            assert empty_fit(task, empty, SESSION) == (
                len(naive) < len(empty),
                0 if task.best_effort else holds,
            )

    def test_worked_numbers(self) -> None:
        """Two 8-cpu nodes, one tainted for GPUs: a 3-cpu pod fits two on the untainted one,
        four when it tolerates the taint; a 9-cpu pod fits neither."""
        room = {"cpu": 8000, "memory": 32 * GI, "pods": 110}
        empty = [
            Node("a", dict(room), dict(room), {}, {}, (), False),
            Node("b", dict(room), dict(room), {}, {}, (GPU_TAINT,), False),
        ]
        three = {"cpu": 3000, "memory": GI, "pods": 1}
        plain = Task("w", "w", "w-*", three, Placement())
        tolerant = Task("w", "w", "w-*", three, TOLERATE_GPU)
        assert empty_fit(plain, empty, SESSION) == (True, 2)
        assert empty_fit(tolerant, empty, SESSION) == (True, 4)
        assert empty_reasons(plain, empty, SESSION) == {
            "b": "node(s) had untolerated taint {nvidia.com/gpu: present}"
        }
        huge = Task("w", "w", "w-*", {"cpu": 9000, "pods": 1}, TOLERATE_GPU)
        assert empty_fit(huge, empty, SESSION) == (False, 0)
        assert empty_reasons(huge, empty, SESSION) == {
            "a": "Insufficient cpu",
            "b": "Insufficient cpu",
        }
