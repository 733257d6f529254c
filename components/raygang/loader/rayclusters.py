"""RayCluster documents of their own: checked, and refused where they clash.

A RayCluster is checked as KubeRay checks one (:func:`raygang.rayjob.raycluster.load_raycluster`)
and refused when it claims to be a RayJob's (:mod:`raygang.kuberay.clusterrules`). One
RayCluster per namespace and name; and a RayCluster may not share its name with a RayJob of
its namespace: raygang names a RayJob's RayCluster and PodGroup after the job, so both
would be the same two objects (``<name>``, ``ray-<name>-pg``), written by two plans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from raygang.kube.errors import Problem, SpecError
from raygang.kuberay.clusterrules import origin_label_problems
from raygang.kuberay.manifests import podgroup_name
from raygang.loader.duplicates import redeclared
from raygang.rayjob.raycluster import RayClusterInput, load_raycluster
from raygang.rayjob.spec import RayJobInput

__all__ = ["cluster_clashes", "load_raycluster_document"]


def load_raycluster_document(doc: object, source: str) -> RayClusterInput:
    """Check one RayCluster document as the loader does.

    Raises:
        SpecError: every problem of the document.
    """
    try:
        item = load_raycluster(doc, source)
    except SpecError as exc:
        problems = list(exc.problems)
        # Read tolerantly: the document may be damaged anywhere (its problems say where).
        meta = doc.get("metadata") if isinstance(doc, Mapping) else None
        labels = meta.get("labels") if isinstance(meta, Mapping) else None
        if isinstance(labels, Mapping):
            readable = {k: v for k, v in labels.items() if isinstance(v, str)}
            problems += origin_label_problems(readable, source)
        raise SpecError(problems) from None
    found = origin_label_problems(item.labels, source)
    if found:
        raise SpecError(found)
    return item


def cluster_clashes(
    jobs: Sequence[RayJobInput], clusters: Sequence[RayClusterInput]
) -> list[Problem]:
    """A problem for each RayCluster declared twice, or named as a RayJob of its namespace."""
    problems: list[Problem] = []
    job_sources: dict[tuple[str, str], str] = {}
    for job in jobs:  # the first of a RayJob declared twice, as its own refusal names it
        job_sources.setdefault((job.namespace, job.name), job.source)
    for item, twice in redeclared("RayCluster", clusters):
        if twice is not None:
            problems.append(twice)
        key = (item.namespace, item.name)
        if key in job_sources:
            problems.append(
                Problem(
                    item.source,
                    "metadata.name",
                    f"RayCluster {item.namespace}/{item.name} and its PodGroup "
                    f"{podgroup_name(item.name)} are also the RayCluster and PodGroup of RayJob "
                    f"{item.namespace}/{item.name} ({job_sources[key]}): two plans for one gang",
                    "another name for the RayCluster or the RayJob",
                )
            )
    return problems
