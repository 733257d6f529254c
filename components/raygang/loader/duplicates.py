"""RayJobs and RayClusters declared twice: one of each kind per namespace and name, whichever
inputs hold them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

from raygang.kube.errors import Problem
from raygang.rayjob.raycluster import RayClusterInput
from raygang.rayjob.spec import RayJobInput

__all__ = ["duplicate_jobs", "redeclared"]

_Item = TypeVar("_Item", RayJobInput, RayClusterInput)


def redeclared(kind: str, items: Sequence[_Item]) -> Iterator[tuple[_Item, Problem | None]]:
    """Each item, in input order, with the problem of its namespace and name being an earlier
    item's (naming the first one's source), or None for the first of its namespace and name.

    The one rule for both kinds: :func:`duplicate_jobs` keeps the problems,
    :func:`~raygang.loader.rayclusters.cluster_clashes` checks each RayCluster further.
    """
    seen: dict[tuple[str, str], str] = {}
    for item in items:
        key = (item.namespace, item.name)
        problem = None
        if key in seen:
            problem = Problem(
                item.source,
                "metadata.name",
                f"{kind} {item.namespace}/{item.name} is also defined in {seen[key]}",
                f"one {kind} per namespace and name",
            )
        seen.setdefault(key, item.source)
        yield item, problem


def duplicate_jobs(jobs: Sequence[RayJobInput]) -> list[Problem]:
    """A problem for each job whose namespace and name an earlier job has, in input order."""
    return [problem for _, problem in redeclared("RayJob", jobs) if problem is not None]
