"""Nodes with nothing on them: does a kind of pod fit any node even when it is empty, and
how many such pods would the empty nodes hold.

The resource check of Volcano's ``pkg/scheduler/plugins/predicates/predicates.go``
(NodeResourcesFit) and the static predicates on each node emptied, for the "fits no node,
even empty" answer and the capacity bound of :mod:`raygang.preflight.checks.fit`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from raygang.volcano.actions.allocate import fit_failure
from raygang.volcano.api import Node, Num, Task, fits_in, get, short_on_node
from raygang.volcano.framework import Session

__all__ = ["empty_holds", "empty_reasons", "fits_empty", "size_fit"]


def fits_empty(task: Task, empty: Sequence[Node], session: Session) -> bool:
    """Whether some of the ``empty`` nodes takes ``task``: the first that does settles it
    (the question is yes or no; which nodes and how many is :func:`empty_holds`)."""
    return any(
        fits_in(task.request, node.allocatable) and session.predicate(task, node) is None
        for node in empty
    )


def empty_holds(task: Task, empty: Sequence[Node], session: Session, want: int) -> int:
    """How many ``task`` pods the ``empty`` nodes hold, counted until ``want``.

    The capacity bound asks only whether they hold ``want`` pods, and how many they hold
    when they do not: so the count stops once it reaches ``want`` (a number ``>= want``),
    and is exact whenever it is below ``want``.
    """
    holds = 0
    for node in empty:
        if holds >= want:
            break
        short, per_node = size_fit(task, node.allocatable)
        if short is None and session.predicate(task, node) is None:
            holds += per_node
    return holds


def empty_reasons(task: Task, empty: Sequence[Node], session: Session) -> dict[str, str]:
    """Why each of the ``empty`` nodes refuses ``task``: ``fit_failure`` against its
    allocatable."""
    return {
        n.name: r for n in empty if (r := fit_failure(task, n, session, n.allocatable)) is not None
    }


def size_fit(task: Task, allocatable: Mapping[str, Num]) -> tuple[str | None, int]:
    """Whether an empty node of this size is short for ``task``, and how many it holds."""
    if not fits_in(task.request, allocatable):
        return f"Insufficient {short_on_node(task.request, allocatable)[0]}", 0
    if task.best_effort:
        return None, 0
    # ``min over resource names of allocatable // request``; floor division is exact for
    # integers and Fractions alike.
    return None, min(int(get(allocatable, n) // v) for n, v in task.request.items() if v > 0)
