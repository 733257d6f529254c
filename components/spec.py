"""Typed, frozen views of the RayJob fields raygang reads.

The models cover only what planning needs. The user's manifest itself is kept verbatim
beside the model (:class:`RayJobInput`), and every rendered object is built from that raw
copy, so fields we do not model (volumes, tolerations, affinity, fields of newer KubeRay
versions) pass through untouched by construction.

Defaults are the CRD defaults the API server would apply (``replicas: 0``,
``numOfHosts: 1``, ``submissionMode: K8sJobMode`` ...), because KubeRay computes the gang on
the defaulted object.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError
from pydantic.alias_generators import to_camel

from components.errors import Problem, SpecError, field_path
from components.quantity import Quantity, QuantityError

__all__ = [
    "AutoscalerOptions",
    "Container",
    "HeadGroupSpec",
    "ObjectMeta",
    "PodSpec",
    "PodTemplate",
    "RayClusterSpec",
    "RayJob",
    "RayJobInput",
    "RayJobSpec",
    "ResourceRequirements",
    "SubmissionMode",
    "WorkerGroupSpec",
    "parse_rayjob",
    "problems_from_validation_error",
]

INT32_MAX = 2_147_483_647

SubmissionMode = Literal["K8sJobMode", "SidecarMode", "InteractiveMode", "HTTPMode"]


def _to_quantity(value: object) -> Quantity:
    if isinstance(value, Quantity):
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"invalid quantity {value!r}: expected a string such as 500m, 1.5 or 2Gi")
    try:
        return Quantity.parse(value)
    except QuantityError as exc:
        raise ValueError(str(exc)) from None


QuantityField = Annotated[Quantity, PlainValidator(_to_quantity)]
ResourceList = dict[str, QuantityField]


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        populate_by_name=True,
        alias_generator=to_camel,
        arbitrary_types_allowed=True,
    )


class ObjectMeta(_Model):
    """The metadata fields planning reads."""

    name: str = ""
    namespace: str = "default"
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class ResourceRequirements(_Model):
    """``resources`` of a container, with quantities parsed exactly."""

    requests: ResourceList = Field(default_factory=dict)
    limits: ResourceList = Field(default_factory=dict)


class Container(_Model):
    """A container (regular or init)."""

    name: str
    image: str | None = None
    command: list[str] | None = None
    resources: ResourceRequirements = Field(default_factory=ResourceRequirements)
    # Only init containers use it: "Always" makes a native sidecar (KEP-753).
    restart_policy: str | None = None


class PodSpec(_Model):
    """The pod spec fields that decide what a pod requests."""

    containers: list[Container] = Field(min_length=1)
    init_containers: list[Container] = Field(default_factory=list)
    overhead: ResourceList = Field(default_factory=dict)
    # Pod-level resources (KEP-2837) replace the container sum for the names they set.
    resources: ResourceRequirements | None = None
    restart_policy: str | None = None


class PodTemplate(_Model):
    """A pod template: metadata and spec."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodSpec


class HeadGroupSpec(_Model):
    """``rayClusterSpec.headGroupSpec``."""

    template: PodTemplate


class WorkerGroupSpec(_Model):
    """One ``rayClusterSpec.workerGroupSpecs[]`` entry, with the CRD defaults."""

    group_name: str
    replicas: int | None = 0
    min_replicas: int | None = 0
    max_replicas: int | None = INT32_MAX
    num_of_hosts: int = 1
    suspend: bool | None = None
    template: PodTemplate


class AutoscalerOptions(_Model):
    """``rayClusterSpec.autoscalerOptions`` (only its resources matter to the gang)."""

    resources: ResourceRequirements | None = None


class RayClusterSpec(_Model):
    """``spec.rayClusterSpec``."""

    head_group_spec: HeadGroupSpec
    worker_group_specs: list[WorkerGroupSpec] = Field(default_factory=list)
    enable_in_tree_autoscaling: bool | None = None
    autoscaler_options: AutoscalerOptions | None = None
    ray_version: str | None = None


class SubmitterConfig(_Model):
    """``spec.submitterConfig``."""

    backoff_limit: int | None = None


class RayJobSpec(_Model):
    """``spec`` of a RayJob: every field planning, the submitter or the lifecycle reads."""

    entrypoint: str = ""
    runtime_env_yaml: str | None = Field(default=None, alias="runtimeEnvYAML")
    metadata: dict[str, str] = Field(default_factory=dict)
    entrypoint_num_cpus: float | None = None
    entrypoint_num_gpus: float | None = None
    entrypoint_resources: str | None = None
    submission_mode: str = "K8sJobMode"
    submitter_pod_template: PodTemplate | None = None
    submitter_config: SubmitterConfig | None = None
    shutdown_after_job_finishes: bool = False
    ttl_seconds_after_finished: int = 0
    suspend: bool = False
    cluster_selector: dict[str, str] = Field(default_factory=dict)
    job_id: str | None = None
    backoff_limit: int = 0
    active_deadline_seconds: int | None = None
    deletion_strategy: dict[str, Any] | None = None
    ray_cluster_spec: RayClusterSpec | None = None


class RayJob(_Model):
    """A ``ray.io/v1`` RayJob."""

    api_version: Literal["ray.io/v1"]
    kind: Literal["RayJob"]
    metadata: ObjectMeta
    spec: RayJobSpec

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace (``default`` when the manifest has none)."""
        return self.metadata.namespace


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
        return copy.deepcopy(dict(spec)) if isinstance(spec, Mapping) else {}


def problems_from_validation_error(exc: ValidationError, source: str) -> list[Problem]:
    """Turn pydantic's errors into :class:`Problem` rows with Kubernetes field paths."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        etype = err["type"]
        value = err.get("input")
        if etype == "missing":
            message, accepted = "is required but missing", ""
        elif etype == "value_error":
            ctx = err.get("ctx") or {}
            message, accepted = str(ctx.get("error", err["msg"])), ""
        elif etype == "literal_error":
            message = f"{value!r} is not accepted"
            accepted = str((err.get("ctx") or {}).get("expected", ""))
        elif etype == "too_short" and loc and loc[-1] == "containers":
            message, accepted = "has no containers", "at least one container"
        else:
            message = f"{err['msg'][0].lower()}{err['msg'][1:]}; got {_short(value)}"
            accepted = ""
        problems.append(Problem(source, field_path(loc), message, accepted))
    return problems


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_rayjob(raw: Mapping[str, Any], source: str) -> RayJobInput:
    """Validate one RayJob document.

    Args:
        raw: the manifest as loaded from YAML or stack config.
        source: where it came from, for error messages.

    Returns:
        The typed job with a private deep copy of the manifest.

    Raises:
        SpecError: every structural problem in the document.
    """
    if not isinstance(raw, Mapping):
        raise SpecError.one(
            source, "<document>", f"is a {type(raw).__name__}, not a mapping", "a RayJob object"
        )
    private = copy.deepcopy(dict(raw))
    try:
        job = RayJob.model_validate(private)
    except ValidationError as exc:
        raise SpecError(problems_from_validation_error(exc, source)) from None
    return RayJobInput(source=source, raw=private, job=job)
