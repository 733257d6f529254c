"""The ``running`` phase: the attempt's objects exist; keep them, refuse what cannot change.

KubeRay's Initializing and Running cases (``ray-operator/controllers/ray/rayjob_controller.go``
v1.7.0) keep the RayCluster and the submitter Job and watch for the finish. raygang keeps
declaring them, updated in place by a spec edit (the RayCluster and the gang follow it; the
submission ID stays pinned, so the job is never submitted twice), and refuses a queue,
priority or topology change, which would replace the PodGroup under the running pods
(:mod:`raygang.lifecycle.scheduling`).
"""

from __future__ import annotations

from raygang.lifecycle.declared import attempt_objects
from raygang.lifecycle.model import Declaration, Run
from raygang.lifecycle.scheduling import refuse_running_changes, scheduling_changes

__all__ = ["declare_running"]


def declare_running(run: Run) -> Declaration:
    """Declare every object of the running attempt.

    Raises:
        SpecError: the PodGroup's queue, priority class or network topology would change.
    """
    declared = attempt_objects(run.resources)
    live = run.facts.podgroup
    if live is not None:
        changes = scheduling_changes(declared["podgroup"], live)
        if changes:
            refuse_running_changes(run.plan, changes, run.plan.podgroup_name)
    return Declaration(declared=declared)
