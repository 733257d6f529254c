"""``Order`` and ``View`` (``ranking/order.py``): the nodes a kind of pod can take, best first,
as sorting every node's ``volcano_rank`` gives them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.ranking import Ranking, decode, volcano_rank
from raygang.volcano.ranking.order import Order, View

from tests.volcano.conftest import ENGINE, GI, kinds, nodes


def _all(order: Order | View) -> list[tuple[tuple[int, ...], int]]:
    out, position = [], 0
    while (code := order.at(position)) is not None:
        out.append(decode(code))
        position += 1
    return out


def _full_scan(task: Task, base: list[Node]) -> list[tuple[tuple[int, ...], int]]:
    return sorted(
        (value, i) for i, n in enumerate(base) if (value := volcano_rank(task, n)) is not None
    )


class TestOrder:
    @ENGINE
    @given(data=st.data())
    def test_every_node_in_full_scan_order(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 1, 3])))
        for task in data.draw(kinds()):
            assert _all(ranking.order(task)) == _full_scan(task, base)

    @ENGINE
    @given(data=st.data())
    def test_reading_part_of_it_first_changes_nothing(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        task = data.draw(kinds())[0]
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 2])))
        order = ranking.order(task)
        order.at(data.draw(st.integers(0, len(base))))  # a prefix, visited lazily
        assert _all(order) == _full_scan(task, base)

    @ENGINE
    @given(data=st.data())
    def test_a_view_is_its_order_less_the_nodes_short_of_the_rest(
        self, data: st.DataObject
    ) -> None:
        base = data.draw(nodes())
        ranking = Ranking(base)
        for task in data.draw(kinds()):
            found = ranking.order(task)
            if isinstance(found, View):
                assert _all(found) == [
                    (rank, i)
                    for rank, i in _all(found.order)
                    if all(base[i].future_idle().get(n, 0) >= v for n, v in task.request.items())
                ]

    def test_a_finished_order_lets_go_of_its_lanes(self) -> None:
        base = [
            Node(f"n{i}", {"cpu": 4000, "memory": 8 * GI, "pods": 110}, {}, {}, {}, (), False)
            for i in range(3)
        ]
        for n in base:
            n.idle = dict(n.allocatable)
        task = Task("w", "w", "w-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
        order = Order(Ranking(base), task)
        assert order.lanes
        assert len(_all(order)) == 3
        assert (order.lanes, order.allowed) == ([], [])
        assert [decode(c)[1] for c in order.found] == [0, 1, 2]  # still answers
