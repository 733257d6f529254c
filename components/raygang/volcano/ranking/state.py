"""Per planning pass, what each kind of pod's ranking found in one state of the cluster.

Orders, views, fit errors, fitting masks and interned entries, kept per state so a
simulation pays only for the nodes it changes. The ranks are those of Volcano's
``pkg/scheduler/actions/allocate/allocate.go`` node selection; the fit errors are
``pkg/scheduler/plugins/predicates/predicates.go``'s.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from raygang.volcano.api import ZERO, Node, Num, Task
from raygang.volcano.plugins.nodeorder import MAX_SIZE_LANES, empty_score
from raygang.volcano.plugins.predicates import fit_failure, static_failure
from raygang.volcano.ranking.order import Order, View


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
        self._errors: dict[tuple[Any, ...], tuple[tuple[str | None, ...], bytes | array[int]]] = {}
        self._allowed: dict[str, list[bool]] = {}
        self._fitting: dict[tuple[Any, ...], tuple[int, int]] = {}

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
        for cache in (
            self._orders,
            self._views,
            self._errors,
            self._allowed,
            self._fitting,
        ):
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

    def fitting(self, task: Task) -> tuple[int, int]:
        """The nodes whose room (FutureIdle) and static predicates take ``task``: how
        many, and a bit per node (bit ``i`` set: node ``i`` does); ``fits_in`` column by
        column (see ``Order.rank_all``). Bits, since up to ``kept`` of these are
        remembered."""
        known = self._fitting.get(task.shape)
        if known is None:
            request = task.request
            candidates = [i for i, ok in enumerate(self.allowed(task)) if ok]
            for name in ("cpu", "memory", *(n for n in request if n not in ("cpu", "memory"))):
                need = request.get(name, 0)
                room = self.column("room", name)
                candidates = [i for i in candidates if room[i] >= need]
            mask = 0
            for i in candidates:
                mask |= 1 << i
            known = (len(candidates), mask)
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
            known = _compact(fit_failure(task, n) for n in self.nodes)
            self._remember(self._errors, task.shape, known)
        reasons, codes = known
        # The known reasons, redone for the changed nodes (callers only count reasons, so
        # the order of the keys does not matter).
        out = {
            n.name: r
            for n, c in zip(self.nodes, codes, strict=True)
            if (r := reasons[c]) is not None
        }
        for index in self.changed(nodes):
            node = nodes[index]
            reason = fit_failure(task, node)
            if reason is None:
                out.pop(node.name, None)
            else:
                out[node.name] = reason
        return out


def _compact(
    reasons: Iterable[str | None],
) -> tuple[tuple[str | None, ...], bytes | array[int]]:
    """Per node, its reason as an index into the distinct reasons (0: None): a byte a node
    where a tuple takes eight, as a few reasons repeat over every node."""
    distinct: dict[str | None, int] = {None: 0}
    codes = [distinct.setdefault(r, len(distinct)) for r in reasons]
    table = tuple(distinct)
    return table, bytes(codes) if len(table) <= 256 else array("I", codes)
