"""Typed, frozen views of the RayJob fields raygang reads.

The models cover only what planning needs. The user's manifest itself is kept verbatim
beside the model (:class:`RayJobInput`), and every rendered object is built from that raw
copy, so fields we do not model (volumes, tolerations, affinity, fields of newer KubeRay
versions) pass through untouched by construction.

Scalars are validated *strictly*: the raw copy is what reaches the API server, so a value
pydantic would coerce (``replicas: "2"``, ``shutdownAfterJobFinishes: "yes"``,
``rayVersion: 2.52``) must be refused here, or the CRD would refuse the RayCluster later,
at apply time.

Defaults are the CRD defaults the API server would apply (``replicas: 0``,
``numOfHosts: 1``, ``submissionMode: K8sJobMode`` ...), because KubeRay computes the gang on
the defaulted object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from raygang.kube.core import (
    INT32_MAX,
    FrozenModel,
    ObjectMeta,
    PodTemplate,
    ResourceRequirements,
    StringMap,
    field,
    frozen_model,
)
from raygang.kube.errors import SpecError, describe_document
from raygang.kube.quantity import Quantity
from raygang.kube.tree import copy_tree
from raygang.rayjob.deletion import DeletionStrategy, read_deletion_strategy
from raygang.rayjob.problems import (
    KUBERAY_RULES,
    Finding,
    error_finding,
    problems_from_validation_error,
)
from raygang.rayjob.validate import SubmitterRules, manifest_problems

__all__ = [
    "INT32_MAX",
    "AutoscalerOptions",
    "HeadGroupSpec",
    "ObjectMeta",
    "PodTemplate",
    "RayClusterSpec",
    "RayJob",
    "RayJobInput",
    "RayJobSpec",
    "ResourceRequirements",
    "SubmitterConfig",
    "WorkerGroupSpec",
    "load_rayjob",
    "parse_rayjob",
    "parsed_quantities",
]


@frozen_model
class HeadGroupSpec(FrozenModel):
    """``rayClusterSpec.headGroupSpec``."""

    template: PodTemplate
    # The CRD declares both maps as string to string; `num-cpus: 1` is refused.
    ray_start_params: StringMap = field(default_factory=dict)
    resources: StringMap = field(default_factory=dict)
    labels: StringMap = field(default_factory=dict)


@frozen_model
class WorkerGroupSpec(FrozenModel):
    """One ``rayClusterSpec.workerGroupSpecs[]`` entry, with the CRD defaults."""

    group_name: StrictStr
    replicas: StrictInt | None = 0
    min_replicas: StrictInt | None = 0
    max_replicas: StrictInt | None = INT32_MAX
    num_of_hosts: StrictInt = 1
    suspend: StrictBool | None = None
    idle_timeout_seconds: StrictInt | None = None
    template: PodTemplate
    ray_start_params: StringMap = field(default_factory=dict)
    resources: StringMap = field(default_factory=dict)
    labels: StringMap = field(default_factory=dict)


@frozen_model
class AutoscalerOptions(FrozenModel):
    """``rayClusterSpec.autoscalerOptions`` (its resources matter to the gang)."""

    resources: ResourceRequirements | None = None
    version: StrictStr | None = None


@frozen_model
class RayClusterSpec(FrozenModel):
    """``spec.rayClusterSpec``."""

    head_group_spec: HeadGroupSpec
    worker_group_specs: list[WorkerGroupSpec] = field(default_factory=list)
    enable_in_tree_autoscaling: StrictBool | None = None
    autoscaler_options: AutoscalerOptions | None = None
    ray_version: StrictStr | None = None
    gcs_fault_tolerance_options: dict[StrictStr, Any] | None = None
    auth_options: dict[StrictStr, Any] | None = None
    suspend: StrictBool | None = None

    @property
    def autoscaling(self) -> bool:
        """KubeRay's IsAutoscalingEnabled: only an explicit ``enableInTreeAutoscaling: true``."""
        return self.enable_in_tree_autoscaling is True


@frozen_model
class SubmitterConfig(FrozenModel):
    """``spec.submitterConfig``."""

    backoff_limit: StrictInt | None = None


@frozen_model
class RayJobSpec(FrozenModel):
    """``spec`` of a RayJob: every field planning, the submitter or the lifecycle reads."""

    entrypoint: StrictStr = ""
    runtime_env_yaml: StrictStr | None = field(default=None, alias="runtimeEnvYAML")
    metadata: StringMap = field(default_factory=dict)
    entrypoint_num_cpus: StrictFloat | None = None
    entrypoint_num_gpus: StrictFloat | None = None
    entrypoint_resources: StrictStr | None = None
    submission_mode: StrictStr = "K8sJobMode"
    submitter_pod_template: PodTemplate | None = None
    submitter_config: SubmitterConfig | None = None
    shutdown_after_job_finishes: StrictBool = False
    ttl_seconds_after_finished: StrictInt = 0
    suspend: StrictBool = False
    cluster_selector: StringMap = field(default_factory=dict)
    job_id: StrictStr | None = None
    backoff_limit: StrictInt = 0
    active_deadline_seconds: StrictInt | None = None
    pre_running_deadline_seconds: StrictInt | None = None
    deletion_strategy: dict[StrictStr, Any] | None = None
    managed_by: StrictStr | None = None
    ray_cluster_spec: RayClusterSpec | None = None


@frozen_model
class RayJob(FrozenModel):
    """A ``ray.io/v1`` RayJob."""

    api_version: Literal["ray.io/v1"]
    kind: Literal["RayJob"]
    metadata: ObjectMeta
    spec: RayJobSpec
    # Not read from the manifest (init=False): the checked spec.deletionStrategy, set by
    # the validator below while the instance is being built, before anyone can see it.
    deletion: DeletionStrategy | None = Field(default=None, init=False)

    @model_validator(mode="after")
    def _deletion_strategy(self) -> RayJob:
        """KubeRay's deletion-strategy rules (:mod:`raygang.rayjob.deletion`).

        An ``after`` validator of the whole job: it runs only once every field is valid,
        so its problems follow those of the manifest's other rules, as KubeRay reports
        them after the CRD's schema.
        """
        raw = self.spec.deletion_strategy
        if raw is None:
            return self
        cluster = self.spec.ray_cluster_spec
        strategy, findings = read_deletion_strategy(
            raw,
            autoscaling=cluster is not None and cluster.autoscaling,
            shutdown=self.spec.shutdown_after_job_finishes,
        )
        if findings:
            raise PydanticCustomError(
                KUBERAY_RULES, "{count} problems", {"count": len(findings), "found": findings}
            )
        object.__setattr__(self, "deletion", strategy)
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _kuberay_validation(
        cls, data: object, handler: ModelWrapValidatorHandler[RayJob], info: ValidationInfo
    ) -> RayJob:
        """KubeRay's validation of the whole document, every problem in one error.

        With the submitter's rules in the context (:func:`load_rayjob`), the semantic rules
        (:func:`raygang.rayjob.validate.manifest_problems`) run beside the structural
        validation, even when it fails, since they read the manifest tolerantly. The
        structure's problems come first, in pydantic's order; then the rules', each dropped
        when it is at or below a structural problem (it would say the same again); the
        deletion strategy's last (its validator runs only on a valid structure). Without
        the context (:func:`parse_rayjob`): the structure and the deletion strategy only.
        """
        context = info.context or {}
        rules = context.get("rules")
        if rules is None or not isinstance(data, Mapping):
            return handler(data)
        job: RayJob | None = None
        structural: list[Finding] = []
        deletion: list[Finding] = []
        try:
            job = handler(data)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                if err["type"] == KUBERAY_RULES:
                    deletion += err["ctx"]["found"]
                else:
                    structural.append(error_finding(err))
        parsed = parsed_quantities(job) if job is not None else None
        semantic = [
            (p.path, p.message, p.accepted)
            for p in manifest_problems(data, context["source"], rules, parsed)
        ]
        paths = [path for path, _, _ in structural]
        found = structural + [f for f in semantic + deletion if not _under(f[0], paths)]
        if found or job is None:
            raise PydanticCustomError(
                KUBERAY_RULES, "{count} problems", {"count": len(found), "found": found}
            )
        return job

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace (``default`` when the manifest has none)."""
        return self.metadata.namespace


def _under(path: str, parents: Sequence[str]) -> bool:
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in parents)


def parsed_quantities(job: RayJob) -> dict[str, Quantity]:
    """The containers' quantities of a structurally valid job, as its typed model parsed
    them, by the field paths :mod:`raygang.rayjob.validate.resources` names them with."""
    templates: list[tuple[str, PodTemplate]] = []
    cluster = job.spec.ray_cluster_spec
    if cluster is not None:
        templates.append(
            ("spec.rayClusterSpec.headGroupSpec.template", cluster.head_group_spec.template)
        )
        for index, group in enumerate(cluster.worker_group_specs):
            templates.append(
                (f"spec.rayClusterSpec.workerGroupSpecs[{index}].template", group.template)
            )
    if job.spec.submitter_pod_template is not None:
        templates.append(("spec.submitterPodTemplate", job.spec.submitter_pod_template))
    found: dict[str, Quantity] = {}
    for path, template in templates:
        pod = template.spec
        for key, containers in (
            ("initContainers", pod.init_containers),
            ("containers", pod.containers),
        ):
            for index, container in enumerate(containers):
                where = f"{path}.spec.{key}[{index}].resources"
                for part, values in (
                    ("requests", container.resources.requests),
                    ("limits", container.resources.limits),
                ):
                    for name, quantity in values.items():
                        found[f"{where}.{part}[{name!r}]"] = quantity
    return found


@dataclass(frozen=True)
class RayJobInput:
    """A RayJob as the user wrote it, plus its typed view.

    Attributes:
        source: where it came from (a file path, or ``stack config raygang:jobs[0]``).
        raw: a private deep copy of the manifest; renderers copy from it again.
        job: the validated model.
    """

    source: str
    raw: Mapping[str, Any]
    job: RayJob

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.job.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace."""
        return self.job.namespace

    def raw_spec(self) -> dict[str, Any]:
        """A fresh deep copy of the manifest's ``spec``, safe to modify."""
        spec = self.raw.get("spec")
        return copy_tree(dict(spec)) if isinstance(spec, Mapping) else {}

    def spec_view(self) -> Mapping[str, Any]:
        """The manifest's ``spec`` as written, not copied: for reading only.

        Copying a whole spec costs about as much as planning the rest of the job, so
        readers take this and writers copy just the part they change.
        """
        spec = self.raw.get("spec")
        return MappingProxyType(spec if isinstance(spec, Mapping) else {})


def load_rayjob(raw: object, source: str, rules: SubmitterRules | None = None) -> RayJobInput:
    """Validate one RayJob document: every problem of it together, or the typed job.

    Args:
        raw: the manifest as loaded from YAML or stack config (anything but a mapping is
            reported as a problem).
        source: where it came from, for messages.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``): with
            them, every rule of KubeRay's validation runs (:meth:`RayJob._kuberay_validation`);
            without them, the structure and the deletion strategy only.

    Returns:
        The typed job with a private deep copy of the manifest.

    Raises:
        SpecError: every problem of the document.
    """
    if not isinstance(raw, Mapping):
        raise SpecError.one(
            source,
            "<document>",
            f"{describe_document(raw)} is not a Kubernetes object",
            "a RayJob object (apiVersion: ray.io/v1, kind: RayJob, metadata, spec)",
        )
    private = copy_tree(dict(raw))
    context = None if rules is None else {"rules": rules, "source": source}
    try:
        job = RayJob.model_validate(private, context=context)
    except ValidationError as exc:
        raise SpecError(problems_from_validation_error(exc, source)) from None
    return RayJobInput(source=source, raw=private, job=job)


def parse_rayjob(raw: object, source: str) -> RayJobInput:
    """Validate one RayJob document's structure and deletion strategy only.

    For jobs built by hand (tests, the lifecycle's what-ifs) that need a typed model but
    not KubeRay's other rules; the loader uses :func:`load_rayjob` with the submitter's
    rules.

    Raises:
        SpecError: every structural problem in the document, or every problem of its
            deletion strategy.
    """
    return load_rayjob(raw, source)
