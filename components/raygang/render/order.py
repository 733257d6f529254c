"""Creation order: every object of a plan once, and what a job's object waits for among its
companions (as :mod:`raygang.component` wires it)."""

from __future__ import annotations

from collections.abc import Iterator

from raygang.kuberay.jobplan import PlannedResource
from raygang.plan import StackPlan


def companion_deps(role: str, refs: list[str], spaces: list[str]) -> list[str]:
    """What a job's object waits for among its companions (as the component wires it)."""
    if role == "raycluster":
        return refs
    return spaces if role == "record" else []


def stream(plan: StackPlan) -> Iterator[PlannedResource]:
    """Every object once, in creation order: a job's companions come before its objects."""
    seen: set[str] = set()
    done: set[tuple[str, str, str, str]] = set()
    for job in plan.jobs:
        for companion in plan.companions_of(job):
            if companion.key not in done:
                done.add(companion.key)
                yield PlannedResource("companion", companion.manifest)
        for resource in job.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    for cluster in plan.clusters:
        for resource in cluster.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    for companion in plan.companions:
        if companion.key not in done:  # in a file whose jobs are all elsewhere: none
            done.add(companion.key)
            yield PlannedResource("companion", companion.manifest)
    for queue in plan.queues:
        if f"None/Queue/{queue.name}" not in seen:
            seen.add(f"None/Queue/{queue.name}")
            yield PlannedResource("queue", queue.manifest())
