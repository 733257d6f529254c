"""The ``suspended`` phase: ``spec.suspend`` parks the job and releases its queue capacity.

KubeRay's Suspending and Suspended cases (``ray-operator/controllers/ray/rayjob_controller.go``
v1.7.0) delete the RayCluster and the submitter Job and wait for ``spec.suspend`` to be
cleared. raygang declares neither, and zeroes the PodGroup (kuberay#4939, KubeRay v1.7.0;
v1.5.0 leaves it) so the queue's capacity is released while the job waits, once the facts
show the cluster and its pods gone (:mod:`raygang.lifecycle.release`: until then they may
hold their nodes' resources); clearing ``spec.suspend`` plans the job as new.
"""

from __future__ import annotations

from raygang.lifecycle.declared import podgroup_with
from raygang.lifecycle.model import Declaration, Run
from raygang.lifecycle.release import held_until_gone

__all__ = ["declare_suspended"]


def declare_suspended(run: Run) -> Declaration:
    """Declare the PodGroup alone, zeroed once nothing of the cluster is left; the RayCluster
    and the submitter Job go."""
    why = {"raycluster": "spec.suspend: true", "submitter": "spec.suspend: true"}
    held = held_until_gone(run.plan, run.facts)
    if held is not None:
        # The attempt's gang, as the PodGroup held it while the job ran.
        return Declaration(
            declared={"podgroup": run.resources["podgroup"]},
            why={**why, "podgroup": f"spec.suspend: true; {held.why}"},
            later=(held.later,),
            next_change_at=run.now,
        )
    # KubeRay's Suspending: the cluster and the submitter go, the PodGroup is zeroed
    # (kuberay#4939) so the queue's capacity is released while the job waits.
    return Declaration(
        declared={"podgroup": podgroup_with(run.resources["podgroup"], 0, {})},
        why={**why, "podgroup": "spec.suspend: true releases the queue capacity"},
    )
