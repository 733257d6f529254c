"""Semantic checks on a RayJob, reported all together with the structural ones.

The typed model (:class:`raygang.rayjob.spec.RayJob`) runs them when it is built with the
submitter's rules (:func:`raygang.rayjob.spec.load_rayjob`), beside its structural
validation (wrong types, missing fields, bad quantities) and the deletion strategy's rules
(:mod:`raygang.rayjob.deletion`), and reports every problem in one error. This package
refuses what KubeRay's validation (``ray-operator/controllers/ray/utils/validation.go``),
Volcano's CRDs and webhooks, or Kubernetes' own pod and Job validation would refuse later:
at apply time or, worse, silently at run time, while the PodGroup holds queue capacity.

The checks read the *raw* manifest through tolerant accessors (:mod:`.read`: a value of the
wrong type reads as absent), so they run even when the structural validation failed, and
both kinds of problem of one document are reported in one go.

One module per part of the manifest: :mod:`.metadata` (names and labels), :mod:`.jobspec`
(``ValidateRayJobSpec``), :mod:`.cluster` and :mod:`.cluster_options`
(``ValidateRayClusterSpec``), :mod:`.groups` (worker groups and ``minMember``), :mod:`.pod`
and :mod:`.resources` (Kubernetes' pod validation), :mod:`.load` (all of them, in order).

A queue referenced by a job but declared nowhere is accepted: it is assumed to exist.
"""

from raygang.rayjob.validate.jobspec import SIDECAR_NO_CONFIG, SIDECAR_NO_TEMPLATE
from raygang.rayjob.validate.load import manifest_problems
from raygang.rayjob.validate.metadata import MAX_JOB_NAME
from raygang.rayjob.validate.read import Refusal, SubmitterRules

__all__ = [
    "MAX_JOB_NAME",
    "SIDECAR_NO_CONFIG",
    "SIDECAR_NO_TEMPLATE",
    "Refusal",
    "SubmitterRules",
    "manifest_problems",
]
