"""The stack's other jobs in the same queue, which the same ``pulumi up`` creates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from raygang.kuberay.jobplan import JobPlan
from raygang.volcano.api import Res, add_res, sub, to_res

# Beyond this many same-queue jobs of the stack, the advisory ``siblings`` check compares
# summed resources instead of placing every other gang for every job (quadratic).
MAX_SIMULATED_SIBLINGS = 8

# --- The stack's other jobs ---------------------------------------------------------------
# Sibling messages name this many jobs, then say how many more.
SIBLINGS_NAMED = 5


@dataclass(frozen=True)
class QueueJobs:
    """The jobs of a stack that use one queue, and their ``minResources`` summed."""

    jobs: tuple[JobPlan, ...]
    keys: tuple[tuple[str, str], ...]  # (namespace, name) of each job
    minimum: Res
    # (namespace, name) -> the job's own minResources in Volcano's units.
    own: Mapping[tuple[str, str], Res]
    # (namespace, name) -> the job's position in ``jobs``; None when a key repeats.
    position: Mapping[tuple[str, str], int] | None


def by_queue(others: Sequence[JobPlan]) -> dict[str, QueueJobs]:
    """The stack's jobs grouped by queue, each group's minResources summed (once per
    planning pass: :class:`raygang.preflight.stack.StackView` holds it)."""
    grouped: dict[str, list[JobPlan]] = {}
    for job in others:
        grouped.setdefault(job.queue or "default", []).append(job)
    index = {}
    for queue, jobs in grouped.items():
        keys = tuple((j.namespace, j.name) for j in jobs)
        own = {key: to_res(j.gang.min_resources) for key, j in zip(keys, jobs, strict=True)}
        position = {key: i for i, key in enumerate(keys)}
        unique = position if len(position) == len(keys) else None
        index[queue] = QueueJobs(tuple(jobs), keys, add_res(*own.values()), own, unique)
    return index


def siblings_of(
    index: Mapping[str, QueueJobs], plan: JobPlan, queue: str
) -> tuple[list[JobPlan], Res]:
    """The other jobs of the stack (``index``: :func:`by_queue`) in ``queue``, ``plan``
    itself left out, and their ``minResources`` summed; the sums are made once per stack,
    a copy of the list per job."""
    entry = index.get(queue)
    if entry is None:
        return [], {}
    key = (plan.namespace, plan.name)
    if entry.position is None:
        jobs = [j for j, k in zip(entry.jobs, entry.keys, strict=True) if k != key]
    else:
        at = entry.position.get(key)
        jobs = list(entry.jobs) if at is None else [*entry.jobs[:at], *entry.jobs[at + 1 :]]
    if key not in entry.own:
        return jobs, entry.minimum
    # Exact: the minimum of the others is the queue's sum less this job's own.
    return jobs, {n: v for n, v in sub(entry.minimum, entry.own[key]).items() if v}


def sibling_name(plan: JobPlan) -> str:
    """A sibling as the words name it: a RayJob as ``namespace/name``, a RayCluster of its
    own as ``RayCluster namespace/name``, as the plan document's queue ``jobs`` lists name
    them (its gang is judged as a RayJob's, but it is none)."""
    key = f"{plan.namespace}/{plan.name}"
    return f"RayCluster {key}" if plan.kind == "RayCluster" else key
