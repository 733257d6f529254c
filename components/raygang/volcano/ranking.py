"""Nodes ranked per kind of pod, so a gang is placed without scoring every node for every pod.

The order is nodeorder's (:mod:`raygang.volcano.plugins.nodeorder`); this module only finds
the best node lazily and remembers, per planning pass, what a simulation did not change.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
import sys
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from raygang.volcano.api import ZERO, Node, Num, Res, Task, fits_in
from raygang.volcano.plugins.nodeorder import (
    MAX_SIZE_LANES,
    PLAIN_SLACK,
    empty_score,
    node_score,
    plain_score,
    plain_slack,
    score_of,
)
from raygang.volcano.plugins.predicates import fit_failure, static_failure

# proportion's per-task queue check: (task, what the job placed so far) -> allowed.
QueueGate = Callable[[Task, Res], bool]

Rank = tuple[Num, ...]

# Below every rank: a node whose score has no bound is visited before any is final.
UNBOUNDED: Rank = (0, -(1 << 62))


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
                    entry := found[self.position]
                    if self.position < len(found)
                    else order.at(self.position)
                ) is not None:
                    index = entry[1]
                    if nodes[index].version == versions[index]:
                        kept = entry
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


class FastRank:
    """``volcano_rank`` of a changed copy of a ranking's node, from the ranking's columns.

    The static predicates and the allocatable are those of the ranking's node (copies keep
    them); the resource check and the score read the copy's idle room. Only for integer
    quantities (always, for what ``unit_of`` yields) and nodes with no room pending.
    """

    def __init__(self, ranking: Ranking, task: Task) -> None:
        self.task = task
        self.cpu = task.request.get("cpu", 0)
        self.memory = task.request.get("memory", 0)
        self.others = [(n, v) for n, v in task.request.items() if n not in ("cpu", "memory")]
        self.allowed = ranking.allowed(task)
        self.rows = ranking.rows

    def rank(self, index: int, node: Node) -> Rank | None:
        """The rank of ``node`` (a copy of the ranking's node ``index``); None: it cannot."""
        if not self.allowed[index]:
            return None
        if node.releasing or node.pipelined:
            return volcano_rank(self.task, node)
        idle = node.idle
        c_idle, m_idle = idle.get("cpu", 0), idle.get("memory", 0)
        cpu, memory = self.cpu, self.memory
        # fits_in(request, idle) for integers: an absent cpu or memory asks 0, which still
        # refuses a node over its allocatable (idle below 0).
        if c_idle < cpu or m_idle < memory:
            return None
        for name, value in self.others:
            if value > idle.get(name, 0):
                return None
        c_of, m_of = self.rows[index][0], self.rows[index][1]
        if c_of > 0 and m_of > 0 and c_idle <= c_of and m_idle <= m_of:
            return (0, -plain_score(c_of, m_of, c_idle, m_idle, cpu, memory))
        return (0, -score_of(c_of, c_idle, cpu, m_of, m_idle, memory))


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
    """

    def __init__(self, ranking: Ranking, task: Task) -> None:
        self.ranking, self.task = ranking, task
        self.found: list[tuple[Rank, int]] = []
        self.pending: list[tuple[Rank, int]] = []
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
        # The next unvisited node of each lane: (bound, index, lane, position in lane).
        self.heads = [
            (self._bound(indexes[0], slack), indexes[0], lane, 0)
            for lane, (indexes, slack) in enumerate(lanes)
        ]
        heapq.heapify(self.heads)

    def _bound(self, index: int, slack: int | None) -> Rank:
        if slack is None:
            return UNBOUNDED
        empty = self.ranking.empty_scores[index]
        assert empty is not None
        return (0, -(empty + slack))

    def at(self, position: int) -> tuple[Rank, int] | None:
        """The ``position``-th best ``(rank, index)``; None past the last."""
        found, pending, heads = self.found, self.pending, self.heads
        while len(found) <= position:
            if heads:
                bound, index, lane, at = heads[0]
                if pending and pending[0] < (bound, index):
                    found.append(heapq.heappop(pending))
                    continue
                if self.visited >= self.eager_after:
                    rest = [i for _, _, ln, p in heads for i in self.lanes[ln][0][p:]]
                    heads.clear()
                    pending.extend(map(self.ranking.entry, self.rank_all(rest)))
                    pending.sort()
                    found.extend(pending)
                    pending.clear()
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
                    heapq.heappush(pending, self.ranking.entry((value, index)))
            elif pending:
                found.append(heapq.heappop(pending))
            else:
                return None
        return found[position]

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

    def rank_all(self, indexes: Sequence[int]) -> list[tuple[Rank, int]]:
        """``(volcano_rank, index)`` of the nodes that can take the pod.

        With integer quantities (always, for what ``unit_of`` reads) the resource check
        runs column by column and ``node_score`` inline, as this is the hot loop of a
        preflight against a large cluster.
        """
        ranking, task = self.ranking, self.task
        nodes = ranking.nodes
        if not self.fast:
            return [
                (value, i) for i in indexes if (value := volcano_rank(task, nodes[i])) is not None
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
        out: list[tuple[Rank, int]] = []
        for i in candidates:
            c_of, m_of, c_idle, m_idle = rows[i]
            if plain[i]:
                # After the room check the pod fits idle room within the allocatable.
                out.append(((0, -plain_score(c_of, m_of, c_idle, m_idle, cpu, memory)), i))
                continue
            node = nodes[i]
            flag = 0 if ranking.rooms[i] is node.idle or fits_in(request, node.idle) else 1
            score = score_of(c_of, c_idle, cpu, m_of, m_idle, memory)
            out.append(((flag, -score), i))
        return out


class View:
    """An ``Order`` of cpu, memory and placement, less the nodes where another resource
    the pod asks for does not fit (columns of FutureIdle, which is idle here)."""

    def __init__(self, order: Order, needs: Sequence[tuple[Sequence[Num], Num]]) -> None:
        self.order = order
        self.needs = needs
        self.found: list[tuple[Rank, int]] = []
        self.scanned = 0  # entries of ``order`` looked at

    def at(self, position: int) -> tuple[Rank, int] | None:
        """The ``position``-th best ``(rank, index)``; None past the last."""
        found, needs, order = self.found, self.needs, self.order
        while len(found) <= position:
            entry = order.at(self.scanned)
            if entry is None:
                return None
            self.scanned += 1
            index = entry[1]
            if all(room[index] >= need for room, need in needs):
                found.append(entry)
        return found[position]

    def bound(self, node: Node) -> Rank:
        """A rank this kind of pod cannot beat on ``node``, in any state of it."""
        return self.order.bound(node)


class Ranking:
    """Node ranks per kind of pod, in one state of the cluster (see ``Order``).

    Simulations start from copies of that state (a snapshot read once per stack); a node
    still in it (same ``version``) takes its rank and its fit error from here, so placing
    a gang costs the nodes it changes and the few best nodes of each kind of pod, not
    every node of the cluster. The last ``kept`` kinds of pods are remembered, which
    bounds the memory.
    """

    def __init__(
        self, nodes: Sequence[Node], kept: int = 1024, eager_after: int | None = None
    ) -> None:
        self.nodes = list(nodes)  # never changed: simulations replace what they change
        self.versions = [n.version for n in self.nodes]
        self.kept = kept
        # Past this many visits of an order the bounds are not pruning: rank the rest.
        self.eager_after = max(32, len(self.nodes) // 8) if eager_after is None else eager_after
        self.rooms = [n.future_idle() for n in self.nodes]
        # Integer quantities (what ``unit_of`` yields) allow the direct comparisons of
        # ``Order.rank``; checked once.
        self.integral = all(
            type(v) is int
            for node, room in zip(self.nodes, self.rooms, strict=True)
            for res in (node.idle, node.allocatable, room)
            for v in res.values()
        )
        self.sized = [
            n.allocatable.get("cpu", ZERO) > 0 and n.allocatable.get("memory", ZERO) > 0
            for n in self.nodes
        ]
        # Each node's score for a pod that asks nothing (None: a node without cpu or
        # memory, visited first); Order visits nodes by it, best first.
        self.empty_scores = [empty_score(n) for n in self.nodes]
        sized_nodes = [n for n, sized in zip(self.nodes, self.sized, strict=True) if sized]
        self.smallest: tuple[Num, Num] = (
            (
                min(n.allocatable["cpu"] for n in sized_nodes),
                min(n.allocatable["memory"] for n in sized_nodes),
            )
            if sized_nodes
            else (ZERO, ZERO)
        )
        # cpu and memory, allocatable then idle, per node; and whether a node is plain:
        # both allocatable, idle room within them, nothing terminating or pipelined.
        self.rows = [
            (
                n.allocatable.get("cpu", ZERO),
                n.allocatable.get("memory", ZERO),
                n.idle.get("cpu", ZERO),
                n.idle.get("memory", ZERO),
            )
            for n in self.nodes
        ]
        self.plain = [
            sized and room is n.idle and 0 <= c_idle <= c_of and 0 <= m_idle <= m_of
            for n, room, sized, (c_of, m_of, c_idle, m_idle) in zip(
                self.nodes, self.rooms, self.sized, self.rows, strict=True
            )
        ]
        # Every node with cpu and memory is plain (see Order's slack).
        self.all_plain = self.integral and all(
            plain or not sized for plain, sized in zip(self.plain, self.sized, strict=True)
        )
        # Visiting orders for Order: nodes without cpu or memory, the others, and the
        # others per size (allocatable cpu and memory), each best empty score first.
        scores = self.empty_scores
        self.unsized = [i for i, e in enumerate(scores) if e is None]
        self.sized_by_bound = sorted(
            (i for i, e in enumerate(scores) if e is not None),
            key=lambda i: (-(scores[i] or 0), i),
        )
        lanes: dict[tuple[Num, Num], list[int]] = {}
        for i in self.sized_by_bound:
            lanes.setdefault(self.rows[i][:2], []).append(i)
        self.size_lanes = list(lanes.items()) if len(lanes) <= MAX_SIZE_LANES else []
        self._columns: dict[tuple[str, str], list[Num]] = {}
        self._orders: dict[tuple[Any, ...], Order] = {}
        self._views: dict[tuple[Any, ...], View] = {}
        # No node has room pending: FutureIdle is idle everywhere (see ``order``).
        self.settled = self.integral and all(
            room is n.idle for n, room in zip(self.nodes, self.rooms, strict=True)
        )
        self._errors: dict[tuple[Any, ...], tuple[str | None, ...]] = {}
        self._entries: dict[tuple[Rank, int], tuple[Rank, int]] = {}
        self._allowed: dict[str, list[bool]] = {}
        self._fitting: dict[tuple[Any, ...], tuple[int, bytes]] = {}

    def entry(self, entry: tuple[Rank, int]) -> tuple[Rank, int]:
        """One object for each ``(rank, index)`` of every order: pods of different kinds
        often rank a node alike, and the orders keep up to ``kept`` kinds of every node."""
        return self._entries.setdefault(entry, entry)

    def column(self, source: str, name: str) -> list[Num]:
        """One quantity of every node: of its ``room`` (FutureIdle), ``idle`` or
        ``allocatable``."""
        column = self._columns.get((source, name))
        if column is None:
            if source == "room":
                column = [room.get(name, ZERO) for room in self.rooms]
            elif source == "idle":
                column = [n.idle.get(name, ZERO) for n in self.nodes]
            else:
                column = [n.allocatable.get(name, ZERO) for n in self.nodes]
            self._columns[(source, name)] = column
        return column

    def release(self) -> None:
        """Drop what was ranked. Its orders refer back to it, so a ranking nobody uses
        would otherwise wait, with every order, for the garbage collector; ranking again is
        still right."""
        caches = (self._orders, self._views, self._errors, self._allowed, self._fitting)
        for cache in (*caches, self._entries):
            cache.clear()

    def changed(self, nodes: Sequence[Node]) -> set[int]:
        """The indexes of ``nodes`` not in this ranking's state."""
        # Nodes still the ranking's own objects are unchanged: found at C speed, as most
        # nodes are (a simulation's list starts as a copy of the ranking's).
        versions = self.versions
        differ = itertools.compress(range(len(nodes)), map(operator.is_not, nodes, self.nodes))
        return {i for i in differ if nodes[i].version != versions[i]}

    def _remember(
        self, cache: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any
    ) -> None:
        cache[key] = value
        if len(cache) > self.kept:
            del cache[next(iter(cache))]

    def countable(self, task: Task) -> bool:
        """Whether the nodes' quantities and the pod's request are all integers, so the
        column-wise paths apply (``fitting``, ``FastRank``, ``Order.rank_all``)."""
        return self.integral and all(type(v) is int for v in task.request.values())

    def fitting(self, task: Task) -> tuple[int, bytes]:
        """The nodes whose room (FutureIdle) and static predicates take ``task``: how
        many, and a byte per node (1: it does); ``fits_in`` column by column (see
        ``Order.rank_all``). Bytes, since up to ``kept`` of these are remembered."""
        known = self._fitting.get(task.shape)
        if known is None:
            request = task.request
            candidates = [i for i, ok in enumerate(self.allowed(task)) if ok]
            for name in ("cpu", "memory", *(n for n in request if n not in ("cpu", "memory"))):
                need = request.get(name, 0)
                room = self.column("room", name)
                candidates = [i for i in candidates if room[i] >= need]
            mask = bytearray(len(self.nodes))
            for i in candidates:
                mask[i] = 1
            known = (len(candidates), bytes(mask))
            self._remember(self._fitting, task.shape, known)
        return known

    def allowed(self, task: Task) -> list[bool]:
        """Per node, whether the static predicates let ``task`` on (per placement)."""
        key = task.placement.key
        allowed = self._allowed.get(key)
        if allowed is None:
            allowed = [static_failure(task, n) is None for n in self.nodes]
            self._allowed[key] = allowed
        return allowed

    def order(self, task: Task) -> Order | View:
        """The nodes that can take ``task``, best first (ranked on demand).

        When no node has room pending (terminating or pipelined pods), a rank depends on
        the pod's cpu and memory (the score) and on whether each other resource fits: pods
        alike in cpu, memory and placement share one order, each seeing the nodes its
        other resources fit.
        """
        request = task.request
        if self.settled and all(type(v) is int for v in request.values()):
            cpu, memory = request.get("cpu", 0), request.get("memory", 0)
            key = (task.placement.key, cpu, memory)
            base = self._orders.get(key)
            if base is None:
                scored = Task(
                    task.label,
                    task.group,
                    task.pod_name,
                    {"cpu": cpu, "memory": memory},
                    task.placement,
                )
                base = Order(self, scored)
                self._remember(self._orders, key, base)
            view = self._views.get(task.shape)
            if view is None or view.order is not base:
                extra = [(n, v) for n, v in request.items() if n not in ("cpu", "memory")]
                view = View(base, [(self.column("room", n), v) for n, v in extra])
                self._remember(self._views, task.shape, view)
            return view
        found = self._orders.get(task.shape)
        if found is None:
            found = Order(self, task)
            self._remember(self._orders, task.shape, found)
        return found

    def fit_errors(self, task: Task, nodes: Sequence[Node]) -> dict[str, str]:
        """Why each of ``nodes`` (copies of this state, some changed) cannot take ``task``."""
        if len(nodes) != len(self.nodes):
            return {n.name: r for n in nodes if (r := fit_failure(task, n)) is not None}
        known = self._errors.get(task.shape)
        if known is None:
            # Per node, in node order (a tuple: a dict of every node's name would be kept
            # for each of up to ``kept`` kinds of pods); interned, as a few reasons repeat.
            known = tuple(
                None if (r := fit_failure(task, n)) is None else sys.intern(r) for n in self.nodes
            )
            self._remember(self._errors, task.shape, known)
        # The known reasons, redone for the changed nodes (callers only count reasons, so
        # the order of the keys does not matter).
        out = {n.name: r for n, r in zip(self.nodes, known, strict=True) if r is not None}
        for index in self.changed(nodes):
            node = nodes[index]
            reason = fit_failure(task, node)
            if reason is None:
                out.pop(node.name, None)
            else:
                out[node.name] = reason
        return out


def volcano_rank(task: Task, node: Node) -> tuple[Num, ...] | None:
    """Nodes with idle room before those where terminating pods make room, then the best
    score; Volcano breaks score ties at random, the first name wins here."""
    room = node.future_idle()
    if not fits_in(task.request, room) or static_failure(task, node) is not None:
        return None
    on_idle = room is node.idle or fits_in(task.request, node.idle)
    return (0 if on_idle else 1, -node_score(task, node))
