"""The PodGroup's scheduling fields: the changes KubeRay never re-syncs, and their refusal.

Volcano reads a PodGroup's ``queue``, ``priorityClassName`` and ``networkTopology`` only
when it is created, and KubeRay's Volcano adapter never updates them on an existing
PodGroup (``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``
v1.7.0, ``syncPodGroup``: an existing PodGroup only has ``minMember`` and ``minResources``
updated), so KubeRay silently ignores such a change. raygang replaces the PodGroup for a
job that is not running, and refuses the change while it runs, before Pulumi sees it.
"""

from __future__ import annotations

from collections.abc import Sequence

from raygang.kube.errors import Problem, SpecError, field_path
from raygang.kuberay import manifests
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.lifecycle.facts.model import PodGroupFacts

__all__ = ["refuse_running_changes", "scheduling_changes"]


def _normal_queue(value: str | None) -> str:
    # An unset or empty queue is Volcano's "default" queue (the CRD and webhook default).
    return value or "default"


def scheduling_changes(
    declared: PlannedResource, live: PodGroupFacts
) -> list[tuple[str, str, object, object]]:
    """(spec field, label, live value, declared value) for every field KubeRay never re-syncs."""
    spec = declared.manifest.get("spec") or {}
    changes: list[tuple[str, str, object, object]] = []
    queue = _normal_queue(spec.get("queue"))
    if queue != _normal_queue(live.queue):
        changes.append(("queue", manifests.QUEUE_LABEL, _normal_queue(live.queue), queue))
    priority = spec.get("priorityClassName") or ""
    if priority != (live.priority_class or ""):
        changes.append(
            ("priorityClassName", manifests.PRIORITY_LABEL, live.priority_class or "", priority)
        )
    topology = spec.get("networkTopology") or None
    if (dict(topology) if topology else None) != (
        dict(live.network_topology) if live.network_topology else None
    ):
        changes.append(
            ("networkTopology", manifests.TOPOLOGY_MODE_LABEL, live.network_topology, topology)
        )
    return changes


def refuse_running_changes(
    plan: JobPlan, changes: Sequence[tuple[str, str, object, object]], pg: str
) -> None:
    """Refuse scheduling changes of a running job, one problem per field.

    Raises:
        SpecError: always, naming the label each field comes from.
    """
    problems = [
        Problem(
            plan.item.source,
            field_path(["metadata", "labels", label]),
            f"changes PodGroup {plan.namespace}/{pg} spec.{spec_field} from {old!r} to {new!r} "
            "while the job is running; Volcano reads it only when the PodGroup is created, so the "
            "PodGroup would have to be replaced under the running pods",
            "finish or suspend the job first (spec.suspend: true), then change it; "
            f"or keep {old!r}",
        )
        for spec_field, label, old, new in changes
    ]
    raise SpecError(problems)
