"""``Ranking`` (``ranking/state.py``): what it remembers of one state answers as the nodes do."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.api import Node, Placement, Task, fits_in
from raygang.volcano.plugins.predicates import fit_failure, static_failure
from raygang.volcano.ranking import Ranking

from tests.volcano.conftest import ENGINE, GI, kinds, nodes


class TestFitting:
    @ENGINE
    @given(data=st.data())
    def test_the_mask_names_the_nodes_that_take_the_pod(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        ranking = Ranking(base)
        for task in data.draw(kinds()):
            fitting = [
                i
                for i, n in enumerate(base)
                if fits_in(task.request, n.future_idle()) and static_failure(task, n) is None
            ]
            count, mask = ranking.fitting(task)
            assert count == len(fitting)
            assert [i for i in range(len(base)) if mask >> i & 1] == fitting


class TestFitErrors:
    @ENGINE
    @given(data=st.data())
    def test_as_each_node_says_changed_ones_included(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        ranking = Ranking(base)
        copies = list(base)
        changed = data.draw(st.sets(st.integers(0, len(base) - 1)))
        for index in changed:
            copies[index] = copies[index].copy()
            copies[index].take({"cpu": 500, "memory": GI}, pipeline=False)
        for task in data.draw(kinds()):
            for _ in range(2):  # computed, then remembered
                assert ranking.fit_errors(task, copies) == {
                    n.name: r for n in copies if (r := fit_failure(task, n)) is not None
                }

    def test_more_distinct_reasons_than_a_byte_holds(self) -> None:
        # Each node tainted for another team: 300 reasons, one a node.
        base = [
            Node(
                f"n{i:03d}",
                {"cpu": 4000, "memory": 8 * GI, "pods": 110},
                {"cpu": 4000, "memory": 8 * GI, "pods": 110},
                {},
                {},
                ({"key": "dedicated", "value": f"team-{i}", "effect": "NoSchedule"},),
                False,
            )
            for i in range(300)
        ]
        task = Task("w", "w", "w-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
        errors = Ranking(base).fit_errors(task, base)
        assert len(set(errors.values())) == 300
        assert errors["n299"] == "node(s) had untolerated taint {dedicated: team-299}"
        assert errors == {n.name: fit_failure(task, n) for n in base}
