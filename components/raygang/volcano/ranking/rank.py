"""What a node's rank for a pod is, and the queue check a placement asks.

A rank is nodeorder's score (:mod:`raygang.volcano.plugins.nodeorder`) behind the
predicates, lower is better; this is the node selection of Volcano's
``pkg/scheduler/actions/allocate/allocate.go`` (``PrioritizeNodes`` then ``SelectBestNode``,
in ``pkg/scheduler/util/scheduler_helper.go``), with ties broken by node order.
"""

from __future__ import annotations

from collections.abc import Callable

from raygang.volcano.api import Node, Num, Res, Task, fits_in
from raygang.volcano.plugins.nodeorder import node_score
from raygang.volcano.plugins.predicates import static_failure

# proportion's per-task queue check: (task, what the job placed so far) -> allowed.
QueueGate = Callable[[Task, Res], bool]

Rank = tuple[Num, ...]

# Below every rank: a node whose score has no bound is visited before any is final.
UNBOUNDED: Rank = (0, -(1 << 62))


def volcano_rank(task: Task, node: Node) -> tuple[Num, ...] | None:
    """Nodes with idle room before those where terminating pods make room, then the best
    score; Volcano breaks score ties at random, the first name wins here."""
    room = node.future_idle()
    if not fits_in(task.request, room) or static_failure(task, node) is not None:
        return None
    on_idle = room is node.idle or fits_in(task.request, node.idle)
    return (0 if on_idle else 1, -node_score(task, node))
