"""Semantic checks on a RayJob, reported all together with the structural ones.

Structural problems (wrong types, missing fields, bad quantities) are found when the model
is built (:mod:`raygang.rayjob.spec`), and so are the deletion strategy's
(:mod:`raygang.rayjob.deletion`), once the structure is valid. This package refuses what
KubeRay's validation (``ray-operator/controllers/ray/utils/validation.go``), Volcano's CRDs
and webhooks, or Kubernetes' own pod and Job validation would refuse later: at apply time
or, worse, silently at run time, while the PodGroup holds queue capacity.

The checks read the *raw* manifest through tolerant accessors (:mod:`.read`: a value of the
wrong type reads as absent), so they run even when the structural validation failed, and
:func:`load_rayjob` can report both kinds of problem of one document in one go.

One module per part of the manifest: :mod:`.metadata` (names and labels), :mod:`.jobspec`
(``ValidateRayJobSpec``), :mod:`.cluster` and :mod:`.cluster_options`
(``ValidateRayClusterSpec``), :mod:`.groups` (worker groups and ``minMember``), :mod:`.pod`
and :mod:`.resources` (Kubernetes' pod validation), :mod:`.load` (the entry points).

A queue referenced by a job but declared nowhere is accepted: it is assumed to exist.
"""

from raygang.rayjob.validate.jobspec import SIDECAR_NO_CONFIG, SIDECAR_NO_TEMPLATE
from raygang.rayjob.validate.load import check_rayjob, load_rayjob, manifest_problems
from raygang.rayjob.validate.metadata import MAX_JOB_NAME
from raygang.rayjob.validate.read import Refusal, SubmitterRules

__all__ = [
    "MAX_JOB_NAME",
    "SIDECAR_NO_CONFIG",
    "SIDECAR_NO_TEMPLATE",
    "Refusal",
    "SubmitterRules",
    "check_rayjob",
    "load_rayjob",
    "manifest_problems",
]
