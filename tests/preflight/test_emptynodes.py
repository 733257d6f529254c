"""Empty nodes (``preflight/emptynodes.py``): "fits no node, even empty" and what they hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from raygang.preflight.emptynodes import empty_holds, empty_reasons, fits_empty
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
            holds = 0 if task.best_effort else holds
            assert empty_reasons(task, empty, SESSION) == naive
            assert fits_empty(task, empty, SESSION) == (len(naive) < len(empty))
            # Exact below ``want``; at or above it, counted only as far as ``want``.
            want = data.draw(st.integers(0, holds + 3))
            counted = empty_holds(task, empty, SESSION, want)
            assert counted == holds if holds < want else holds >= counted >= want
            assert empty_holds(task, empty, SESSION, holds + 1) == holds

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
        assert fits_empty(plain, empty, SESSION)
        assert empty_holds(plain, empty, SESSION, 100) == 2
        assert empty_holds(tolerant, empty, SESSION, 100) == 4
        assert empty_holds(tolerant, empty, SESSION, 2) == 2  # node a settles it
        assert empty_reasons(plain, empty, SESSION) == {
            "b": "node(s) had untolerated taint {nvidia.com/gpu: present}"
        }
        huge = Task("w", "w", "w-*", {"cpu": 9000, "pods": 1}, TOLERATE_GPU)
        assert not fits_empty(huge, empty, SESSION)
        assert empty_holds(huge, empty, SESSION, 1) == 0
        assert empty_reasons(huge, empty, SESSION) == {
            "a": "Insufficient cpu",
            "b": "Insufficient cpu",
        }
