"""The allocate action (``actions/allocate/allocate.go``): ranked placement, as a full scan."""

from __future__ import annotations

import copy
import itertools

from hypothesis import event, given
from hypothesis import strategies as st
from raygang.volcano.actions.allocate import is_roomy, place_gang, place_singly
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.ranking import Ranking

from tests.volcano.conftest import (
    ENGINE,
    GI,
    gangs,
    kinds,
    nodes,
    outcome_of,
    state,
)


class TestRankedPlacement:
    """``place_gang``/``place_singly`` with a ``Ranking`` against a full scan."""

    @ENGINE
    @given(data=st.data())
    def test_same_outcome_as_a_full_scan(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        tasks = data.draw(kinds())
        others = data.draw(gangs(tasks))
        gang = data.draw(gangs(tasks))
        min_member = data.draw(st.integers(0, len(gang)))
        whole = data.draw(st.booleans())
        # Small clusters: also rank "all at once" after 0, 1 or 3 visits.
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 1, 3])))
        plain, ranked = list(base), list(base)
        # Another gang first, so the simulation starts from nodes some of which left the
        # ranking's state.
        place_gang(others, plain, len(others), whole_gang=True)
        place_gang(others, ranked, len(others), whole_gang=True, ranking=ranking)
        assert state(ranked) == state(plain)
        expected = place_gang(gang, plain, min_member, whole_gang=whole)
        got = place_gang(gang, ranked, min_member, whole_gang=whole, ranking=ranking)
        assert outcome_of(got) == outcome_of(expected)
        assert state(ranked) == state(plain)

    @ENGINE
    @given(data=st.data())
    def test_nodes_given_are_never_changed(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        gang = data.draw(gangs(data.draw(kinds())))
        before = copy.deepcopy(state(base))
        place_gang(gang, list(base), len(gang), whole_gang=True, ranking=Ranking(base))
        place_singly(gang, list(base), Ranking(base))
        assert state(base) == before

    @ENGINE
    @given(data=st.data())
    def test_single_pods_as_a_full_scan(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        pods = data.draw(gangs(data.draw(kinds())))
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 2])))
        plain, ranked = list(base), list(base)
        expected = place_singly(pods, plain)
        got = place_singly(pods, ranked, ranking)
        assert (got[0], got[1] and got[1].label, got[2]) == (
            expected[0],
            expected[1] and expected[1].label,
            expected[2],
        )
        assert state(ranked) == state(plain)

    @ENGINE
    @given(data=st.data())
    def test_roomy_gangs_place_in_every_order(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        if data.draw(st.booleans()):
            base = [n.empty() for n in base]  # room everywhere: roomy more often
        # Small gangs on these small clusters: roomy often enough to test the claim.
        gang = data.draw(gangs(data.draw(kinds()), most=2))
        ranking = Ranking(base)
        roomy = is_roomy(gang, base, ranking)
        event(f"roomy with {min(len(gang), 2)}+ pods: {roomy}")
        if not roomy:
            return
        for order in itertools.islice(itertools.permutations(gang), 24):
            outcome = place_gang(list(order), list(base), len(gang), whole_gang=True)
            placed = sum(1 for t in gang if not t.best_effort)
            assert outcome.ready and outcome.allocated == placed

    def test_roomy_is_not_vacuous(self) -> None:
        task = Task("w", "w", "w-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
        free = [
            Node(f"n{i}", {"cpu": 4000, "memory": 8 * GI, "pods": 110}, {}, {}, {}, (), False)
            for i in range(3)
        ]
        for n in free:
            n.idle = dict(n.allocatable)
        assert is_roomy([task] * 3, free, Ranking(free))
        assert not is_roomy([task] * 4, free, Ranking(free))
