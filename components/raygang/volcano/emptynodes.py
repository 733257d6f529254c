"""Nodes with nothing on them: does a kind of pod fit any node even when it is empty, and
how many such pods would the empty nodes hold.

The resource check of Volcano's ``pkg/scheduler/plugins/predicates/predicates.go``
(NodeResourcesFit) and the static predicates on each node emptied, for the "fits no node,
even empty" answer and the capacity bound of :mod:`raygang.volcano.checks.fit`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.volcano.api import Node, Num, Task, fits_in, get, short_on_node
from raygang.volcano.plugins.predicates import static_failure

__all__ = ["EmptyNodes", "size_fit"]


class EmptyNodes:
    """Nodes with nothing on them, for "fits no node, even when empty".

    Nodes of one size give one answer to the resource check and one count, so both are
    computed once per size (a cluster has a few) and the labels and taints are counted
    once per placement and size. The answers for the last ``kept`` kinds of pods are
    remembered (a job asks about each of its kinds several times).
    """

    def __init__(self, nodes: list[Node], kept: int = 1024) -> None:
        self.nodes = nodes
        self.sizes: dict[tuple[tuple[str, Num], ...], list[Node]] = {}
        for node in nodes:
            self.sizes.setdefault(node.size, []).append(node)
        self._allowed: dict[tuple[str, tuple[tuple[str, Num], ...]], int] = {}
        self.kept = kept
        self._fits: dict[tuple[Any, ...], tuple[bool, int]] = {}

    def fit(self, task: Task) -> tuple[bool, int]:
        """Whether some empty node takes ``task``, and how many such pods they hold."""
        known = self._fits.get(task.shape)
        if known is not None:
            return known
        fits, holds = False, 0
        for size, group in self.sizes.items():
            short, per_node = size_fit(task, group[0].allocatable)
            if short is not None:
                continue
            key = (task.placement.key, size)
            allowed = self._allowed.get(key)
            if allowed is None:
                allowed = self._allowed[key] = sum(
                    1 for n in group if static_failure(task, n) is None
                )
            if allowed:
                fits = True
                holds += per_node * allowed
        self._fits[task.shape] = (fits, holds)
        if len(self._fits) > self.kept:
            del self._fits[next(iter(self._fits))]
        return fits, holds

    def reasons(self, task: Task) -> dict[str, str]:
        """Why each empty node refuses ``task`` (every node, when it fits none).

        ``fit_failure`` on each empty node: the resource check once per size.
        """
        shorts = {
            size: size_fit(task, group[0].allocatable)[0] for size, group in self.sizes.items()
        }
        return {
            n.name: r
            for n in self.nodes
            if (r := shorts[n.size] or static_failure(task, n)) is not None
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
