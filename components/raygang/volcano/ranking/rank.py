"""What a node's rank for a pod is, and the queue check a placement asks.

A rank is nodeorder's score (:mod:`raygang.volcano.plugins.nodeorder`) behind the
predicates, lower is better; this is the node selection of Volcano's
``pkg/scheduler/actions/allocate/allocate.go`` (``PrioritizeNodes`` then ``SelectBestNode``,
in ``pkg/scheduler/util/scheduler_helper.go``), with ties broken by node order.

An order keeps each entry, a rank and a node index, as one integer (``encode``) in an
array: 8 bytes an entry where a pair of tuples takes over a hundred, and a planning pass
keeps up to a thousand orders of every node. The integers sort as the pairs do.
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

# An entry's code, high bits to low: the rank's flag (1 bit), its negated score plus
# SCORE_BIAS (SCORE_BITS bits), the node's index (INDEX_BITS bits); 57 bits in all, so
# codes fit an array of signed 64-bit integers. nodeorder's scores lie in [0, 200].
INDEX_BITS = 32
INDEX_MASK = (1 << INDEX_BITS) - 1
SCORE_BITS = 24
SCORE_MASK = (1 << SCORE_BITS) - 1
SCORE_BIAS = 1 << (SCORE_BITS - 1)
FLAG_SHIFT = SCORE_BITS + INDEX_BITS
# The code of flag 1, score -SCORE_BIAS, index 0: add the rest to it.
ROOM_PENDING = 1 << FLAG_SHIFT


def volcano_rank(task: Task, node: Node) -> tuple[Num, ...] | None:
    """Nodes with idle room before those where terminating pods make room, then the best
    score; Volcano breaks score ties at random, the first name wins here."""
    room = node.future_idle()
    if not fits_in(task.request, room) or static_failure(task, node) is not None:
        return None
    on_idle = room is node.idle or fits_in(task.request, node.idle)
    return (0 if on_idle else 1, -node_score(task, node))


def encode(rank: Rank, index: int) -> int:
    """``(rank, index)`` as one integer; codes compare as the pairs do.

    Raises:
        ValueError: not a ``volcano_rank`` (flag 0 or 1, an integer score within
            ``SCORE_BIAS``) or an index beyond ``INDEX_MASK``.
    """
    flag, negated = rank
    if (
        flag not in (0, 1)
        or type(negated) is not int
        or not -SCORE_BIAS <= negated < SCORE_BIAS
        or not 0 <= index <= INDEX_MASK
    ):
        raise ValueError(f"rank {rank!r} of node {index} has no code")
    return (int(flag) << FLAG_SHIFT) | ((negated + SCORE_BIAS) << INDEX_BITS) | index


def decode(code: int) -> tuple[Rank, int]:
    """The ``(rank, index)`` an ``encode`` made."""
    return (
        (code >> FLAG_SHIFT, ((code >> INDEX_BITS) & SCORE_MASK) - SCORE_BIAS),
        code & INDEX_MASK,
    )


def bound_code(bound: Rank, index: int) -> int:
    """The code of a bound on the ranks of node ``index``: at most the code of any
    ``(rank, node)`` at or above ``(bound, index)``. A bound below the scores' range
    (``UNBOUNDED``, a pod asking far more than the smallest node) becomes the lowest
    code of its flag, which every such pair still lies above."""
    flag, negated = bound
    if negated < -SCORE_BIAS:
        return encode((flag, -SCORE_BIAS), 0)
    return encode(bound, index)
