"""The ``retrying`` phase: a failed attempt with retries left starts again on fresh objects.

KubeRay's Retrying case (``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0,
after ``checkBackoffLimitAndUpdateStatusIfNeeded``) deletes the RayCluster and the
submitter Job, then starts over as New with new IDs. raygang declares the next attempt's
objects in one run: they carry the new ``raygang.dev/attempt`` annotation and submission
ID (:func:`raygang.lifecycle.declared.run_resources`), so Pulumi replaces the old ones
through ``replaceOnChanges`` and the retry starts from fresh pods. An interrupted retry
(the record says attempt N, the objects are still of an earlier one) carries on here too.
"""

from __future__ import annotations

from raygang.lifecycle.declared import attempt_objects
from raygang.lifecycle.model import Declaration, Run

__all__ = ["declare_retrying"]


def declare_retrying(run: Run) -> Declaration:
    """Declare every object of the new attempt, which replaces the failed one's."""
    return Declaration(declared=attempt_objects(run.resources))
