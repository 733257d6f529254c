"""Allocate's node choice over one or more simulations, each node ranked once per pod kind.

Private to :mod:`raygang.volcano.actions.allocate`; its specification is ``best_node`` there
(Volcano's ``allocate.go``: predicate every node, rank every feasible one, take the best,
ties by name order), and ``tests/volcano/actions/test_nodechoice.py`` checks they agree.

Why it exists: placing a gang asks ``best_node`` once per pod, over every node, while
the pods are few kinds (a worker group's replicas are one ``Task`` object) and each
placement changes one node (``place_on`` puts a changed copy in its place; node objects
are never changed). So nearly every rank ``best_node`` computes was computed for the
previous pod of the same kind already. Here each kind keeps its ranks for the whole
simulation and ranks again only the nodes whose object changed since; the best node is
then the least ``(rank, index)``. The ranks are ``node_rank``'s own, so the answer is the
same by construction: only the bookkeeping is new. The same holds across simulations that
start from the same node objects (the preflight places one job's gang several times from
the same nodes): one choice serves them all (``allocate.node_choice``).

A kind is what the ranks read of a pod, its request and its placement, not the ``Task``
object: the pods of different jobs that ask the same on the same terms are one kind. So the
choices of many sessions may keep their ranks in one :class:`SharedRanks` (the preflight's,
one per planning pass, over the snapshot's node objects every job starts from), filed under
the session's ranking (its predicates and node order functions): a job ranks anew only the
kinds no earlier job had, and the nodes replaced since. Measured in the README's benchmark
section.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from raygang.volcano.api import Node, Task

# ``node_rank`` bound to a session: lower first; None when the predicates refuse the node.
Rank = Callable[[Task, Node], tuple[int, int] | None]

# A node refused by the predicates sorts after every feasible one (their first key is 0 or 1).
REFUSED = 2


@dataclass
class _Ranked:
    """One kind's ranks: ``keys[i]`` is ``(*rank, i)`` of ``seen[i]``, or ``(REFUSED, 0, i)``."""

    seen: list[Node]
    keys: list[tuple[int, int, int]]


# A kind's ranks by kind (:func:`kind_of`).
Kinds = dict[Hashable, _Ranked]


def kind_of(task: Task) -> Hashable:
    """What a rank reads of ``task``: its request (as numbers: ``2`` and ``Fraction(2)`` ask
    alike) and its placement (by its text, which shows every field); its label, group and
    pod name only name it in messages."""
    return (tuple(task.request.items()), repr(task.placement))


class SharedRanks:
    """Ranks kept for the node choices of many sessions (:class:`NodeChoice`'s ``kinds``):
    one table per ranking, so only choices whose sessions rank alike read each other's."""

    def __init__(self) -> None:
        self._tables: dict[Hashable, Kinds] = {}

    def kinds(self, ranking: Hashable) -> Kinds:
        """The table of ``ranking``: the session's predicate and node order functions,
        which are all a rank reads of the session."""
        return self._tables.setdefault(ranking, {})


class NodeChoice:
    """``best_node`` over the placements of one or more simulations (``place_gang`` or
    ``place_singly`` calls), with the session's ranking ``rank``.

    The nodes a caller passes may change between calls only by replacing a node object
    (as ``place_on`` does, and as ``Statement.Discard`` restores the list); a node object
    is never changed in place once ranked. ``kinds``: where the ranks are kept, shared with
    other choices of the same ranking (:meth:`SharedRanks.kinds`); the choice's own when
    None.
    """

    def __init__(self, rank: Rank, kinds: Kinds | None = None) -> None:
        self._rank = rank
        self._kinds: Kinds = {} if kinds is None else kinds

    def best(self, task: Task, nodes: Sequence[Node]) -> int | None:
        """The index of the node allocate picks for ``task``; None when every node refuses it."""
        kind = kind_of(task)
        ranked = self._kinds.get(kind)
        if ranked is None or len(ranked.seen) != len(nodes):
            seen = list(nodes)
            keys = [self._key(task, node, index) for index, node in enumerate(seen)]
            ranked = self._kinds[kind] = _Ranked(seen, keys)
        else:
            seen, keys = ranked.seen, ranked.keys
            for index, node in enumerate(nodes):
                if node is not seen[index]:
                    seen[index] = node
                    keys[index] = self._key(task, node, index)
        if not ranked.keys:
            return None
        first, _, index = min(ranked.keys)
        return None if first == REFUSED else index

    def _key(self, task: Task, node: Node, index: int) -> tuple[int, int, int]:
        rank = self._rank(task, node)
        return (REFUSED, 0, index) if rank is None else (rank[0], rank[1], index)
