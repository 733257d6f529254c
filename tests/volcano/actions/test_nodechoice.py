"""The private node choice (``actions/_nodechoice.py``) agrees with its specification,
``best_node``: the same node for every pod of a simulation, whatever the ties, taints,
selectors, cordons, full nodes and terminating pods, and so the same gangs placed; also
when the choices of many sessions share their ranks (``SharedRanks``, as the jobs of one
planning pass do)."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.actions import allocate
from raygang.volcano.actions._nodechoice import NodeChoice, SharedRanks
from raygang.volcano.actions.allocate import (
    best_node,
    node_rank,
    place_gang,
    place_on,
    place_singly,
)
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.conf import open_session
from raygang.volcano.framework import Session

from tests.volcano.conftest import ENGINE, GI, gangs, kinds, nodes, outcome_of, state

SESSION = open_session()


@st.composite
def clusters(draw: st.DrawFn) -> list[Node]:
    """Random nodes, some of them twins of an earlier one under another name (equal ranks,
    so ties are decided by the index alone)."""
    base = draw(nodes())
    twins = draw(st.lists(st.integers(0, len(base) - 1), max_size=4))
    out = list(base)
    for number, index in enumerate(twins):
        out.append(dataclasses.replace(base[index].copy(), name=f"twin-{number}"))
    return out


class PlainChoice:
    """``best_node`` itself (over ``SESSION``), behind ``NodeChoice``'s interface."""

    def __init__(self, rank: object, kinds: object = None) -> None:
        del rank, kinds

    def best(self, task: Task, nodes: Sequence[Node]) -> int | None:
        return best_node(task, nodes, SESSION)


def _choice(session: Session) -> NodeChoice:
    return NodeChoice(lambda task, node: node_rank(task, node, session))


class TestAgreesWithBestNode:
    @ENGINE
    @given(data=st.data())
    def test_every_pod_of_a_simulation(self, data: st.DataObject) -> None:
        base = data.draw(clusters())
        tasks = data.draw(kinds())
        # A distinct task object asking the same on the same terms, under another name:
        # the same kind (its ranks are the first one's).
        tasks += [dataclasses.replace(t, label="twin", pod_name="twin-*") for t in tasks[:1]]
        pods = data.draw(gangs(tasks, most=8))
        order = data.draw(st.permutations(range(len(pods))))
        before = copy.deepcopy(state(base))
        work = list(base)
        choice = _choice(SESSION)
        for step, position in enumerate(order):
            task = pods[position]
            got = choice.best(task, work)
            assert got == best_node(task, work, SESSION)
            if got is not None:
                place_on(work, got, task)
            if data.draw(st.integers(0, 9)) == 0:
                # Statement.Discard: the list restored to the nodes given.
                work[:] = base
            elif step % 3 == 2 and len(work) > 1:
                # Another node object in some place (the bookkeeping sees objects only).
                index = data.draw(st.integers(0, len(work) - 1))
                other = data.draw(st.integers(0, len(work) - 1))
                work[index] = dataclasses.replace(work[other].copy(), name=work[index].name)
        assert state(base) == before

    def test_no_nodes_or_every_node_refusing(self) -> None:
        task = Task("head", "h", "head-*", {"cpu": 1000, "pods": 1}, Placement())
        room = {"cpu": 8000, "memory": 8 * GI, "pods": 110}
        cordoned = Node("a", room, dict(room), {}, {}, (), True)
        full = Node("b", room, {**room, "cpu": 500}, {}, {}, (), False)
        assert _choice(SESSION).best(task, []) is None
        assert _choice(SESSION).best(task, [cordoned, full]) is None
        assert best_node(task, [cordoned, full], SESSION) is None


class TestPlacementsUnchanged:
    @ENGINE
    @given(data=st.data())
    def test_place_gang_and_place_singly(self, data: st.DataObject) -> None:
        base = data.draw(clusters())
        gang = data.draw(gangs(data.draw(kinds()), most=8))
        min_member = data.draw(st.integers(0, len(gang)))
        whole = data.draw(st.booleans())
        results = []
        for chooser in (PlainChoice, None):
            nodes_ = list(copy.deepcopy(base))
            with mock.patch.object(allocate, "NodeChoice", chooser or allocate.NodeChoice):
                outcome = place_gang(gang, nodes_, min_member, SESSION, whole_gang=whole)
                after_gang = state(nodes_)
                singly = place_singly(gang, nodes_, SESSION)
            failed = singly[1].label if singly[1] is not None else None
            results.append(
                (outcome_of(outcome), after_gang, singly[0], failed, singly[2], state(nodes_))
            )
        assert results[0] == results[1]


class TestOneChoiceForManySimulations:
    @ENGINE
    @given(data=st.data())
    def test_simulations_from_the_same_nodes(self, data: st.DataObject) -> None:
        """One ``node_choice`` serving a run of simulations (as one job's preflight: head
        first, head last, after other gangs, smaller gangs for a fix, the extras one by one),
        each from the nodes given or from what the previous one left, places every pod where
        ``best_node`` does, each simulation with a choice of its own."""
        base = data.draw(clusters())
        tasks = data.draw(kinds())
        runs = [
            (
                data.draw(gangs(tasks, most=6)),
                data.draw(st.booleans()),  # start from the nodes given, or from the last
                data.draw(st.booleans()),  # place_gang, or place_singly
                data.draw(st.booleans()),  # whole_gang
            )
            for _ in range(data.draw(st.integers(1, 5)))
        ]
        results = []
        for shared in (allocate.node_choice(SESSION), None):
            before = copy.deepcopy(state(base))
            last = list(base)
            seen: list[object] = []
            for gang, fresh, as_gang, whole in runs:
                work = list(base) if fresh else list(last)
                if shared is None:
                    # The specification: best_node itself, for every pod.
                    with mock.patch.object(allocate, "NodeChoice", PlainChoice):
                        outcome = self._run(gang, work, as_gang, whole, None)
                else:
                    outcome = self._run(gang, work, as_gang, whole, shared)
                seen.append((outcome, state(work)))
                last = work
            assert state(base) == before  # the nodes given are never changed
            results.append(seen)
        assert results[0] == results[1]

    @staticmethod
    def _run(
        gang: list[Task],
        work: list[Node],
        as_gang: bool,
        whole: bool,
        choice: NodeChoice | None,
    ) -> object:
        if as_gang:
            outcome = place_gang(gang, work, len(gang), SESSION, whole_gang=whole, choice=choice)
            return outcome_of(outcome)
        placed, failed, errors = place_singly(gang, work, SESSION, choice)
        return placed, failed.label if failed is not None else None, errors


def _odd_names(task: Task, node: Node) -> str | None:
    """A predicate the default configuration lacks: it refuses nodes of odd-length names."""
    del task
    return "odd name" if len(node.name) % 2 else None


def _long_names(task: Task, node: Node) -> int:
    """A node order the default configuration lacks: longer names first."""
    del task
    return 10 * len(node.name)


# Sessions that rank otherwise than SESSION: they must never read SESSION's ranks.
OTHER_PREDICATES = dataclasses.replace(SESSION, predicates=(*SESSION.predicates, _odd_names))
OTHER_ORDER = dataclasses.replace(SESSION, node_orders=(*SESSION.node_orders, _long_names))


class TestRanksSharedAcrossSessions:
    @ENGINE
    @given(data=st.data())
    def test_the_jobs_of_a_pass(self, data: st.DataObject) -> None:
        """One ``SharedRanks`` serving several sessions' choices (as the preflight's jobs of
        one pass: each job its own session and choice, each starting from the snapshot's
        nodes or from what the last left), the jobs' pods asking in part the same as another
        job's under their own names, places every pod where ``best_node`` of its own session
        does; sessions that rank otherwise (another predicate, another node order) among
        them included."""
        base = data.draw(clusters())
        common = data.draw(kinds())
        jobs = []
        for number in range(data.draw(st.integers(1, 5))):
            own = [
                dataclasses.replace(t, label=f"job {number} {t.label}", pod_name=f"j{number}-*")
                for t in common
            ]
            own += data.draw(kinds())
            session = data.draw(st.sampled_from([SESSION, SESSION, OTHER_PREDICATES, OTHER_ORDER]))
            jobs.append((session, data.draw(gangs(own, most=5)), data.draw(st.booleans())))
        before = copy.deepcopy(state(base))
        shared = SharedRanks()
        last = list(base)
        for session, gang, fresh in jobs:
            choice = allocate.node_choice(session, shared)
            work = list(base) if fresh else list(last)
            for task in gang:
                got = choice.best(task, work)
                assert got == best_node(task, work, session)
                if got is not None:
                    place_on(work, got, task)
            last = work
        assert state(base) == before

    def test_sessions_that_rank_otherwise_keep_their_own_ranks(self) -> None:
        """The same kind on the same nodes, first in the default session, then in one whose
        extra predicate refuses the node the default picks: the second does not take the
        first's ranks."""
        room = {"cpu": 8000, "memory": 8 * GI, "pods": 110}
        empty = Node("empty", room, dict(room), {}, {}, (), False)  # odd: refused by the extra
        busy = Node("busy", room, {**room, "cpu": 4000}, {}, {}, (), False)
        task = Task("head", "h", "head-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
        shared = SharedRanks()
        assert allocate.node_choice(SESSION, shared).best(task, [busy, empty]) == 1
        assert allocate.node_choice(OTHER_PREDICATES, shared).best(task, [busy, empty]) == 0
        assert allocate.node_choice(SESSION, shared).best(task, [busy, empty]) == 1
