"""A ``kind: RayCluster`` document: its typed view and KubeRay's checks on it.

A RayCluster created directly (not by a RayJob) is checked as KubeRay checks one:
``ValidateRayClusterMetadata`` (a DNS-1035 name of at most 53 characters,
``MaxRayClusterNameLength``) and ``ValidateRayClusterSpec``
(``ray-operator/controllers/ray/utils/validation.go``, v1.5.0). The spec's checks are the
RayJob path's own (:func:`raygang.rayjob.validate.cluster.check_cluster`, written for
``spec.rayClusterSpec``), called here and reported at the RayCluster's paths (``spec``).
Two of their findings do not apply to a RayCluster of its own and are left out: its
``spec.suspend`` is KubeRay's way to park a long-lived cluster (raygang zeroes its PodGroup,
:mod:`raygang.kuberay.clusterplan`), and the submitter's rules (there is none).

The structure (types, required fields, quantities) is the same typed
:class:`~raygang.rayjob.spec.RayClusterSpec` a RayJob's ``rayClusterSpec`` becomes, so the
gang arithmetic (:mod:`raygang.kuberay.gang`) reads both alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from raygang.kube.core import FrozenModel, ObjectMeta, frozen_model
from raygang.kube.errors import Problem, SpecError, describe_document
from raygang.kube.names import dns_problem, name_rules
from raygang.kube.tree import copy_tree
from raygang.rayjob.problems import problems_from_validation_error
from raygang.rayjob.spec import RayClusterSpec
from raygang.rayjob.validate.cluster import check_cluster
from raygang.rayjob.validate.metadata import (
    check_annotation_keys,
    check_labels,
    check_scheduling_labels,
)
from raygang.rayjob.validate.read import Checker, SubmitterRules, as_map, str_map

__all__ = ["MAX_CLUSTER_NAME", "RayCluster", "RayClusterInput", "load_raycluster"]

#: KubeRay's MaxRayClusterNameLength (``utils/constant.go``): room for the suffixes of the
#: objects it derives from the name (``<name>-head-svc``, pod names).
MAX_CLUSTER_NAME = 53

# Where the RayJob path's cluster checks name the cluster spec, and where it is here.
_JOB_BASE = "spec.rayClusterSpec"
_BASE = "spec"


@frozen_model
class RayCluster(FrozenModel):
    """A ``ray.io/v1`` RayCluster."""

    api_version: Literal["ray.io/v1"]
    kind: Literal["RayCluster"]
    metadata: ObjectMeta
    spec: RayClusterSpec


@dataclass(frozen=True)
class RayClusterInput:
    """A RayCluster as the user wrote it, plus its typed view.

    Attributes:
        source: where it came from (a file path, or ``stack config raygang:jobs[0]``).
        raw: a private deep copy of the manifest; renderers copy from it again.
        cluster: the validated model.
    """

    source: str
    raw: Mapping[str, Any]
    cluster: RayCluster

    @property
    def name(self) -> str:
        """The RayCluster's name."""
        return self.cluster.metadata.name

    @property
    def namespace(self) -> str:
        """The RayCluster's namespace (``default`` when the manifest has none)."""
        return self.cluster.metadata.namespace

    @property
    def labels(self) -> Mapping[str, str]:
        """The RayCluster's labels."""
        return self.cluster.metadata.labels

    @property
    def annotations(self) -> Mapping[str, str]:
        """The RayCluster's annotations."""
        return self.cluster.metadata.annotations

    @property
    def suspended(self) -> bool:
        """``spec.suspend: true``: KubeRay deletes the pods and keeps the object."""
        return self.cluster.spec.suspend is True

    def spec_view(self) -> Mapping[str, Any]:
        """The manifest's ``spec`` as written, not copied: for reading only."""
        spec = self.raw.get("spec")
        return spec if isinstance(spec, Mapping) else {}


def _no_rule(_: str) -> None:
    return None


# A RayCluster has no submitter: its rules never run on it (they read only RayJob fields).
_NO_SUBMITTER = SubmitterRules(entrypoint=_no_rule, runtime_env=_no_rule, job_id=_no_rule)


def _check_name(c: Checker, meta: Mapping[str, Any]) -> None:
    name = meta.get("name")
    rules = name_rules("DNS-1035 label", MAX_CLUSTER_NAME)
    if name is None or name == "":
        what = "is required but missing"
        if meta.get("generateName") is not None:
            what += (
                " (metadata.generateName is not supported: the PodGroup ray-<name>-pg and the "
                "other derived names must be known at preview)"
            )
        c.bad("metadata.name", what, f"metadata.name: {rules}")
    elif isinstance(name, str) and (why := dns_problem(name, "DNS-1035 label", MAX_CLUSTER_NAME)):
        c.bad(
            "metadata.name",
            f"{why}; KubeRay caps RayCluster names at {MAX_CLUSTER_NAME} "
            "(ValidateRayClusterMetadata)",
            rules,
        )
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and (why := dns_problem(namespace, "DNS-1123 label", 63)):
        c.bad(
            "metadata.namespace",
            why,
            name_rules("DNS-1123 label", 63) + "; omit it for the default namespace",
        )


def _at_cluster_path(problem: Problem) -> Problem | None:
    """A finding of the RayJob path's cluster checks, at the RayCluster's own path."""
    path = problem.path
    if path == f"{_JOB_BASE}.suspend":
        return None  # a RayCluster's own suspend is accepted: its PodGroup is zeroed
    if path == _JOB_BASE or path.startswith((f"{_JOB_BASE}.", f"{_JOB_BASE}[")):
        path = _BASE + path[len(_JOB_BASE) :]
    return Problem(problem.source, path, problem.message, problem.accepted)


def raycluster_problems(raw: Mapping[str, Any], source: str) -> list[Problem]:
    """Every semantic problem of one RayCluster manifest, read tolerantly from the raw dict."""
    c = Checker(source, _NO_SUBMITTER)
    meta = as_map(raw.get("metadata"))
    _check_name(c, meta)
    check_labels(c, "metadata.labels", meta.get("labels"))
    check_annotation_keys(c, "metadata.annotations", meta.get("annotations"))
    check_scheduling_labels(c, str_map(meta.get("labels")))
    spec = raw.get("spec")
    if isinstance(spec, Mapping):
        # No submission mode: the SidecarMode head rules do not apply.
        check_cluster(c, spec, "", meta)
    found = [_at_cluster_path(p) for p in c.out]
    return list(dict.fromkeys(p for p in found if p is not None))


def _under(path: str, parents: list[str]) -> bool:
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in parents)


def load_raycluster(raw: object, source: str) -> RayClusterInput:
    """Validate one RayCluster document: structure and KubeRay's rules, every problem together.

    Raises:
        SpecError: every structural and semantic problem of the document.
    """
    if not isinstance(raw, Mapping):
        raise SpecError.one(
            source,
            "<document>",
            f"{describe_document(raw)} is not a Kubernetes object",
            "a RayCluster object (apiVersion: ray.io/v1, kind: RayCluster, metadata, spec)",
        )
    private = copy_tree(dict(raw))
    structural: list[Problem] = []
    item = None
    try:
        item = RayClusterInput(source, private, RayCluster.model_validate(private))
    except ValidationError as exc:
        structural = problems_from_validation_error(exc, source)
    semantic = raycluster_problems(private, source)
    paths = [p.path for p in structural]
    problems = structural + [p for p in semantic if not _under(p.path, paths)]
    if problems or item is None:
        raise SpecError(problems)
    return item
