"""The best node for one kind of pod, found lazily, as a gang is placed pod by pod.

Follows the node choice of Volcano's ``pkg/scheduler/actions/allocate/allocate.go``
(``PrioritizeNodes``, then ``SelectBestNode`` of ``pkg/scheduler/util/scheduler_helper.go``),
without scoring every node for every pod.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from raygang.volcano.api import Node, Task
from raygang.volcano.ranking.fast import FastRank
from raygang.volcano.ranking.rank import INDEX_MASK, Rank, decode, volcano_rank

if TYPE_CHECKING:
    from raygang.volcano.ranking.order import Order, View
    from raygang.volcano.ranking.state import Ranking


class Chooser:
    """The best node for one kind of pod, found lazily.

    Without a ``ranking`` every node is ranked up front, in a heap refreshed lazily:
    placing a pod changes one node, so only that node's entry is recomputed when it
    surfaces. During one gang attempt nodes only lose room, so a node that cannot take
    the pod never can again.

    With a ``ranking`` of the state the nodes were copied from (``volcano_rank`` only),
    the nodes still in that state come in the ranking's order, and a changed node is
    ranked only once its bound (``Order.bound``) could beat the best candidate: the
    choice is the one a full scan would make.

    Args:
        task: the pod (the pods of a group share one Task object).
        nodes: the candidate nodes, in name order (ties go to the first).
        rank: a node's rank for the task, lower is better; None when it cannot take it.
        ranking: the ranks of ``volcano_rank`` in the original state of ``nodes``.
        changed: the indexes of ``nodes`` that may differ from the ranking's state (all
            that do, maybe more); found by comparing versions when not given.
    """

    def __init__(
        self,
        task: Task,
        nodes: Sequence[Node],
        rank: Callable[[Task, Node], Rank | None],
        ranking: Ranking | None = None,
        changed: Iterable[int] | None = None,
    ) -> None:
        self.task, self.nodes, self.rank = task, nodes, rank
        # Ranked: (rank, index, version). Not ranked yet (changed nodes): (bound, ...).
        self.ranked: list[tuple[Rank, int, int]] = []
        self.bounded: list[tuple[Rank, int, int]] = []
        self.order: Order | View | None = None
        self.versions: Sequence[int] = ()
        self.position = 0
        self.tracked: set[int] = set()  # indexes this chooser follows itself
        self.fast: FastRank | None = None
        if ranking is not None and len(ranking.versions) == len(nodes):
            self.order = ranking.order(task)
            self.versions = ranking.versions
            if rank is volcano_rank and ranking.countable(task):
                self.fast = FastRank(ranking, task)
            for index in ranking.changed(nodes) if changed is None else changed:
                self.tracked.add(index)
                self._track(index)
            heapq.heapify(self.bounded)
            heapq.heapify(self.ranked)
        else:
            for index, node in enumerate(nodes):
                value = rank(task, node)
                if value is not None:
                    self.ranked.append((value, index, node.version))
            heapq.heapify(self.ranked)

    def _track(self, index: int) -> None:
        # A changed node of a ranking: ranked now when that is as cheap as bounding it,
        # else bounded (ranked once the bound could beat the best candidate).
        node = self.nodes[index]
        if self.fast is not None:
            if (value := self.fast.rank(index, node)) is not None:
                self.ranked.append((value, index, node.version))
        else:
            assert self.order is not None
            self.bounded.append((self.order.bound(node), index, node.version))

    def follow(self, index: int) -> None:
        """Track a node whose state left the ranking's (or changed since it was ranked)."""
        self.tracked.add(index)
        node = self.nodes[index]
        if self.fast is not None:
            if (value := self.fast.rank(index, node)) is not None:
                heapq.heappush(self.ranked, (value, index, node.version))
        elif self.order is not None:
            heapq.heappush(self.bounded, (self.order.bound(node), index, node.version))
        elif (value := self.rank(self.task, node)) is not None:
            heapq.heappush(self.ranked, (value, index, node.version))

    def best(self) -> int | None:
        """The index of the best node; None when no node can take the pod."""
        nodes, versions, order = self.nodes, self.versions, self.order
        while True:
            kept: tuple[Rank, int] | None = None
            if order is not None:
                # The first node of the ranking still in its ranked state.
                found = order.found
                while (
                    code := found[self.position]
                    if self.position < len(found)
                    else order.at(self.position)
                ) is not None:
                    index = code & INDEX_MASK
                    if nodes[index].version == versions[index]:
                        kept = decode(code)
                        break
                    self.position += 1
                    if index not in self.tracked:
                        self.follow(index)
            while self.ranked:
                _, index, version = self.ranked[0]
                if version == nodes[index].version:
                    break
                heapq.heappop(self.ranked)
                self.follow(index)
            best = kept
            if self.ranked and (best is None or self.ranked[0][:2] < best):
                best = self.ranked[0][:2]
            if self.bounded and (best is None or self.bounded[0][:2] < best):
                # A changed node might beat the best so far: rank it, then look again.
                _, index, version = heapq.heappop(self.bounded)
                node = nodes[index]
                if version != node.version:
                    self.follow(index)
                elif (value := self.rank(self.task, node)) is not None:
                    heapq.heappush(self.ranked, (value, index, version))
                continue
            return best[1] if best is not None else None
