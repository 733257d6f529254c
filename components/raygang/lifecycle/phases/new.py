"""The ``new`` phase: nothing of the attempt exists yet, so all of it is declared.

KubeRay's New and Initializing cases (``ray-operator/controllers/ray/rayjob_controller.go``
v1.7.0) initialize the status, then create the RayCluster and, once it is ready, the
submitter Job. raygang declares the PodGroup, the RayCluster and the submitter Job at once;
Pulumi creates them in dependency order, and the submitter waits for the cluster itself.
A job resumed from ``spec.suspend`` and a new run after a spec edit start here too.
"""

from __future__ import annotations

from raygang.lifecycle.declared import attempt_objects
from raygang.lifecycle.model import Declaration, Run

__all__ = ["declare_new"]


def declare_new(run: Run) -> Declaration:
    """Declare every object of the attempt, as planned for it."""
    return Declaration(declared=attempt_objects(run.resources))
