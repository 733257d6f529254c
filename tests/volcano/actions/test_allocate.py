"""The allocate action (``actions/allocate/allocate.go``): node choice, fit errors, the gang
committed or discarded."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.actions.allocate import (
    best_node,
    fit_errors,
    fit_failure,
    node_rank,
    place_gang,
    place_singly,
)
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.conf import open_session
from raygang.volcano.plugins.nodeorder import node_score

from tests.volcano.conftest import (
    ENGINE,
    GI,
    GPU_TAINT,
    ZONE_A,
    gangs,
    kinds,
    nodes,
    state,
)

SESSION = open_session()
ROOM = {"cpu": 8000, "memory": 32 * GI, "pods": 110}


def _node(name: str, cpu_idle: int = 8000, **kwargs: object) -> Node:
    node = Node(name, dict(ROOM), {**ROOM, "cpu": cpu_idle}, {}, {}, (), False)
    for key, value in kwargs.items():
        setattr(node, key, value)
    return node


def _task(cpu: int, placement: Placement | None = None, group: str = "w") -> Task:
    request = {"cpu": cpu, "memory": GI, "pods": 1}
    return Task(f"worker group {group}", group, f"{group}-*", request, placement or Placement())


class TestBestNode:
    """Predicate every node, score every feasible one, take the best; ties by name order."""

    @ENGINE
    @given(data=st.data())
    def test_the_best_ranked_feasible_node_first_in_name_order(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        for task in data.draw(kinds()):
            ranks = {
                i: r for i, n in enumerate(base) if (r := node_rank(task, n, SESSION)) is not None
            }
            # The feasible nodes are those the predicates let through.
            assert set(ranks) == {
                i for i, n in enumerate(base) if fit_failure(task, n, SESSION) is None
            }
            got = best_node(task, base, SESSION)
            if not ranks:
                assert got is None
                continue
            assert got is not None and got in ranks
            assert all(ranks[got] <= r for r in ranks.values())
            assert all(r > ranks[got] for i, r in ranks.items() if i < got)

    def test_equal_scores_go_to_the_first_name(self) -> None:
        # Volcano picks among equal scores at random; the model takes the first name.
        assert best_node(_task(1000), [_node("a"), _node("b"), _node("c")], SESSION) == 0

    def test_the_emptier_node_scores_higher(self) -> None:
        base = [_node("a", cpu_idle=4000), _node("b"), _node("c", cpu_idle=2000)]
        assert best_node(_task(1000), base, SESSION) == 1

    def test_idle_room_before_room_terminating_pods_release(self) -> None:
        # "a" has room only once a terminating pod leaves, "b" idle room: "b" comes first
        # whatever the scores (allocate's two candidate lists).
        base = [
            _node("a", cpu_idle=0, releasing={"cpu": 8000}),
            _node("b", cpu_idle=1000, idle={"cpu": 1000, "memory": GI, "pods": 110}),
        ]
        task = _task(1000)
        assert node_score(task, base[1]) < 200
        assert node_rank(task, base[0], SESSION) == (1, -node_score(task, base[0]))
        assert best_node(task, base, SESSION) == 1
        # With no idle room anywhere, the pod is pipelined on "a".
        assert best_node(task, base[:1], SESSION) == 0

    def test_nodes_refusing_the_pod_are_never_chosen(self) -> None:
        base = [
            _node("a", cpu_idle=500),
            _node("b", unschedulable=True),
            _node("c", taints=(GPU_TAINT,)),
            _node("d", labels={"zone": "b"}),
            _node("e", cpu_idle=2000, labels={"zone": "a"}),
        ]
        assert best_node(_task(1000, ZONE_A), base, SESSION) == 4
        assert best_node(_task(3000, ZONE_A), base, SESSION) is None


class TestFitErrors:
    def test_each_node_in_volcanos_words(self) -> None:
        base = [
            _node("a", cpu_idle=500),
            _node("b", unschedulable=True),
            _node("c", taints=(GPU_TAINT,)),
            _node("d", labels={"zone": "b"}),
            _node("e", labels={"zone": "a"}),
        ]
        assert fit_errors(_task(1000, ZONE_A), base, SESSION) == {
            "a": "Insufficient cpu",
            "b": "node(s) were unschedulable",
            "c": "node(s) didn't match Pod's node affinity/selector",
            "d": "node(s) didn't match Pod's node affinity/selector",
        }
        assert fit_errors(_task(1000), base, SESSION)["c"] == (
            "node(s) had untolerated taint {nvidia.com/gpu: present}"
        )

    @ENGINE
    @given(data=st.data())
    def test_as_each_node_says(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        for task in data.draw(kinds()):
            assert fit_errors(task, base, SESSION) == {
                n.name: r for n in base if (r := fit_failure(task, n, SESSION)) is not None
            }


class TestPlaceGang:
    def test_greedy_each_pod_on_the_best_node_then(self) -> None:
        base = [_node("a"), _node("b")]
        outcome = place_gang([_task(3000)] * 4, base, 4, SESSION, whole_gang=True)
        # a, then b (a is fuller), then a and b again.
        assert [n for _, n in outcome.placed] == ["a", "b", "a", "b"]
        assert outcome.ready and outcome.allocated == 4
        assert [n.idle["cpu"] for n in base] == [2000, 2000]

    def test_a_gang_that_does_not_fit_is_discarded(self) -> None:
        base = [_node("a"), _node("b")]
        outcome = place_gang([_task(3000)] * 6, base, 6, SESSION, whole_gang=True)
        assert not outcome.ready and not outcome.pipelined
        assert outcome.failed is not None and len(outcome.placed) == 4
        assert outcome.fit_errors == {"a": "Insufficient cpu", "b": "Insufficient cpu"}
        assert [n.idle["cpu"] for n in base] == [8000, 8000]  # Statement.Discard

    def test_a_failed_role_is_not_tried_again(self) -> None:
        base = [_node("a")]
        big, small = _task(9000, group="big"), _task(1000, group="small")
        outcome = place_gang([big, small, big, small], base, 2, SESSION, whole_gang=False)
        assert outcome.ready and [t.group for t, _ in outcome.placed] == ["small", "small"]
        assert outcome.failed is big and outcome.tried == 4

    def test_the_first_failure_ends_a_whole_gang(self) -> None:
        base = [_node("a")]
        big, small = _task(9000, group="big"), _task(1000, group="small")
        outcome = place_gang([big, small], base, 2, SESSION, whole_gang=True)
        assert outcome.placed == [] and outcome.tried == 1

    def test_place_singly_stops_at_the_first_pod_that_fits_nowhere(self) -> None:
        base = [_node("a", cpu_idle=2500)]
        placed, failed, errors = place_singly([_task(1000)] * 3, base, SESSION)
        assert placed == ["a", "a"] and failed is not None
        assert errors == {"a": "Insufficient cpu"}

    @ENGINE
    @given(data=st.data())
    def test_nodes_given_are_never_changed(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        gang = data.draw(gangs(data.draw(kinds())))
        before = copy.deepcopy(state(base))
        place_gang(gang, list(base), len(gang), SESSION, whole_gang=True)
        place_singly(gang, list(base), SESSION)
        assert state(base) == before
