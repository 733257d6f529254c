"""RayJobs declared twice: one RayJob per namespace and name, whichever inputs hold them."""

from __future__ import annotations

from collections.abc import Sequence

from raygang.kube.errors import Problem
from raygang.rayjob.spec import RayJobInput

__all__ = ["duplicate_jobs"]


def duplicate_jobs(jobs: Sequence[RayJobInput]) -> list[Problem]:
    """A problem for each job whose namespace and name an earlier job has, in input order."""
    problems: list[Problem] = []
    seen: dict[tuple[str, str], str] = {}
    for item in jobs:
        key = (item.namespace, item.name)
        if key in seen:
            problems.append(
                Problem(
                    item.source,
                    "metadata.name",
                    f"RayJob {item.namespace}/{item.name} is also defined in {seen[key]}",
                    "one RayJob per namespace and name",
                )
            )
        seen.setdefault(key, item.source)
    return problems
