"""Empty nodes (``volcano/emptynodes.py``): the resource check once per size, as node by node."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.emptynodes import EmptyNodes
from raygang.volcano.plugins.predicates import fit_failure

from tests.volcano.conftest import ENGINE, kinds, nodes


class TestEmptyNodes:
    @ENGINE
    @given(data=st.data())
    def test_empty_nodes_as_a_node_by_node_check(self, data: st.DataObject) -> None:
        empty = [n.empty() for n in data.draw(nodes())]
        # Remembering one answer: what was forgotten is found again alike.
        fits = EmptyNodes(empty, kept=data.draw(st.sampled_from([1, 1024])))
        for task in data.draw(kinds()) * 2:
            naive = {
                n.name: r for n in empty if (r := fit_failure(task, n, n.allocatable)) is not None
            }
            holds = sum(
                min(n.allocatable.get(k, 0) // v for k, v in task.request.items() if v > 0)
                for n in empty
                if n.name not in naive
            )
            assert fits.reasons(task) == naive
            assert fits.fit(task) == (len(naive) < len(empty), 0 if task.best_effort else holds)
