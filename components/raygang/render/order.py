"""Creation order: every object of a plan once, what a job's or a cluster's object waits for
among its companions (as :mod:`raygang.component` wires it), and who a companion serves."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from raygang.kuberay.jobplan import PlannedResource
from raygang.plan import Companion, StackPlan


def companion_deps(
    role: str, refs: list[str], spaces: list[str], first: str = "record"
) -> list[str]:
    """What a job's or a cluster's object waits for among its companions (as the component
    wires it): the RayCluster waits for all of them; ``first``, the object created first in
    the namespace (a job's record, a RayCluster of its own's PodGroup), for the Namespaces."""
    if role == "raycluster":
        return refs
    return spaces if role == first else []


def cluster_keys(plan: StackPlan) -> frozenset[str]:
    """``namespace/name`` of the plan's RayClusters of their own."""
    return frozenset(f"{c.plan.namespace}/{c.plan.name}" for c in plan.clusters)


def users(companion: Companion, clusters: frozenset[str], but: str | None = None) -> list[str]:
    """Who depends on ``companion`` (but ``but``), as the outputs name them: a RayJob by
    ``namespace/name``, a RayCluster of its own as ``RayCluster namespace/name``, as a
    queue's ``jobs`` list of the JSON document names it."""
    return [_named(key, clusters) for key in companion.jobs if key != but]


def _named(key: str, clusters: frozenset[str]) -> str:
    return f"RayCluster {key}" if key in clusters else key


def _companions_first(
    companions: Sequence[Companion], done: set[tuple[str, str, str, str]]
) -> Iterator[PlannedResource]:
    for companion in companions:
        if companion.key not in done:
            done.add(companion.key)
            yield PlannedResource("companion", companion.manifest)


def stream(plan: StackPlan) -> Iterator[PlannedResource]:
    """Every object once, in creation order: the companions of a job or of a RayCluster of
    its own come before its objects."""
    seen: set[str] = set()
    done: set[tuple[str, str, str, str]] = set()
    for job in plan.jobs:
        yield from _companions_first(plan.companions_of(job), done)
        for resource in job.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    for cluster in plan.clusters:
        yield from _companions_first(plan.companions_of(cluster), done)
        for resource in cluster.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    # In a file without a RayJob or a RayCluster of its own.
    yield from _companions_first(plan.companions, done)
    for queue in plan.queues:
        if f"None/Queue/{queue.name}" not in seen:
            seen.add(f"None/Queue/{queue.name}")
            yield PlannedResource("queue", queue.manifest())
