"""The nodes of a ranking's state ranked for one kind of pod, best first, lazily.

The order is Volcano's node order for a pod (``pkg/scheduler/plugins/nodeorder`` scores, as
``PrioritizeNodes`` in ``pkg/scheduler/util/scheduler_helper.go`` ranks them for
``pkg/scheduler/actions/allocate/allocate.go``); visited by bounds and lanes so most nodes
are never scored. ``View`` is an order less the nodes where another resource does not fit.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from raygang.volcano.api import Node, Num, Task, fits_in
from raygang.volcano.plugins.nodeorder import (
    PLAIN_SLACK,
    empty_score,
    node_score,
    plain_score,
    plain_slack,
    score_of,
)
from raygang.volcano.ranking.rank import (
    INDEX_BITS,
    INDEX_MASK,
    ROOM_PENDING,
    SCORE_BIAS,
    UNBOUNDED,
    Rank,
    bound_code,
    encode,
    volcano_rank,
)

if TYPE_CHECKING:
    from raygang.volcano.ranking.state import Ranking


class Order:
    """The nodes of a ranking's state that can take one kind of pod, best first.

    Ranked only as far as someone looks: nodes are visited by a bound on the pod's score,
    best first, and an entry is final once no unvisited node can beat it. The bound is
    the node's score for an empty pod plus a ``slack``. In general a pod asking ``cpu``
    and ``memory`` scores at most ``ceil(50 * (cpu / allocatable cpu + memory /
    allocatable memory))`` above that: its leastrequested part only drops, its
    balancedresource gap moves by at most those fractions. On a plain node (idle room
    within the allocatable, nothing pending) it does better: the pod costs more
    leastrequested points than it can win back, by a margin that depends on the node's
    size (``plain_slack``), so nodes are visited per size, and a size where the pod
    takes a large share falls behind at once. A gang takes the first few nodes of each
    kind of pod, so most nodes are never ranked. When the bound does not separate the
    nodes the rest are ranked at once, column by column.

    Entries are codes (:func:`raygang.volcano.ranking.rank.encode`): ``found`` is an array
    of them, best first, and ``pending`` a heap of them.
    """

    def __init__(self, ranking: Ranking, task: Task) -> None:
        self.ranking, self.task = ranking, task
        self.found = array("q")
        self.pending: list[int] = []
        self.visited = 0
        self.eager_after = ranking.eager_after
        request = task.request
        self.fast = ranking.countable(task)
        self.allowed = ranking.allowed(task) if self.fast else []
        cpu_of, mem_of = ranking.smallest
        self.slack = (
            math.ceil(
                Fraction(50 * request.get("cpu", 0), cpu_of)
                + Fraction(50 * request.get("memory", 0), mem_of)
            )
            if cpu_of > 0 and mem_of > 0
            else 0
        )
        if ranking.all_plain:
            self.slack = min(self.slack, PLAIN_SLACK)
        # Lanes of nodes to visit, each in bound order, with their slack (None: no bound):
        # nodes without cpu or memory first, then one lane per node size when the pod's
        # drop in score on that size is known (plain nodes, integer requests), else one.
        lanes: list[tuple[Sequence[int], int | None]] = []
        if ranking.unsized:
            lanes.append((ranking.unsized, None))
        if ranking.all_plain and self.fast and ranking.size_lanes:
            cpu, memory = request.get("cpu", 0), request.get("memory", 0)
            for (cpu_of, mem_of), indexes in ranking.size_lanes:
                lanes.append((indexes, min(self.slack, plain_slack(cpu, memory, cpu_of, mem_of))))
        elif ranking.sized_by_bound:
            lanes.append((ranking.sized_by_bound, self.slack))
        self.lanes = lanes
        # The next unvisited node of each lane: (code of its bound, index, lane, position
        # in lane).
        self.heads = [
            (self._bound(indexes[0], slack), indexes[0], lane, 0)
            for lane, (indexes, slack) in enumerate(lanes)
        ]
        heapq.heapify(self.heads)

    def _bound(self, index: int, slack: int | None) -> int:
        if slack is None:
            return bound_code(UNBOUNDED, index)
        empty = self.ranking.empty_scores[index]
        assert empty is not None
        # bound_code inline (one call a visited node): scores and slacks are not negative.
        biased = SCORE_BIAS - empty - slack
        return (biased << INDEX_BITS) | index if biased >= 0 else 0

    def at(self, position: int) -> int | None:
        """The code of the ``position``-th best entry; None past the last."""
        found, pending, heads = self.found, self.pending, self.heads
        while len(found) <= position:
            if heads:
                bound, index, lane, at = heads[0]
                if pending and pending[0] < bound:
                    found.append(heapq.heappop(pending))
                    continue
                if self.visited >= self.eager_after:
                    rest = [i for _, _, ln, p in heads for i in self.lanes[ln][0][p:]]
                    heads.clear()
                    pending.extend(self.rank_all(rest))
                    pending.sort()
                    found.extend(pending)
                    pending.clear()
                    self._complete()
                    continue
                self.visited += 1
                indexes, slack = self.lanes[lane]
                if at + 1 < len(indexes):
                    following = indexes[at + 1]
                    entry = (self._bound(following, slack), following, lane, at + 1)
                    heapq.heapreplace(heads, entry)
                else:
                    heapq.heappop(heads)
                value = self.rank(index)
                if value is not None:
                    heapq.heappush(pending, encode(value, index))
            elif pending:
                found.append(heapq.heappop(pending))
            else:
                self._complete()
                return None
        return found[position]

    def _complete(self) -> None:
        # Every node is ranked: what visiting needs goes, as up to ``kept`` orders stay.
        self.lanes, self.allowed = [], []

    def bound(self, node: Node) -> Rank:
        """A rank this kind of pod cannot beat on ``node``, in any state of it."""
        empty = empty_score(node)
        return UNBOUNDED if empty is None else (0, -(empty + self.slack))

    def rank(self, index: int) -> Rank | None:
        """``volcano_rank`` of one node of the ranking's state."""
        node = self.ranking.nodes[index]
        if self.fast:
            if not self.allowed[index]:
                return None
            room = self.ranking.rooms[index]
            request = self.task.request
            if not fits_in(request, room):
                return None
            flag = 0 if room is node.idle or fits_in(request, node.idle) else 1
            return (flag, -node_score(self.task, node))
        return volcano_rank(self.task, node)

    def rank_all(self, indexes: Sequence[int]) -> list[int]:
        """The codes of ``(volcano_rank, index)`` of the nodes that can take the pod.

        With integer quantities (always, for what ``unit_of`` reads) the resource check
        runs column by column and ``node_score`` and ``encode`` inline, as this is the hot
        loop of a preflight against a large cluster.
        """
        ranking, task = self.ranking, self.task
        nodes = ranking.nodes
        if not self.fast:
            return [
                encode(value, i)
                for i in indexes
                if (value := volcano_rank(task, nodes[i])) is not None
            ]
        request = task.request
        allowed = self.allowed
        candidates = [i for i in indexes if allowed[i]]
        # fits_in(request, FutureIdle): cpu and memory always (a node over its allocatable
        # is short even for a pod that asks none), then each name the pod asks for.
        for name in ("cpu", "memory", *(n for n in request if n not in ("cpu", "memory"))):
            need = request.get(name, 0)
            room = ranking.column("room", name)
            candidates = [i for i in candidates if room[i] >= need]
        cpu, memory = request.get("cpu", 0), request.get("memory", 0)
        rows, plain = ranking.rows, ranking.plain
        out: list[int] = []
        for i in candidates:
            c_of, m_of, c_idle, m_idle = rows[i]
            if plain[i]:
                # After the room check the pod fits idle room within the allocatable.
                score = plain_score(c_of, m_of, c_idle, m_idle, cpu, memory)
                flag = 0
            else:
                node = nodes[i]
                on_idle = ranking.rooms[i] is node.idle or fits_in(request, node.idle)
                score = score_of(c_of, c_idle, cpu, m_of, m_idle, memory)
                flag = 0 if on_idle else ROOM_PENDING
            if not 0 <= SCORE_BIAS - score < 2 * SCORE_BIAS or i > INDEX_MASK:
                encode((0, -score), i)  # raises: no code
            out.append(flag | ((SCORE_BIAS - score) << INDEX_BITS) | i)
        return out


class View:
    """An ``Order`` of cpu, memory and placement, less the nodes where another resource
    the pod asks for does not fit (columns of FutureIdle, which is idle here)."""

    def __init__(self, order: Order, needs: Sequence[tuple[Sequence[Num], Num]]) -> None:
        self.order = order
        self.needs = needs
        self.found = array("q")  # codes, as the order's
        self.scanned = 0  # entries of ``order`` looked at

    def at(self, position: int) -> int | None:
        """The code of the ``position``-th best entry; None past the last."""
        found, needs, order = self.found, self.needs, self.order
        while len(found) <= position:
            code = order.at(self.scanned)
            if code is None:
                return None
            self.scanned += 1
            index = code & INDEX_MASK
            if all(room[index] >= need for room, need in needs):
                found.append(code)
        return found[position]

    def bound(self, node: Node) -> Rank:
        """A rank this kind of pod cannot beat on ``node``, in any state of it."""
        return self.order.bound(node)
